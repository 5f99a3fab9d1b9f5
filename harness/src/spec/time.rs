//! The `[time]` section of a spec: time windows, "have I seen this key in
//! the last T seconds?".
//!
//! A time-window experiment gives its keys timestamps from an arrival
//! process ([`ArrivalSpec`]), simulated and seeded, never read from the wall
//! clock. The `timeline` metric (the time pass, `passes::time`) runs a design through that
//! traffic and measures, at moments spread over the run, the FPR of
//! never-inserted keys and P(yes) for inserted keys by their age in
//! seconds, each beside the design's theory at that moment. Designs that
//! forget by time (`apbf_time`, `apbf_hybrid`) and count-based ones (`apbf`)
//! go through the same pass, so the two can be compared on the same traffic.
//!
//! The `[time]` section of a spec ([`TimeSpec`]) sets the process and the
//! precision; sweep points may override the process's fields with
//! `arrivals_<field>` parameters (`arrivals_ratio = [1, 2, 4, 8]` sweeps
//! burst ratios).

use super::ArrivalSpec;

use serde::Deserialize;
use std::collections::BTreeMap;

/// The `[time]` section: the arrival process and the precision of the
/// `timeline` metric.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TimeSpec {
    /// The arrival process (default: Poisson at the rate a time-window
    /// design is sized for).
    pub arrivals: Option<ArrivalSpec>,
    /// T, the window asked about, in seconds (default: the design's).
    pub window: Option<f64>,
    /// Seconds simulated before the first moment measured (default: twice
    /// the horizon plus the time the design's count window takes to fill).
    pub warmup: Option<f64>,
    /// Seconds over which the moments are spread (default 20 T).
    pub duration: Option<f64>,
    /// Moments measured, one in each of as many equal stretches of the
    /// duration, at a random offset within it.
    pub samples: u64,
    /// Batches the moments are measured in (at most one per moment):
    /// the duration is cut into this many parts, separated by gaps of the
    /// design's reach (T and its slack) in which nothing is measured, so
    /// that the batches are independent and the intervals are taken over
    /// them (docs/metrics.md, "Calibration"). Default 10.
    pub batches: u64,
    /// Never-inserted keys queried at each moment.
    pub queries: u64,
    /// Inserted keys of random ages queried at each moment.
    pub probes: u64,
    /// Ages probed: up to this multiple of T.
    pub horizon: f64,
    /// Buckets of the age profile.
    pub buckets: u64,
    /// After the moments, this many arrivals (clock advanced to each, then
    /// inserted), positive and negative queries timed beside a plain Bloom
    /// filter of the same memory (`insert_ns`, ..., `*_vs_bloom`; 0: not
    /// timed).
    pub speed_ops: u64,
    /// Also count the 64-byte lines of each never-inserted key's query (a
    /// second query of the same key, for the designs that count them):
    /// `lines_query_negative`, the mean over the moments.
    pub lines: bool,
    /// Also record the filter's size at each moment (`memory_bits` in the
    /// timeline rows; a timeline plot draws it with `y = "memory_bits"`).
    pub memory_over_time: bool,
}

impl Default for TimeSpec {
    fn default() -> Self {
        TimeSpec {
            arrivals: None,
            window: None,
            warmup: None,
            duration: None,
            samples: 400,
            batches: 10,
            queries: 2000,
            probes: 200,
            horizon: 2.0,
            buckets: 40,
            speed_ops: 0,
            lines: false,
            memory_over_time: false,
        }
    }
}

impl TimeSpec {
    /// The `--quick` variant: a quarter of the moments over a quarter of the
    /// duration.
    pub fn quick(&self) -> TimeSpec {
        TimeSpec {
            samples: (self.samples / 4).max(20),
            duration: self.duration.map(|d| d / 4.0),
            ..self.clone()
        }
    }

    /// Checks the section; errors name the field as `time.<field>`.
    pub fn check(&self) -> anyhow::Result<()> {
        if let Some(a) = &self.arrivals {
            a.check(&|f| format!("time.arrivals.{f}"))?;
        }
        for (field, v) in [
            ("window", self.window),
            ("duration", self.duration),
            ("warmup", self.warmup),
        ] {
            if let Some(x) = v {
                if !(x >= 0.0 && x.is_finite() && x < 1e9) || (x == 0.0 && field != "warmup") {
                    return Err(anyhow::anyhow!(
                        "time.{field} = {x} must be a positive number of seconds below 1e9"
                    ));
                }
            }
        }
        for (field, v, max) in [
            ("samples", self.samples, 1_000_000),
            ("batches", self.batches, 10_000),
            ("queries", self.queries, 100_000_000),
            ("probes", self.probes, 100_000_000),
            ("buckets", self.buckets, 100_000),
        ] {
            if v == 0 || v > max {
                return Err(anyhow::anyhow!(
                    "time.{field} = {v} must be between 1 and {max}"
                ));
            }
        }
        let work = self.samples as f64 * (self.queries + self.probes) as f64;
        if work > 1e11 {
            return Err(anyhow::anyhow!(
                "time.samples x (queries + probes) = {work:.1e} queries is more than 1e11 (hours of work): lower one of them"
            ));
        }
        if !(self.horizon >= 1.0 && self.horizon <= 1000.0) {
            return Err(anyhow::anyhow!(
                "time.horizon = {} must be between 1 and 1000 (a multiple of T)",
                self.horizon
            ));
        }
        Ok(())
    }
}

