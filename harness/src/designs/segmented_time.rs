//! The jumping window and double buffering over a window of time: a
//! switch every τ (`jumping_time`, `double_buffer_time`). See
//! `bloomlab_filters::segmented::timed`.

use super::built::{int, real, Built, Moment, MomentTheory, Theory};
use super::time_shared::{
    planned, time_geometry, time_params, time_request, window_and_rate, AtMoment, Planned, CAPS,
    TIME_METRICS,
};
use super::{probability, Candidate, Capabilities, Constraints, DesignDef};
use crate::metrics::columns::{col, Col};
use crate::spec::Metric;
use crate::spec::NS;
use bloomlab_filters::build::Target;
use bloomlab_filters::segmented::timed::SegmentsTheory;
use bloomlab_filters::segmented::{DoubleBuffer, JumpingWindow};
use bloomlab_filters::{Filter, OnTime, TimedFilter};

time_params! {
    /// Parameters of a time-window jumping window (τ = T / (segments - 1)).
    JumpingTimeParams {
        /// Segments n >= 2 (window (n-1)τ, slack τ)
        #[arg(long, value_parser = clap::value_parser!(u32).range(2..))]
        segments: Option<u32>,
    }
}

time_params! {
    /// Parameters of time-window double buffering (τ = T).
    DoubleBufferTimeParams {}
}

/// The time jumping window.
pub struct JumpingTime;
/// Time double buffering.
pub struct DoubleBufferTime;

/// The crate's target for a time request: the window and peak rate, the
/// FPR (required), on a clock of nanoseconds.
fn target(
    name: &str,
    window_time: Option<f64>,
    peak_rate: Option<f64>,
    fpr: Option<f64>,
) -> anyhow::Result<Target> {
    let (t, rate) = window_and_rate(name, window_time, peak_rate)?;
    let fpr = probability(col::FPR, fpr)?
        .ok_or_else(|| anyhow::anyhow!("{name} needs fpr (the target at the peak rate)"))?;
    Ok(Target::time(t, rate).ticks_per_unit(NS).fpr(fpr))
}

/// The parts every timed segmented design shares.
fn finish<F: bloomlab_filters::Generational + Send + 'static>(
    f: OnTime<F>,
    t: SegmentsTheory,
    count_fpr: f64,
    resolved: Vec<(Col, crate::metrics::Value)>,
) -> Built {
    let bits = f.memory_bits() as f64;
    let g = f.inner().generation_size();
    let (kept, forgotten) = (f.inner().kept(), f.inner().forgotten());
    let (window_ns, slack_ns) = (f.window_time(), f.slack_time());
    let geometry = time_geometry(
        kept * g,
        (forgotten - kept) * g,
        (window_ns, slack_ns),
        (g, f.tau()),
    );
    let mut resolved = resolved;
    resolved.extend([
        real(col::TAU, f.tau() as f64 / NS),
        real(col::WINDOW_TIME, window_ns as f64 / NS),
        real(col::SLACK_TIME, slack_ns as f64 / NS),
    ]);
    Built {
        geometry,
        resolved,
        filter: Some(Box::new(f)),
        summary: None,
        theory: Theory {
            scalars: vec![
                (col::FPR, count_fpr),
                (col::MEMORY_BITS, bits),
                (col::BITS_PER_ELEMENT, bits / (kept * g) as f64),
            ],
            moment: Some(Box::new(move |m: &Moment, cum: &dyn Fn(f64) -> f64| {
                let state = t.at(m.now_ns, cum);
                Box::new(AtMoment {
                    fpr: state.fpr,
                    presence: move |u| state.presence(u),
                }) as Box<dyn MomentTheory>
            })),
            ..Theory::default()
        },
    }
}

