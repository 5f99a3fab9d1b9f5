//! Tests of the arrival processes (`arrivals.rs`).

use super::*;
use rand::SeedableRng;

/// A replayed trace's arrivals never wrap: far beyond the end of any
/// run they are `u64::MAX`, not a small time.
#[test]
fn trace_replay_never_wraps() {
    let tt = TraceTimes::new(&[0, 1, crate::workload::MAX_SPAN_NS]);
    assert_eq!(tt.at(3), tt.period);
    let mut last = 0;
    for i in [10u64, 1_000, 10_000, u64::MAX / 2, u64::MAX] {
        let t = tt.at(i);
        assert!(t >= last, "arrival {i} at {t} before {last}");
        last = t;
    }
    assert_eq!(last, u64::MAX);
}

/// A cycle's rate and cumulative arrivals skip the cosine and sine of
/// flat segments: every value is the full formula's to the bit.
#[test]
fn flat_segments_give_the_full_formulas_to_the_bit() {
    let full_cum = |c: &CycleSpec, mut s: f64| {
        let mut acc = 0.0;
        for (d, a, b) in c.segments() {
            let x = s.min(d);
            if x > 0.0 {
                let ramp = x / 2.0 - d / (2.0 * PI) * (PI * x / d).sin();
                acc += a * x + (b - a) * ramp;
            }
            s -= d;
            if s <= 0.0 {
                break;
            }
        }
        acc
    };
    let full_rate = |c: &CycleSpec, mut s: f64| {
        for (d, a, b) in c.segments() {
            if s < d {
                return a + (b - a) * (1.0 - (PI * s / d).cos()) / 2.0;
            }
            s -= d;
        }
        0.0
    };
    for kind in kinds() {
        let ArrivalSpec::Cycle(c) = kind else {
            continue;
        };
        let n = 10_000;
        for i in 0..=n {
            let s = c.period() * i as f64 / n as f64;
            assert_eq!(
                c.cum_in(s).to_bits(),
                full_cum(&c, s).to_bits(),
                "{c:?} {s}"
            );
            if s < c.period() {
                assert_eq!(
                    c.rate_in(s).to_bits(),
                    full_rate(&c, s).to_bits(),
                    "{c:?} {s}"
                );
            }
        }
    }
}

fn kinds() -> Vec<ArrivalSpec> {
    vec![
        ArrivalSpec::Constant { rate: 1000.0 },
        ArrivalSpec::Poisson { rate: 1000.0 },
        ArrivalSpec::OnOff {
            rate: 400.0,
            ratio: 6.0,
            period: 2.0,
            duty: 0.25,
        },
        ArrivalSpec::Diurnal {
            rate: 1000.0,
            amplitude: 0.8,
            period: 5.0,
        },
        ArrivalSpec::Cycle(CycleSpec {
            rate: 200.0,
            ratio: 8.0,
            rise: 0.7,
            high: 0.5,
            fall: 1.3,
            low: 0.9,
            lull: 1.6,
        }),
        ArrivalSpec::Cycle(CycleSpec {
            rate: 500.0,
            ratio: 1.0,
            rise: 0.0,
            high: 0.0,
            fall: 0.0,
            low: 1.0,
            lull: 1.5,
        }),
    ]
}

/// A cycle of a rise and a fall alone is a sine between its rates, and
/// one without ramps is steps; a lull has no arrivals.
#[test]
fn a_cycle_is_steps_ramps_a_sine_and_lulls() {
    let sine = ArrivalSpec::Cycle(CycleSpec {
        rate: 1000.0,
        ratio: 8.0,
        rise: 100.0,
        high: 0.0,
        fall: 100.0,
        low: 0.0,
        lull: 0.0,
    });
    for i in 0..400 {
        let t = i as f64 * 0.77;
        let want = 4500.0 - 3500.0 * (2.0 * PI * t / 200.0).cos();
        assert!((sine.rate(t) - want).abs() < 1e-6 * want, "{t}");
    }
    assert!((sine.mean_rate() - 4500.0).abs() < 1e-9);
    assert_eq!(sine.max_rate(), 8000.0);
    let steps = ArrivalSpec::Cycle(CycleSpec {
        rate: 1000.0,
        ratio: 8.0,
        rise: 0.0,
        high: 100.0,
        fall: 0.0,
        low: 100.0,
        lull: 0.0,
    });
    assert_eq!(steps.rate(50.0), 8000.0);
    assert_eq!(steps.rate(150.0), 1000.0);
    assert_eq!(steps.rate(250.0), 8000.0);
    let lull = ArrivalSpec::Cycle(CycleSpec {
        rate: 1000.0,
        ratio: 1.0,
        rise: 0.0,
        high: 0.0,
        fall: 0.0,
        low: 100.0,
        lull: 50.0,
    });
    assert_eq!(lull.max_rate(), 1000.0);
    let mut arr = lull.arrivals(Pcg64::seed_from_u64(3));
    for _ in 0..20_000 {
        let t = arr.next_ns() as f64 / NS;
        assert!(t.rem_euclid(150.0) < 100.0, "an arrival in the lull at {t}");
    }
}

