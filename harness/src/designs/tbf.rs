//! The timing Bloom filter: a Bloom filter of timestamps over an exact
//! window.

use super::built::{exact_window_filter, int, Built};
use super::candidate::line_scalars;
use super::{at_least_one, probability, DesignDef};
use super::{Candidate, Constraints};
use crate::metrics::columns::col;
use crate::spec::Metric;
use bloomlab_filters::build::Target;
use bloomlab_filters::timing::{stamp_bits, tbf, TimingBloom};
use bloomlab_filters::TimingBloomShape;
use bloomlab_filters::{bloom, lines, ParamError};
use serde::{Deserialize, Serialize};

/// Timing Bloom filter parameters: window and fpr, or window, k and s.
#[derive(clap::Args, Deserialize, Serialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct TbfParams {
    /// Window (arrivals)
    #[arg(long, alias = "w", value_parser = clap::value_parser!(u64).range(1..))]
    window: Option<u64>,
    /// Target FPR, in (0, 1)
    #[arg(long, alias = "eps")]
    fpr: Option<f64>,
    /// Cells set per insertion (with s, instead of fpr)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    k: Option<u32>,
    /// Timestamp cells per slice (with k, instead of fpr)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    s: Option<u64>,
}

/// The timing Bloom filter.
pub struct Tbf;

impl DesignDef for Tbf {
    type Params = TbfParams;
    const NAME: &'static str = "tbf";
    const FILTER: &'static str = "TimingBloom";
    const OP_NS: (f64, f64) = (735.0, 330.0);
    const ABOUT: &'static str =
        "Timing Bloom filter: k slices of insertion timestamps over an exact window";
    const CAPS: super::Capabilities = super::Capabilities::EXACT;
    const METRICS: &'static [Metric] = super::EXACT_METRICS;

    fn build(p: TbfParams, _seed: u64) -> anyhow::Result<Built> {
        let fpr = probability(col::FPR, p.fpr)?;
        let w = at_least_one(col::WINDOW, p.window)?
            .ok_or_else(|| anyhow::anyhow!("tbf needs window"))?;
        let e = |r: ParamError| anyhow::anyhow!("tbf: {r}");
        let f = match (fpr, at_least_one(col::K, p.k)?, at_least_one(col::S, p.s)?) {
            (Some(p), None, None) => Target::window(w).fpr(p).build::<TimingBloom>().map_err(e)?,
            (None, Some(k), Some(s)) => TimingBloom::new(TimingBloomShape {
                window: w,
                hashes: k,
                cells_per_slice: s,
            })
            .map_err(e)?,
            _ => {
                return Err(anyhow::anyhow!(
                    "tbf needs window and fpr, or window, k and s"
                ))
            }
        };
        let resolved = vec![
            int(col::WINDOW, w),
            int(col::K, f.k()),
            int(col::S, f.slice_cells()),
            int(col::STAMP_BITS, f.stamp_bits()),
        ];
        let p = f.fpr_theory(w as f64);
        let lines = f.lines(w as f64);
        let mut built = exact_window_filter(Box::new(f), w, p, resolved);
        built.theory.scalars.extend(line_scalars(Some(lines)));
        Ok(built)
    }

    fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        let w = c.window;
        let (k, s) = TimingBloom::sizing(w, c.fpr).map_err(|e| anyhow::anyhow!("{e}"))?;
        let b = stamp_bits(w) as u64;
        let fill = bloom::fill_ratio(w as f64, s as f64);
        Ok(vec![Candidate::exact_window(
            Self::NAME,
            w,
            Candidate::ints(&[(col::WINDOW, w), (col::K, k as u64), (col::S, s)]),
            k as u64 * s * b + 128,
            tbf::fpr(k, s, w as f64),
            k as u64 * b,
            // 64-byte lines: a cell, or two where it straddles a boundary
            Some(lines::partitioned_query_lines(fill, k, b as u32)),
        )])
    }
}
