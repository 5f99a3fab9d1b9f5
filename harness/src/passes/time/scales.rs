//! The time pass's time scales: the warm-up, the duration, the batches
//! of moments and the gaps between them, resolved from the spec and the
//! design.

use super::Process;
use crate::designs::Built;
use crate::spec::{ArrivalSpec, TimeSpec, NS};

/// The run's time scales in nanoseconds, resolved from the spec and the
/// design.
pub(super) struct Scales {
    pub(super) arrivals: Process,
    pub(super) window: f64,
    pub(super) horizon: f64,
    pub(super) warmup: f64,
    pub(super) duration: f64,
    /// Batches of moments (at most one per moment).
    pub(super) batches: usize,
    /// Time between two batches: the design's reach (module docs).
    pub(super) gap: f64,
}

impl Scales {
    /// The end of the last moment's stretch: the warm-up, the duration
    /// and the gaps between batches.
    pub(super) fn end(&self) -> f64 {
        self.warmup + self.duration + self.batches.saturating_sub(1) as f64 * self.gap
    }

    /// The time of moment `s` of `samples` at `offset` in [0, 1) of its
    /// stretch, and its batch.
    pub(super) fn moment(&self, s: u64, samples: u64, offset: f64) -> (u64, usize) {
        let batch = (s as u128 * self.batches as u128 / samples.max(1) as u128) as usize;
        let stretch = self.duration / samples.max(1) as f64;
        let at = self.warmup + (s as f64 + offset) * stretch + batch as f64 * self.gap;
        (at as u64, batch)
    }
}

pub(super) fn scales(
    built: &Built,
    spec: &TimeSpec,
    trace: Option<&crate::workload::Trace>,
) -> anyhow::Result<Scales> {
    let design = built.geometry.time;
    let arrivals = match (&spec.arrivals, design) {
        (Some(a), _) => a.clone(),
        (None, Some(t)) => ArrivalSpec::Poisson { rate: t.peak_rate },
        (None, None) => {
            return Err(anyhow::anyhow!(
                "metric timeline: a design that counts insertions needs a [time.arrivals] process"
            ))
        }
    };
    let window = match (spec.window, design) {
        (Some(t), _) => t * NS,
        (None, Some(t)) => t.window_ns as f64,
        (None, None) => {
            return Err(anyhow::anyhow!(
                "metric timeline: a design that counts insertions needs time.window (T, seconds)"
            ))
        }
    };
    let arrivals = Process::new(&arrivals, trace)?;
    let horizon = spec.horizon * window;
    // the count window's keys, at the mean rate, must have arrived
    let g = &built.geometry;
    let fill = (g.window + g.slack) as f64 / arrivals.mean_rate() * NS;
    let warmup = spec
        .warmup
        .map_or(2.0 * horizon + fill, |w| w * NS)
        .max(horizon);
    let duration = spec.duration.map_or(20.0 * window, |d| d * NS);
    // the span of arrivals a state is built from: T and its slack for a
    // design over time, the count window and its slack at the mean rate
    // for one that counts, never less than T
    let reach = design
        .map_or(fill, |t| (t.window_ns + t.slack_ns) as f64)
        .max(window);
    let batches = spec.batches.min(spec.samples).max(1) as usize;
    let sc = Scales {
        arrivals,
        window,
        horizon,
        warmup,
        duration,
        batches,
        gap: if batches > 1 { reach } else { 0.0 },
    };
    let arrivals = sc.end() / NS * sc.arrivals.mean_rate();
    if arrivals > 1e10 {
        return Err(anyhow::anyhow!(
            "metric timeline: {arrivals:.1e} arrivals is more than 1e10: shorten time.duration, the warm-up or time.batches"
        ));
    }
    Ok(sc)
}

/// Checks that the pass can run `built` under `spec` (its process and
/// window resolve, and the arrivals stay below 1e10), before the run
/// starts. A trace's process needs the trace, so it is checked at the run.
pub fn check(built: &Built, spec: &TimeSpec) -> anyhow::Result<()> {
    if spec.arrivals == Some(ArrivalSpec::Trace) {
        return Ok(());
    }
    scales(built, spec, None).map(|_| ())
}