impl DesignDef for JumpingTime {
    type Params = JumpingTimeParams;
    const NAME: &'static str = "jumping_time";
    const FILTER: &'static str = "OnTime<JumpingWindow>";
    const WINDOW_PROMISE: Option<&'static str> = Some("every key younger than T is reported, whatever the arrivals (a switch every T/(n-1) on a fixed grid)");
    const ABOUT: &'static str =
        "Jumping window over a window of time T: n Bloom segments, a switch every T/(n-1)";
    const CAPS: Capabilities = CAPS;
    const METRICS: &'static [Metric] = TIME_METRICS;
    fn build(p: JumpingTimeParams, _seed: u64) -> anyhow::Result<Built> {
        let n = p
            .segments
            .filter(|&n| n >= 2)
            .ok_or_else(|| anyhow::anyhow!("jumping_time needs segments >= 2"))?;
        let target = target(Self::NAME, p.window_time, p.peak_rate, p.fpr)?.segments(n);
        let f: OnTime<JumpingWindow> = target
            .build()
            .map_err(|e| anyhow::anyhow!("jumping_time: {e}"))?;
        let (k, g, m) = (f.inner().k(), f.inner().g(), f.inner().m());
        let count_fpr = f.inner().theory_fpr(g);
        let t = SegmentsTheory::jumping(&f);
        let resolved = vec![
            int(col::SEGMENTS, n),
            int(col::K, k),
            int(col::G, g),
            int(col::M, m),
        ];
        Ok(finish(f, t, count_fpr, resolved))
    }
    /// For a time request: one configuration per n in 3..=16 segments,
    /// sized as the count-based jumping window for the T·R keys of a window
    /// at the peak rate (plus the clock's 128 bits).
    fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        let (t, rate) = time_request(c)?;
        Ok((3..=16)
            .filter_map(|n| {
                let mut x = super::segmented::jumping_candidate("jumping", c.window, c.fpr, n)?;
                x.design = Self::NAME;
                x.memory_bits += 128;
                x.bits_per_element = x.memory_bits as f64 / x.window as f64;
                x.params = vec![
                    real(col::WINDOW_TIME, t),
                    real(col::PEAK_RATE, rate),
                    real(col::FPR, c.fpr),
                    int(col::SEGMENTS, n),
                ];
                Some(x)
            })
            .collect())
    }
}

impl DesignDef for DoubleBufferTime {
    type Params = DoubleBufferTimeParams;
    const NAME: &'static str = "double_buffer_time";
    const FILTER: &'static str = "OnTime<DoubleBuffer>";
    const WINDOW_PROMISE: Option<&'static str> = Some("every key younger than T is reported, whatever the arrivals (a swap every T on a fixed grid)");
    const ABOUT: &'static str =
        "Double buffering over a window of time T: active and warm-up filters swapped every T";
    const CAPS: Capabilities = CAPS;
    const METRICS: &'static [Metric] = TIME_METRICS;
    fn build(p: DoubleBufferTimeParams, _seed: u64) -> anyhow::Result<Built> {
        let target = target(Self::NAME, p.window_time, p.peak_rate, p.fpr)?;
        let f: OnTime<DoubleBuffer> = target
            .build()
            .map_err(|e| anyhow::anyhow!("double_buffer_time: {e}"))?;
        let (k, g, m) = (f.inner().k(), f.inner().g(), f.inner().m());
        let count_fpr = f.inner().theory_fpr(g);
        let t = SegmentsTheory::double_buffer(&f);
        Ok(finish(
            f,
            t,
            count_fpr,
            vec![int(col::K, k), int(col::G, g), int(col::M, m)],
        ))
    }
    /// For a time request: sized as count-based double buffering for the
    /// T·R keys of a window at the peak rate (plus the clock's 128 bits).
    fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        let Planned {
            built,
            memory,
            params,
        } = planned(&DoubleBufferTime, c)?;
        let num = |i: usize| built.resolved[i].1.num().unwrap_or(0.0) as u64;
        let (k, g) = (num(0), built.geometry.window);
        // its count twin's lines: the active filter read slice by slice
        let lines = bloomlab_filters::segmented::theory::double_buffer_lines_negative(
            k as u32,
            num(1),
            num(2),
        );
        Ok(vec![Candidate {
            design: Self::NAME,
            params,
            memory_bits: memory,
            bits_per_element: memory as f64 / g as f64,
            fpr: built.theory.get(col::FPR).unwrap_or(1.0),
            window: g,
            slack: g,
            npws_peak: 1.0,
            insert_bits: 2 * k,
            query_lines: Some(lines),
        }])
    }
}
