//! The Naor-Yogev filter over a window of time, on the hybrid trigger
//! (`naor_yogev_hybrid`). See `bloomlab_filters::naor_yogev::timed`.

use super::apbf_time::{window_and_rate, CAPS, TIME_METRICS};
use super::built::{int, real, Built, Geometry, Moment, MomentTheory, Theory, TimeWindow};
use super::{probability, Candidate, Capabilities, Constraints, DesignDef};
use crate::spec::Metric;
use crate::timed::NS;
use bloomlab_filters::naor_yogev::timed::{TimedNyState, TimedNyTheory};
use bloomlab_filters::naor_yogev::{Sizing, DEFAULT_MAX_LOAD};
use bloomlab_filters::{Filter, NaorYogev, OnTime, TimedFilter, Trigger};
use serde::{Deserialize, Serialize};

/// Parameters of the time-window Naor-Yogev filter.
#[derive(clap::Args, Deserialize, Serialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct NyHybridParams {
    /// Window T in seconds (τ = T / c)
    #[arg(long)]
    window_time: Option<f64>,
    /// Keys per second the table is sized for (the count trigger, g per τ)
    #[arg(long)]
    peak_rate: Option<f64>,
    /// FPR bound ε, in (0, 1): holds under any traffic
    #[arg(long)]
    fpr: Option<f64>,
    /// Generations kept (default: the c of least memory at slack = window)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    c: Option<u64>,
}

/// The Naor-Yogev filter on the hybrid trigger.
pub struct NyHybrid;

struct AtMoment(TimedNyState);

impl MomentTheory for AtMoment {
    fn fpr(&self) -> f64 {
        self.0.fpr
    }
    fn presence(&self, at_ns: f64, _index: u64) -> f64 {
        self.0.presence(at_ns)
    }
}

impl DesignDef for NyHybrid {
    type Params = NyHybridParams;
    const NAME: &'static str = "naor_yogev_hybrid";
    const ABOUT: &'static str =
        "Naor-Yogev over a window of time: a new generation after T/c or g insertions, whichever first";
    const CAPS: Capabilities = CAPS;
    const METRICS: &'static [Metric] = TIME_METRICS;

    fn build(p: NyHybridParams, seed: u64) -> anyhow::Result<Built> {
        let (t, rate) = window_and_rate(Self::NAME, p.window_time, p.peak_rate)?;
        let eps = probability("fpr", p.fpr)?
            .ok_or_else(|| anyhow::anyhow!("naor_yogev_hybrid needs fpr"))?;
        let n = (t * rate).ceil().max(2.0) as u64;
        let e = |x: bloomlab_filters::ParamError| anyhow::anyhow!("naor_yogev_hybrid: {x}");
        let size = Sizing::new(n, n, eps, p.c, DEFAULT_MAX_LOAD).map_err(e)?;
        let c = size.c;
        let tau = (t * NS / c as f64).ceil().max(1.0) as u64;
        let inner = NaorYogev::from_sizing(size).map_err(e)?.with_seed(seed);
        let f = OnTime::wrap(inner, tau, Trigger::Hybrid).map_err(e)?;
        let theory = TimedNyTheory::of(&f);
        let s = f.inner().sizing();
        let (g, bits) = (s.g, f.memory_bits() as f64);
        let (window_ns, slack_ns) = (f.window_time(), f.slack_time());
        let mut geometry = Geometry::exact(c * g, true);
        geometry.slack = g;
        geometry.time = Some(TimeWindow {
            window_ns,
            slack_ns,
            peak_rate: g as f64 / (tau as f64 / NS),
        });
        Ok(Built {
            geometry,
            resolved: vec![
                int("c", c),
                int("g", g),
                int("remainder_bits", s.remainder_bits),
                int("buckets", s.buckets),
                real("tau", tau as f64 / NS),
                real("window_time", window_ns as f64 / NS),
                real("slack_time", slack_ns as f64 / NS),
            ],
            theory: Theory {
                scalars: vec![
                    ("fpr", s.fpr()),
                    ("memory_bits", bits),
                    ("bits_per_element", bits / n as f64),
                ],
                moment: Some(Box::new(move |m: &Moment, cum: &dyn Fn(f64) -> f64| {
                    Box::new(AtMoment(theory.at(m.now_ns, cum))) as Box<dyn MomentTheory>
                })),
                ..Theory::default()
            },
            filter: Some(Box::new(f)),
            summary: None,
        })
    }

    /// For a time request: the c of least memory for the T·R keys of a
    /// window at the peak rate.
    fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        let (t, rate) = c.time.ok_or_else(|| {
            anyhow::anyhow!("forgets by time: plan it with --window-time and --peak-rate")
        })?;
        let p = NyHybridParams {
            window_time: Some(t),
            peak_rate: Some(rate),
            fpr: Some(c.fpr),
            c: None,
        };
        let Ok(built) = Self::build(p, 0) else {
            return Ok(Vec::new());
        };
        let memory = built.filter.as_ref().expect("a filter").memory_bits();
        let w = c.window.max(2);
        let Ok(s) = Sizing::new(w, w, c.fpr, None, DEFAULT_MAX_LOAD) else {
            return Ok(Vec::new());
        };
        Ok(vec![Candidate {
            design: Self::NAME,
            params: vec![
                real("window_time", t),
                real("peak_rate", rate),
                real("fpr", c.fpr),
            ],
            memory_bits: memory,
            bits_per_element: memory as f64 / w as f64,
            fpr: s.fpr(),
            window: w,
            slack: s.slack(),
            npws_peak: s.pws_at(s.g) / w as f64,
            insert_bits: s.slot_bits() as u64,
            query_probes: Some(s.probes_negative()),
        }])
    }
}
