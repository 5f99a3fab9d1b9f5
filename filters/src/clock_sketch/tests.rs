use super::theory::{sizing, ClockBloomTheory};
use super::*;
use crate::hash::mix64;

/// The filter's clocks are non-zero exactly where the theory's N says:
/// after every insertion, for every cell, "some key of the last N(p, t)
/// set it" matches the cell; both when the pointer makes fewer decrements
/// than insertions and more, for 2-, 3- and 4-bit clocks.
#[test]
fn cells_hold_the_last_n_insertions() {
    for (w, k, s, m) in [
        (50u64, 3u32, 2u32, 40u64),
        (200, 2, 2, 30),
        (33, 4, 3, 70),
        (60, 3, 4, 25),
        (7, 2, 2, 16),
    ] {
        let mut f = ClockBloom::new(crate::ClockBloomShape {
            window: w,
            hashes: k,
            cell_bits: s,
            cells: m,
        })
        .unwrap();
        let th = f.theory();
        let mut written: Vec<Vec<u64>> = vec![Vec::new(); m as usize];
        for t in 1..=(6 * th.longest()) {
            let key = mix64(t);
            f.insert(key);
            for i in 0..k {
                written[f.cell(key, i) as usize].push(t);
            }
            for p in 0..m {
                let n = th.held(p, t);
                let expect = written[p as usize].iter().any(|&x| x + n > t);
                assert_eq!(
                    f.clocks.get(p) != 0,
                    expect,
                    "W {w} k {k} s {s} m {m} t {t} cell {p} N {n}"
                );
            }
        }
    }
}

/// The runs equal the cell-by-cell spans (as multisets), both when the
/// pointer makes fewer decrements than insertions and more.
#[test]
fn runs_match_cell_by_cell() {
    for (w, k, s, m) in [
        (1000u64, 3u32, 2u32, 300u64),
        (37, 2, 2, 1000),
        (999, 5, 3, 200),
        (500, 4, 4, 7),
    ] {
        let th = ClockBloomTheory { w, k, s, m };
        for t in [
            1,
            w / 2,
            2 * th.longest(),
            2 * th.longest() + w / 3 + 1,
            5 * th.longest() + 7,
        ] {
            let mut slow: Vec<u64> = (0..m).map(|p| th.held(p, t)).collect();
            let mut fast: Vec<u64> = th
                .held_runs(t)
                .into_iter()
                .flat_map(|(n, c)| std::iter::repeat_n(n, c as usize))
                .collect();
            slow.sort_unstable();
            fast.sort_unstable();
            assert_eq!(fast, slow, "W {w} s {s} m {m} t {t}");
        }
    }
}

/// Every key of the window is reported, and every cell's span lies in
/// (W, longest] at every moment of a period.
#[test]
fn the_window_holds() {
    for (w, k, s, m) in [
        (400u64, 4u32, 2u32, 900u64),
        (301, 3, 3, 200),
        (64, 2, 2, 10),
    ] {
        let mut f = ClockBloom::new(crate::ClockBloomShape {
            window: w,
            hashes: k,
            cell_bits: s,
            cells: m,
        })
        .unwrap();
        for t in 1..=(5 * f.theory().longest()) {
            f.insert(mix64(t));
            for a in 0..w.min(t) {
                assert!(f.contains(mix64(t - a)), "W {w} s {s}: t {t} age {a}");
            }
        }
        let th = f.theory();
        let t0 = 2 * th.longest();
        for t in t0..t0 + th.period() {
            for p in 0..m {
                let n = th.held(p, t);
                assert!(n > w && n <= th.longest(), "t {t} cell {p} N {n}");
            }
        }
    }
}

/// The worst moment closes the period's climb: no moment of a period has a
/// higher FPR, and the FPR rises with the phase frac(t·R/W).
#[test]
fn the_worst_phase_is_the_largest_fraction() {
    for (w, k, s, m) in [
        (90u64, 5u32, 2u32, 61u64),
        (101, 7, 3, 50),
        (64, 4, 2, 40),
        (1000, 3, 2, 1500),
    ] {
        let th = ClockBloomTheory { w, k, s, m };
        let (tw, worst) = th.worst_moment();
        let r = ((1u64 << s) - 2) * m;
        let t0 = th.moments_n(1)[0] - th.period() / 2;
        let mut by_phase: Vec<(u64, f64)> = (t0..t0 + th.period())
            .map(|t| ((t * r) % w, th.fpr_at(t)))
            .collect();
        for &(_, f) in &by_phase {
            assert!(f <= worst * (1.0 + 1e-12), "W {w} m {m}");
        }
        assert_eq!((tw * r) % w, by_phase.iter().map(|x| x.0).max().unwrap());
        by_phase.sort_by_key(|x| x.0);
        for pair in by_phase.windows(2) {
            assert!(pair[1].1 >= pair[0].1 * (1.0 - 1e-12), "W {w} m {m}");
        }
    }
}

