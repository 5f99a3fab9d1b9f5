//! The APBF over a window of time: generations that end every τ
//! (`apbf_time`) or after τ or g insertions, whichever comes first
//! (`apbf_hybrid`). See `bloomlab_filters::apbf::timed`.

use super::built::{int, real, Built, Later, Moment, MomentTheory, Theory};
use super::candidate::line_scalars_over_rotations;
use super::time_shared::{
    time_geometry, time_params, time_request, window_and_rate, AtMoment, CAPS, TIME_METRICS,
};
use super::{at_least_one, probability, Candidate, Capabilities, Constraints, DesignDef};
use crate::metrics::columns::col;
use crate::spec::Metric;
use crate::spec::NS;
use bloomlab_filters::apbf::timed_theory::TimedApbfTheory;
use bloomlab_filters::apbf::KlRule;
use bloomlab_filters::ApbfShape;
use bloomlab_filters::{Filter, TimedApbf, TimedFilter, Trigger};

time_params! {
    /// Parameters of a time-window APBF: the window T (τ = T/l) and the peak
    /// rate its slices are sized for (g = peak_rate · τ), with fpr (picking
    /// k and l) or k and l.
    TimedParams {
        /// Slices written per insertion (with l, instead of fpr)
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        k: Option<u32>,
        /// Extra slices (window lτ)
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        l: Option<u32>,
    }
}

/// The time-triggered APBF.
pub struct ApbfTime;
/// The hybrid APBF (time or count, whichever first).
pub struct ApbfHybrid;

impl DesignDef for ApbfTime {
    type Params = TimedParams;
    const NAME: &'static str = "apbf_time";
    const FILTER: &'static str = "OnTime<Apbf>";
    const WINDOW_PROMISE: Option<&'static str> = Some("every key younger than T is reported, whatever the arrivals (a generation every T/l on a fixed grid); above the peak rate the FPR climbs");
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
    const FILTER: &'static str = "OnTime<Apbf>";
    const WINDOW_PROMISE: Option<&'static str> = Some("a key younger than T is reported while floor(age/tau) + floor(later insertions/g) < l: keys younger than T are lost whenever a generation fills before tau ends (under batched arrivals at the sized rate, and under Poisson arrivals there: fnr_time_at_peak, its renewal theory, 0.23% in docs/time.md's run where 0.28% is measured), in exchange for an FPR bounded in any burst");
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

/// (k, l, g, τ in ns) from the parameters.
fn resolve(name: &str, p: &TimedParams) -> anyhow::Result<(u32, u32, u64, u64)> {
    let (t, rate) = window_and_rate(name, p.window_time, p.peak_rate)?;
    let fpr = probability(col::FPR, p.fpr)?;
    let (k, l) = (at_least_one(col::K, p.k)?, at_least_one(col::L, p.l)?);
    let choose = |e: f64, rule: KlRule| {
        bloomlab_filters::apbf::choose(e, rule).map_err(|e| anyhow::anyhow!("{name}: {e}"))
    };
    // k and l by the crate's rule (bloomlab_filters::apbf::choose)
    let (k, l) = match (k, l, fpr) {
        (None, None, Some(e)) => choose(e, KlRule::FewestBits)?,
        (None, Some(l), Some(e)) => choose(e, KlRule::FixedL(l))?,
        (Some(k), Some(l), None) => (k, l),
        _ => {
            return Err(anyhow::anyhow!(
                "{name} needs k and l, or fpr (and optionally l)"
            ))
        }
    };
    // τ and g by the crate's rule (bloomlab_filters::build)
    let (tau, g) = bloomlab_filters::build::apbf_generations(t, rate, NS, l).map_err(|e| {
        anyhow::anyhow!(
            "{name}: window_time {t} s at peak_rate {rate} is out of range ({e}; 1 ns <= τ, keys per window <= 1e15)"
        )
    })?;
    Ok((k, l, g, tau))
}

