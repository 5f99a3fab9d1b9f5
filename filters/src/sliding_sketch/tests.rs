use super::theory::{sizing, SlidingBloomTheory};
use super::*;
use crate::hash::mix64;
use crate::Persist;

/// The filter's own cells hold exactly the keys the theory's N says: after
/// every insertion, for every cell, "some key of the last N(p, t) set it"
/// matches the cell's bits (keys written one per cell, no collisions:
/// k = 1 and a cell per key index traced by hand).
#[test]
fn cells_hold_the_last_n_insertions() {
    for (w, m) in [(10u64, 7u64), (7, 10), (16, 16), (5, 40)] {
        let mut f = SlidingBloom::new(crate::SlidingBloomShape {
            window: w,
            arrays: 1,
            cells_per_array: m,
        })
        .unwrap();
        let th = f.theory();
        // key t goes to cell index(key, 0, m): record the last time each
        // cell was written
        let mut written: Vec<Vec<u64>> = vec![Vec::new(); m as usize];
        for t in 1..=(6 * w) {
            let key = mix64(t);
            f.insert(key);
            written[super::cells::cell(f.m, key, 0) as usize].push(t);
            for p in 0..m {
                let n = th.held(p, t);
                let expect = written[p as usize].iter().any(|&s| s + n > t);
                let has = f.future.get(p) || f.now.get(p);
                assert_eq!(has, expect, "w {w} m {m} t {t} cell {p} N {n}");
            }
        }
    }
}

/// The fast sums over distinct N equal the cell-by-cell ones.
#[test]
fn spans_match_cell_by_cell() {
    for (k, m, w) in [
        (3u32, 50u64, 20u64),
        (4, 1000, 37),
        (2, 33, 500),
        (5, 200, 999),
    ] {
        let th = SlidingBloomTheory { k, m, w };
        for t in [2 * w, 2 * w + 1, 2 * w + w / 3, 3 * w - 1, 5 * w + 7] {
            for i in 0..k as u64 {
                let mut fast = std::collections::BTreeMap::new();
                th.spans(t, i, |n, c| *fast.entry(n).or_insert(0) += c);
                let mut slow = std::collections::BTreeMap::new();
                for p in i * m..(i + 1) * m {
                    *slow.entry(th.held(p, t)).or_insert(0) += 1;
                }
                assert_eq!(fast, slow, "k {k} m {m} w {w} t {t} array {i}");
                assert!(fast.keys().all(|&n| n > w && n <= 2 * w));
            }
        }
    }
}

/// Window W guaranteed, nothing 2W old left: the theory's presence is 1
/// up to age W and at the FPR from 2W.
#[test]
fn presence_is_one_in_the_window_and_the_fpr_past_two_windows() {
    let th = SlidingBloomTheory {
        k: 4,
        m: 300,
        w: 100,
    };
    let by_age = th.presence_by_age(250);
    assert!(by_age[..=100].iter().all(|&p| p == 1.0));
    assert!(by_age[101] < 1.0);
    let fpr = th.fpr_avg();
    for &p in &by_age[200..] {
        assert!((p - fpr).abs() < 1e-12, "{p} vs {fpr}");
    }
}

/// Simulated FPR and presence by age against the theory: 400 filter
/// states at each of 6 phases, fresh negatives and aged keys.
#[test]
fn simulation_matches_the_theory() {
    let (k, m, w) = (4u32, 400u64, 250u64);
    let th = SlidingBloomTheory { k, m, w };
    let ts = th.moments();
    let phases: Vec<u64> = ts.iter().step_by(ts.len() / 6).copied().collect();
    let ages = [0u64, 250, 300, 375, 450, 499];
    let mut fp = vec![0u64; phases.len()];
    let mut aged = vec![vec![0u64; ages.len()]; phases.len()];
    let runs = 400u64;
    let per = 200u64;
    for run in 0..runs {
        let mut f = SlidingBloom::new(crate::SlidingBloomShape {
            window: w,
            arrays: k,
            cells_per_array: m,
        })
        .unwrap();
        let key = |t: u64| mix64(t ^ (run << 40));
        let mut t = 0;
        for (pi, &at) in phases.iter().enumerate() {
            while t < at {
                t += 1;
                f.insert(key(t));
            }
            for q in 0..per {
                fp[pi] += f.contains(mix64(q ^ (run << 40) ^ (1 << 62) ^ (t << 20))) as u64;
            }
            for (ai, &a) in ages.iter().enumerate() {
                aged[pi][ai] += f.contains(key(t - a)) as u64;
            }
        }
    }
    for (pi, &t) in phases.iter().enumerate() {
        let n = (runs * per) as f64;
        let p = th.presence_at(t, None);
        let sd = (p * (1.0 - p) / n).sqrt();
        let got = fp[pi] as f64 / n;
        assert!(
            (got - p).abs() < 5.0 * sd + 1e-4,
            "phase {t}: FPR {got} vs {p}"
        );
        for (ai, &a) in ages.iter().enumerate() {
            let p = th.presence_at(t, Some(a));
            let sd = (p * (1.0 - p) / runs as f64).sqrt();
            let got = aged[pi][ai] as f64 / runs as f64;
            assert!(
                (got - p).abs() < 5.0 * sd + 1e-3,
                "t {t} age {a}: {got} vs {p}"
            );
        }
    }
}

