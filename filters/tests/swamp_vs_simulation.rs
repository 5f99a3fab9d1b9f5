//! SWAMP and its baselines against their theory (`swamp::theory`, the
//! timing Bloom filter's and SWBF's FPR, the occupancy law of SWLC), and the
//! sliding HyperLogLog's registers against HyperLogLog recomputed from the
//! window's keys.
//!
//! Each statistical test compares a mean over independent samples (fresh
//! windows or fresh fingerprint seeds) with the formula at 4.5 standard
//! errors; each formula's own derivation is in its module's documentation.

mod common;

use bloomlab_filters::sketches::{hll, SlidingHll, Swlc};
use bloomlab_filters::swamp::theory;
use bloomlab_filters::Instrumented;
use bloomlab_filters::{
    DistinctEstimator, EntropyEstimator, ExactWindow, Filter, FrequencyEstimator, SlidingFilter,
    Swamp, Swbf, TimingBloom, WindowSummary,
};
use bloomlab_filters::{SlidingHllShape, SwampShape, SwbfShape, SwlcShape, Target};
use common::{assert_mean, assert_rate, Keys, Rng};

/// FPR over 200 fresh windows of w distinct keys; returns (false positives,
/// queries).
fn fpr_over_windows<F: SlidingFilter>(f: &mut F, expected: f64) -> (u64, u64) {
    let keys = Keys::new(0xF00D);
    let w = f.window();
    let per_state = ((20_000.0 / expected) as u64 / 200).clamp(100, 500_000);
    let (mut t, mut neg, mut fp, mut n) = (0u64, 0u64, 0u64, 0u64);
    for _ in 0..200 {
        for _ in 0..w {
            t += 1;
            f.insert(keys.stream(t));
        }
        for _ in 0..per_state {
            neg += 1;
            fp += f.contains(keys.negative(neg)) as u64;
            n += 1;
        }
    }
    (fp, n)
}

#[test]
fn fpr_of_swamp_tbf_and_swbf_is_exact_on_distinct_streams() {
    for (w, l) in [(4096u64, 14u32), (4096, 17), (1000, 12), (20_000, 20)] {
        let mut f = Swamp::new(SwampShape {
            window: w,
            fingerprint_bits: l,
        })
        .unwrap();
        let p = theory::fpr(l, w as f64);
        let (fp, n) = fpr_over_windows(&mut f, p);
        assert_rate(&format!("swamp w {w} L {l}"), fp, n, p);
    }
    for (w, eps) in [(4096u64, 0.05), (3000, 0.01), (10_000, 1e-3)] {
        let mut f = Target::window(w).fpr(eps).build::<TimingBloom>().unwrap();
        let p = f.fpr_theory(w as f64);
        let (fp, n) = fpr_over_windows(&mut f, p);
        assert_rate(&format!("tbf w {w} eps {eps}"), fp, n, p);
        let mut f = Target::window(w).fpr(eps).build::<Swbf>().unwrap();
        let p = f.fpr_theory(w as f64);
        let (fp, n) = fpr_over_windows(&mut f, p);
        assert_rate(&format!("swbf w {w} eps {eps}"), fp, n, p);
    }
    // SWBF with short fingerprints, where the orbit term matters, and an odd
    // bucket count
    let mut f = Swbf::new(SwbfShape {
        window: 2001,
        fingerprint_bits: 3,
    })
    .unwrap();
    let p = f.fpr_theory(2001.0);
    let (fp, n) = fpr_over_windows(&mut f, p);
    assert_rate("swbf f 3", fp, n, p);
}

/// A skewed stream: rank r drawn as min of two uniform ranks' product rule,
/// P(r) decreasing in r; keys are mix64(r ^ salt).
fn skewed_stream(salt: u64, universe: u64, n: usize) -> Vec<u64> {
    let mut rng = Rng(salt);
    (0..n)
        .map(|_| {
            let a = rng.range(1, universe);
            let r = rng.range(1, a);
            bloomlab_filters::hash::mix64(r ^ salt)
        })
        .collect()
}