fn build(name: &str, p: TimedParams, trigger: Trigger) -> anyhow::Result<Built> {
    let (k, l, g, tau) = resolve(name, &p)?;
    let f = TimedApbf::new(
        ApbfShape {
            hashes: k,
            extra_slices: l,
            generation: g,
        },
        tau,
        trigger,
    )
    .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    let t: TimedApbfTheory = f.theory();
    let count = t.count_based();
    let (window_ns, slack_ns) = (f.window_time(), f.slack_time());
    let bits = f.memory_bits() as f64;
    let peak_keys = l as f64 * g as f64;
    let theory = Theory {
        scalars: vec![
            // at a steady g per τ (the peak rate), the end of a generation
            (col::FPR, count.fpr()),
            (col::FPR_AVG, count.fpr_avg()),
            (col::MEMORY_BITS, bits),
            (col::BITS_PER_ELEMENT, bits / peak_keys),
        ]
        .into_iter()
        .chain(line_scalars_over_rotations(count.lines_counted()))
        .collect(),
        moment: Some(Box::new(move |m: &Moment, cum: &dyn Fn(f64) -> f64| {
            let state = t.at(m.now_ns, cum);
            let fpr = state.fpr();
            Box::new(AtMoment {
                fpr,
                presence: move |u| state.presence(u),
            }) as Box<dyn MomentTheory>
        })),
        later: peak_loss(&t, window_and_rate(name, p.window_time, p.peak_rate)?.1),
        ..Theory::default()
    };
    let geometry = time_geometry(l as u64 * g, k as u64 * g, (window_ns, slack_ns), (g, tau));
    Ok(Built {
        geometry,
        resolved: vec![
            int(col::K, k),
            int(col::L, l),
            int(col::G, g),
            int(col::M, f.m()),
            real(col::TAU, tau as f64 / NS),
            real(col::WINDOW_TIME, window_ns as f64 / NS),
            real(col::SLACK_TIME, slack_ns as f64 / NS),
        ],
        filter: Some(Box::new(f)),
        summary: None,
        theory,
    })
}

/// `fnr_time_at_peak`: the share of keys younger than T lost at steady
/// Poisson arrivals of `rate` keys/s (the peak rate it is sized for), by the
/// hybrid's renewal theory (0 for the time trigger); computed when asked.
fn peak_loss(t: &TimedApbfTheory, rate: f64) -> Later {
    let t = *t;
    Later::new(move || {
        let per_ns = rate / NS;
        t.loss_at_rate(per_ns)
            .map(|loss| vec![(col::FNR_TIME_AT_PEAK, loss)])
            .unwrap_or_default()
    })
}

/// For a time request (`plan --window-time T --peak-rate R`): one
/// configuration per l <= 32, the smallest k meeting the FPR at the peak
/// rate. Counted as a sliding design whose window is the T·R keys of a
/// window at the peak rate.
fn plan(name: &'static str, c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
    let (t, rate) = time_request(c)?;
    Ok((1..=bloomlab_filters::apbf::DEFAULT_MAX_L)
        .filter_map(|l| {
            let (k, _) = bloomlab_filters::apbf::choose(c.fpr, KlRule::FixedL(l)).ok()?;
            let p = TimedParams {
                window_time: Some(t),
                peak_rate: Some(rate),
                fpr: None,
                k: Some(k),
                l: Some(l),
            };
            let (k, l, g, tau) = resolve(name, &p).ok()?;
            let f = TimedApbf::new(
                ApbfShape {
                    hashes: k,
                    extra_slices: l,
                    generation: g,
                },
                tau,
                Trigger::Time,
            )
            .ok()?;
            let count = f.theory().count_based();
            let memory = f.memory_bits();
            Some(Candidate {
                design: name,
                params: vec![
                    real(col::WINDOW_TIME, t),
                    real(col::PEAK_RATE, rate),
                    int(col::K, k),
                    int(col::L, l),
                ],
                memory_bits: memory,
                bits_per_element: memory as f64 / count.window() as f64,
                fpr: count.fpr(),
                window: count.window(),
                slack: count.slack(),
                npws_peak: count.pws_at(g) / count.window() as f64,
                insert_bits: k as u64,
                query_lines: count.lines_counted().map(|x| x.query_negative),
            })
        })
        .collect())
}
