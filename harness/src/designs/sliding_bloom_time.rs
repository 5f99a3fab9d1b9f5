//! The Sl-BF over a window of time (`sliding_bloom_time`): the Sliding
//! Sketches' clock sweeps the cells once per T of time. See
//! `bloomlab_filters::sliding_sketch::timed`.

use super::built::{int, real, Built, Moment, MomentTheory, Theory};
use super::time_shared::{
    planned, time_geometry, time_params, window_and_rate, AtMoment, Planned, CAPS, TIME_METRICS,
};
use super::{probability, Candidate, Capabilities, Constraints, DesignDef};
use crate::spec::Metric;
use crate::spec::NS;
use bloomlab_filters::build::Target;
use bloomlab_filters::sliding_sketch::theory::SlidingBloomTheory;
use bloomlab_filters::sliding_sketch::TimedSlidingBloom;
use bloomlab_filters::{Filter, TimedFilter};

time_params! {
    /// Parameters of the Sl-BF over time: the cells of the count Sl-BF of
    /// ⌈peak_rate · T⌉ keys at fpr, swept once per T.
    SlidingBloomTimeParams {}
}

/// The Sl-BF over a window of time.
pub struct SlidingBloomTime;

impl DesignDef for SlidingBloomTime {
    type Params = SlidingBloomTimeParams;
    const NAME: &'static str = "sliding_bloom_time";
    const ALIASES: &'static [&'static str] = &["sl_bf_time"];
    const ABOUT: &'static str =
        "Sliding Sketches' Sl-BF over a window of time: its cells swept once per T (window T, slack T at any rate)";
    const CAPS: Capabilities = CAPS;
    const METRICS: &'static [Metric] = TIME_METRICS;

    fn build(p: SlidingBloomTimeParams, _seed: u64) -> anyhow::Result<Built> {
        let (t, rate) = window_and_rate(Self::NAME, p.window_time, p.peak_rate)?;
        let fpr = probability("fpr", p.fpr)?.ok_or_else(|| {
            anyhow::anyhow!("sliding_bloom_time needs fpr (the target at the peak rate)")
        })?;
        let e = |x: bloomlab_filters::ParamError| anyhow::anyhow!("sliding_bloom_time: {x}");
        // the sizing rules are the crate's (bloomlab_filters::build)
        let f: TimedSlidingBloom = Target::time(t, rate)
            .ticks_per_unit(NS)
            .fpr(fpr)
            .build()
            .map_err(e)?;
        let keys = TimedSlidingBloom::keys(f.window_time(), rate / NS).map_err(e)?;
        let count = SlidingBloomTheory {
            k: f.k(),
            m: f.m(),
            w: keys,
        };
        let bits = f.memory_bits() as f64;
        let (window_ns, slack_ns) = (f.window_time(), f.slack_time());
        let model = f.clone();
        let geometry = time_geometry(keys, keys, (window_ns, slack_ns), (keys, window_ns));
        Ok(Built {
            geometry,
            resolved: vec![
                int("k", f.k()),
                int("m", f.m()),
                int("keys", keys),
                real("window_time", window_ns as f64 / NS),
                real("slack_time", slack_ns as f64 / NS),
            ],
            filter: Some(Box::new(f)),
            summary: None,
            theory: Theory {
                scalars: vec![
                    // at the peak rate, the count Sl-BF's worst phase
                    ("fpr", count.fpr()),
                    ("memory_bits", bits),
                    ("bits_per_element", bits / keys as f64),
                ],
                moment: Some(Box::new(move |m: &Moment, cum: &dyn Fn(f64) -> f64| {
                    let at = model.theory_at(m.now_ns, cum);
                    Box::new(AtMoment {
                        fpr: at.fpr(),
                        presence: move |u| at.presence(u),
                    }) as Box<dyn MomentTheory>
                })),
                ..Theory::default()
            },
        })
    }

    /// For a time request: the count Sl-BF's cells for the keys of a
    /// window at the peak rate, swept once per T (slack T): the count
    /// design's plan for those keys, under this design's name, parameters
    /// and memory.
    fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        let Planned {
            built,
            memory,
            params,
        } = planned(&SlidingBloomTime, c)?;
        let count = Constraints {
            window: built.geometry.window,
            ..*c
        };
        let mut x = <super::sliding_bloom::SlidingBloom as DesignDef>::plan(&count)?.remove(0);
        x.design = Self::NAME;
        x.params = params;
        x.memory_bits = memory;
        x.bits_per_element = memory as f64 / c.window as f64;
        x.window = c.window;
        x.slack = c.window;
        Ok(vec![x])
    }
}
