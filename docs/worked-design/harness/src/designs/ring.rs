//! The fingerprint ring: the worked example of adding a design
//! (docs/extending.md, `scripts/worked-design`).

use super::built::{exact_window_filter, int, Built};
use super::shared::FingerprintParams;
use super::{at_least_one, probability, DesignDef};
use super::{Candidate, Constraints};
use crate::metrics::columns::col;
use crate::spec::Metric;
use bloomlab_filters::ring::{fpr, Ring as Filter};
use bloomlab_filters::{ParamError, RingShape, Target};

/// The fingerprint ring.
pub struct Ring;

impl DesignDef for Ring {
    type Params = FingerprintParams;
    const NAME: &'static str = "ring";
    const FILTER: &'static str = "Ring";
    const ABOUT: &'static str =
        "Fingerprint ring: the last W keys' fingerprints, counted (the worked example)";
    const CAPS: super::Capabilities = super::Capabilities::EXACT;
    const METRICS: &'static [Metric] = super::EXACT_METRICS;

    fn build(p: FingerprintParams, _seed: u64) -> anyhow::Result<Built> {
        let w = at_least_one(col::WINDOW, p.window)?
            .ok_or_else(|| anyhow::anyhow!("ring needs window"))?;
        let e = |r: ParamError| anyhow::anyhow!("ring: {r}");
        let bits = at_least_one(col::FINGERPRINT_BITS, p.fingerprint_bits)?;
        let f = match (probability(col::FPR, p.fpr)?, bits) {
            (Some(p), None) => Target::window(w).fpr(p).build::<Filter>().map_err(e)?,
            (None, Some(b)) => Filter::new(RingShape {
                window: w,
                fingerprint_bits: b,
            })
            .map_err(e)?,
            _ => return Err(anyhow::anyhow!("ring needs window and one of fpr, fingerprint_bits")),
        };
        let resolved = vec![
            int(col::WINDOW, w),
            int(col::FINGERPRINT_BITS, f.fingerprint_bits()),
        ];
        let p = fpr(f.fingerprint_bits(), w as f64);
        Ok(exact_window_filter(Box::new(f), w, p, resolved))
    }

    fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        let w = c.window;
        let f: Filter = Target::window(w)
            .fpr(c.fpr)
            .build()
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let bits = f.fingerprint_bits() as u64;
        Ok(vec![Candidate::exact_window(
            Self::NAME,
            w,
            Candidate::ints(&[(col::WINDOW, w), (col::FINGERPRINT_BITS, bits)]),
            bloomlab_filters::Filter::memory_bits(&f),
            fpr(f.fingerprint_bits(), w as f64),
            bits,
            None,
        )])
    }
}
