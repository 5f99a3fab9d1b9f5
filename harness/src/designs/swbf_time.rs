//! SWBF over a window of time, on the hybrid clock (`swbf_hybrid`). See
//! `bloomlab_filters::timing::timed_swbf`.

use super::built::{int, real, Built, Moment, MomentTheory, Theory};
use super::time_shared::{
    planned, time_geometry, time_params, window_and_rate, AtMoment, Planned, CAPS, TIME_METRICS,
};
use super::{probability, Candidate, Capabilities, Constraints, DesignDef};
use crate::metrics::columns::col;
use crate::spec::Metric;
use crate::spec::NS;
use bloomlab_filters::build::{Target, DEFAULT_QUANTA};
use bloomlab_filters::timing::TimedSwbf;
use bloomlab_filters::{Filter, TimedFilter};

time_params! {
    /// Parameters of the time-window SWBF: quanta of T/quanta, at most
    /// peak_rate · δ keys each; fpr bounds the FPR under any traffic.
    SwbfHybridParams {
        /// Time quanta per window (default 64; slack T / quanta)
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100_000))]
        quanta: Option<u64>,
        /// Keys a batch may bring on top of the peak rate: generations are
        /// sized for peak_rate·τ + burst keys (default: one second's keys
        /// at the peak plus 6√(peak_rate·τ), the crate builder's; 0: the
        /// paper's sizing, peak_rate·τ, which loses keys younger than T
        /// under Poisson or batched arrivals at the peak)
        #[arg(long)]
        burst: Option<f64>,
    }
}

/// SWBF on the hybrid clock.
pub struct SwbfHybrid;

impl DesignDef for SwbfHybrid {
    type Params = SwbfHybridParams;
    const NAME: &'static str = "swbf_hybrid";
    const FILTER: &'static str = "TimedSwbf";
    const WINDOW_PROMISE: Option<&'static str> = Some("a key younger than T is reported while floor(age/delta) + floor(later insertions/g) < r: with the builder's sizing (g for peak_rate*delta plus a batch, --burst) every key younger than T within the target's arrivals; at burst = 0 batched or Poisson arrivals at the peak lose some");
    const ABOUT: &'static str =
        "SWBF over a window of time: timestamps of quanta that end after T/quanta or g insertions";
    const CAPS: Capabilities = CAPS;
    const METRICS: &'static [Metric] = TIME_METRICS;

    fn build(p: SwbfHybridParams, _seed: u64) -> anyhow::Result<Built> {
        let (t, rate) = window_and_rate(Self::NAME, p.window_time, p.peak_rate)?;
        let eps = probability(col::FPR, p.fpr)?
            .ok_or_else(|| anyhow::anyhow!("swbf_hybrid needs fpr"))?;
        let r = p.quanta.unwrap_or(DEFAULT_QUANTA).max(1);
        // the sizing rules are the crate's (bloomlab_filters::build)
        let mut target = Target::time(t, rate).ticks_per_unit(NS).fpr(eps).quanta(r);
        if let Some(b) = p.burst {
            target = target.burst(b);
        }
        let f: TimedSwbf = target
            .build()
            .map_err(|e| anyhow::anyhow!("swbf_hybrid: {e}"))?;
        let (delta, g, f_bits) = (f.delta(), f.g(), f.inner().fingerprint_bits());
        let keys = (r + 1) * g;
        let bits = f.memory_bits() as f64;
        let bound = f.fpr_theory(keys as f64);
        let (window_ns, slack_ns) = (f.window_time(), f.slack_time());
        let model = f.clone();
        let geometry = time_geometry(r * g, 0, (window_ns, slack_ns), (g, delta));
        Ok(Built {
            geometry,
            resolved: vec![
                int(col::QUANTA, r),
                int(col::G, g),
                int(col::FINGERPRINT_BITS, f_bits),
                int(col::STAMP_BITS, f.inner().stamp_bits()),
                real(col::DELTA, delta as f64 / NS),
                real(col::WINDOW_TIME, window_ns as f64 / NS),
                real(col::SLACK_TIME, slack_ns as f64 / NS),
            ],
            theory: Theory {
                scalars: vec![
                    (col::FPR, bound),
                    (col::MEMORY_BITS, bits),
                    (col::BITS_PER_ELEMENT, bits / (r * g) as f64),
                ]
                .into_iter()
                .chain(super::candidate::line_scalars(Some(f.inner().lines())))
                .collect(),
                moment: Some(Box::new(move |m: &Moment, cum: &dyn Fn(f64) -> f64| {
                    let (fpr, starts) = model.theory_at(m.now_ns, cum);
                    let model = model.clone();
                    Box::new(AtMoment {
                        fpr,
                        presence: move |u| model.presence(fpr, &starts, u),
                    }) as Box<dyn MomentTheory>
                })),
                ..Theory::default()
            },
            filter: Some(Box::new(f)),
            summary: None,
        })
    }

    /// For a time request: 64 quanta per window, the fewest fingerprint
    /// bits meeting the FPR at (quanta + 1) quanta of keys at the peak rate.
    fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        let Planned {
            built,
            memory,
            params,
        } = planned(&SwbfHybrid, c)?;
        let w = c.window.max(1);
        Ok(vec![Candidate::exact_window(
            Self::NAME,
            w,
            params,
            memory,
            built.theory.get(col::FPR).unwrap_or(1.0),
            0,
            // 64-byte lines: both buckets of its SWBF
            built.theory.get(col::LINES_QUERY_NEGATIVE),
        )])
    }
}
