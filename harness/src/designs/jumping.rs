//! The jumping window: n segments, the oldest dropped every g insertions.

use super::segmented::{self, Sizing};
use super::{at_least_one, Built, DesignDef};
use super::{Candidate, Constraints};
use crate::metrics::columns::col;
use crate::spec::Metric;
use bloomlab_filters::segmented::{theory as seg, JumpingWindow};
use bloomlab_filters::JumpingWindowShape;

segmented::segmented_params! {
    /// Jumping-window parameters: segments and (window, fpr) or (k, g, m).
    JumpingParams {
        /// Segments n >= 2 (window (n-1) g, slack g)
        #[arg(long, value_parser = clap::value_parser!(u32).range(2..))]
        segments: Option<u32>,
    }
}

/// The jumping window.
pub struct Jumping;

impl DesignDef for Jumping {
    type Params = JumpingParams;
    const NAME: &'static str = "jumping";
    const FILTER: &'static str = "JumpingWindow";
    const OP_NS: (f64, f64) = (50.0, 145.0);
    const ABOUT: &'static str =
        "Jumping window: n Bloom segments, the oldest dropped every g insertions";
    const CAPS: super::Capabilities = super::Capabilities::SLIDING;
    const METRICS: &'static [Metric] = segmented::METRICS;

    fn build(p: JumpingParams, _seed: u64) -> anyhow::Result<Built> {
        let n = at_least_one(col::SEGMENTS, p.segments)?
            .ok_or_else(|| anyhow::anyhow!("jumping needs segments"))?;
        let f = match segmented::sizing(Self::NAME, p.window, p.fpr, p.k, p.g, p.m)? {
            Sizing::Explicit(k, g, m) => JumpingWindow::new(JumpingWindowShape {
                segments: n,
                hashes: k,
                generation: g,
                bits_per_slice: m,
            }),
            Sizing::Target(t) => t.segments(n).build::<JumpingWindow>(),
        }
        .map_err(|e| anyhow::anyhow!("jumping: {e}"))?;
        let mut t = segmented::jumping_theory(&f);
        let (k, g, m) = (f.k(), f.g(), f.m());
        t.moment = Some(super::built::switching_moment(
            g,
            move |p| seg::jumping_fpr(n, k, g, m, p),
            move |p| {
                let mut v = vec![1.0; n as usize];
                v.push(seg::jumping_fpr(n, k, g, m, p));
                v
            },
        ));
        let geometry = super::Geometry::sliding(&f);
        let kgm = (f.k(), f.g(), f.m());
        Ok(segmented::finish(
            Box::new(f),
            geometry,
            t,
            kgm,
            Some((col::SEGMENTS, n)),
        ))
    }

    /// One configuration per n in 3..=16 segments.
    fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        Ok((3..=16)
            .filter_map(|n| segmented::jumping_candidate(Self::NAME, c.window, c.fpr, n))
            .collect())
    }
}
