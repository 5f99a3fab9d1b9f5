use super::rows::over_moments;
use super::*;
use crate::metrics::stats::{binomial_ci, in_interval};

/// Moments with these false positives each, spread evenly over `batches`.
fn moments(fps: impl IntoIterator<Item = u64>, batches: usize, theory: f64) -> Vec<MomentFpr> {
    let fps: Vec<u64> = fps.into_iter().collect();
    let n = fps.len();
    fps.into_iter()
        .enumerate()
        .map(|(i, fp)| MomentFpr {
            batch: i * batches / n,
            fp,
            theory,
        })
        .collect()
}

/// Moments that all measured no false positive: the interval is the
/// pooled Clopper-Pearson one, not [0, 0], and a theory of 1e-10 is
/// inside it (the verdict was "no").
#[test]
fn moments_without_false_positives_get_an_exact_interval() {
    let m = moments(vec![0; 50], 10, 1e-10);
    let (x, ci, th) = over_moments(&m, 2000, 10, 0.99);
    assert_eq!(x, 0.0);
    assert_eq!(ci, binomial_ci(0, 100_000, 0.99));
    assert!(ci.1 > 0.0);
    assert_eq!(in_interval(th, ci), Some(true));
}

/// Batches that differ more than their queries' binomial noise allows
/// (the moments of a batch share its keys): the interval is the one over
/// the batches, wider than the pooled Clopper-Pearson one, which treats
/// every query of the run as independent.
#[test]
fn batches_that_spread_widen_the_interval() {
    // ten batches of five moments, batch b measuring 5 + 2b false
    // positives of 2000 at each moment
    let m = moments((0..50).map(|i| 5 + 2 * (i / 5)), 10, 7e-3);
    let (x, ci, _) = over_moments(&m, 2000, 10, 0.95);
    let pooled = binomial_ci((x * 100_000.0).round() as u64, 100_000, 0.95);
    assert!(ci.0 < pooled.0 && ci.1 > pooled.1, "{ci:?} {pooled:?}");
    assert!(ci.0 <= x && x <= ci.1);
}

/// One moment (the peak of a run whose other moments are below 90% of
/// it): no interval over batches exists; its queries' own binomial one
/// is given.
#[test]
fn one_moment_gets_its_queries_interval() {
    let m = moments([3], 10, 1e-3);
    let (x, ci, _) = over_moments(&m, 2000, 10, 0.99);
    assert_eq!(x, 1.5e-3);
    assert_eq!(ci, binomial_ci(3, 2000, 0.99));
    assert!(ci.0 > 0.0 && ci.1 > x);
}
