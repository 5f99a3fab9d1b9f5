//! What the designs over a window of time share: their parameter structs'
//! common fields, their capabilities and metrics, the theory at a moment
//! from two closures, their geometry, and the time request of a plan.

use crate::designs::built::{Geometry, MomentTheory, TimeWindow};
use crate::designs::{Capabilities, Constraints};
use crate::metrics::columns::{col, Col};
use crate::spec::Metric;
use crate::spec::NS;

/// A time design's parameter struct: T, the peak rate and the FPR target,
/// then the design's own fields.
macro_rules! time_params {
    ($(#[$meta:meta])* $name:ident { $($extra:tt)* }) => {
        $(#[$meta])*
        #[derive(clap::Args, serde::Deserialize, serde::Serialize, Debug, Default, Clone)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// Window T in seconds
            #[arg(long)]
            window_time: Option<f64>,
            /// Keys per second the design is sized for (its peak rate)
            #[arg(long)]
            peak_rate: Option<f64>,
            /// Target FPR at rates up to the peak, in (0, 1)
            #[arg(long)]
            fpr: Option<f64>,
            $($extra)*
        }
    };
}
pub(in crate::designs) use time_params;

/// The metrics of a design over a window of time.
pub(in crate::designs) const TIME_METRICS: &[Metric] = &[Metric::Timeline, Metric::Memory];

/// What a time design can be asked: membership, with a window of time and
/// a slack.
pub(in crate::designs) const CAPS: Capabilities = Capabilities::TIME;

/// T (seconds) and the peak rate (keys per second) from a time design's
/// parameters.
pub(in crate::designs) fn window_and_rate(
    name: &str,
    window_time: Option<f64>,
    peak_rate: Option<f64>,
) -> anyhow::Result<(f64, f64)> {
    let check = |field: Col, v: Option<f64>| -> anyhow::Result<f64> {
        match v {
            Some(x) if x > 0.0 && x.is_finite() && x < 1e9 => Ok(x),
            Some(x) => Err(anyhow::anyhow!(
                "{name}: parameter {field} = {x} must be positive and below 1e9"
            )),
            None => Err(anyhow::anyhow!(
                "{name} needs window_time (seconds) and peak_rate (keys per second)"
            )),
        }
    };
    let (t, rate) = (
        check(col::WINDOW_TIME, window_time)?,
        check(col::PEAK_RATE, peak_rate)?,
    );
    if t * rate > 1e12 {
        return Err(anyhow::anyhow!(
            "{name}: window_time {t} s at peak_rate {rate} is more than 1e12 keys per window"
        ));
    }
    Ok((t, rate))
}

/// The (T, peak rate) of a plan's time request, or why a design that
/// forgets by time is not planned for a count request.
pub(in crate::designs) fn time_request(c: &Constraints) -> anyhow::Result<(f64, f64)> {
    c.time.ok_or_else(|| {
        anyhow::anyhow!("forgets by time: plan it with --window-time and --peak-rate")
    })
}

/// The theory at a moment from the FPR and P(yes) for a key inserted at a
/// time (nanoseconds).
pub(in crate::designs) struct AtMoment<P: Fn(f64) -> f64> {
    pub(in crate::designs) fpr: f64,
    pub(in crate::designs) presence: P,
}

impl<P: Fn(f64) -> f64> MomentTheory for AtMoment<P> {
    fn fpr(&self) -> f64 {
        self.fpr
    }
    fn presence(&self, at_ns: f64, _index: u64) -> f64 {
        (self.presence)(at_ns)
    }
}

/// The geometry of a time design: `window` and `slack` in insertions at the
/// peak rate (what the membership figures would use), and the window of
/// time itself.
pub(in crate::designs) fn time_geometry(
    window: u64,
    slack: u64,
    (window_ns, slack_ns): (u64, u64),
    per_generation: (u64, u64),
) -> Geometry {
    let mut g = Geometry::exact(window, true);
    g.slack = slack;
    let (keys, ns) = per_generation;
    g.time = Some(TimeWindow {
        window_ns,
        slack_ns,
        peak_rate: keys as f64 / (ns as f64 / NS),
        growth: None,
    });
    g
}

/// A time design built at its defaults for a plan's time request, with the
/// parameters a candidate names.
pub(in crate::designs) struct Planned {
    /// The design as built.
    pub(in crate::designs) built: crate::designs::Built,
    /// Its memory_bits.
    pub(in crate::designs) memory: u64,
    /// window_time, peak_rate and fpr, as a candidate's parameters.
    pub(in crate::designs) params: Vec<(Col, crate::metrics::Value)>,
}

/// Builds `d` for the time request of `c` (see [`Planned`]); why it cannot
/// be built is the plan's one-line reason.
pub(in crate::designs) fn planned(
    d: &dyn crate::designs::Design,
    c: &Constraints,
) -> anyhow::Result<Planned> {
    let (t, rate) = time_request(c)?;
    let map: crate::designs::Params = [
        (col::WINDOW_TIME, t),
        (col::PEAK_RATE, rate),
        (col::FPR, c.fpr),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let built = d.build(&map, 0)?;
    let memory = built.filter.as_ref().map_or(0, |f| f.memory_bits());
    let real = crate::designs::built::real;
    Ok(Planned {
        built,
        memory,
        params: vec![
            real(col::WINDOW_TIME, t),
            real(col::PEAK_RATE, rate),
            real(col::FPR, c.fpr),
        ],
    })
}
