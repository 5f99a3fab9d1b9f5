use super::*;
use crate::hash::mix64;
use crate::Instrumented;

/// Decrement times of cell `c` by `now` by the schedule's definition
/// (decrement n at ⌈(n+1)T/per⌉, of cell n mod m).
fn decrements(f: &TimedClockBloom, now: u64, c: u64) -> Vec<u64> {
    let sc = f.schedule();
    let at = |n: u64| ((n + 1) * sc.t).div_ceil(sc.per);
    (0..)
        .map(|j| c + j * sc.cells)
        .map(at)
        .take_while(|&x| x <= now)
        .collect()
}

/// Clock by clock against the definition: a clock is D minus the
/// decrements after its latest setting (at least 0), under bursts, steady
/// traffic and lulls; a key is always reported while at most T old, and
/// nothing is left past the slack.
#[test]
fn clocks_follow_the_schedule_and_keep_the_window() {
    let (t, k, s, m) = (1000u64, 3u32, 2u32, 11u64);
    let mut f = TimedClockBloom::new(crate::TimedClockBloomShape {
        window_ticks: t,
        hashes: k,
        cell_bits: s,
        cells: m,
    })
    .unwrap();
    let full = 3u64;
    let mut now = 0u64;
    let mut log: Vec<(u64, u64)> = Vec::new(); // (key, time)
    for i in 0..3000u64 {
        now += crate::sliding_sketch::sweep::testing::gap(i, 10, 2 * t, 40);
        f.advance(now);
        let key = mix64(i ^ 0xABCD);
        f.insert(key);
        log.push((key, now));
        if i % 97 == 0 {
            for c in 0..m {
                let latest = log
                    .iter()
                    .rev()
                    .find(|&&(key, _)| (0..k).any(|j| f.cell(key, j) == c))
                    .map(|&(_, u)| u);
                let want = latest.map_or(0, |u| {
                    // decrements strictly after u (one at u came first)
                    let after = decrements(&f, now, c).iter().filter(|&&x| x > u).count();
                    full.saturating_sub(after as u64)
                });
                assert_eq!(f.clocks.get(c), want, "cell {c} at {now}");
            }
        }
        for &(key, u) in log.iter().rev().take(50) {
            if now - u <= t {
                assert!(f.contains(key), "a key {} old lost", now - u);
            }
        }
    }
    assert_eq!(f.now(), now);
    assert_eq!((f.window_time(), f.slack_time()), (t, t / 2));
    assert!(f.as_timed().is_some());
    // nothing is left once T + slack has passed
    f.advance(now + t + t / 2);
    assert!(log.iter().all(|&(key, _)| !f.contains(key)));
    // a gap past D passes clears everything
    f.insert(5);
    f.advance(now + 10 * t);
    assert!(!f.contains(5));
    assert_eq!(f.name(), "clock_bloom_time");
    assert_eq!(f.memory_bits(), 2 * m + 128);
    let (yes, probes) = f.contains_probes(log[0].0);
    assert!(!yes && probes == 1);
}

/// The theory's sums against a sum over every cell, under a rate that
/// varies; and P(yes) for keys of every age.
#[test]
fn theory_matches_the_sum_over_every_cell() {
    let (t, k, s, m) = (1_000_000u64, 4u32, 3u32, 9000u64);
    let f = TimedClockBloom::new(crate::TimedClockBloomShape {
        window_ticks: t,
        hashes: k,
        cell_bits: s,
        cells: m,
    })
    .unwrap();
    let (d, mf) = (7.0, m as f64);
    let unit = t as f64 / ((d - 1.0) * mf);
    let cum = crate::sliding_sketch::sweep::testing::wave;
    for now in [100_000.0, 700_000.0, 1_500_000.0, 2_345_678.0] {
        let th = f.theory_at(now, &cum);
        let sw = (now / unit).floor();
        let hand = sw % mf;
        let pass = sw - hand;
        // the D-th most recent decrement's number, negative if none
        let n0 = |c: f64| {
            if c < hand {
                pass - (d - 1.0) * mf + c
            } else {
                pass - d * mf + c
            }
        };
        let tau0 = |c: f64| {
            if n0(c) < 0.0 {
                0.0
            } else {
                (n0(c) + 1.0) * unit
            }
        };
        let fill = |c: f64| 1.0 - (-(k as f64) * (cum(now) - cum(tau0(c))) / mf).exp();
        let mean = (0..m).map(|c| fill(c as f64)).sum::<f64>() / mf;
        let exact = mean.powi(k as i32);
        assert!(
            (th.fpr() - exact).abs() < 1e-6 * exact,
            "{now}: {} against {exact}",
            th.fpr()
        );
        for age in [10.0, 0.9, 1.1, 1.16, 1.3] {
            let u = if age > 1.0 {
                now - age * t as f64
            } else {
                now - age
            };
            if u < 0.0 {
                continue;
            }
            let held = (0..m)
                .map(|c| {
                    let c = c as f64;
                    if n0(c) < 0.0 || u >= tau0(c) {
                        1.0
                    } else {
                        fill(c)
                    }
                })
                .sum::<f64>()
                / mf;
            let exact = held.powi(k as i32);
            let p = th.presence(u);
            assert!((p - exact).abs() < 1e-4, "{now} {u}: {p} against {exact}");
        }
        assert_eq!(th.presence(now - 0.5 * t as f64), 1.0);
        if now >= 1.2 * t as f64 {
            let gone = th.presence(now - 1.2 * t as f64);
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
            TimedClockBloom::new(crate::TimedClockBloomShape {
                window_ticks: t,
                hashes: sz.k,
                cell_bits: sz.s,
                cells: sz.m,
            })
            .unwrap()
        },
        |f, now, cum| f.theory_at(now, cum).fpr(),
    );
}

/// The sizing's count window, and the refusals.
#[test]
fn sizing_and_bad_parameters() {
    let f = TimedClockBloom::with_fpr(10_000, 0.1, 0.01).unwrap();
    let sz = theory::sizing(1000, 0.01).unwrap();
    assert_eq!((f.k(), f.clock_bits(), f.m()), (sz.k, sz.s, sz.m));
    assert!(TimedClockBloom::keys(1 << 30, 1.0).is_err());
    assert!(TimedClockBloom::new(crate::TimedClockBloomShape {
        window_ticks: 0,
        hashes: 1,
        cell_bits: 2,
        cells: 1
    })
    .is_err());
    assert!(TimedClockBloom::new(crate::TimedClockBloomShape {
        window_ticks: 1,
        hashes: 0,
        cell_bits: 2,
        cells: 1
    })
    .is_err());
    assert!(TimedClockBloom::new(crate::TimedClockBloomShape {
        window_ticks: 1,
        hashes: 1,
        cell_bits: 1,
        cells: 1
    })
    .is_err());
    assert!(TimedClockBloom::new(crate::TimedClockBloomShape {
        window_ticks: 1,
        hashes: 1,
        cell_bits: 17,
        cells: 1
    })
    .is_err());
    assert!(TimedClockBloom::new(crate::TimedClockBloomShape {
        window_ticks: 1,
        hashes: 1,
        cell_bits: 2,
        cells: 0
    })
    .is_err());
    assert!(TimedClockBloom::with_fpr(100, 1.0, 0.0).is_err());
    assert!(TimedClockBloom::with_fpr(100, f64::NAN, 0.01).is_err());
}
