use super::*;
use crate::hash::mix64;
use crate::Instrumented;

/// Last clearing time of cell `c` by `now` by the schedule's definition
/// (clearing n at ⌈(n+1)T/per⌉, of cell n mod k·m); `None` if never.
fn last_clearing(f: &TimedHalfSliding, now: u64, c: u64) -> Option<u64> {
    let sc = f.schedule();
    let at = |n: u64| ((n + 1) * sc.t).div_ceil(sc.per);
    (0..)
        .map(|j| at(c + j * sc.cells))
        .take_while(|&x| x <= now)
        .last()
}

/// Bit for bit against the definition: a cell holds the keys inserted at
/// or after its last clearing, under bursts, steady traffic and lulls; a
/// query reads the lo arrays after the clock's; a key is always reported
/// while at most T old, and nothing is left after the clock's round.
#[test]
fn cells_follow_the_schedule_and_keep_the_window() {
    let (t, k, lo, m) = (1000u64, 5u32, 2u32, 7u64);
    let mut f = TimedHalfSliding::new(crate::TimedHalfSlidingShape {
        window_ticks: t,
        arrays: k,
        queried_arrays: lo,
        cells_per_array: m,
    })
    .unwrap();
    let cells = k as u64 * m;
    let mut now = 0u64;
    let mut log: Vec<(u64, u64)> = Vec::new(); // (key, time)
    for i in 0..3000u64 {
        now += crate::sliding_sketch::sweep::testing::gap(i, 10, 3 * t, 40);
        f.advance(now);
        let key = mix64(i ^ 0xABCD);
        f.insert(key);
        log.push((key, now));
        if i % 97 == 0 {
            for c in 0..cells {
                let from = last_clearing(&f, now, c).unwrap_or(0);
                let held = log
                    .iter()
                    .any(|&(key, u)| u >= from && (0..k).any(|j| f.cell(key, j) == c));
                assert_eq!(f.bits.get(c), held, "cell {c} at {now}");
            }
            // the query's arrays: the lo after the one the clock is in
            let clock_array = (f.schedule().sweeps_by(now) % cells / m) as u32;
            let want: Vec<u32> = (1..=lo).map(|j| (clock_array + j) % k).collect();
            assert_eq!(f.queried_at(f.swept).collect::<Vec<_>>(), want);
        }
        for &(key, u) in log.iter().rev().take(50) {
            if now - u <= t {
                assert!(f.contains(key), "a key {} old lost", now - u);
            }
        }
    }
    assert_eq!(f.now(), now);
    // k·T/(k - lo - 1) = 2.5 T
    assert_eq!((f.window_time(), f.slack_time()), (t, 3 * t / 2));
    assert!(f.as_timed().is_some());
    f.advance(now + t + 3 * t / 2);
    assert!(log.iter().all(|&(key, _)| !f.contains(key)));
    assert_eq!(f.name(), "half_sliding_time");
    assert_eq!(f.memory_bits(), cells + 128);
    let (yes, probes) = f.contains_probes(log[0].0);
    assert!(!yes && probes == 1);
}

/// The theory's sums against a sum over every queried cell, under a rate
/// that varies; and P(yes) for keys of every age.
#[test]
fn theory_matches_the_sum_over_every_cell() {
    let (t, k, lo, m) = (1_000_000u64, 6u32, 3u32, 4000u64);
    let f = TimedHalfSliding::new(crate::TimedHalfSlidingShape {
        window_ticks: t,
        arrays: k,
        queried_arrays: lo,
        cells_per_array: m,
    })
    .unwrap();
    let cells = (k as u64 * m) as f64;
    let per = ((k - lo - 1) as u64 * m) as f64;
    let unit = t as f64 / per;
    let cum = crate::sliding_sketch::sweep::testing::wave;
    for now in [700_000.0, 1_500_000.0, 2_345_678.0, 4_100_000.0] {
        let th = f.theory_at(now, &cum);
        let s = (now / unit).floor();
        let hand = s % cells;
        let pass = s - hand;
        let n0 = |c: f64| if c < hand { pass + c } else { pass - cells + c };
        let tau0 = |c: f64| {
            if n0(c) < 0.0 {
                0.0
            } else {
                (n0(c) + 1.0) * unit
            }
        };
        let fill = |c: f64| 1.0 - (-(cum(now) - cum(tau0(c))) / m as f64).exp();
        let clock_array = (hand / m as f64).floor() as u64;
        let queried: Vec<u64> = (1..=lo as u64)
            .map(|j| (clock_array + j) % k as u64)
            .collect();
        let exact: f64 = queried
            .iter()
            .map(|i| (0..m).map(|j| fill((i * m + j) as f64)).sum::<f64>() / m as f64)
            .product();
        assert!(
            (th.fpr() - exact).abs() < 1e-6 * exact,
            "{now}: {} against {exact}",
            th.fpr()
        );
        for age in [10.0, 0.9, 1.3, 2.0, 3.0] {
            let u = if age > 5.0 {
                now - age
            } else {
                now - age * t as f64
            };
            if u < 0.0 {
                continue;
            }
            let exact: f64 = queried
                .iter()
                .map(|i| {
                    (0..m)
                        .map(|j| {
                            let c = (i * m + j) as f64;
                            if n0(c) < 0.0 || u >= tau0(c) {
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
        assert_eq!(th.presence(now - 0.5 * t as f64), 1.0);
        if now >= 3.0 * t as f64 {
            let gone = th.presence(now - 3.0 * t as f64);
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
    let t = 100_000u64;
    let sz = theory::sizing(3000, 0.01).unwrap();
    crate::sliding_sketch::sweep::testing::changing_rate(
        || {
            TimedHalfSliding::new(crate::TimedHalfSlidingShape {
                window_ticks: t,
                arrays: sz.k,
                queried_arrays: sz.lo,
                cells_per_array: sz.m,
            })
            .unwrap()
        },
        |f, now, cum| f.theory_at(now, cum).fpr(),
    );
}

/// The sizing's count window, and the refusals.
#[test]
fn sizing_and_bad_parameters() {
    let f = TimedHalfSliding::with_fpr(10_000, 0.1, 0.01).unwrap();
    let sz = theory::sizing(1000, 0.01).unwrap();
    assert_eq!((f.k(), f.lo(), f.m()), (sz.k, sz.lo, sz.m));
    assert!(TimedHalfSliding::keys(1 << 30, 1.0).is_err());
    assert!(TimedHalfSliding::new(crate::TimedHalfSlidingShape {
        window_ticks: 0,
        arrays: 4,
        queried_arrays: 1,
        cells_per_array: 1
    })
    .is_err());
    assert!(TimedHalfSliding::new(crate::TimedHalfSlidingShape {
        window_ticks: 1,
        arrays: 4,
        queried_arrays: 0,
        cells_per_array: 1
    })
    .is_err());
    assert!(TimedHalfSliding::new(crate::TimedHalfSlidingShape {
        window_ticks: 1,
        arrays: 4,
        queried_arrays: 3,
        cells_per_array: 1
    })
    .is_err());
    assert!(TimedHalfSliding::new(crate::TimedHalfSlidingShape {
        window_ticks: 1,
        arrays: 4,
        queried_arrays: 1,
        cells_per_array: 0
    })
    .is_err());
    assert!(TimedHalfSliding::new(crate::TimedHalfSlidingShape {
        window_ticks: 1,
        arrays: 0,
        queried_arrays: 1,
        cells_per_array: 1
    })
    .is_err());
    assert!(TimedHalfSliding::with_fpr(100, 1.0, 0.0).is_err());
}
