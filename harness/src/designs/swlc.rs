//! SWLC, sliding-window linear counting: the SWAMP paper's distinct-count baseline.

use super::built::int;
use super::sketches::{summary, NOT_A_FILTER};
use super::{at_least_one, Built, DesignDef};
use crate::plan::{Candidate, Constraints};
use crate::spec::Metric;
use bloomlab_filters::sketches::Swlc as Sketch;
use serde::{Deserialize, Serialize};

/// Swlc parameters: window and registers.
#[derive(clap::Args, Deserialize, Serialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct SwlcParams {
    /// Window (arrivals)
    #[arg(long, alias = "w", value_parser = clap::value_parser!(u64).range(1..))]
    window: Option<u64>,
    /// Registers
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    registers: Option<u64>,
}

/// Swlc.
pub struct Swlc;

impl DesignDef for Swlc {
    type Params = SwlcParams;
    const NAME: &'static str = "swlc";
    const ABOUT: &'static str =
        "SWLC: sliding-window linear counting, distinct count over a window";
    const CAPS: super::Capabilities = super::Capabilities::SUMMARY;
    const METRICS: &'static [Metric] = &[Metric::Distinct, Metric::Memory];

    /// `seed` picks the sketch's hash.
    fn build(p: SwlcParams, seed: u64) -> anyhow::Result<Built> {
        const NEEDS: &str = "swlc needs window and registers";
        let w = at_least_one("window", p.window)?.ok_or_else(|| anyhow::anyhow!(NEEDS))?;
        let m = at_least_one("registers", p.registers)?.ok_or_else(|| anyhow::anyhow!(NEEDS))?;
        let s = Sketch::new(w, m)
            .map_err(|e| anyhow::anyhow!("swlc: {e}"))?
            .with_seed(seed);
        Ok(summary(
            Box::new(s),
            w,
            vec![int("window", w), int("registers", m)],
        ))
    }

    fn plan(_c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        Err(anyhow::anyhow!(NOT_A_FILTER))
    }
}
