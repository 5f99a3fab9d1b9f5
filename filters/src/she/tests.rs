use super::theory::{code_alpha, fpr_continuous, sizing, SheTheory};
use super::*;
use crate::hash::mix64;

/// A group's bits as a query sees them: zero if its timestamp is stale.
fn logical(f: &SheBloom, c: u64) -> bool {
    let j = c / f.g;
    f.stamps.get(j) == f.theory().phase_bit(j, f.inserted as i128) && f.bits.get(c)
}

/// Every bit is set exactly where the theory's span says: after every
/// insertion, "some key of the last held(j, t) insertions set it", at
/// settings where every group is written every phase (no aliasing).
#[test]
fn bits_hold_the_insertions_since_the_flip() {
    for (w, k, m, g, p) in [
        (50u64, 3u32, 64u64, 8u64, 70u64),
        (40, 4, 60, 5, 40),
        (30, 2, 48, 16, 95),
        (1, 3, 32, 8, 20),
    ] {
        let mut f = SheBloom::new(crate::SheBloomShape {
            window: w,
            hashes: k,
            bits: m,
            group_bits: g,
            phase: p,
        })
        .unwrap();
        let th = f.theory();
        assert!(th.untouched_phase() < 1e-3, "W {w}: pick a denser setting");
        let mut written: Vec<Vec<u64>> = vec![Vec::new(); m as usize];
        for t in 1..=(6 * p) {
            let key = mix64(t ^ (w << 32));
            f.insert(key);
            for i in 0..k {
                written[f.cell(key, i) as usize].push(t);
            }
            for c in 0..m {
                let n = th.held(c / g, t);
                let expect = written[c as usize].iter().any(|&x| x + n > t);
                assert_eq!(logical(&f, c), expect, "W {w} P {p} t {t} cell {c} N {n}");
            }
        }
    }
}

/// Every key of the window is reported, sparse groups (aliasing) included;
/// every clean group's span lies in [W, P] at every moment of a period.
#[test]
fn the_window_holds() {
    for (w, k, m, g, p) in [
        (400u64, 4u32, 960u64, 8u64, 700u64),
        (300, 3, 3000, 1, 300),
        (64, 2, 640, 64, 200),
    ] {
        let mut f = SheBloom::new(crate::SheBloomShape {
            window: w,
            hashes: k,
            bits: m,
            group_bits: g,
            phase: p,
        })
        .unwrap();
        for t in 1..=(5 * p) {
            f.insert(mix64(t));
            for a in 0..w.min(t) {
                assert!(f.contains(mix64(t - a)), "W {w} P {p}: t {t} age {a}");
            }
        }
        let th = f.theory();
        for t in th.steady()..th.steady() + th.period() {
            for j in 0..th.groups() {
                if let Some(n) = th.span(j, t) {
                    assert!(n >= w && n <= p, "t {t} group {j} N {n}");
                }
            }
        }
    }
}

/// The sweep's worst moment and mean equal the moment-by-moment theory
/// over a whole period.
#[test]
fn the_sweep_matches_every_moment() {
    for (w, k, m, g, p) in [
        (90u64, 5u32, 640u64, 8u64, 150u64),
        (101, 7, 1024, 64, 101),
        (64, 4, 400, 4, 300),
        (1, 3, 96, 8, 5),
    ] {
        let th = SheTheory {
            w,
            k,
            m,
            g,
            phase: p,
        };
        let s = th.sweep(true);
        let t0 = th.steady();
        let all: Vec<f64> = (t0..t0 + p).map(|t| th.fpr_at(t)).collect();
        let max = all.iter().cloned().fold(0.0, f64::max);
        let mean = all.iter().sum::<f64>() / p as f64;
        assert!((s.worst - max).abs() <= 1e-12 * max.max(1e-300), "W {w}");
        assert!((th.fpr_at(s.worst_t) - max).abs() <= 1e-12 * max, "W {w}");
        assert!((s.mean - mean).abs() <= 1e-10 * mean, "W {w}");
        // the period: the FPR repeats P later
        for t in [t0, t0 + p / 3, t0 + p - 1] {
            assert!((th.fpr_at(t) - th.fpr_at(t + p)).abs() <= 1e-12);
        }
    }
}

