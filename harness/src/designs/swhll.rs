//! Sliding HyperLogLog: the SWAMP paper's distinct-count baseline.

use super::shared::RegistersParams;
use super::sketches::{self, NOT_A_FILTER};
use super::{Built, DesignDef};
use super::{Candidate, Constraints};
use crate::spec::Metric;
use bloomlab_filters::sketches::SlidingHll as Sketch;
use bloomlab_filters::SlidingHllShape;

/// SlidingHll.
pub struct Swhll;

impl DesignDef for Swhll {
    type Params = RegistersParams;
    const NAME: &'static str = "swhll";
    const FILTER: &'static str = "SlidingHll";
    const ABOUT: &'static str = "Sliding HyperLogLog: distinct count over a window";
    const CAPS: super::Capabilities = super::Capabilities::SUMMARY;
    const METRICS: &'static [Metric] = &[Metric::Distinct, Metric::Memory];

    /// `seed` picks the sketch's hash.
    fn build(p: RegistersParams, seed: u64) -> anyhow::Result<Built> {
        sketches::registers(Self::NAME, p, |w, m| {
            Ok(Box::new(
                Sketch::new(SlidingHllShape {
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
