//! The Naor-Yogev filter over a window of time, on the hybrid trigger
//! (`naor_yogev_hybrid`). See `bloomlab_filters::naor_yogev::timed`.

use super::built::{int, real, Built, Moment, MomentTheory, Theory};
use super::time_shared::{
    planned, time_geometry, time_params, window_and_rate, AtMoment, Planned, CAPS, TIME_METRICS,
};
use super::{probability, Candidate, Capabilities, Constraints, DesignDef};
use crate::metrics::columns::col;
use crate::spec::Metric;
use crate::spec::NS;
use bloomlab_filters::build::Target;
use bloomlab_filters::naor_yogev::timed::TimedNyTheory;
use bloomlab_filters::naor_yogev::{Sizing, DEFAULT_MAX_LOAD};
use bloomlab_filters::{Filter, NaorYogev, OnTime, TimedFilter};

time_params! {
    /// Parameters of the time-window Naor-Yogev filter: τ = T/c, the table
    /// sized for g = peak_rate · τ keys per generation, fpr the bound ε
    /// (which holds under any traffic).
    NyHybridParams {
        /// Generations kept (default: the c of least memory at slack = window)
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        c: Option<u64>,
        /// Keys a batch may bring on top of the peak rate: generations are
        /// sized for peak_rate·τ + burst keys (default: one second's keys
        /// at the peak plus 6√(peak_rate·τ), the crate builder's; 0: the
        /// paper's sizing, peak_rate·τ, which loses keys younger than T
        /// under Poisson or batched arrivals at the peak)
        #[arg(long)]
        burst: Option<f64>,
    }
}

/// The Naor-Yogev filter on the hybrid trigger.
pub struct NyHybrid;

impl DesignDef for NyHybrid {
    type Params = NyHybridParams;
    const NAME: &'static str = "naor_yogev_hybrid";
    const FILTER: &'static str = "OnTime<NaorYogev>";
    const WINDOW_PROMISE: Option<&'static str> = Some("a key younger than T is reported while floor(age/tau) + floor(later insertions/g) < c: with the builder's sizing (g for peak_rate*tau plus a batch, --burst) every key younger than T within the target's arrivals; at burst = 0 (the paper's g) batched or Poisson arrivals at the peak lose some");
    const ABOUT: &'static str =
        "Naor-Yogev over a window of time: a new generation after T/c or g insertions, whichever first";
    const CAPS: Capabilities = CAPS;
    const METRICS: &'static [Metric] = TIME_METRICS;

    fn build(p: NyHybridParams, seed: u64) -> anyhow::Result<Built> {
        let (t, rate) = window_and_rate(Self::NAME, p.window_time, p.peak_rate)?;
        let eps = probability(col::FPR, p.fpr)?
            .ok_or_else(|| anyhow::anyhow!("naor_yogev_hybrid needs fpr"))?;
        let e = |x: bloomlab_filters::ParamError| anyhow::anyhow!("naor_yogev_hybrid: {x}");
        // the sizing rules are the crate's (bloomlab_filters::build)
        let mut target = Target::time(t, rate).ticks_per_unit(NS).fpr(eps).seed(seed);
        if let Some(c) = p.c {
            target = target.generations(c);
        }
        if let Some(b) = p.burst {
            target = target.burst(b);
        }
        let f: OnTime<NaorYogev> = target.build().map_err(e)?;
        let (n, c, tau) = (f.inner().sizing().n, f.inner().sizing().c, f.tau());
        let theory = TimedNyTheory::of(&f);
        let s = f.inner().sizing();
        let (g, bits) = (s.g, f.memory_bits() as f64);
        let (window_ns, slack_ns) = (f.window_time(), f.slack_time());
        let geometry = time_geometry(c * g, g, (window_ns, slack_ns), (g, tau));
        Ok(Built {
            geometry,
            resolved: vec![
                int(col::C, c),
                int(col::G, g),
                int(col::REMAINDER_BITS, s.remainder_bits),
                int(col::BUCKETS, s.buckets),
                real(col::TAU, tau as f64 / NS),
                real(col::WINDOW_TIME, window_ns as f64 / NS),
                real(col::SLACK_TIME, slack_ns as f64 / NS),
            ],
            theory: Theory {
                scalars: vec![
                    (col::FPR, s.fpr()),
                    (col::MEMORY_BITS, bits),
                    (col::BITS_PER_ELEMENT, bits / n as f64),
                ]
                .into_iter()
                .chain(super::candidate::line_scalars(Some(
                    bloomlab_filters::lines::two_bucket(s.slot_bits(), s.fpr(), s.buckets),
                )))
                .collect(),
                moment: Some(Box::new(move |m: &Moment, cum: &dyn Fn(f64) -> f64| {
                    let state = theory.at(m.now_ns, cum);
                    Box::new(AtMoment {
                        fpr: state.fpr,
                        presence: move |u| state.presence(u),
                    }) as Box<dyn MomentTheory>
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
        let Planned { memory, params, .. } = planned(&NyHybrid, c)?;
        let w = c.window.max(2);
        let Ok(s) = Sizing::new(w, w, c.fpr, None, DEFAULT_MAX_LOAD) else {
            return Ok(Vec::new());
        };
        Ok(vec![Candidate {
            design: Self::NAME,
            params,
            memory_bits: memory,
            bits_per_element: memory as f64 / w as f64,
            fpr: s.fpr(),
            window: w,
            slack: s.slack(),
            npws_peak: s.pws_at(s.g) / w as f64,
            insert_bits: s.slot_bits() as u64,
            // 64-byte lines: both buckets
            query_lines: Some(
                bloomlab_filters::lines::two_bucket(s.slot_bits(), s.fpr(), s.buckets)
                    .query_negative,
            ),
        }])
    }
}
