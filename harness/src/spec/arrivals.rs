//! The arrival process of a `[time]` section (`[time.arrivals]`): which
//! process and its fields, checked. The process itself (rates, seeded
//! arrivals) is the time pass's (`passes::time::arrivals`).

use serde::{Deserialize, Serialize};

/// Nanoseconds per second.
pub const NS: f64 = 1e9;

/// An arrival process (`[time.arrivals]` in a spec).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ArrivalSpec {
    /// Exactly `rate` keys per second, evenly spaced.
    Constant {
        /// Keys per second.
        rate: f64,
    },
    /// A Poisson process of `rate` keys per second.
    Poisson {
        /// Keys per second.
        rate: f64,
    },
    /// Poisson arrivals whose rate switches between `rate` (quiet) and
    /// `ratio` times `rate` (a burst): each `period` seconds begins with a
    /// burst lasting `duty` of it.
    OnOff {
        /// Keys per second when quiet.
        rate: f64,
        /// Burst rate over quiet rate (>= 1; 1 is a steady Poisson rate).
        ratio: f64,
        /// Seconds from one burst's start to the next.
        period: f64,
        /// Share of each period in a burst, in (0, 1).
        duty: f64,
    },
    /// Poisson arrivals at rate · (1 + amplitude · sin(2πt / period)): a
    /// day's rise and fall.
    Diurnal {
        /// Mean keys per second.
        rate: f64,
        /// Relative swing, in [0, 1).
        amplitude: f64,
        /// Seconds per cycle.
        period: f64,
    },
    /// A repeating cycle of rate changes ([`CycleSpec`]): steps, ramps, a
    /// sine, lulls.
    Cycle(CycleSpec),
    /// The times of a trace workload's keys (a CSV trace's `time_column`, a
    /// capture's packet times), from its first key's; replayed with the keys
    /// when the run needs more, one trace-length plus one mean gap later.
    Trace,
}

/// A repeating cycle of rate changes, each segment `>= 0` seconds: a rise
/// from `rate` to `ratio` times it over `rise` seconds, `high` seconds at the
/// peak, a fall back over `fall` seconds, `low` seconds at `rate`, then a
/// lull of `lull` seconds without arrivals; Poisson arrivals at that rate.
/// Each ramp is a half cosine, so a cycle of a rise and a fall alone is a
/// sine between `rate` and its peak (a day's swing); `rise = fall = 0`
/// gives steps, `ratio = 1` with a `lull` gives silences.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CycleSpec {
    /// Keys per second at the base.
    pub rate: f64,
    /// Peak rate over base rate (>= 1).
    pub ratio: f64,
    /// Seconds of the rise from the base to the peak.
    #[serde(default)]
    pub rise: f64,
    /// Seconds at the peak.
    #[serde(default)]
    pub high: f64,
    /// Seconds of the fall from the peak to the base.
    #[serde(default)]
    pub fall: f64,
    /// Seconds at the base.
    #[serde(default)]
    pub low: f64,
    /// Seconds without arrivals.
    #[serde(default)]
    pub lull: f64,
}

impl ArrivalSpec {
    /// Checks the parameters; errors name the field as `name(field)` does.
    pub fn check(&self, name: &dyn Fn(&str) -> String) -> anyhow::Result<()> {
        let positive = |field: &str, x: f64| -> anyhow::Result<()> {
            if x > 0.0 && x.is_finite() && x < 1e12 {
                Ok(())
            } else {
                Err(anyhow::anyhow!(
                    "{} = {x} must be positive, finite and below 1e12",
                    name(field)
                ))
            }
        };
        // a peak rate over a base: at least the base, and below 1e12
        let peak_ratio = |rate: f64, ratio: f64| -> anyhow::Result<()> {
            positive("ratio", ratio)?;
            if ratio < 1.0 || rate * ratio >= 1e12 {
                return Err(anyhow::anyhow!(
                    "{} = {ratio} must be at least 1 (and rate times ratio below 1e12)",
                    name("ratio")
                ));
            }
            Ok(())
        };
        match *self {
            ArrivalSpec::Trace => Ok(()),
            ArrivalSpec::Constant { rate } | ArrivalSpec::Poisson { rate } => {
                positive("rate", rate)
            }
            ArrivalSpec::OnOff {
                rate,
                ratio,
                period,
                duty,
            } => {
                positive("rate", rate)?;
                positive("period", period)?;
                peak_ratio(rate, ratio)?;
                if !(duty > 0.0 && duty < 1.0) {
                    return Err(anyhow::anyhow!(
                        "{} = {duty} must be in (0, 1)",
                        name("duty")
                    ));
                }
                Ok(())
            }
            ArrivalSpec::Cycle(c) => {
                positive("rate", c.rate)?;
                peak_ratio(c.rate, c.ratio)?;
                for (field, x) in [
                    ("rise", c.rise),
                    ("high", c.high),
                    ("fall", c.fall),
                    ("low", c.low),
                    ("lull", c.lull),
                ] {
                    if !(0.0..1e9).contains(&x) {
                        return Err(anyhow::anyhow!(
                            "{} = {x} must be a number of seconds in [0, 1e9)",
                            name(field)
                        ));
                    }
                }
                if c.rise + c.high + c.fall + c.low <= 0.0 {
                    return Err(anyhow::anyhow!(
                        "{} needs some time with arrivals: rise + high + fall + low = 0",
                        name("kind")
                    ));
                }
                Ok(())
            }
            ArrivalSpec::Diurnal {
                rate,
                amplitude,
                period,
            } => {
                positive("rate", rate)?;
                positive("period", period)?;
                if !(0.0..1.0).contains(&amplitude) {
                    return Err(anyhow::anyhow!(
                        "{} = {amplitude} must be in [0, 1)",
                        name("amplitude")
                    ));
                }
                Ok(())
            }
        }
    }
}
