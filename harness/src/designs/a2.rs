//! Active-active (A2) buffering: with read-only queries, a two-segment
//! jumping window.

use super::segmented::{self, Sizing};
use super::{Built, DesignDef};
use super::{Candidate, Constraints};
use crate::spec::Metric;
use bloomlab_filters::segmented::A2Buffer;
use bloomlab_filters::A2BufferShape;

segmented::segmented_params! {
    /// A2 parameters: (window, fpr) or (k, g, m).
    A2Params {
    }
}

/// A2 buffering.
pub struct A2;

impl DesignDef for A2 {
    type Params = A2Params;
    const NAME: &'static str = "a2";
    const FILTER: &'static str = "A2Buffer";
    const OP_NS: (f64, f64) = (50.0, 50.0);
    const ABOUT: &'static str =
        "Active-active buffering: two Bloom filters, the older dropped every g insertions";
    const CAPS: super::Capabilities = super::Capabilities::SLIDING;
    const METRICS: &'static [Metric] = segmented::METRICS;

    fn build(p: A2Params, _seed: u64) -> anyhow::Result<Built> {
        let a = match segmented::sizing(Self::NAME, p.window, p.fpr, p.k, p.g, p.m)? {
            Sizing::Explicit(k, g, m) => A2Buffer::new(A2BufferShape {
                hashes: k,
                generation: g,
                bits_per_slice: m,
            }),
            Sizing::Target(t) => t.build::<A2Buffer>(),
        }
        .map_err(|e| anyhow::anyhow!("a2: {e}"))?;
        let j = a.as_jumping();
        let t = segmented::jumping_theory(j);
        let geometry = super::Geometry::sliding(j);
        let kgm = (j.k(), j.g(), j.m());
        Ok(segmented::finish(Box::new(a), geometry, t, kgm, None))
    }

    fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        Ok(segmented::jumping_candidate(Self::NAME, c.window, c.fpr, 2)
            .into_iter()
            .collect())
    }
}
