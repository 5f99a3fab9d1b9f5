//! Arrival processes: when each key of a time-window experiment arrives.
//!
//! Time is simulated, never read from the wall clock: a process is a rate
//! λ(t) in keys per second and its cumulative mean Λ(t) = ∫₀ᵗ λ, and the
//! arrivals are drawn from a seeded generator, so that a spec and a seed give
//! the same timestamps on any machine. Times are `u64` nanoseconds inside
//! the harness and seconds in specs and results.

use crate::spec::{ArrivalSpec, CycleSpec, NS};
use rand::Rng;
use rand_pcg::Pcg64;
use std::f64::consts::PI;

impl ArrivalSpec {
    /// λ(t): keys per second at `t` seconds (NaN for a trace: see
    /// [`Process`]).
    pub fn rate(&self, t: f64) -> f64 {
        match *self {
            ArrivalSpec::Trace => f64::NAN,
            ArrivalSpec::Constant { rate } | ArrivalSpec::Poisson { rate } => rate,
            ArrivalSpec::OnOff {
                rate,
                ratio,
                period,
                duty,
            } => {
                if (t / period).fract() < duty {
                    rate * ratio
                } else {
                    rate
                }
            }
            ArrivalSpec::Diurnal {
                rate,
                amplitude,
                period,
            } => rate * (1.0 + amplitude * (2.0 * PI * t / period).sin()),
            ArrivalSpec::Cycle(c) => c.rate_in(t.rem_euclid(c.period())),
        }
    }

    /// Λ(t): expected arrivals in [0, t], t in seconds (NaN for a trace).
    pub fn cum(&self, t: f64) -> f64 {
        let t = t.max(0.0);
        match *self {
            ArrivalSpec::Trace => f64::NAN,
            ArrivalSpec::Constant { rate } | ArrivalSpec::Poisson { rate } => rate * t,
            ArrivalSpec::OnOff {
                rate,
                ratio,
                period,
                duty,
            } => {
                let whole = (t / period).floor();
                let rest = t - whole * period;
                let burst = rest.min(duty * period);
                let per_period = rate * period * (1.0 + (ratio - 1.0) * duty);
                whole * per_period + rate * rest + rate * (ratio - 1.0) * burst
            }
            ArrivalSpec::Diurnal {
                rate,
                amplitude,
                period,
            } => {
                let w = 2.0 * PI / period;
                rate * (t + amplitude * (1.0 - (w * t).cos()) / w)
            }
            ArrivalSpec::Cycle(c) => {
                let whole = (t / c.period()).floor();
                whole * c.cum_in(c.period()) + c.cum_in(t - whole * c.period())
            }
        }
    }

    /// The largest rate (keys per second; NaN for a trace).
    pub fn max_rate(&self) -> f64 {
        match *self {
            ArrivalSpec::Trace => f64::NAN,
            ArrivalSpec::Constant { rate } | ArrivalSpec::Poisson { rate } => rate,
            ArrivalSpec::OnOff { rate, ratio, .. } => rate * ratio,
            ArrivalSpec::Diurnal {
                rate, amplitude, ..
            } => rate * (1.0 + amplitude),
            ArrivalSpec::Cycle(c) => {
                if c.rise + c.high + c.fall > 0.0 {
                    c.rate * c.ratio
                } else {
                    c.rate
                }
            }
        }
    }

    /// The mean rate over a long run (keys per second; NaN for a trace).
    pub fn mean_rate(&self) -> f64 {
        match *self {
            ArrivalSpec::Trace => f64::NAN,
            ArrivalSpec::Constant { rate }
            | ArrivalSpec::Poisson { rate }
            | ArrivalSpec::Diurnal { rate, .. } => rate,
            ArrivalSpec::OnOff {
                rate, ratio, duty, ..
            } => rate * (1.0 + (ratio - 1.0) * duty),
            ArrivalSpec::Cycle(c) => c.cum_in(c.period()) / c.period(),
        }
    }

    /// The arrival times of this process, in nanoseconds.
    pub fn arrivals(&self, rng: Pcg64) -> Arrivals {
        Arrivals {
            spec: self.clone(),
            rng,
            t: 0.0,
            n: 0,
        }
    }
}

impl CycleSpec {
    fn period(&self) -> f64 {
        self.rise + self.high + self.fall + self.low + self.lull
    }

    /// The segments in order: (seconds, rate at its start, rate at its end).
    fn segments(&self) -> [(f64, f64, f64); 5] {
        let (b, p) = (self.rate, self.rate * self.ratio);
        [
            (self.rise, b, p),
            (self.high, p, p),
            (self.fall, p, b),
            (self.low, b, b),
            (self.lull, 0.0, 0.0),
        ]
    }

    /// The rate `s` seconds into a cycle, 0 <= s < period: a ramp from a
    /// to b over d seconds is a + (b - a)(1 - cos(πx/d))/2 at x.
    fn rate_in(&self, mut s: f64) -> f64 {
        for (d, a, b) in self.segments() {
            if s < d && a == b {
                return a; // a + 0 · (1 - cos) / 2, to the bit
            }
            if s < d {
                return a + (b - a) * (1.0 - (PI * s / d).cos()) / 2.0;
            }
            s -= d;
        }
        0.0
    }

    /// Expected arrivals in the first `s` seconds of a cycle, 0 <= s <=
    /// period: the integral of [`rate_in`](Self::rate_in).
    fn cum_in(&self, mut s: f64) -> f64 {
        let mut acc = 0.0;
        for (d, a, b) in self.segments() {
            let x = s.min(d);
            if x > 0.0 {
                // a flat segment's ramp term is (b - a) * ramp = 0 for any
                // finite ramp: not computed (the sum is the same to the bit)
                let ramp = if a == b {
                    0.0
                } else {
                    x / 2.0 - d / (2.0 * PI) * (PI * x / d).sin()
                };
                acc += a * x + (b - a) * ramp;
            }
            s -= d;
            if s <= 0.0 {
                break;
            }
        }
        acc
    }
}

