use super::rows::over_moments;
use super::*;
use crate::metrics::stats::{binomial_ci, in_interval};

/// Moments that all measured no false positive: the interval is the
/// pooled Clopper-Pearson one, not [0, 0], and a theory of 1e-10 is
/// inside it (the verdict was "no").
#[test]
fn moments_without_false_positives_get_an_exact_interval() {
    let m = vec![(0.0, 1e-10); 50];
    let (x, ci, th) = over_moments(&m, 2000, 0.99);
    assert_eq!(x, 0.0);
    assert_eq!(ci, binomial_ci(0, 100_000, 0.99));
    assert!(ci.1 > 0.0);
    assert_eq!(in_interval(th, ci), Some(true));
    // moments that differ keep the Student-t interval over moments
    let m: Vec<(f64, f64)> = (0..50).map(|i| (f64::from(i % 3) / 2000.0, 5e-4)).collect();
    let (_, ci, _) = over_moments(&m, 2000, 0.99);
    let mut w = Welford::default();
    m.iter().for_each(|&(x, _)| w.add(x));
    assert_eq!(ci, w.ci_within(0.99, 0.0, 1.0));
}

/// One moment (the peak of a run whose other moments are below 90% of
/// it): no interval over moments exists; its queries' own binomial one
/// is given.
#[test]
fn one_moment_gets_its_queries_interval() {
    let (x, ci, _) = over_moments(&[(3.0 / 2000.0, 1e-3)], 2000, 0.99);
    assert_eq!(x, 1.5e-3);
    assert_eq!(ci, binomial_ci(3, 2000, 0.99));
    assert!(ci.0 > 0.0 && ci.1 > x);
}