/// Simulated FPR and P(yes | age) at chosen moments match the theory over
/// independent runs.
#[test]
fn simulation_matches_the_theory() {
    let (w, k, m, g, p) = (1500u64, 4u32, 16_000u64, 64u64, 2600u64);
    let th = SheTheory {
        w,
        k,
        m,
        g,
        phase: p,
    };
    assert!(th.untouched_phase() < 1e-9);
    let (t_worst, _) = th.worst_moment();
    let mut moments = [t_worst, th.moments_n(64)[17], th.moments_n(64)[40]];
    moments.sort_unstable();
    let ages = [0u64, 700, 1499, 1600, 1900, 2400, 2599, 2700];
    let (runs, per) = (200u64, 3000u64);
    let mut fp = [0u64; 3];
    let mut aged = [[0u64; 8]; 3];
    for run in 0..runs {
        let key = |t: u64| mix64(t ^ (run << 40));
        let mut f = SheBloom::new(crate::SheBloomShape {
            window: w,
            hashes: k,
            bits: m,
            group_bits: g,
            phase: p,
        })
        .unwrap();
        let mut t = 0;
        for (mi, &target) in moments.iter().enumerate() {
            while t < target {
                t += 1;
                f.insert(key(t));
            }
            for q in 0..per {
                fp[mi] += f.contains(mix64(q ^ (run << 40) ^ (1 << 62) ^ (t << 20))) as u64;
            }
            for (ai, &a) in ages.iter().enumerate() {
                aged[mi][ai] += f.contains(key(t - a)) as u64;
            }
        }
    }
    for (mi, &t) in moments.iter().enumerate() {
        let pr = th.presence(t);
        let n = (runs * per) as f64;
        let p = pr.fpr();
        assert!((p - th.fpr_at(t)).abs() < 1e-12);
        let sd = (p * (1.0 - p) / n).sqrt();
        let got = fp[mi] as f64 / n;
        assert!((got - p).abs() < 5.0 * sd, "t {t}: FPR {got} vs {p}");
        for (ai, &a) in ages.iter().enumerate() {
            let p = pr.at(a);
            let sd = (p * (1.0 - p) / runs as f64).sqrt();
            let got = aged[mi][ai] as f64 / runs as f64;
            assert!(
                (got - p).abs() < 5.0 * sd + 1e-3,
                "t {t} age {a}: {got} vs {p}"
            );
        }
    }
}

/// The steps' values and the probes equal their definitions age by age and
/// group by group.
#[test]
fn presence_and_probes_match_their_definitions() {
    for (w, k, m, g, p) in [
        (40u64, 4u32, 320u64, 8u64, 70u64),
        (100, 5, 640, 64, 180),
        (100, 5, 640, 64, 100),
    ] {
        let th = SheTheory {
            w,
            k,
            m,
            g,
            phase: p,
        };
        let c = (1.0 - 1.0 / m as f64).powi(k as i32);
        let ms = th.moments_n(8);
        for t in [ms[0], ms[ms.len() / 2] + 1, th.worst_moment().0] {
            let spans: Vec<Option<u64>> = (0..th.groups()).map(|j| th.span(j, t)).collect();
            let fill = |a: u64| -> f64 {
                spans
                    .iter()
                    .map(|s| match *s {
                        Some(n) if n <= a => 1.0 - c.powf(n as f64),
                        _ => 1.0,
                    })
                    .sum::<f64>()
                    / th.groups() as f64
            };
            let pr = th.presence(t);
            for a in 0..=(p + 3) {
                let want = fill(a).powi(k as i32);
                assert!((pr.at(a) - want).abs() < 1e-12, "t {t} a {a}");
            }
            let f = fill(u64::MAX);
            let expect = if f >= 1.0 {
                (k as f64 + 1.0) / 2.0
            } else {
                (1..=k)
                    .map(|i| i as f64 * f.powi(i as i32 - 1) * (1.0 - f))
                    .sum::<f64>()
                    / (1.0 - f.powi(k as i32))
            };
            let got = th.probes_negative_at(t);
            assert!(
                (got - expect).abs() < 1e-9 * expect,
                "t {t}: {got} vs {expect}"
            );
        }
    }
}

/// The continuous approximation of the worst moment is close to the exact
/// theory at a large setting, and the worst moment's empty share is about
/// P/(W + P) of the mean's.
#[test]
fn the_continuous_worst_moment_is_close() {
    let (w, k, m, p) = (20_000u64, 6u32, 400_000u64, 36_000u64);
    let th = SheTheory {
        w,
        k,
        m,
        g: 64,
        phase: p,
    };
    let exact = th.fpr();
    let approx = fpr_continuous(w, k, m, p);
    assert!((exact / approx - 1.0).abs() < 0.02, "{exact} vs {approx}");
    let s = th.sweep(true);
    let empty = |f: f64| 1.0 - f.powf(1.0 / k as f64);
    let ratio = empty(s.worst) / empty(s.mean);
    let want = p as f64 / (w + p) as f64;
    assert!((ratio / want - 1.0).abs() < 0.1, "{ratio} vs {want}");
}

