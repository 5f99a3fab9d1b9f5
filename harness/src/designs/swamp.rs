//! SWAMP (Assaf, Ben Basat, Einziger, Friedman): a cyclic buffer of
//! fingerprints and a counting table over an exact window; membership,
//! per-flow counts, distinct count and entropy.

use super::built::{int, Built, Geometry, SwampEstimates, Theory};
use super::shared::FingerprintParams;
use super::{at_least_one, probability, DesignDef};
use super::{Candidate, Constraints};
use crate::metrics::columns::col;
use crate::spec::Metric;
use bloomlab_filters::build::Target;
use bloomlab_filters::swamp::{self, table as swamp_table, theory as swamp_theory};
use bloomlab_filters::ParamError;
use bloomlab_filters::SwampShape;

/// SWAMP.
pub struct Swamp;

impl DesignDef for Swamp {
    type Params = FingerprintParams;
    const NAME: &'static str = "swamp";
    const FILTER: &'static str = "Swamp";
    const OP_NS: (f64, f64) = (310.0, 80.0);
    const ABOUT: &'static str =
        "SWAMP: membership, per-flow counts, distinct count and entropy over an exact window";
    const CAPS: super::Capabilities = super::Capabilities {
        summary: true,
        stream_memory: true,
        ..super::Capabilities::EXACT
    };
    const METRICS: &'static [Metric] = &[
        Metric::Fpr,
        Metric::Fnr,
        Metric::Memory,
        Metric::Speed,
        Metric::Count,
        Metric::Distinct,
        Metric::Entropy,
    ];

    /// `seed` picks the fingerprint hash.
    fn build(p: FingerprintParams, seed: u64) -> anyhow::Result<Built> {
        let fpr = probability(col::FPR, p.fpr)?;
        let w = at_least_one(col::WINDOW, p.window)?
            .ok_or_else(|| anyhow::anyhow!("swamp needs window and fpr (or fingerprint_bits)"))?;
        let bits = at_least_one(col::FINGERPRINT_BITS, p.fingerprint_bits)?;
        let e = |r: ParamError| anyhow::anyhow!("swamp: {r}");
        let make = || match (fpr, bits) {
            (Some(p), None) => Target::window(w).fpr(p).build::<swamp::Swamp>().map_err(e),
            (None, Some(l)) => swamp::Swamp::new(SwampShape {
                window: w,
                fingerprint_bits: l,
            })
            .map_err(e),
            _ => Err(anyhow::anyhow!(
                "swamp needs window and one of fpr, fingerprint_bits"
            )),
        };
        let f = make()?.with_seed(seed);
        let l = f.fingerprint_bits();
        let memory = swamp_theory::memory_bits(w, l) as f64;
        let theory = Theory {
            scalars: vec![
                (col::FPR, swamp_theory::fpr(l, w as f64)),
                (col::FPR_EXPIRED, swamp_theory::fpr(l, w as f64)),
                (col::FNR, 0.0),
                (col::MEMORY_BITS, memory),
                (col::BITS_PER_ELEMENT, memory / w as f64),
                (
                    col::TINYTABLE_BITS_PER_ELEMENT,
                    swamp_theory::tinytable_memory_bits(w, l) / w as f64,
                ),
            ]
            .into_iter()
            .chain(super::candidate::line_scalars(Some(f.lines())))
            .collect(),
            estimates: Some(Box::new(SwampEstimates(l))),
            ..Theory::default()
        };
        Ok(Built {
            geometry: Geometry::sliding(&f),
            resolved: vec![
                int(col::WINDOW, w),
                int(col::FINGERPRINT_BITS, l),
                int(col::SLOTS, f.table().slots()),
                int(col::REMAINDER_BITS, f.table().remainder_bits()),
            ],
            summary: Some(Box::new(make()?.with_seed(seed))),
            filter: Some(Box::new(f)),
            theory,
        })
    }

    /// The fewest fingerprint bits whose exact FPR 1 - (1 - 2^-L)^w meets
    /// the target (the paper's ⌈log2(w/ε)⌉ can be one more).
    fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        let w = c.window;
        Ok((1..=swamp::MAX_L)
            .find(|&l| swamp_theory::fpr(l, w as f64) <= c.fpr)
            .map(|l| {
                let b = swamp_table::buckets_for(w);
                let slot = swamp_table::remainder_bits(l, b) as u64 + 3;
                Candidate::exact_window(
                    Self::NAME,
                    w,
                    Candidate::ints(&[(col::WINDOW, w), (col::FINGERPRINT_BITS, l as u64)]),
                    swamp_theory::memory_bits(w, l),
                    swamp_theory::fpr(l, w as f64),
                    l as u64 + slot,
                    // 64-byte lines: both buckets
                    Some(bloomlab_filters::lines::two_bucket_lines_stopping(
                        slot,
                        swamp_theory::fpr(l, w as f64),
                        b,
                    )),
                )
            })
            .into_iter()
            .collect())
    }
}
