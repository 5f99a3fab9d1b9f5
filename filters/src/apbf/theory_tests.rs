//! Unit tests of the APBF theory.

use super::*;

/// The 29 (k, l) of the paper's Table 2 (as RedisBloom's
/// AgePartitionedBF branch lists them) and the efficiency the paper
/// defines: its 36% is (4, 3); nothing in the table gives 68%.
#[test]
fn paper_table_efficiency_spans_35_5_to_61_5_percent() {
    const PAIRS: [(u32, u32); 29] = [
        (4, 3),
        (5, 7),
        (6, 14),
        (7, 28),
        (8, 56),
        (7, 5),
        (8, 8),
        (9, 14),
        (10, 25),
        (11, 46),
        (12, 88),
        (10, 7),
        (11, 9),
        (12, 14),
        (13, 23),
        (14, 40),
        (15, 74),
        (14, 11),
        (15, 15),
        (16, 22),
        (17, 36),
        (18, 63),
        (19, 117),
        (17, 13),
        (18, 16),
        (19, 22),
        (20, 33),
        (21, 54),
        (22, 95),
    ];
    let eff: Vec<(f64, (u32, u32))> = PAIRS
        .iter()
        .map(|&(k, l)| (efficiency_paper(k, l), (k, l)))
        .collect();
    let lo = eff.iter().min_by(|a, b| a.0.total_cmp(&b.0)).unwrap();
    let hi = eff.iter().max_by(|a, b| a.0.total_cmp(&b.0)).unwrap();
    assert_eq!(lo.1, (4, 3));
    assert!((lo.0 - 0.355).abs() < 5e-4, "{lo:?}");
    assert_eq!(hi.1, (22, 95));
    assert!((hi.0 - 0.615).abs() < 5e-4, "{hi:?}");
    // the most generous variant: k_b rounded up, capacity (l + 1) g
    let generous = PAIRS
        .iter()
        .map(|&(k, l)| {
            let kb = (1.0 / fpr_paper(k, l)).log2().ceil();
            kb * (l + 1) as f64 / ((k + l) as f64 * k as f64)
        })
        .fold(0.0, f64::max);
    assert!(generous < 0.64, "{generous}");
    // 68% needs k = 30 and l near 180
    assert!(efficiency_paper(30, 180) > 0.675);
    assert!((1..=22).all(|k| (1..=120).all(|l| efficiency_paper(k, l) < 0.68)));
}

#[test]
fn match_probability_small_cases() {
    // k = 1: P(any match) = 1 - prod(1 - q).
    let q = [0.1, 0.2, 0.3];
    assert!((match_probability(&q, 1) - (1.0 - 0.9 * 0.8 * 0.7)).abs() < 1e-15);
    // k = n: all match.
    assert!((match_probability(&q, 3) - 0.1 * 0.2 * 0.3).abs() < 1e-15);
    // k = 2 on 3 slices: q0q1 + (1-q0)q1q2.
    let e = 0.1 * 0.2 + 0.9 * 0.2 * 0.3;
    assert!((match_probability(&q, 2) - e).abs() < 1e-15);
}

/// Exhaustive enumeration of all match patterns: checks F and Algorithm 1's
/// cost recursion against brute force on small (k, l).
#[test]
fn recursions_match_brute_force() {
    // a query bug at k = 1 once made algorithm 1 loop: fail, not hang
    crate::testing::within(120, recursions_match_brute_force_body);
}

fn recursions_match_brute_force_body() {
    for k in 1..=4u32 {
        for l in 1..=4u32 {
            let n = (k + l) as usize;
            let q: Vec<f64> = (0..n).map(|i| 0.15 + 0.7 * (i as f64 / n as f64)).collect();
            let (mut p_yes, mut g_no, mut g_yes) = (0.0, 0.0, 0.0);
            for pat in 0u32..(1 << n) {
                let bit = |i: usize| pat >> i & 1 == 1;
                let pr: f64 = (0..n)
                    .map(|i| if bit(i) { q[i] } else { 1.0 - q[i] })
                    .product();
                let yes = (0..=l as usize).any(|j| (j..j + k as usize).all(bit));
                let (ans, probes) = super::super::algorithm1(k, l, bit);
                assert_eq!(ans, yes, "algorithm 1 disagrees with the specification");
                if yes {
                    p_yes += pr;
                    g_yes += pr * probes as f64;
                } else {
                    g_no += pr * probes as f64;
                }
            }
            assert!((match_probability(&q, k) - p_yes).abs() < 1e-12);
            let c = query_cost(&q, k, l);
            assert!((c.p_no - (1.0 - p_yes)).abs() < 1e-12);
            assert!((c.probes_no - g_no / (1.0 - p_yes)).abs() < 1e-9);
            assert!((c.probes_yes - g_yes / p_yes).abs() < 1e-9);
        }
    }
}