/// The sizing meets its target with the fewest cells among its k: one
/// cell fewer per array misses it.
#[test]
fn sizing_meets_the_target_with_the_fewest_cells() {
    for (w, e) in [(1000u64, 1e-2), (5000, 1e-3), (300, 0.05)] {
        let (k, m) = sizing(w, e).unwrap();
        assert!(SlidingBloomTheory { k, m, w }.fpr() <= e);
        assert!(
            SlidingBloomTheory { k, m: m - 1, w }.fpr() > e,
            "w {w} e {e}"
        );
        let f = SlidingBloom::with_fpr(w, e).unwrap();
        assert_eq!((f.k(), f.m()), (k, m));
    }
    assert!(SlidingBloom::with_fpr(100, 1.5).is_err());
    assert!(SlidingBloom::new(crate::SlidingBloomShape {
        window: 0,
        arrays: 1,
        cells_per_array: 1
    })
    .is_err());
    assert!(SlidingBloom::new(crate::SlidingBloomShape {
        window: 10,
        arrays: 0,
        cells_per_array: 1
    })
    .is_err());
}

/// Saved mid-stream and loaded, it answers as the original.
#[test]
fn round_trips() {
    let mut f = SlidingBloom::new(crate::SlidingBloomShape {
        window: 100,
        arrays: 3,
        cells_per_array: 70,
    })
    .unwrap();
    for t in 0..333u64 {
        f.insert(mix64(t));
    }
    let mut g = SlidingBloom::from_bytes(&f.to_bytes()).unwrap();
    for t in 333..1000u64 {
        f.insert(mix64(t));
        g.insert(mix64(t));
        for q in [mix64(t / 2), mix64(t + 5000)] {
            assert_eq!(f.contains(q), g.contains(q));
        }
    }
    assert_eq!(f.to_bytes(), g.to_bytes());
}

/// The curve over ages, the PWS and the probes equal their definitions
/// age by age and cell by cell.
#[test]
fn curve_pws_and_probes_match_their_definitions() {
    for (k, m, w) in [(3u32, 50u64, 20u64), (4, 300, 100), (2, 33, 500)] {
        let th = SlidingBloomTheory { k, m, w };
        for t in [2 * w, 2 * w + w / 3 + 1, 3 * w - 1, 5 * w + 7] {
            let curve = th.presence_curve(t, 3 * w);
            for (a, &c) in curve.iter().enumerate() {
                let p = th.presence_at(t, Some(a as u64));
                assert!((c - p).abs() <= 1e-12 * p.max(1e-300), "t {t} a {a}");
            }
            let pws: f64 = (w..2 * w).map(|a| th.presence_at(t, Some(a))).sum();
            assert!((th.pws_at(t) - pws).abs() < 1e-9 * pws);
            // probes of a no: Σ (i + 1) P(first clear cell in array i) / P(no),
            // the fills cell by cell
            let q = 1.0 - 1.0 / m as f64;
            let fills: Vec<f64> = (0..k as u64)
                .map(|i| {
                    (i * m..(i + 1) * m)
                        .map(|p| 1.0 - q.powf(th.held(p, t) as f64))
                        .sum::<f64>()
                        / m as f64
                })
                .collect();
            let (mut expect, mut reach) = (0.0, 1.0);
            for (i, f) in fills.iter().enumerate() {
                expect += (i + 1) as f64 * reach * (1.0 - f);
                reach *= f;
            }
            expect /= 1.0 - reach;
            assert!((th.probes_negative_at(t) - expect).abs() < 1e-9 * expect);
        }
    }
}

/// The PWS averaged over every fourth moment of the grid (what the
/// harness uses above W = 2^20) is within 1e-3 relative of the mean over
/// all of them.
#[test]
fn a_coarser_grid_moves_the_mean_pws_little() {
    for (w, e) in [(10_000u64, 1e-3), (999, 1e-2)] {
        let (k, m) = sizing(w, e).unwrap();
        let th = SlidingBloomTheory { k, m, w };
        let all: Vec<f64> = th.moments().iter().map(|&t| th.pws_at(t)).collect();
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let coarse: Vec<f64> = all.iter().step_by(4).copied().collect();
        let (a, c) = (mean(&all), mean(&coarse));
        assert!((c / a - 1.0).abs() < 1e-3, "w {w}: {c} vs {a}");
    }
}