/// Λ is the integral of λ (checked by the trapezoid rule) and the mean
/// rate is Λ's slope over whole periods.
#[test]
fn cum_integrates_rate() {
    for a in kinds() {
        let (mut acc, h) = (0.0, 1e-4);
        for i in 0..100_000 {
            let t = i as f64 * h;
            acc += 0.5 * h * (a.rate(t) + a.rate(t + h));
            if i % 9_999 == 0 {
                let t = t + h;
                assert!(
                    (acc - a.cum(t)).abs() < 1e-3 * a.cum(t).max(1.0),
                    "{a:?} at {t}"
                );
            }
        }
        assert!(
            (a.cum(10.0) / 10.0 - a.mean_rate()).abs() < 1e-9 * a.mean_rate(),
            "{a:?}"
        );
    }
}

/// The number of arrivals by time t is Poisson with mean Λ(t), over
/// every second of a 200-second run (within 4.5 standard deviations).
#[test]
fn arrivals_follow_the_rate() {
    for a in kinds() {
        let mut arr = a.arrivals(Pcg64::seed_from_u64(9));
        let mut counts = vec![0u64; 200];
        let mut last = 0;
        loop {
            let t = arr.next_ns();
            assert!(t >= last);
            last = t;
            let s = (t as f64 / NS) as usize;
            if s >= counts.len() {
                break;
            }
            counts[s] += 1;
        }
        let total: u64 = counts.iter().sum();
        let expect = a.cum(200.0);
        assert!(
            ((total as f64) - expect).abs() < 4.5 * expect.sqrt(),
            "{a:?}"
        );
        if let ArrivalSpec::OnOff { .. } = a {
            // bursts at the start of each 2-second period
            let burst: u64 = counts.iter().step_by(2).sum();
            let quiet: u64 = counts.iter().skip(1).step_by(2).sum();
            let want = a.cum(1.0) / (a.cum(2.0) - a.cum(1.0)); // 1400 / 400
            let got = burst as f64 / quiet as f64;
            assert!((got - want).abs() < 0.1 * want, "{got} vs {want}");
        }
    }
}

#[test]
fn bad_parameters_are_named() {
    let name = |f: &str| format!("time.arrivals.{f}");
    let bad = [
        ArrivalSpec::Poisson { rate: 0.0 },
        ArrivalSpec::Constant { rate: f64::NAN },
        ArrivalSpec::OnOff {
            rate: 1.0,
            ratio: 0.5,
            period: 1.0,
            duty: 0.5,
        },
        ArrivalSpec::OnOff {
            rate: 1.0,
            ratio: 2.0,
            period: 1.0,
            duty: 1.0,
        },
        ArrivalSpec::Diurnal {
            rate: 1.0,
            amplitude: 1.0,
            period: 1.0,
        },
        ArrivalSpec::Cycle(CycleSpec {
            rate: 1.0,
            ratio: 2.0,
            rise: 0.0,
            high: 0.0,
            fall: 0.0,
            low: 0.0,
            lull: 3.0,
        }),
        ArrivalSpec::Cycle(CycleSpec {
            rate: 1.0,
            ratio: 2.0,
            rise: -1.0,
            high: 1.0,
            fall: 0.0,
            low: 0.0,
            lull: 0.0,
        }),
    ];
    for b in bad {
        let e = b.check(&name).unwrap_err().to_string();
        assert!(e.starts_with("time.arrivals.") && !e.contains('\n'), "{e}");
    }
    for a in kinds() {
        a.check(&name).unwrap();
    }
}
