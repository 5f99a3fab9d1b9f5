//! SWLC, sliding-window linear counting: the SWAMP paper's distinct-count baseline.

use super::shared::RegistersParams;
use super::sketches::{self, NOT_A_FILTER};
use super::{Built, DesignDef};
use super::{Candidate, Constraints};
use crate::spec::Metric;
use bloomlab_filters::sketches::Swlc as Sketch;
use bloomlab_filters::SwlcShape;

/// Swlc.
pub struct Swlc;

impl DesignDef for Swlc {
    type Params = RegistersParams;
    const NAME: &'static str = "swlc";
    const FILTER: &'static str = "Swlc";
    const ABOUT: &'static str =
        "SWLC: sliding-window linear counting, distinct count over a window";
    const CAPS: super::Capabilities = super::Capabilities::SUMMARY;
    const METRICS: &'static [Metric] = &[Metric::Distinct, Metric::Memory];

    /// `seed` picks the sketch's hash.
    fn build(p: RegistersParams, seed: u64) -> anyhow::Result<Built> {
        sketches::registers(Self::NAME, p, |w, m| {
            Ok(Box::new(
                Sketch::new(SwlcShape {
                    window: w,
                    registers: m,
                })?
                .with_seed(seed),
            ))
        })
    }

    fn plan(_c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        Err(anyhow::anyhow!(NOT_A_FILTER))
    }
}
