//! The APBF over a window of time: generations that end every τ
//! (`apbf_time`) or after τ or g insertions, whichever comes first
//! (`apbf_hybrid`). See `bloomlab_filters::apbf::timed`.

use super::built::{int, real, Built, Geometry, Moment, MomentTheory, Theory, TimeWindow};
use super::{at_least_one, probability, Candidate, Capabilities, Constraints, DesignDef};
use crate::spec::Metric;
use crate::timed::NS;
use bloomlab_filters::apbf::theory as apbf_theory;
use bloomlab_filters::apbf::timed_theory::{TimedApbfTheory, TimedState};
use bloomlab_filters::{Filter, TimedApbf, TimedFilter, Trigger};
use serde::{Deserialize, Serialize};

/// Parameters of a time-window APBF: the window T and the peak rate it is
/// sized for, with fpr (picking k and l) or k and l.
#[derive(clap::Args, Deserialize, Serialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct TimedParams {
    /// Window T in seconds (τ = T / l)
    #[arg(long)]
    window_time: Option<f64>,
    /// Keys per second the slices are sized for (g = peak_rate · τ)
    #[arg(long)]
    peak_rate: Option<f64>,
    /// Target FPR at rates up to the peak, in (0, 1): picks k and l
    #[arg(long)]
    fpr: Option<f64>,
    /// Slices written per insertion (with l, instead of fpr)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    k: Option<u32>,
    /// Extra slices (window lτ)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    l: Option<u32>,
}

/// The metrics of a design over a window of time.
pub(super) const TIME_METRICS: &[Metric] = &[Metric::Timeline, Metric::Memory];

/// What a time design can be asked: membership, with a window of time
/// and a slack.
pub(super) const CAPS: Capabilities = Capabilities::TIME;

/// The time-triggered APBF.
pub struct ApbfTime;
/// The hybrid APBF (time or count, whichever first).
pub struct ApbfHybrid;

impl DesignDef for ApbfTime {
    type Params = TimedParams;
    const NAME: &'static str = "apbf_time";
    const ABOUT: &'static str =
        "APBF over a window of time T: a shift every τ = T/l, slices sized for a peak rate";
    const CAPS: Capabilities = CAPS;
    const METRICS: &'static [Metric] = TIME_METRICS;
    fn build(p: TimedParams, _seed: u64) -> anyhow::Result<Built> {
        build(Self::NAME, p, Trigger::Time)
    }
    fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        plan(Self::NAME, c)
    }
}

impl DesignDef for ApbfHybrid {
    type Params = TimedParams;
    const NAME: &'static str = "apbf_hybrid";
    const ABOUT: &'static str =
        "APBF over a window of time: a shift after τ or g insertions, whichever comes first";
    const CAPS: Capabilities = CAPS;
    const METRICS: &'static [Metric] = TIME_METRICS;
    fn build(p: TimedParams, _seed: u64) -> anyhow::Result<Built> {
        build(Self::NAME, p, Trigger::Hybrid)
    }
    fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        plan(Self::NAME, c)
    }
}

/// T (seconds) and the peak rate (keys per second) from a time design's
/// parameters.
pub(super) fn window_and_rate(
    name: &str,
    window_time: Option<f64>,
    peak_rate: Option<f64>,
) -> anyhow::Result<(f64, f64)> {
    let check = |field: &str, v: Option<f64>| -> anyhow::Result<f64> {
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
        check("window_time", window_time)?,
        check("peak_rate", peak_rate)?,
    );
    if t * rate > 1e12 {
        return Err(anyhow::anyhow!(
            "{name}: window_time {t} s at peak_rate {rate} is more than 1e12 keys per window"
        ));
    }
    Ok((t, rate))
}

