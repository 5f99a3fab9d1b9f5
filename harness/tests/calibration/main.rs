//! The measurement passes against synthetic designs whose answers are known
//! exactly: a filter that remembers its last `remember` insertions exactly
//! and answers every other key yes iff a hash of it falls below a threshold.
//! FPR, FNR, probes and PWS must come out exactly where the answer is
//! certain (threshold 0 or 1, every remembered key found), and within their
//! intervals where it is a coin: a counting bug (one false positive fewer
//! per round, a query counted twice, an off-by-one in the ages) fails here
//! exactly, at any precision, rather than hiding in the noise of the quick
//! rows.

use bloomlab_filters::hash::mix64;
use bloomlab_filters::Filter;
use bloomlab_harness::calibration::Coin;
use bloomlab_harness::designs::{Built, Geometry, ProfileTheory, Theory};
use bloomlab_harness::metrics::Row;
use bloomlab_harness::spec::{MeasureSpec, Metric, WorkloadSpec};
use bloomlab_harness::workload::KeyStream;
use rand::SeedableRng;
use rand_pcg::Pcg64;
use std::collections::BTreeSet;

/// Measures a `Coin` over window `w` with slack `s` (it remembers `remember`
/// keys); returns the row.
fn measure(w: u64, s: u64, remember: usize, p: f64, spec: &MeasureSpec, metrics: &[Metric]) -> Row {
    measure_with(w, s, remember, p, spec, metrics, &[])
}

/// As [`measure`], with more theory scalars.
fn measure_with(
    w: u64,
    s: u64,
    remember: usize,
    p: f64,
    spec: &MeasureSpec,
    metrics: &[Metric],
    extra: &'static [(bloomlab_harness::metrics::columns::Col, f64)],
) -> Row {
    let build = move |_seed: u64| -> anyhow::Result<Built> {
        let mut geometry = Geometry::exact(w, true);
        geometry.slack = s;
        Ok(Built {
            filter: Some(Box::new(Coin::new(remember, p, 3))),
            summary: None,
            geometry,
            resolved: Vec::new(),
            theory: Theory {
                scalars: [
                    (bloomlab_harness::metrics::columns::col::FPR, p),
                    (bloomlab_harness::metrics::columns::col::FPR_AVG, p),
                    (bloomlab_harness::metrics::columns::col::FNR, 0.0),
                ]
                .into_iter()
                .chain(extra.iter().copied())
                .collect(),
                ..Theory::default()
            },
        })
    };
    let mut built = build(0).unwrap();
    let mut rng = Pcg64::seed_from_u64(11);
    let stream = KeyStream::new(&WorkloadSpec::Distinct, None, &mut rng);
    let metrics: BTreeSet<Metric> = metrics.iter().copied().collect();
    bloomlab_harness::passes::membership::measure(&mut built, stream, rng, &metrics, spec, &build)
        .unwrap()
        .row
}

/// The quick rows' precision: 40 rounds, as `--quick` gives a 200-round spec.
fn quick() -> MeasureSpec {
    MeasureSpec {
        rounds: 40,
        min_fpr_queries: 4000,
        max_fpr_queries: 40_000,
        fpr_positives: 400.0,
        ..MeasureSpec::default()
    }
}

fn num(r: &Row, c: &str) -> f64 {
    r.get_num(c).unwrap_or_else(|| panic!("no {c} in {r:?}"))
}

/// `column` of `row` within `rel` of `want`, relative to |want| but never
/// to less than `floor`.
fn near(row: &Row, column: &str, want: f64, rel: f64, floor: f64) {
    let got = num(row, column);
    assert!(
        (got - want).abs() <= rel * want.abs().max(floor),
        "{column}: {got} against {want}"
    );
}

#[test]
fn certain_answers_are_counted_exactly() {
    let all = [Metric::Fpr, Metric::Fnr, Metric::Accesses, Metric::Npws];
    // every non-member is a false positive: the count is the query count
    let yes = measure(256, 0, 256, 1.0, &quick(), &all);
    assert_eq!(num(&yes, "fpr"), 1.0);
    assert_eq!(num(&yes, "fpr_false_positives"), num(&yes, "fpr_queries"));
    assert_eq!(num(&yes, "fpr_avg"), 1.0);
    assert!(num(&yes, "fpr_queries") >= 4000.0);
    // none is, and every key of the window is found
    let no = measure(256, 0, 256, 0.0, &quick(), &all);
    assert_eq!(num(&no, "fpr"), 0.0);
    assert_eq!(num(&no, "fpr_false_positives"), 0.0);
    assert_eq!(num(&no, "fnr"), 0.0);
    assert!(num(&no, "fnr_queries") > 0.0);
    // probes: every query reads 3
    assert_eq!(num(&no, "probes_negative"), 3.0);
    // remembering nothing: every key of the window is missed
    let forget = measure(256, 0, 0, 0.0, &quick(), &[Metric::Fnr]);
    assert_eq!(num(&forget, "fnr"), 1.0);
    assert_eq!(num(&forget, "false_negatives"), num(&forget, "fnr_queries"));
}