/// Simulated FPR and P(yes | age) at chosen moments match the theory over
/// independent runs; m large enough that the independence approximation's
/// error (order k/m) is far inside the intervals.
#[test]
fn simulation_matches_the_theory() {
    let (w, k, s, m) = (1500u64, 4u32, 2u32, 6007u64);
    let th = ClockBloomTheory { w, k, s, m };
    let (t_worst, _) = th.worst_moment();
    let mut moments = [t_worst, th.moments_n(64)[17], th.moments_n(64)[40]];
    moments.sort_unstable();
    let ages = [0u64, 700, 1499, 1600, 1900, 2249, 2400];
    let (runs, per) = (200u64, 3000u64);
    let mut fp = [0u64; 3];
    let mut aged = [[0u64; 7]; 3];
    for run in 0..runs {
        let key = |t: u64| mix64(t ^ (run << 40));
        let mut f = ClockBloom::new(crate::ClockBloomShape {
            window: w,
            hashes: k,
            cell_bits: s,
            cells: m,
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
/// cell by cell.
#[test]
fn presence_and_probes_match_their_definitions() {
    for (w, k, s, m) in [(40u64, 4u32, 2u32, 130u64), (100, 5, 3, 80), (77, 3, 2, 20)] {
        let th = ClockBloomTheory { w, k, s, m };
        let q = (1.0 - 1.0 / m as f64).powi(k as i32);
        let ms = th.moments_n(8);
        for t in [ms[0], ms[ms.len() / 2] + 1, th.worst_moment().0] {
            let spans: Vec<u64> = (0..m).map(|p| th.held(p, t)).collect();
            let fill = |a: u64| -> f64 {
                spans
                    .iter()
                    .map(|&n| if n > a { 1.0 } else { 1.0 - q.powf(n as f64) })
                    .sum::<f64>()
                    / m as f64
            };
            let pr = th.presence(t);
            for a in 0..=(th.longest() + 3) {
                let want = fill(a).powi(k as i32);
                assert!((pr.at(a) - want).abs() < 1e-12, "t {t} a {a}");
            }
            let f = fill(u64::MAX);
            let expect: f64 = (1..=k)
                .map(|i| i as f64 * f.powi(i as i32 - 1) * (1.0 - f))
                .sum::<f64>()
                / (1.0 - f.powi(k as i32));
            assert!((th.probes_negative_at(t) - expect).abs() < 1e-9 * expect);
        }
    }
}

/// The sizing meets its target, and one cell fewer misses it.
#[test]
fn sizing_meets_the_target() {
    for (w, e) in [(1000u64, 1e-2), (5000, 1e-3), (300, 0.05)] {
        let s = sizing(w, e).unwrap();
        let th = |m| ClockBloomTheory {
            w,
            k: s.k,
            s: s.s,
            m,
        };
        assert!(th(s.m).fpr() <= e);
        assert!(th(s.m - 1).fpr() > e, "w {w} e {e}");
        let f = ClockBloom::with_fpr(w, e).unwrap();
        assert_eq!((f.k(), f.clock_bits(), f.m()), (s.k, s.s, s.m));
    }
    assert!(ClockBloom::with_fpr(100, 1.5).is_err());
    assert!(ClockBloom::new(crate::ClockBloomShape {
        window: 10,
        hashes: 3,
        cell_bits: 1,
        cells: 5
    })
    .is_err());
    assert!(ClockBloom::new(crate::ClockBloomShape {
        window: 10,
        hashes: 3,
        cell_bits: 17,
        cells: 5
    })
    .is_err());
    assert!(ClockBloom::new(crate::ClockBloomShape {
        window: 0,
        hashes: 3,
        cell_bits: 2,
        cells: 5
    })
    .is_err());
    assert!(ClockBloom::new(crate::ClockBloomShape {
        window: 10,
        hashes: 0,
        cell_bits: 2,
        cells: 5
    })
    .is_err());
    assert!(ClockBloom::new(crate::ClockBloomShape {
        window: 10,
        hashes: 3,
        cell_bits: 2,
        cells: 0
    })
    .is_err());
}
