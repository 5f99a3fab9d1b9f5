//! Streams with repeats, by property test: no false negative on the refresh
//! and counting paths, and frequency estimates never below the truth (the
//! `frequency` row of the suite's table in `main.rs`).

use super::*;
use bloomlab_filters::{BroomShape, SwampShape, SwbfShape, Target, TimingBloomShape, WcssShape};

/// A skewed stream with repeats: key = one of `universe` values, drawn with
/// probability falling off as 1/rank (by rejection on a geometric mix).
fn skewed(seed: u64, universe: u64, n: usize) -> Vec<u64> {
    let mut rng = Rng(seed);
    (0..n)
        .map(|_| {
            let r = rng.range(1, universe);
            let r = rng.range(1, r); // rank <= a uniform rank: P(r) ~ H(u)/u
            bloomlab_filters::hash::mix64(r ^ 0x5EED)
        })
        .collect()
}

/// Every key of the last w arrivals is reported after every arrival.
fn no_false_negatives_with_repeats<F: SlidingFilter>(mut f: F, stream: &[u64]) {
    let w = f.window();
    let mut exact = ExactWindow::new(w).unwrap();
    for (t, &k) in stream.iter().enumerate() {
        f.insert(k);
        exact.record(k);
        for (key, _) in exact.flows() {
            assert!(
                f.contains(key),
                "{}: false negative after {} arrivals, w = {w}",
                f.name(),
                t + 1
            );
        }
    }
}

/// Frequency estimates never below the truth (and, for WCSS, at most εW
/// above it, passed as `slack`), after every arrival, for every window flow.
fn frequency_never_underestimates<F: FrequencyEstimator>(mut f: F, stream: &[u64], slack: u64) {
    assert!(f.never_underestimates());
    let mut exact = ExactWindow::new(f.summary_window()).unwrap();
    for (t, &k) in stream.iter().enumerate() {
        f.record(k);
        exact.record(k);
        for (key, c) in exact.flows() {
            let e = f.frequency(key);
            assert!(
                e >= c,
                "{}: estimate {e} below {c} after {} arrivals",
                f.summary_name(),
                t + 1
            );
            assert!(
                e <= c + slack,
                "{}: estimate {e} above {c} + {slack}",
                f.summary_name()
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn swamp_tbf_swbf_no_false_negatives_with_repeats(
        w in 1u64..64, universe in 1u64..400, seed in any::<u64>(), bits in 4u32..12
    ) {
        let stream = skewed(seed, universe, 40 * w as usize + 50);
        no_false_negatives_with_repeats(Swamp::new(SwampShape { window: w, fingerprint_bits: bits }).unwrap().with_seed(seed), &stream);
        no_false_negatives_with_repeats(TimingBloom::new(TimingBloomShape { window: w, hashes: 3, cells_per_slice: 8 }).unwrap(), &stream);
        let broom = BroomFilter::new(BroomShape { capacity: w, slots: w + 1 + w / 8, remainder_bits: 3, moves_per_adapt: 3 }).map(|f| f.with_seed(seed)).unwrap();
        no_false_negatives_with_repeats(Broom::from_filter(broom), &stream);
        no_false_negatives_with_repeats(Swbf::new(SwbfShape { window: w, fingerprint_bits: bits }).unwrap(), &stream);
    }

    #[test]
    fn frequency_never_underestimates_and_swamp_bounds(
        w in 1u64..200, universe in 1u64..400, seed in any::<u64>(), bits in 4u32..14, k in 1u64..40
    ) {
        let stream = skewed(seed, universe, 5 * w as usize + 50);
        frequency_never_underestimates(Swamp::new(SwampShape { window: w, fingerprint_bits: bits }).unwrap().with_seed(seed), &stream, u64::MAX / 2);
        frequency_never_underestimates(ExactWindow::new(w).unwrap(), &stream, 0);
        let k = k.min(w);
        // WCSS's guarantee: within 4W/k above (k = 4/eps)
        frequency_never_underestimates(Wcss::new(WcssShape { window: w, counters: k }).unwrap(), &stream, 4 * w.div_ceil(k));
        let mut s = Swamp::new(SwampShape { window: w, fingerprint_bits: bits }).unwrap().with_seed(seed);
        let mut exact = ExactWindow::new(w).unwrap();
        for &x in &stream {
            s.record(x);
            exact.record(x);
            prop_assert!(s.distinct_lower_bound().unwrap() <= exact.distinct());
            prop_assert!(s.entropy() <= exact.entropy() + 1e-9);
            prop_assert!((exact.entropy() - exact.entropy_recomputed()).abs() < 1e-9);
        }
    }
}

#[test]
fn swamp_table_sized_as_documented() {
    // (1 + alpha) W slots in buckets of four, L - log2(W(1+alpha)/4) remainder bits
    let f = Target::window(1 << 16)
        .fpr(1.0 / 1024.0)
        .build::<Swamp>()
        .unwrap();
    assert_eq!(f.fingerprint_bits(), 26);
    assert_eq!(f.table().slots(), 4 * table::buckets_for(1 << 16));
    assert_eq!(f.table().slots(), 78_644);
    assert_eq!(f.table().remainder_bits(), 12);
}
