//! The broom filter (Bender, Farach-Colton, Goswami, Johnson, McCauley,
//! Singh): an adaptive filter that fixes each false positive it is told of,
//! run over an exact window of n arrivals.

use super::built::{exact_window_filter, int, real, Built};
use super::candidate::line_scalars;
use super::{at_least_one, probability, DesignDef};
use super::{Candidate, Constraints};
use crate::metrics::columns::col;
use crate::metrics::Value;
use crate::spec::Metric;
use bloomlab_filters::broom::{self, Broom as Windowed, BroomFilter, DEFAULT_C, DEFAULT_LOAD};
use bloomlab_filters::BroomShape;
use serde::{Deserialize, Serialize};

/// The highest load the harness runs the broom filter at.
const MAX_LOAD: f64 = 0.95;

/// Broom filter parameters: window (its capacity n) and fpr (S = ⌈n/load⌉
/// slots, r = ⌈log2(α/ε)⌉) or remainder_bits; load (default 0.85) and c
/// (elements moved across the frontier per Adapt, default 3).
#[derive(clap::Args, Deserialize, Serialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct BroomParams {
    /// Capacity n: the window of the last n arrivals
    #[arg(long, alias = "n", value_parser = clap::value_parser!(u64).range(1..))]
    window: Option<u64>,
    /// Target FPR ε, in (0, 1): r = ⌈log2(α/ε)⌉ remainder bits
    #[arg(long, alias = "eps")]
    fpr: Option<f64>,
    /// Remainder bits r (instead of fpr)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    remainder_bits: Option<u32>,
    /// Load n/S at capacity, in (0, 1) (default 0.85)
    #[arg(long)]
    load: Option<f64>,
    /// Elements moved to the new hash function per Adapt (default 3)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    c: Option<u32>,
}

/// The broom filter over an exact window.
pub struct Broom;

/// Loads a plan considers.
const PLAN_LOADS: [f64; 3] = [0.8, DEFAULT_LOAD, 0.9];

impl DesignDef for Broom {
    type Params = BroomParams;
    const NAME: &'static str = "broom";
    const FILTER: &'static str = "Broom";
    // the median of results/compare.csv's broom rows (it was 10,860 ns an
    // insertion, from before the table's and the window's speedups: three
    // times what an insertion now takes at a window of millions)
    const OP_NS: (f64, f64) = (3690.0, 134.0);
    const ABOUT: &'static str =
        "Broom filter: adaptive, fixes each false positive it is told of (exact window of n arrivals)";
    const CAPS: super::Capabilities = super::Capabilities {
        adaptive: true,
        stream_memory: true,
        ..super::Capabilities::EXACT
    };
    const METRICS: &'static [Metric] = &[Metric::Fpr, Metric::Fnr, Metric::Memory, Metric::Speed];

    /// Theory: the exact FPR at capacity before any adaptation,
    /// n/(S·2^r), the memory before any adaptivity bit, and the lines of
    /// a negative query at the nominal load (`broom::lines`).
    fn build(p: BroomParams, seed: u64) -> anyhow::Result<Built> {
        let fpr = probability(col::FPR, p.fpr)?;
        let w = at_least_one(col::WINDOW, p.window)?
            .ok_or_else(|| anyhow::anyhow!("broom needs window and fpr (or remainder_bits)"))?;
        let load = match p.load {
            None => DEFAULT_LOAD,
            Some(a) if a > 0.0 && a <= MAX_LOAD => a,
            // linear probing scans about (1 + 1/(1-a)^2)/2 slots an
            // insertion: 200 at 0.95, 5000 at 0.99, the whole table near 1
            Some(a) => {
                return Err(anyhow::anyhow!(
                    "parameter load = {a} must be in (0, {MAX_LOAD}] (linear probing costs about (1 + 1/(1-load)^2)/2 slots an insertion: 200 at 0.95, 5000 at 0.99)"
                ))
            }
        };
        let c = at_least_one(col::C, p.c)?.unwrap_or(DEFAULT_C);
        let slots = BroomFilter::slots_for(w, load);
        let r = match (fpr, at_least_one(col::REMAINDER_BITS, p.remainder_bits)?) {
            (Some(e), None) => BroomFilter::remainder_bits_for(w, slots, e),
            (None, Some(r)) => r,
            _ => {
                return Err(anyhow::anyhow!(
                    "broom needs window and one of fpr, remainder_bits"
                ))
            }
        };
        let f = BroomFilter::new(BroomShape {
            capacity: w,
            slots,
            remainder_bits: r,
            moves_per_adapt: c,
        })
        .map(|f| f.with_seed(seed))
        .map_err(|e| anyhow::anyhow!("broom: {e}"))?;
        let bound = f.fpr_bound();
        let resolved = vec![
            int(col::WINDOW, w),
            int(col::SLOTS, f.slots()),
            int(col::REMAINDER_BITS, f.r()),
            real(col::LOAD, w as f64 / f.slots() as f64),
            int(col::C, c),
        ];
        let lines = broom::lines::lines(w as f64 / f.slots() as f64, f.r());
        let f = Box::new(Windowed::from_filter(f));
        let mut built = exact_window_filter(f, w, bound, resolved);
        // at the nominal load, a full window and no ghosts
        built.theory.scalars.extend(line_scalars(Some(lines)));
        Ok(built)
    }

    /// One configuration per load in {0.8, 0.85, 0.9}: S = ⌈n/load⌉ slots,
    /// the fewest remainder bits meeting the FPR; memory S(r + 5) +
    /// 64⌈S/64⌉ before any adaptivity bit.
    fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        let w = c.window;
        Ok(PLAN_LOADS
            .iter()
            .filter_map(|&load| {
                let s = BroomFilter::slots_for(w, load);
                let r = BroomFilter::remainder_bits_for(w, s, c.fpr);
                if !BroomFilter::layout_fits(s, r) || s > 1 << 40 {
                    return None;
                }
                let memory = BroomFilter::memory_bits_for(s, r);
                let params = vec![
                    (col::WINDOW, Value::Int(w)),
                    (col::REMAINDER_BITS, Value::Int(r as u64)),
                    (col::LOAD, Value::Num(load)),
                ];
                Some(Candidate::exact_window(
                    Self::NAME,
                    w,
                    params,
                    memory,
                    w as f64 / (s as f64 * 2f64.powi(r as i32)),
                    // one slot: remainder, three metadata bits, the ghost bit,
                    // and the unary terminator of its adaptivity code
                    r as u64 + 5,
                    // 64-byte lines at the load, a full window and no ghosts
                    Some(broom::lines::query_negative_lines(load, r)).filter(|x| x.is_finite()),
                ))
            })
            .collect())
    }
}