/// (k, l, g, τ in ns) from the parameters.
fn resolve(name: &str, p: &TimedParams) -> anyhow::Result<(u32, u32, u64, u64)> {
    let (t, rate) = window_and_rate(name, p.window_time, p.peak_rate)?;
    let fpr = probability("fpr", p.fpr)?;
    let (k, l) = (at_least_one("k", p.k)?, at_least_one("l", p.l)?);
    let (k, l) = match (k, l, fpr) {
        (None, None, Some(e)) => {
            apbf_theory::choose_kl(e, bloomlab_filters::apbf::DEFAULT_MAX_L)
                .ok_or_else(|| anyhow::anyhow!("{name}: no (k, l) reaches fpr {e}"))?
        }
        (None, Some(l), Some(e)) => (
            apbf_theory::choose_k(e, l)
                .ok_or_else(|| anyhow::anyhow!("{name}: no k reaches fpr {e} with l = {l}"))?,
            l,
        ),
        (Some(k), Some(l), None) => (k, l),
        _ => {
            return Err(anyhow::anyhow!(
                "{name} needs k and l, or fpr (and optionally l)"
            ))
        }
    };
    let tau = (t * NS / l as f64).ceil();
    let keys = t * rate;
    if keys > 1e15 || tau < 1.0 {
        return Err(anyhow::anyhow!(
            "{name}: window_time {t} s at peak_rate {rate} is out of range (1 ns <= τ, keys per window <= 1e15)"
        ));
    }
    let g = (keys / l as f64).ceil().max(1.0) as u64;
    Ok((k, l, g, tau as u64))
}

/// The filter's theory at one moment.
struct AtMoment(TimedState);

impl MomentTheory for AtMoment {
    fn fpr(&self) -> f64 {
        self.0.fpr()
    }
    fn presence(&self, at_ns: f64, _index: u64) -> f64 {
        self.0.presence(at_ns)
    }
}

fn build(name: &str, p: TimedParams, trigger: Trigger) -> anyhow::Result<Built> {
    let (k, l, g, tau) = resolve(name, &p)?;
    let f = TimedApbf::new(k, l, g, tau, trigger).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    let t: TimedApbfTheory = f.theory();
    let count = t.count_based();
    let (window_ns, slack_ns) = (f.window_time(), f.slack_time());
    let bits = f.memory_bits() as f64;
    let peak_keys = l as f64 * g as f64;
    let theory = Theory {
        scalars: vec![
            // at a steady g per τ (the peak rate), the end of a generation
            ("fpr", count.fpr()),
            ("fpr_avg", count.fpr_avg()),
            ("memory_bits", bits),
            ("bits_per_element", bits / peak_keys),
        ],
        moment: Some(Box::new(move |m: &Moment, cum: &dyn Fn(f64) -> f64| {
            Box::new(AtMoment(t.at(m.now_ns, cum))) as Box<dyn MomentTheory>
        })),
        ..Theory::default()
    };
    let mut geometry = Geometry::exact(l as u64 * g, true);
    geometry.slack = k as u64 * g;
    geometry.time = Some(TimeWindow {
        window_ns,
        slack_ns,
        peak_rate: g as f64 / (tau as f64 / NS),
    });
    Ok(Built {
        geometry,
        resolved: vec![
            int("k", k),
            int("l", l),
            int("g", g),
            int("m", f.m()),
            real("tau", tau as f64 / NS),
            real("window_time", window_ns as f64 / NS),
            real("slack_time", slack_ns as f64 / NS),
        ],
        filter: Some(Box::new(f)),
        summary: None,
        theory,
    })
}

/// For a time request (`plan --window-time T --peak-rate R`): one
/// configuration per l <= 32, the smallest k meeting the FPR at the peak
/// rate. Counted as a sliding design whose window is the T·R keys of a
/// window at the peak rate.
fn plan(name: &'static str, c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
    let Some((t, rate)) = c.time else {
        return Err(anyhow::anyhow!(
            "forgets by time: plan it with --window-time and --peak-rate"
        ));
    };
    Ok((1..=bloomlab_filters::apbf::DEFAULT_MAX_L)
        .filter_map(|l| {
            let k = apbf_theory::choose_k(c.fpr, l)?;
            let p = TimedParams {
                window_time: Some(t),
                peak_rate: Some(rate),
                fpr: None,
                k: Some(k),
                l: Some(l),
            };
            let (k, l, g, tau) = resolve(name, &p).ok()?;
            let f = TimedApbf::new(k, l, g, tau, Trigger::Time).ok()?;
            let count = f.theory().count_based();
            let memory = f.memory_bits();
            Some(Candidate {
                design: name,
                params: vec![
                    real("window_time", t),
                    real("peak_rate", rate),
                    int("k", k),
                    int("l", l),
                ],
                memory_bits: memory,
                bits_per_element: memory as f64 / count.window() as f64,
                fpr: count.fpr(),
                window: count.window(),
                slack: count.slack(),
                npws_peak: count.pws_at(g) / count.window() as f64,
                insert_bits: k as u64,
                query_probes: Some(count.expected_probes_negative()),
            })
        })
        .collect())
}