/// The prefix of sweep parameters that set the arrival process's fields.
pub const PARAM_PREFIX: &str = "arrivals_";

/// Splits a point's `arrivals_<field>` parameters off the design's and
/// applies them to the spec's arrival process.
pub fn point_time(
    time: &TimeSpec,
    params: &BTreeMap<String, f64>,
) -> anyhow::Result<(TimeSpec, BTreeMap<String, f64>)> {
    let (ours, rest): (BTreeMap<String, f64>, BTreeMap<String, f64>) = params
        .iter()
        .map(|(k, v)| (k.clone(), *v))
        .partition(|(k, _)| k.starts_with(PARAM_PREFIX));
    if ours.is_empty() {
        return Ok((time.clone(), rest));
    }
    let Some(base) = &time.arrivals else {
        return Err(anyhow::anyhow!(
            "parameters {} need a [time.arrivals] process to apply to",
            ours.keys().cloned().collect::<Vec<_>>().join(", ")
        ));
    };
    let mut json = serde_json::to_value(base).map_err(|e| anyhow::anyhow!("{e}"))?;
    let obj = json.as_object_mut().expect("an arrival process is a map");
    for (k, v) in &ours {
        let field = &k[PARAM_PREFIX.len()..];
        if field == "kind" || !obj.contains_key(field) {
            return Err(anyhow::anyhow!(
                "parameter {k}: the {} process has no field {field:?}",
                obj["kind"].as_str().unwrap_or("?")
            ));
        }
        obj.insert(field.to_string(), serde_json::json!(v));
    }
    let arrivals: ArrivalSpec =
        serde_json::from_value(json).map_err(|e| anyhow::anyhow!("arrivals parameters: {e}"))?;
    arrivals.check(&|f| format!("parameter {PARAM_PREFIX}{f}"))?;
    Ok((
        TimeSpec {
            arrivals: Some(arrivals),
            ..time.clone()
        },
        rest,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_override_the_arrival_process() {
        let time = TimeSpec {
            arrivals: Some(ArrivalSpec::OnOff {
                rate: 100.0,
                ratio: 2.0,
                period: 10.0,
                duty: 0.2,
            }),
            ..TimeSpec::default()
        };
        let params: BTreeMap<String, f64> =
            [("arrivals_ratio".to_string(), 8.0), ("k".to_string(), 3.0)].into();
        let (t, rest) = point_time(&time, &params).unwrap();
        assert_eq!(rest.len(), 1);
        assert!(matches!(t.arrivals, Some(ArrivalSpec::OnOff { ratio, .. }) if ratio == 8.0));
        let bad: BTreeMap<String, f64> = [("arrivals_amplitude".to_string(), 0.5)].into();
        let e = point_time(&time, &bad).unwrap_err().to_string();
        assert!(e.contains("no field \"amplitude\""), "{e}");
        let bad: BTreeMap<String, f64> = [("arrivals_ratio".to_string(), 0.5)].into();
        assert!(point_time(&time, &bad)
            .unwrap_err()
            .to_string()
            .contains("ratio"));
        let none = TimeSpec::default();
        assert!(point_time(&none, &params).is_err());
    }

    #[test]
    fn the_section_is_checked() {
        let mut t = TimeSpec::default();
        t.check().unwrap();
        t.samples = 0;
        assert!(t
            .check()
            .unwrap_err()
            .to_string()
            .starts_with("time.samples"));
        let t = TimeSpec {
            window: Some(-1.0),
            ..TimeSpec::default()
        };
        assert!(t.check().is_err());
        let t = TimeSpec {
            horizon: 0.5,
            ..TimeSpec::default()
        };
        assert!(t.check().is_err());
        let t = TimeSpec {
            samples: 1_000_000,
            queries: 100_000_000,
            ..TimeSpec::default()
        };
        assert!(t
            .check()
            .unwrap_err()
            .to_string()
            .contains("more than 1e11"));
    }
}