#[test]
fn slack_remembered_exactly_is_its_pws() {
    // a filter that remembers w + s keys reports exactly s of them past the
    // window: PWS = s at every phase
    let r = measure(256, 64, 320, 0.0, &quick(), &[Metric::Fpr, Metric::Npws]);
    for c in ["npws_peak", "npws_avg"] {
        assert_eq!(num(&r, c), 64.0 / 256.0);
        // the same PWS every round: an interval of one point
        assert_eq!(num(&r, &format!("{c}_ci_low")), 64.0 / 256.0);
        assert_eq!(num(&r, &format!("{c}_ci_high")), 64.0 / 256.0);
    }
    // remembering just the window: none past it
    let r = measure(256, 64, 256, 0.0, &quick(), &[Metric::Fpr, Metric::Npws]);
    assert_eq!(num(&r, "npws_peak"), 0.0);
    assert_eq!(num(&r, "npws_avg"), 0.0);
}

#[test]
fn a_coin_is_measured_without_bias() {
    // many rows of a known coin: the pooled z-score of the measured FPRs
    // against p is standard normal (one false positive fewer per round, a 6%
    // undercount, gave z = -5.0 over 8 rows; over these 16 about -7)
    let p = 0.01;
    let mut z_sum = 0.0;
    let mut rows = 0.0;
    for w in (0..16u64).map(|i| 200 + 113 * i) {
        let r = measure(w, 0, w as usize, p, &quick(), &[Metric::Fpr]);
        let n = num(&r, "fpr_queries");
        let x = num(&r, "fpr_false_positives");
        z_sum += (x - n * p) / (n * p * (1.0 - p)).sqrt();
        rows += 1.0;
        for c in ["fpr", "fpr_avg"] {
            let (lo, hi) = (
                num(&r, &format!("{c}_ci_low")),
                num(&r, &format!("{c}_ci_high")),
            );
            assert!(
                lo >= 0.0 && hi <= 1.0 && lo <= p && p <= hi && hi - lo < 0.02,
                "{w} {c}: [{lo}, {hi}]"
            );
        }
    }
    let z = z_sum / f64::sqrt(rows);
    assert!(z.abs() < 4.0, "pooled z {z}: the FPR pass is biased");
}

#[test]
fn expired_keys_are_those_past_the_slack() {
    // remembering exactly w + s keys and answering no to every other: each
    // expired key (age > w + s) is a no, and every key of the window a yes
    let (w, s) = (256u64, 64u64);
    let metrics = [Metric::Fpr, Metric::Fnr];
    let r = measure(w, s, (w + s) as usize, 0.0, &quick(), &metrics);
    assert!(num(&r, "fpr_expired_queries") > 0.0);
    assert_eq!(num(&r, "fpr_expired"), 0.0);
    assert_eq!(num(&r, "fnr"), 0.0);
    // remembering far more: every expired key is a yes, and a
    // never-inserted key still a no
    let r = measure(w, s, 100 * w as usize, 0.0, &quick(), &[Metric::Fpr]);
    assert_eq!(num(&r, "fpr_expired"), 1.0);
    assert_eq!(num(&r, "fpr"), 0.0);
}

#[test]
fn window_ages_are_spread_evenly() {
    // remembering the last w/2 keys of a window of w = 512: the 256 ages
    // sampled per filter state are evenly spaced (every other age from a
    // random offset), so exactly 128 of them are past w/2, and the oldest
    // guaranteed key (age w) is checked and missed once more
    let w = 512u64;
    let r = measure(w, 0, (w / 2) as usize, 0.0, &quick(), &[Metric::Fnr]);
    let (n, x) = (num(&r, "fnr_queries"), num(&r, "false_negatives"));
    assert!(n > 0.0);
    assert_eq!(x * 257.0, n * 129.0, "{x} of {n}");
}

#[test]
fn sampled_ages_are_evenly_spaced_at_any_window() {
    // a window of 768 = 3 x 256 samples: every third age from a random
    // offset, so exactly 128 of the 256 are past 384 (and the oldest
    // guaranteed key, age w, is missed once more), whatever the offset
    let w = 768u64;
    let r = measure(w, 0, (w / 2) as usize, 0.0, &quick(), &[Metric::Fnr]);
    let (n, x) = (num(&r, "fnr_queries"), num(&r, "false_negatives"));
    assert!(n > 0.0);
    assert_eq!(x * 257.0, n * 129.0, "{x} of {n}");
    // the expired ages (w, w + 768] of a window of 3072 likewise: every
    // third, so exactly half are the 384 the filter still remembers
    let w = 3072u64;
    let r = measure(w, 0, (w + 384) as usize, 0.0, &quick(), &[Metric::Fpr]);
    assert_eq!(num(&r, "fpr_expired_queries"), 40.0 * 256.0);
    assert_eq!(num(&r, "fpr_expired"), 0.5);
}

