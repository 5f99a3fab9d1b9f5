//! The timing Bloom filter over a window of time (`tbf_time`): a clock of
//! time quanta instead of arrivals. See `bloomlab_filters::timing::timed`.

use super::built::{int, real, Built, Moment, MomentTheory, Theory};
use super::time_shared::{
    planned, time_geometry, time_params, window_and_rate, AtMoment, Planned, CAPS, TIME_METRICS,
};
use super::{probability, Candidate, Capabilities, Constraints, DesignDef};
use crate::metrics::columns::col;
use crate::spec::Metric;
use crate::spec::NS;
use bloomlab_filters::timing::{TimedTbf, TimingBloom};
use bloomlab_filters::{bloom, Filter, TimedFilter};

/// Quanta per window when the parameters do not say.
use bloomlab_filters::build::{Target, DEFAULT_QUANTA};

time_params! {
    /// Parameters of the time-window timing Bloom filter: cells sized for
    /// the keys its live quanta hold at the peak rate.
    TbfTimeParams {
        /// Time quanta per window (default 64; slack T / quanta)
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
        quanta: Option<u64>,
    }
}

/// The time-window timing Bloom filter.
pub struct TbfTime;

/// (T, R, fpr, quanta) from the parameters, and the keys the live quanta
/// hold at the peak rate: R·T·(r + 1)/r.
fn resolve(p: &TbfTimeParams) -> anyhow::Result<(f64, f64, f64, u64, u64)> {
    let (t, rate) = window_and_rate(TbfTime::NAME, p.window_time, p.peak_rate)?;
    let fpr = probability(col::FPR, p.fpr)?
        .ok_or_else(|| anyhow::anyhow!("tbf_time needs fpr (the target at the peak rate)"))?;
    let r = p.quanta.unwrap_or(DEFAULT_QUANTA).max(1);
    let keys = bloomlab_filters::build::tbf_keys(t, rate, r);
    Ok((t, rate, fpr, r, keys))
}

impl DesignDef for TbfTime {
    type Params = TbfTimeParams;
    const NAME: &'static str = "tbf_time";
    const FILTER: &'static str = "TimedTbf";
    const WINDOW_PROMISE: Option<&'static str> = Some("every key younger than T is reported, whatever the arrivals (cells stamped with time quanta)");
    const ABOUT: &'static str =
        "Timing Bloom filter over a window of time T: cells hold time quanta of T/quanta";
    const CAPS: Capabilities = CAPS;
    const METRICS: &'static [Metric] = TIME_METRICS;

    fn build(p: TbfTimeParams, _seed: u64) -> anyhow::Result<Built> {
        let (t, rate, fpr, r, keys) = resolve(&p)?;
        let e = |x: bloomlab_filters::ParamError| anyhow::anyhow!("tbf_time: {x}");
        // the sizing rules are the crate's (bloomlab_filters::build)
        let target = Target::time(t, rate).ticks_per_unit(NS).fpr(fpr).quanta(r);
        let f: TimedTbf = target.build().map_err(e)?;
        let (k, s, delta) = (f.inner().k(), f.inner().slice_cells(), f.delta());
        let bits = f.memory_bits() as f64;
        let count_fpr = f.fpr_theory(keys as f64);
        let (window_ns, slack_ns) = (f.window_time(), f.slack_time());
        let model = f.clone();
        let geometry = time_geometry(keys, 0, (window_ns, slack_ns), (keys, window_ns + slack_ns));
        Ok(Built {
            geometry,
            resolved: vec![
                int(col::QUANTA, r),
                int(col::K, k),
                int(col::S, s),
                int(col::STAMP_BITS, f.inner().stamp_bits()),
                real(col::DELTA, delta as f64 / NS),
                real(col::WINDOW_TIME, window_ns as f64 / NS),
                real(col::SLACK_TIME, slack_ns as f64 / NS),
            ],
            filter: Some(Box::new(f)),
            summary: None,
            theory: Theory {
                scalars: vec![
                    (col::FPR, count_fpr),
                    (col::MEMORY_BITS, bits),
                    (col::BITS_PER_ELEMENT, bits / keys as f64),
                ],
                moment: Some(Box::new(move |m: &Moment, cum: &dyn Fn(f64) -> f64| {
                    let live_from = model.live_from(m.now_ns);
                    let fpr = model.fpr_theory(cum(m.now_ns) - cum(live_from));
                    let presence = move |u: f64| if u >= live_from { 1.0 } else { fpr };
                    Box::new(AtMoment { fpr, presence }) as Box<dyn MomentTheory>
                })),
                ..Theory::default()
            },
        })
    }

    /// For a time request: the default 64 quanta per window, cells sized for
    /// the keys the live quanta hold at the peak rate.
    fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        let Planned {
            built,
            memory,
            params,
        } = planned(&TbfTime, c)?;
        let w = c.window;
        let (k, s) = TimingBloom::sizing(built.geometry.window, c.fpr)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let fill = bloom::fill_ratio(built.geometry.window as f64, s as f64);
        let bits = built.resolved[3].1.num().unwrap_or(0.0) as u64;
        Ok(vec![Candidate {
            design: Self::NAME,
            params,
            memory_bits: memory,
            bits_per_element: memory as f64 / w as f64,
            fpr: built.theory.get(col::FPR).unwrap_or(1.0),
            window: w,
            slack: 0,
            npws_peak: 0.0,
            insert_bits: k as u64 * bits,
            // 64-byte lines: a cell, or two where it straddles a boundary
            query_lines: Some(bloomlab_filters::lines::partitioned_query_lines(
                fill,
                k,
                bits as u32,
            )),
        }])
    }
}
