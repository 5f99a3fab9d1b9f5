use super::*;
use crate::hash::mix64;
use crate::Instrumented;

/// Second-to-last sweep time of cell `c` at `now` by the schedule's
/// definition (sweep n at ⌈(n+1)T/cells⌉, of cell n mod cells); `None` if
/// the cell was swept less than twice.
fn second_last_sweep(t: u64, cells: u64, now: u64, c: u64) -> Option<u64> {
    let at = |n: u64| ((n + 1) * t).div_ceil(cells);
    let sweeps: Vec<u64> = (0..)
        .map(|j| c + j * cells)
        .take_while(|&n| at(n) <= now)
        .collect();
    (sweeps.len() >= 2).then(|| at(sweeps[sweeps.len() - 2]))
}

/// Bit for bit against the definition: a cell holds the keys inserted at
/// or after its second-to-last sweep, under bursts, steady traffic and
/// lulls; and a key is always reported while at most T old.
#[test]
fn cells_follow_the_sweep_schedule_and_keep_the_window() {
    let (t, k, m) = (1000u64, 3u32, 7u64);
    let mut f = TimedSlidingBloom::new(crate::TimedSlidingBloomShape {
        window_ticks: t,
        arrays: k,
        cells_per_array: m,
    })
    .unwrap();
    let cells = (k as u64) * m;
    let mut now = 0u64;
    let mut log: Vec<(u64, u64)> = Vec::new(); // (key, time)
    for i in 0..3000u64 {
        now += crate::sliding_sketch::sweep::testing::gap(i, 10, 3 * t, 40);
        f.advance(now);
        let key = mix64(i ^ 0xABCD);
        f.insert(key);
        log.push((key, now));
        // every cell against the keys its schedule says it holds
        if i % 97 == 0 {
            for c in 0..cells {
                let from = second_last_sweep(t, cells, now, c).unwrap_or(0);
                let held = log
                    .iter()
                    .any(|&(key, u)| u >= from && (0..k).any(|j| f.cell(key, j) == c));
                assert_eq!(f.future.get(c) || f.now.get(c), held, "cell {c} at {now}");
            }
        }
        for &(key, u) in log.iter().rev().take(50) {
            if now - u <= t {
                assert!(f.contains(key), "a key {} old lost", now - u);
            }
        }
    }
    assert_eq!(f.now(), now);
    assert_eq!((f.window_time(), f.slack_time()), (t, t));
    assert!(f.as_timed().is_some());
    // after 2T nothing is left
    f.advance(now + 2 * t);
    assert!(log.iter().all(|&(key, _)| !f.contains(key)));
    assert_eq!(f.name(), "sliding_bloom_time");
    assert_eq!(f.memory_bits(), 2 * cells + 128);
    let (yes, probes) = f.contains_probes(log[0].0);
    assert!(!yes && probes == 1);
}