#[test]
fn memory_columns_are_the_filter_s_bits() {
    // a Coin remembering 320 keys counts 64 bits each; a bound of 1e4 bits
    static BOUND: [(bloomlab_harness::metrics::columns::Col, f64); 1] = [(
        bloomlab_harness::metrics::columns::col::SPACE_BOUND_BITS,
        10_000.0,
    )];
    let r = measure_with(256, 64, 320, 0.0, &quick(), &[Metric::Memory], &BOUND);
    assert_eq!(num(&r, "memory_bits"), 64.0 * 320.0);
    assert_eq!(num(&r, "bits_per_element"), 64.0 * 320.0 / 256.0);
    assert_eq!(num(&r, "space_bound_per_element"), 10_000.0 / 256.0);
    assert_eq!(num(&r, "memory_over_bound"), 64.0 * 320.0 / 10_000.0);
}

/// P(yes | age) of a Coin with p = 0 remembering `0` keys: 1 up to that age.
struct Step(u64);

impl ProfileTheory for Step {
    fn worst(&self, age: u64) -> f64 {
        (age <= self.0) as u8 as f64
    }
    /// Half the worst phase's, so that a row labelled with the wrong
    /// phase kind shows (the Coin has no phases; only the theory differs).
    fn avg(&self, age: u64) -> f64 {
        self.worst(age) / 2.0
    }
}

#[test]
fn age_profile_buckets_are_counted_exactly() {
    // remembering w + s keys, no other yes: each bucket's yes answers are
    // its ages up to w + s, in every filter state, and its theory (the
    // step, averaged over the bucket) is that fraction exactly
    let (w, s) = (256u64, 64u64);
    let remember = w + s;
    let build = move |_seed: u64| -> anyhow::Result<Built> {
        let mut geometry = Geometry::exact(w, true);
        geometry.slack = s;
        Ok(Built {
            filter: Some(Box::new(Coin::new(remember as usize, 0.0, 3))),
            summary: None,
            geometry,
            resolved: Vec::new(),
            theory: Theory {
                scalars: vec![
                    (bloomlab_harness::metrics::columns::col::FPR, 0.0),
                    (bloomlab_harness::metrics::columns::col::FPR_AVG, 0.0),
                    (bloomlab_harness::metrics::columns::col::FNR, 0.0),
                ],
                profile: Some(Box::new(Step(remember))),
                ..Theory::default()
            },
        })
    };
    let mut built = build(0).unwrap();
    let mut rng = Pcg64::seed_from_u64(12);
    let stream = KeyStream::new(&WorkloadSpec::Distinct, None, &mut rng);
    let metrics: BTreeSet<Metric> = [Metric::Profile].into_iter().collect();
    let spec = MeasureSpec {
        bucket: 48,
        ..quick()
    };
    let out = bloomlab_harness::passes::membership::measure(
        &mut built, stream, rng, &metrics, &spec, &build,
    )
    .unwrap();
    assert!(!out.profile.is_empty());
    for label in ["worst", "avg"] {
        let rows: Vec<_> = out.profile.iter().filter(|r| r.phase == label).collect();
        // the buckets tile 1..=horizon, 48 ages each but the last
        assert_eq!(rows[0].age_lo, 1);
        for pair in rows.windows(2) {
            assert_eq!(pair[1].age_lo, pair[0].age_hi + 1);
            assert_eq!(pair[0].age_hi - pair[0].age_lo + 1, 48);
        }
        assert!(rows.last().unwrap().age_hi > remember);
        for r in rows {
            let width = r.age_hi - r.age_lo + 1;
            let known = (r.age_lo..=r.age_hi).filter(|&a| a <= remember).count() as u64;
            assert!(
                r.n > 0 && r.n % width == 0,
                "{label} {}..{}",
                r.age_lo,
                r.age_hi
            );
            assert_eq!(
                r.yes * width,
                r.n * known,
                "{label} {}..{}",
                r.age_lo,
                r.age_hi
            );
            let half = if label == "avg" { 2.0 } else { 1.0 };
            assert_eq!(r.theory, known as f64 / width as f64 / half);
            // one rate a round, every round: the same fraction each time
            assert_eq!(r.rounds.count(), 40);
            assert!((r.rounds.mean() - known as f64 / width as f64).abs() < 1e-12);
        }
    }
}

#[test]
fn insertion_tail_statistics_are_exact_for_known_counts() {
    // 10,000 insertions reporting 1..=1000 cells ten times each: mean
    // 500.5, nearest-rank p99 990 and p99.9 999, maximum 1000
    let spec = MeasureSpec {
        tail_ops: 10_000,
        ..quick()
    };
    let r = measure(256, 0, 256, 0.0, &spec, &[Metric::Tail]);
    assert_eq!(num(&r, "insert_probes_mean"), 500.5);
    assert_eq!(num(&r, "insert_probes_p99"), 990.0);
    assert_eq!(num(&r, "insert_probes_p999"), 999.0);
    assert_eq!(num(&r, "max_probes"), 1000.0);
    // the times: ordered as quantiles must be
    let (mean, p99, p999, max) = (
        num(&r, "insert_mean_ns"),
        num(&r, "insert_p99_ns"),
        num(&r, "insert_p999_ns"),
        num(&r, "insert_max_ns"),
    );
    assert!(mean > 0.0 && p99 <= p999 && p999 <= max && mean <= max);
}

mod adversary;
mod summaries;
mod synthetic;
