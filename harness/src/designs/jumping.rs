//! The jumping window: n segments, the oldest dropped every g insertions.

use super::segmented::{self, Sizing};
use super::{at_least_one, Built, DesignDef};
use crate::plan::{Candidate, Constraints};
use crate::spec::Metric;
use bloomlab_filters::segmented::JumpingWindow;
use serde::{Deserialize, Serialize};

/// Jumping-window parameters: segments and (window, fpr) or (k, g, m).
#[derive(clap::Args, Deserialize, Serialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct JumpingParams {
    /// Segments n >= 2 (window (n-1) g, slack g)
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..))]
    segments: Option<u32>,
    /// Window (insertions)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    window: Option<u64>,
    /// Target worst-phase FPR, in (0, 1)
    #[arg(long)]
    fpr: Option<f64>,
    /// Slices per segment
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    k: Option<u32>,
    /// Generation size
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    g: Option<u64>,
    /// Bits per slice
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    m: Option<u64>,
}

/// The jumping window.
pub struct Jumping;

impl DesignDef for Jumping {
    type Params = JumpingParams;
    const NAME: &'static str = "jumping";
    const ABOUT: &'static str =
        "Jumping window: n Bloom segments, the oldest dropped every g insertions";
    const CAPS: super::Capabilities = super::Capabilities::SLIDING;
    const METRICS: &'static [Metric] = segmented::METRICS;

    fn build(p: JumpingParams, _seed: u64) -> anyhow::Result<Built> {
        let n = at_least_one("segments", p.segments)?
            .ok_or_else(|| anyhow::anyhow!("jumping needs segments"))?;
        let f = match segmented::sizing(Self::NAME, p.window, p.fpr, p.k, p.g, p.m)? {
            Sizing::Explicit(k, g, m) => JumpingWindow::new(n, k, g, m),
            Sizing::Target(w, e) => JumpingWindow::with_fpr(w, e, n),
        }
        .map_err(|e| anyhow::anyhow!("jumping: {e}"))?;
        let t = segmented::jumping_theory(&f);
        let geometry = super::Geometry::sliding(&f);
        let kgm = (f.k(), f.g(), f.m());
        Ok(segmented::finish(
            Box::new(f),
            geometry,
            t,
            kgm,
            Some(("segments", n)),
        ))
    }

    /// One configuration per n in 3..=16 segments.
    fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        Ok((3..=16)
            .map(|n| segmented::jumping_candidate(Self::NAME, c.window, c.fpr, n))
            .collect())
    }
}