/// The theory's sums (exact up to EXACT_CELLS cells a run, the midpoint
/// rule above) against a sum over every cell, under a rate that varies.
#[test]
fn theory_matches_the_sum_over_every_cell() {
    let (t, k, m) = (1_000_000u64, 3u32, 5000u64);
    let f = TimedSlidingBloom::new(crate::TimedSlidingBloomShape {
        window_ticks: t,
        arrays: k,
        cells_per_array: m,
    })
    .unwrap();
    let cells = (k as u64 * m) as f64;
    let unit = t as f64 / cells;
    // arrivals at 10 per unit of time, doubled in a wave
    let cum = crate::sliding_sketch::sweep::testing::wave;
    for now in [700_000.0, 1_500_000.0, 2_345_678.0] {
        let th = f.theory_at(now, &cum);
        let s = (now / unit).floor();
        let hand = s % cells;
        let pass = s - hand;
        let tau0 = |c: f64| {
            let n0 = if c < hand {
                pass - cells + c
            } else {
                pass - 2.0 * cells + c
            };
            if n0 < 0.0 {
                0.0
            } else {
                (n0 + 1.0) * unit
            }
        };
        let fill = |c: f64| 1.0 - (-(cum(now) - cum(tau0(c))) / m as f64).exp();
        let exact: f64 = (0..k as u64)
            .map(|i| (0..m).map(|j| fill((i * m + j) as f64)).sum::<f64>() / m as f64)
            .product();
        assert!(
            (th.fpr() - exact).abs() < 1e-6 * exact,
            "{now}: {} against {exact}",
            th.fpr()
        );
        // (keys arrive from time 0 on)
        for u in [
            now - 10.0,
            now - 0.9 * t as f64,
            now - 1.5 * t as f64,
            now - 3.0 * t as f64,
        ]
        .into_iter()
        .filter(|u| *u >= 0.0)
        {
            let exact: f64 = (0..k as u64)
                .map(|i| {
                    (0..m)
                        .map(|j| {
                            let c = (i * m + j) as f64;
                            if u >= tau0(c) || (c < hand && pass - cells + c < 0.0) {
                                1.0
                            } else {
                                fill(c)
                            }
                        })
                        .sum::<f64>()
                        / m as f64
                })
                .product();
            let p = th.presence(u);
            assert!((p - exact).abs() < 1e-4, "{now} {u}: {p} against {exact}");
        }
        // a key inside the window is sure; a key long gone is a false positive
        assert_eq!(th.presence(now - 0.5 * t as f64), 1.0);
        if now >= 2.5 * t as f64 {
            let gone = th.presence(now - 2.5 * t as f64);
            assert!(
                (gone - th.fpr()).abs() < 1e-12,
                "{gone} against {}",
                th.fpr()
            );
        }
    }
}

/// Measured against the theory: many filters under Poisson arrivals whose
/// rate steps up, each queried at one moment with never-inserted keys.
#[test]
fn theory_matches_simulation_under_a_changing_rate() {
    // sized for the peak: 3000 keys per T at 1%
    let t = 100_000u64;
    let (k, m) = theory::sizing(3000, 0.01).unwrap();
    crate::sliding_sketch::sweep::testing::changing_rate(
        || {
            TimedSlidingBloom::new(crate::TimedSlidingBloomShape {
                window_ticks: t,
                arrays: k,
                cells_per_array: m,
            })
            .unwrap()
        },
        |f, now, cum| f.theory_at(now, cum).fpr(),
    );
}

/// The sizing's count window, and its refusals.
#[test]
fn sizing_and_bad_parameters() {
    assert_eq!(TimedSlidingBloom::keys(600, 5000.0).unwrap(), 3_000_000);
    assert_eq!(
        TimedSlidingBloom::keys(600_000_000_000, 5e-6).unwrap(),
        3_000_000
    );
    assert!(TimedSlidingBloom::keys(10, 0.0).is_err());
    assert!(TimedSlidingBloom::keys(1 << 30, 1.0).is_err());
    let f = TimedSlidingBloom::with_fpr(10_000, 0.1, 0.01).unwrap();
    let (k, m) = theory::sizing(1000, 0.01).unwrap();
    assert_eq!((f.k(), f.m()), (k, m));
    assert!(TimedSlidingBloom::new(crate::TimedSlidingBloomShape {
        window_ticks: 0,
        arrays: 1,
        cells_per_array: 1
    })
    .is_err());
    assert!(TimedSlidingBloom::new(crate::TimedSlidingBloomShape {
        window_ticks: 1,
        arrays: 0,
        cells_per_array: 1
    })
    .is_err());
    assert!(TimedSlidingBloom::new(crate::TimedSlidingBloomShape {
        window_ticks: 1,
        arrays: 1,
        cells_per_array: 0
    })
    .is_err());
    assert!(TimedSlidingBloom::with_fpr(100, 1.0, 0.0).is_err());
}
