//! SWBF: a cuckoo table of fingerprints with timestamps over an exact
//! window (the SWAMP paper's baseline).

use super::built::{exact_window_filter, int, Built};
use super::shared::FingerprintParams;
use super::{at_least_one, probability, DesignDef};
use super::{Candidate, Constraints};
use crate::metrics::columns::col;
use crate::spec::Metric;
use bloomlab_filters::build::Target;
use bloomlab_filters::timing::Swbf as Filter;
use bloomlab_filters::ParamError;
use bloomlab_filters::SwbfShape;

/// SWBF.
pub struct Swbf;

impl DesignDef for Swbf {
    type Params = FingerprintParams;
    const NAME: &'static str = "swbf";
    const FILTER: &'static str = "Swbf";
    const OP_NS: (f64, f64) = (450.0, 260.0);
    const ABOUT: &'static str =
        "SWBF: cuckoo table of fingerprints with insertion timestamps over an exact window";
    const CAPS: super::Capabilities = super::Capabilities::EXACT;
    const METRICS: &'static [Metric] = super::EXACT_METRICS;

    fn build(p: FingerprintParams, _seed: u64) -> anyhow::Result<Built> {
        let fpr = probability(col::FPR, p.fpr)?;
        let w = at_least_one(col::WINDOW, p.window)?
            .ok_or_else(|| anyhow::anyhow!("swbf needs window"))?;
        let e = |r: ParamError| anyhow::anyhow!("swbf: {r}");
        let f = match (
            fpr,
            at_least_one(col::FINGERPRINT_BITS, p.fingerprint_bits)?,
        ) {
            (Some(p), None) => Target::window(w).fpr(p).build::<Filter>().map_err(e)?,
            (None, Some(b)) => Filter::new(SwbfShape {
                window: w,
                fingerprint_bits: b,
            })
            .map_err(e)?,
            _ => {
                return Err(anyhow::anyhow!(
                    "swbf needs window and one of fpr, fingerprint_bits"
                ))
            }
        };
        let resolved = vec![
            int(col::WINDOW, w),
            int(col::FINGERPRINT_BITS, f.fingerprint_bits()),
            int(col::BUCKETS, f.buckets()),
            int(col::STAMP_BITS, f.stamp_bits()),
        ];
        let p = f.fpr_theory(w as f64);
        let lines = f.lines();
        let mut built = exact_window_filter(Box::new(f), w, p, resolved);
        built
            .theory
            .scalars
            .extend(super::candidate::line_scalars(Some(lines)));
        Ok(built)
    }

    fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        let w = c.window;
        let f: Filter = Target::window(w)
            .fpr(c.fpr)
            .build()
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let entry = (f.fingerprint_bits() + f.stamp_bits()) as u64;
        Ok(vec![Candidate::exact_window(
            Self::NAME,
            w,
            Candidate::ints(&[
                (col::WINDOW, w),
                (col::FINGERPRINT_BITS, f.fingerprint_bits() as u64),
            ]),
            4 * f.buckets() * entry + 3 * 64,
            f.fpr_theory(w as f64),
            entry,
            // 64-byte lines: both buckets
            Some(
                bloomlab_filters::lines::two_bucket(
                    entry as u32,
                    f.fpr_theory(w as f64),
                    f.buckets(),
                )
                .query_negative,
            ),
        )])
    }
}
