//! WCSS (Ben Basat, Einziger, Friedman, Kassner): window compact space
//! saving, per-flow frequencies over a window (the SWAMP paper's counting
//! baseline).

use super::built::int;
use super::sketches::{summary, NOT_A_FILTER};
use super::{at_least_one, Built, DesignDef};
use super::{Candidate, Constraints};
use crate::metrics::columns::col;
use crate::spec::Metric;
use bloomlab_filters::sketches::Wcss as Sketch;
use bloomlab_filters::WcssShape;
use serde::{Deserialize, Serialize};

/// WCSS parameters: window and counters, or window and eps for ⌈4/eps⌉
/// counters.
#[derive(clap::Args, Deserialize, Serialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct WcssParams {
    /// Window (arrivals)
    #[arg(long, alias = "w", value_parser = clap::value_parser!(u64).range(1..))]
    window: Option<u64>,
    /// Counters
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    counters: Option<u64>,
    /// Error bound eps (⌈4/eps⌉ counters; instead of counters)
    #[arg(long)]
    eps: Option<f64>,
}

/// WCSS.
pub struct Wcss;

impl DesignDef for Wcss {
    type Params = WcssParams;
    const NAME: &'static str = "wcss";
    const FILTER: &'static str = "Wcss";
    const ABOUT: &'static str = "WCSS: window compact space saving, per-flow counts over a window";
    const CAPS: super::Capabilities = super::Capabilities::SUMMARY;
    const METRICS: &'static [Metric] = &[Metric::Count, Metric::Memory];

    fn build(p: WcssParams, _seed: u64) -> anyhow::Result<Built> {
        let w = at_least_one(col::WINDOW, p.window)?
            .ok_or_else(|| anyhow::anyhow!("wcss needs window"))?;
        let e = |r| anyhow::anyhow!("wcss: {r}");
        let f = match (at_least_one(col::COUNTERS, p.counters)?, p.eps) {
            (Some(k), None) => Sketch::new(WcssShape {
                window: w,
                counters: k,
            })
            .map_err(e)?,
            (None, Some(eps)) => WcssShape::for_error(w, eps)
                .and_then(Sketch::new)
                .map_err(e)?,
            _ => {
                return Err(anyhow::anyhow!(
                    "wcss needs window and one of counters, eps"
                ))
            }
        };
        let k = f.counters();
        Ok(summary(
            Box::new(f),
            w,
            vec![int(col::WINDOW, w), int(col::COUNTERS, k)],
        ))
    }

    fn plan(_c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        Err(anyhow::anyhow!(NOT_A_FILTER))
    }
}
