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
            if s < d {
                if a == b {
                    return a; // a + 0 · (1 - cos) / 2, to the bit
                }
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
#[path = "arrivals_tests.rs"]
mod tests;