#[test]
fn fpr_on_a_skewed_stream_follows_the_distinct_count() {
    // theory per window: 1 - (1 - 2^-L)^D with D the window's distinct keys
    let (w, l) = (4096u64, 13u32);
    let stream = skewed_stream(7, 50_000, 200 * w as usize);
    let mut f = Swamp::new(SwampShape {
        window: w,
        fingerprint_bits: l,
    })
    .unwrap();
    let mut exact = ExactWindow::new(w).unwrap();
    let negatives = Keys::new(0xABCD);
    let (mut fp, mut n, mut expected) = (0u64, 0u64, 0.0);
    for (i, &k) in stream.iter().enumerate() {
        f.insert(k);
        exact.record(k);
        if (i + 1) % w as usize == 0 {
            let p = theory::fpr(l, exact.distinct());
            for _ in 0..2000 {
                n += 1;
                fp += f.contains(negatives.negative(n)) as u64;
            }
            expected += p * 2000.0;
        }
    }
    assert_rate("swamp skewed", fp, n, expected / n as f64);
}

/// The window (last w keys) of `stream` seen through `runs` SWAMPs with
/// independent fingerprint seeds; returns the SWAMPs and the exact window.
fn seeded_runs(stream: &[u64], w: u64, l: u32, runs: u64) -> (Vec<Swamp>, ExactWindow) {
    let mut exact = ExactWindow::new(w).unwrap();
    for &k in stream {
        exact.record(k);
    }
    let swamps = (0..runs)
        .map(|seed| {
            let mut s = Swamp::new(SwampShape {
                window: w,
                fingerprint_bits: l,
            })
            .unwrap()
            .with_seed(seed);
            for &k in stream {
                s.insert(k);
            }
            s
        })
        .collect();
    (swamps, exact)
}

#[test]
fn distinct_estimators_follow_the_occupancy_law() {
    let (w, l) = (4096u64, 13u32);
    let stream = skewed_stream(11, 20_000, 3 * w as usize);
    let (swamps, exact) = seeded_runs(&stream, w, l, 400);
    let d = exact.distinct();
    let z: Vec<f64> = swamps.iter().map(|s| s.distinct_lb() as f64).collect();
    assert!(z.iter().all(|&z| z <= d), "DistinctLB above D");
    assert_mean("E[Z]", &z, theory::expected_distinct_fingerprints(l, d));
    let mle: Vec<f64> = swamps.iter().map(|s| s.distinct()).collect();
    assert_mean("DistinctMLE", &mle, d);
    // its spread: the delta-method sd, within the sampling error of a sample
    // sd over 400 runs (relative SE ~ 1/sqrt(2 * 399) = 3.5%)
    let mean = mle.iter().sum::<f64>() / mle.len() as f64;
    let sd = (mle.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 399.0).sqrt();
    let want = theory::distinct_mle_sd(l, d);
    assert!(
        (sd / want - 1.0).abs() < 4.5 * 0.0354,
        "MLE sd {sd:.2} against delta method {want:.2}"
    );
}

#[test]
fn entropy_error_matches_its_exact_expectation() {
    // L = 17: few collisions, where the first-order (pairwise) formula holds
    // too; L = 11: D/M about 1, where only the exact expectation does
    for (l, first_order_holds) in [(17u32, true), (11, false)] {
        let w = 4096u64;
        let stream = skewed_stream(13, 20_000, 3 * w as usize);
        let (swamps, exact) = seeded_runs(&stream, w, l, 400);
        let h = exact.entropy();
        let gaps: Vec<f64> = swamps.iter().map(|s| h - s.entropy()).collect();
        assert!(
            gaps.iter().all(|&g| g >= -1e-9),
            "SWAMP entropy above the truth"
        );
        let want = theory::entropy_error_exact(l, exact.counts());
        assert_mean(&format!("E[H - H^] at L = {l}"), &gaps, want);
        let pairwise = theory::entropy_bias(l, exact.counts());
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        assert_eq!(
            (pairwise / mean - 1.0).abs() < 0.05,
            first_order_holds,
            "L = {l}"
        );
        let bound = (exact.distinct() - 1.0) / (2f64.powi(l as i32) * std::f64::consts::LN_2);
        assert!(want <= bound);
    }
}