/// An arrival process ready to run: a model, or a trace's own times.
pub enum Process {
    /// A rate function and its seeded arrivals.
    Model(ArrivalSpec),
    /// The times of a trace's keys.
    Trace(TraceTimes),
}

/// A trace's key times, replayed cyclically.
pub struct TraceTimes {
    /// Nanoseconds from the first key, non-decreasing.
    times: Vec<u64>,
    /// One replay: the trace's span plus one mean gap.
    period: u64,
}

impl TraceTimes {
    /// The times of a trace (at least one).
    pub fn new(times: &[u64]) -> TraceTimes {
        let n = times.len() as u64;
        let span = times.last().copied().unwrap_or(0);
        let gap = if n > 1 { span / (n - 1) } else { 1_000_000_000 };
        TraceTimes {
            times: times.to_vec(),
            // a trace's span is at most 2^53 ns (`workload::MAX_SPAN_NS`)
            period: span.saturating_add(gap.max(1)),
        }
    }

    /// Time of the i-th arrival (0-based), in nanoseconds; `u64::MAX` for
    /// an arrival beyond 584 years, later than any run's end.
    fn at(&self, i: u64) -> u64 {
        let n = self.times.len() as u64;
        (i / n)
            .checked_mul(self.period)
            .and_then(|t| t.checked_add(self.times[(i % n) as usize]))
            .unwrap_or(u64::MAX)
    }

    /// Arrivals at or before `t` nanoseconds.
    fn count(&self, t: f64) -> f64 {
        if t < 0.0 {
            return 0.0;
        }
        let (n, p) = (self.times.len() as f64, self.period as f64);
        let cycles = (t / p).floor();
        let rest = t - cycles * p;
        cycles * n + self.times.partition_point(|&x| x as f64 <= rest) as f64
    }
}

impl Process {
    /// The process of `spec`; a trace's needs the trace's times.
    pub fn new(spec: &ArrivalSpec, trace: Option<&crate::workload::Trace>) -> anyhow::Result<Self> {
        match spec {
            ArrivalSpec::Trace => {
                let trace = trace.ok_or_else(|| {
                    anyhow::anyhow!("time.arrivals kind = \"trace\" needs a trace workload")
                })?;
                let times = trace.times().map_err(|why| {
                    anyhow::anyhow!(
                        "time.arrivals kind = \"trace\": the trace cannot give times: {why}"
                    )
                })?;
                Ok(Process::Trace(TraceTimes::new(times)))
            }
            model => Ok(Process::Model(model.clone())),
        }
    }

    /// Λ(t): arrivals expected by `t` seconds (a trace's: counted).
    pub fn cum(&self, t: f64) -> f64 {
        match self {
            Process::Model(m) => m.cum(t),
            Process::Trace(tt) => tt.count(t * NS),
        }
    }

    /// Keys per second at `t` seconds (a trace's: over the two-hundredth of
    /// its span around t).
    pub fn rate(&self, t: f64) -> f64 {
        match self {
            Process::Model(m) => m.rate(t),
            Process::Trace(tt) => {
                let h = tt.period as f64 / 400.0;
                (tt.count(t * NS + h) - tt.count(t * NS - h)) / (2.0 * h / NS)
            }
        }
    }

    /// The mean rate, keys per second.
    pub fn mean_rate(&self) -> f64 {
        match self {
            Process::Model(m) => m.mean_rate(),
            Process::Trace(tt) => tt.times.len() as f64 / (tt.period as f64 / NS),
        }
    }

    /// The largest rate, keys per second (a trace's: over the busiest
    /// two-hundredth of its span).
    pub fn max_rate(&self) -> f64 {
        match self {
            Process::Model(m) => m.max_rate(),
            Process::Trace(tt) => (0..200)
                .map(|i| self.rate((i as f64 + 0.5) * tt.period as f64 / 200.0 / NS))
                .fold(0.0, f64::max),
        }
    }

    /// The arrival times, in nanoseconds.
    pub fn arrivals(&self, rng: Pcg64) -> Box<dyn FnMut() -> u64 + '_> {
        match self {
            Process::Model(m) => {
                let mut a = m.arrivals(rng);
                Box::new(move || a.next_ns())
            }
            Process::Trace(tt) => {
                let mut i = 0u64;
                Box::new(move || {
                    i += 1;
                    tt.at(i - 1)
                })
            }
        }
    }
}

/// The arrival times of a process, nanoseconds from 0, non-decreasing.
pub struct Arrivals {
    spec: ArrivalSpec,
    rng: Pcg64,
    /// The last arrival, in seconds.
    t: f64,
    /// Arrivals so far.
    n: u64,
}

impl Arrivals {
    /// The next arrival time in nanoseconds. Poisson processes of varying
    /// rate are drawn by thinning (candidates at the largest rate, each kept
    /// with probability λ(t)/λmax).
    pub fn next_ns(&mut self) -> u64 {
        self.n += 1;
        match self.spec {
            ArrivalSpec::Constant { rate } => {
                self.t = self.n as f64 / rate;
            }
            _ => {
                let max = self.spec.max_rate();
                loop {
                    let u: f64 = self.rng.random();
                    self.t += -(1.0 - u).ln() / max;
                    let keep: f64 = self.rng.random();
                    if keep * max < self.spec.rate(self.t) {
                        break;
                    }
                }
            }
        }
        (self.t * NS) as u64
    }
}

#[cfg(test)]
mod tests {
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
}