#[test]
fn linear_model_underestimates_the_exact_one() {
    for k in 2..12 {
        for l in [1, 4, 14] {
            assert!(fpr_paper(k, l) < fpr(k, l));
        }
    }
}

#[test]
fn exact_model_converges_to_asymptotic() {
    let t = ApbfTheory::new(8, 10, 1 << 20).unwrap();
    let rel = (t.fpr() - fpr(8, 10)).abs() / fpr(8, 10);
    assert!(rel < 1e-4, "rel = {rel}");
}

#[test]
fn paper_npws_estimate_is_low_for_l_ge_k_and_high_for_l_lt_k() {
    let t = ApbfTheory::new(10, 7, 64).unwrap();
    assert!(t.npws_peak() < npws_peak_paper(10, 7));
}

#[test]
fn peak_npws_is_at_the_last_phase_and_above_the_paper_estimate() {
    let t = ApbfTheory::new(6, 14, 64).unwrap();
    let peak_last = t.pws_at(t.g) / t.window() as f64;
    assert!((t.npws_peak() - peak_last).abs() < 1e-12);
    assert!(t.npws_peak() > npws_peak_paper(6, 14));
    assert!(t.npws_peak() < npws_peak_paper(6, 14) * 1.2);
    assert!(t.npws_avg() < t.npws_peak());
}

#[test]
fn window_and_presence() {
    let t = ApbfTheory::new(3, 2, 10).unwrap();
    for phase in 1..=10 {
        for age in 1..=t.window() {
            assert_eq!(t.presence(age, phase), 1.0);
        }
        // beyond (k + l) generations a key is like a never-inserted one
        let far = (t.k + t.l) as u64 * t.g + phase + 1;
        assert!((t.presence(far, phase) - t.fpr_at(phase)).abs() < 1e-15);
    }
    // just after a shift (phase 1) age w + 2 has lost a slice
    assert!(t.presence(t.window() + 2, 1) < 1.0);
    // just before a shift ages up to (l + 1) g are still whole
    assert_eq!(t.presence((t.l as u64 + 1) * t.g, t.g), 1.0);
}

#[test]
fn choose_kl_reaches_target() {
    for target in [1e-1, 1e-2, 1e-3, 1e-4, 1e-5] {
        let (k, l) = choose_kl(target, 32).unwrap();
        assert!(fpr(k, l) <= target);
        assert!(k > 1 && l >= 1);
    }
    assert_eq!(choose_k(1e-60, 4), None);
}

/// Bits per element, asymptotic and of a configuration, written out.
#[test]
fn bits_per_element_are_the_payload_over_the_window() {
    let want = 17.0 * 10.0 / (7.0 * std::f64::consts::LN_2);
    assert!((bits_per_element(10, 7) - want).abs() < 1e-12);
    assert!(
        (bits_per_element(10, 7) - 35.04).abs() < 0.01,
        "the README's 35.0"
    );
    let t = ApbfTheory::new(10, 7, 1000).unwrap();
    assert_eq!(t.payload_bits(), 17 * t.m);
    assert!((t.bits_per_element() - t.payload_bits() as f64 / 7000.0).abs() < 1e-12);
    assert_eq!(t.window(), 7000);
}

/// NPWS averaged over phases is the mean of PWS over the phase grid over
/// the window.
#[test]
fn npws_avg_is_the_phase_mean() {
    for (k, l, g) in [(4, 3, 50), (10, 7, 300)] {
        let t = ApbfTheory::new(k, l, g).unwrap();
        let grid = phase_grid(g);
        let mean = grid.iter().map(|&p| t.pws_at(p)).sum::<f64>() / grid.len() as f64;
        let want = mean / t.window() as f64;
        assert!((t.npws_avg() - want).abs() <= 1e-12 * want, "{k} {l} {g}");
        assert!(t.npws_avg() > 0.0 && t.npws_avg() <= t.npws_peak());
    }
}

/// A k whose least l for the slack is the largest l allowed still counts:
/// with w = 100, slack 100 and l <= 4, k = 4 needs l >= ⌈100 / 25⌉ = 4.
#[test]
fn the_slack_s_least_l_may_be_the_largest_allowed() {
    let target = fpr(4, 4);
    assert!(fpr(3, 4) > target && fpr(2, 2) > target && fpr(1, 1) > target);
    assert_eq!(choose_kl_with_slack(target, 100, 100, 4), Some((4, 4)));
    assert_eq!(choose_kl_with_slack(target, 100, 100, 3), None);
}
