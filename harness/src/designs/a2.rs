//! Active-active (A2) buffering: with read-only queries, a two-segment
//! jumping window.

use super::segmented::{self, Sizing};
use super::{Built, DesignDef};
use crate::plan::{Candidate, Constraints};
use crate::spec::Metric;
use bloomlab_filters::segmented::A2Buffer;
use serde::{Deserialize, Serialize};

/// A2 parameters: (window, fpr) or (k, g, m).
#[derive(clap::Args, Deserialize, Serialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct A2Params {
    /// Window (insertions)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    window: Option<u64>,
    /// Target worst-phase FPR, in (0, 1)
    #[arg(long)]
    fpr: Option<f64>,
    /// Slices per filter
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    k: Option<u32>,
    /// Generation size
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    g: Option<u64>,
    /// Bits per slice
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    m: Option<u64>,
}

/// A2 buffering.
pub struct A2;

impl DesignDef for A2 {
    type Params = A2Params;
    const NAME: &'static str = "a2";
    const ABOUT: &'static str =
        "Active-active buffering: two Bloom filters, the older dropped every g insertions";
    const CAPS: super::Capabilities = super::Capabilities::SLIDING;
    const METRICS: &'static [Metric] = segmented::METRICS;

    fn build(p: A2Params, _seed: u64) -> anyhow::Result<Built> {
        let a = match segmented::sizing(Self::NAME, p.window, p.fpr, p.k, p.g, p.m)? {
            Sizing::Explicit(k, g, m) => A2Buffer::new(k, g, m),
            Sizing::Target(w, e) => A2Buffer::with_fpr(w, e),
        }
        .map_err(|e| anyhow::anyhow!("a2: {e}"))?;
        let j = a.as_jumping();
        let t = segmented::jumping_theory(j);
        let geometry = super::Geometry::sliding(j);
        let kgm = (j.k(), j.g(), j.m());
        Ok(segmented::finish(Box::new(a), geometry, t, kgm, None))
    }

    fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        Ok(vec![segmented::jumping_candidate(
            Self::NAME,
            c.window,
            c.fpr,
            2,
        )])
    }
}