/// The reference code's α solves its equation, and is at least 1.
#[test]
fn code_alpha_solves_its_equation() {
    for (w, k, m) in [
        (1u64 << 16, 8u32, 1u64 << 18),
        (1 << 16, 8, 1 << 22),
        (1000, 3, 20_000),
    ] {
        let m = m.div_ceil(64) * 64;
        let a = code_alpha(w, k, m, 64);
        let q = (1.0 - 1.0 / 64f64).powf(w as f64 * k as f64 * 65.0 / m as f64);
        assert!((q.powf(a) * (q.ln() * a - 1.0) + q).abs() < 1e-6, "{a}");
        assert!(a >= 1.0);
        let f = SheBloom::code(w, k, m).unwrap();
        assert_eq!(f.group(), 64);
        assert_eq!(f.phase(), theory::phase_of(w, a));
    }
    // the settings of its main.cpp: α about 1.7 at 2^18 bits, 4.5 at 2^22
    let a = code_alpha(1 << 16, 8, 1 << 18, 64);
    assert!((1.6..1.8).contains(&a), "{a}");
    let a = code_alpha(1 << 16, 8, 1 << 22, 64);
    assert!((4.0..5.0).contains(&a), "{a}");
}

/// The sizing meets its target, and one group fewer misses it.
#[test]
fn sizing_meets_the_target() {
    for (w, e) in [(1000u64, 1e-2), (5000, 1e-3), (300, 0.05)] {
        let s = sizing(w, e).unwrap();
        let th = |m| SheTheory {
            w,
            k: s.k,
            m,
            g: 64,
            phase: s.phase,
        };
        assert!(th(s.m).fpr() <= e);
        assert!(th(s.m - 64).fpr() > e, "w {w} e {e}");
        let f = SheBloom::with_fpr(w, e).unwrap();
        assert_eq!((f.k(), f.m(), f.phase()), (s.k, s.m, s.phase));
    }
    assert!(SheBloom::with_fpr(100, 1.5).is_err());
    assert!(SheBloom::new(crate::SheBloomShape {
        window: 0,
        hashes: 3,
        bits: 64,
        group_bits: 8,
        phase: 10
    })
    .is_err());
    assert!(SheBloom::new(crate::SheBloomShape {
        window: 10,
        hashes: 0,
        bits: 64,
        group_bits: 8,
        phase: 10
    })
    .is_err());
    assert!(SheBloom::new(crate::SheBloomShape {
        window: 10,
        hashes: 3,
        bits: 0,
        group_bits: 8,
        phase: 10
    })
    .is_err());
    assert!(SheBloom::new(crate::SheBloomShape {
        window: 10,
        hashes: 3,
        bits: 64,
        group_bits: 0,
        phase: 10
    })
    .is_err());
    assert!(SheBloom::new(crate::SheBloomShape {
        window: 10,
        hashes: 3,
        bits: 64,
        group_bits: 7,
        phase: 10
    })
    .is_err());
    assert!(SheBloom::new(crate::SheBloomShape {
        window: 10,
        hashes: 3,
        bits: 64,
        group_bits: 8,
        phase: 9
    })
    .is_err());
}

/// The filter's position (by its fixed divisors) is the theory's (by
/// hardware division), for every group, at insertions near the start and
/// past 2^40, in shapes whose divisors are and are not powers of two.
#[test]
fn the_filters_divisors_give_the_theorys_position() {
    for (w, k, m, g, phase) in [
        (50u64, 3u32, 640u64, 8u64, 70u64),
        (1000, 7, 96_000, 64, 1_337),
        (7, 2, 96, 3, 7),
    ] {
        let f = SheBloom::new(SheBloomShape {
            window: w,
            hashes: k,
            bits: m,
            group_bits: g,
            phase,
        })
        .unwrap();
        let th = f.theory();
        for t in (0..3 * (w + phase)).chain((1u64 << 40)..(1 << 40) + 2 * phase) {
            for j in 0..th.groups() {
                assert_eq!(f.position(j, t), th.position(j, t), "t {t} j {j}");
            }
        }
        for c in 0..m {
            assert_eq!(f.group_of(c), c / g);
        }
    }
}

/// The fast position (one division) agrees with the definition: the phase
/// bit, and "flipped within the window" as the phase at the window's
/// first insertion differing from now, from the first insertion on.
#[test]
fn position_agrees_with_the_phases() {
    for (w, m, g, p) in [
        (50u64, 640u64, 8u64, 70u64),
        (7, 96, 4, 7),
        (1, 64, 8, 3),
        (30, 512, 64, 95),
    ] {
        let th = SheTheory {
            w,
            k: 3,
            m,
            g,
            phase: p,
        };
        for t in 0..4 * (p + w) {
            for j in 0..th.groups() {
                let (bit, r) = th.position(j, t);
                assert_eq!(bit, th.phase_bit(j, t as i128));
                let differs = th.phase_bit(j, t as i128 + 1 - w as i128) != bit;
                assert_eq!(r + 1 < w, differs, "W {w} P {p} t {t} j {j}");
                assert_eq!(r + 1 < w, th.flipped_in_window(j, t));
            }
        }
    }
}