#[test]
fn on_arrival_count_error_matches_its_second_moment() {
    // query each arriving key after the window is full; per run the mean
    // squared error over 3000 arrivals, against the mean of count_mse
    let (w, l) = (4096u64, 12u32);
    let stream = skewed_stream(17, 20_000, w as usize + 3000);
    let mut exact = ExactWindow::new(w).unwrap();
    let mut expected = 0.0;
    for (i, &k) in stream.iter().enumerate() {
        exact.record(k);
        if i >= w as usize {
            let f = exact.frequency(k);
            expected += theory::count_mse(l, w, exact.second_moment(), f);
        }
    }
    expected /= 3000.0;
    let mse: Vec<f64> = (0..300u64)
        .map(|seed| {
            let mut s = Swamp::new(SwampShape {
                window: w,
                fingerprint_bits: l,
            })
            .unwrap()
            .with_seed(seed);
            let mut exact = ExactWindow::new(w).unwrap();
            let mut sq = 0.0;
            for (i, &k) in stream.iter().enumerate() {
                s.insert(k);
                exact.record(k);
                if i >= w as usize {
                    let e = s.frequency(k) as f64 - exact.frequency(k) as f64;
                    assert!(e >= 0.0);
                    sq += e * e;
                }
            }
            sq / 3000.0
        })
        .collect();
    assert_mean("on-arrival MSE", &mse, expected);
}

#[test]
fn swlc_empty_registers_follow_the_occupancy_law() {
    let (w, m) = (4096u64, 4096u64);
    let keys = Keys::new(0x51C);
    let mut f = Swlc::new(SwlcShape {
        window: w,
        registers: m,
    })
    .unwrap();
    let mut t = 0;
    let mut v = Vec::new();
    for _ in 0..300 {
        for _ in 0..w {
            t += 1;
            f.record(keys.stream(t));
        }
        v.push(f.empty_registers() as f64);
    }
    assert_mean("SWLC E[V]", &v, hll::expected_empty(m, w as f64));
}

#[test]
fn sliding_hll_registers_are_hll_of_the_window() {
    // exact: after every arrival, each register equals max rho over the
    // window's distinct keys; 40 windows of 300, so timestamps wrap ~20 times
    let (w, p) = (300u64, 4u32);
    let stream = skewed_stream(19, 2_000, 40 * w as usize);
    let mut f = SlidingHll::new(SlidingHllShape {
        window: w,
        registers: 1 << p,
    })
    .unwrap();
    let mut exact = ExactWindow::new(w).unwrap();
    for &k in &stream {
        f.record(k);
        exact.record(k);
        let mut want = vec![0u8; 1 << p];
        for (key, _) in exact.flows() {
            let (j, rho) = hll::register_of(key, p, hll::SALT);
            want[j] = want[j].max(rho);
        }
        let got: Vec<u8> = f.registers().collect();
        assert_eq!(got, want);
    }
    assert!(f.summary_bits() > 0);
}

/// A query reads the eight slots of its bucket pair plus the stash, and its
/// answer is `contains`'s (found untested by cargo mutants: every mutant of
/// `contains_probes` passed).
#[test]
fn contains_probes_reads_eight_slots_and_answers_as_contains() {
    let mut f = bloomlab_filters::Swamp::new(SwampShape {
        window: 4096,
        fingerprint_bits: 20,
    })
    .unwrap();
    for k in 0..10_000u64 {
        f.insert(bloomlab_filters::hash::mix64(k));
    }
    let (mut yes, mut no) = (0, 0);
    for k in 5_000..15_000u64 {
        let key = bloomlab_filters::hash::mix64(k);
        let (hit, probes) = f.contains_probes(key);
        assert_eq!(hit, f.contains(key), "key {k}");
        assert_eq!(probes, 8, "key {k}: an empty stash");
        if hit {
            yes += 1
        } else {
            no += 1
        }
    }
    assert!(yes >= 4096 && no > 0, "{yes} {no}");
}
