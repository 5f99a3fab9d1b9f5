//! Double buffering: an active and a warm-up filter, swapped every g
//! insertions.

use super::segmented::{self, Sizing};
use super::{Built, DesignDef};
use super::{Candidate, Constraints};
use crate::metrics::columns::col;
use crate::spec::Metric;
use bloomlab_filters::segmented::{theory as seg, DoubleBuffer as Filter};
use bloomlab_filters::DoubleBufferShape;

segmented::segmented_params! {
    /// Double-buffering parameters: (window, fpr) or (k, g, m).
    DoubleBufferParams {
    }
}

/// Double buffering.
pub struct DoubleBuffer;

impl DesignDef for DoubleBuffer {
    type Params = DoubleBufferParams;
    const NAME: &'static str = "double_buffer";
    const FILTER: &'static str = "DoubleBuffer";
    const OP_NS: (f64, f64) = (65.0, 27.0);
    const ALIASES: &'static [&'static str] = &["double-buffer"];
    const ABOUT: &'static str =
        "Double buffering: active and warm-up Bloom filters, swapped every g insertions";
    const CAPS: super::Capabilities = super::Capabilities::SLIDING;
    const METRICS: &'static [Metric] = segmented::METRICS;

    fn build(p: DoubleBufferParams, _seed: u64) -> anyhow::Result<Built> {
        let f = match segmented::sizing(Self::NAME, p.window, p.fpr, p.k, p.g, p.m)? {
            Sizing::Explicit(k, g, m) => Filter::new(DoubleBufferShape {
                hashes: k,
                generation: g,
                bits_per_slice: m,
            }),
            Sizing::Target(t) => t.build::<Filter>(),
        }
        .map_err(|e| anyhow::anyhow!("double_buffer: {e}"))?;
        let (k, g, m) = (f.k(), f.g(), f.m());
        let mut t = segmented::theory(&f, 2 * k as u64 * m, &|p| f.theory_fpr(p), &|p| {
            f.theory_presence_by_shift(p)
        });
        t.scalars.extend([
            (
                col::PROBES_NEGATIVE,
                seg::double_buffer_probes_negative(k, g, m),
            ),
            (
                col::LINES_QUERY_NEGATIVE,
                seg::double_buffer_lines_negative(k, g, m),
            ),
            (
                col::LINES_QUERY_POSITIVE,
                seg::double_buffer_lines_positive(k, m),
            ),
            (col::LINES_INSERT, {
                let (insert, shift) = seg::segment_insert_lines(2, k, m, g);
                insert + shift
            }),
        ]);
        t.moment = Some(super::built::switching_moment(
            g,
            move |p| seg::double_buffer_fpr(k, g, m, p),
            move |p| vec![1.0, 1.0, seg::double_buffer_fpr(k, g, m, p)],
        ));
        let geometry = super::Geometry::sliding(&f);
        Ok(segmented::finish(Box::new(f), geometry, t, (k, g, m), None))
    }

    fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        let (k, g, m) = Filter::sizing(c.window, c.fpr);
        if k > segmented::MAX_PLAN_K {
            return Ok(Vec::new());
        }
        let fpr = seg::double_buffer_fpr(k, g, m, g);
        Ok(vec![segmented::candidate(
            Self::NAME,
            vec![(col::K, k as u64), (col::G, g), (col::M, m)],
            2 * k as u64 * m + 64,
            (g, g, g),
            fpr,
            &[1.0, 1.0],
            2 * k as u64,
            Some(seg::double_buffer_lines_negative(k, g, m)),
        )])
    }
}
