//! Clock-sketch's Bloom filter: one array of s-bit clocks, set to full by
//! an insertion and decremented by a pointer 2^s - 2 times per window;
//! window W, slack ⌈W/(2^s - 2)⌉.

use super::built::{int, Built, Geometry};
use super::presence::{candidate, guaranteed_theory, Figures};
use super::{at_least_one, probability, DesignDef};
use super::{Candidate, Constraints};
use crate::metrics::columns::col;
use crate::spec::Metric;
use bloomlab_filters::build::Target;
use bloomlab_filters::clock_sketch::theory::{ClockBloomTheory, MAX_EXACT_WINDOW};
use bloomlab_filters::clock_sketch::ClockBloom as Filter;
use bloomlab_filters::ClockBloomShape;
use bloomlab_filters::{Filter as _, ParamError, SlidingFilter as _};
use serde::{Deserialize, Serialize};

/// Clock-sketch Bloom filter parameters: window and fpr, or window, k,
/// clock_bits and m (the reference code's).
#[derive(clap::Args, Deserialize, Serialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct ClockBloomParams {
    /// Window W (insertions); keys are reported for at least W and at most
    /// W + ⌈W/(2^s - 2)⌉
    #[arg(long, alias = "w", value_parser = clap::value_parser!(u64).range(1..))]
    window: Option<u64>,
    /// Target worst-phase FPR, in (0, 1): picks k, the clock bits and m
    /// (fewest bits)
    #[arg(long, alias = "eps")]
    fpr: Option<f64>,
    /// Cells set and read per key (with clock_bits and m, instead of fpr)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    k: Option<u32>,
    /// Bits per clock, s in 2..=16 (the reference code's clocksize)
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..=16))]
    clock_bits: Option<u32>,
    /// Cells (s bits each)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    m: Option<u64>,
}

/// Clock-sketch's Bloom filter.
pub struct ClockBloom;

impl DesignDef for ClockBloom {
    type Params = ClockBloomParams;
    const NAME: &'static str = "clock_bloom";
    const FILTER: &'static str = "ClockBloom";
    const ALIASES: &'static [&'static str] = &["clock_sketch", "clock-sketch", "bf_clock"];
    // a first estimate: k cells read, a few dozen clocks decremented per insertion
    const OP_NS: (f64, f64) = (80.0, 40.0);
    const ABOUT: &'static str =
        "Clock-sketch's Bloom filter: s-bit clocks set full, decremented by a sweeping pointer";
    const CAPS: super::Capabilities = super::Capabilities::SLIDING;
    const METRICS: &'static [Metric] = super::SLIDING_METRICS;

    fn build(p: ClockBloomParams, _seed: u64) -> anyhow::Result<Built> {
        let fpr = probability(col::FPR, p.fpr)?;
        let w = at_least_one(col::WINDOW, p.window)?
            .ok_or_else(|| anyhow::anyhow!("clock_bloom needs window"))?;
        let e = |r: ParamError| anyhow::anyhow!("clock_bloom: {r}");
        let explicit = (
            at_least_one(col::K, p.k)?,
            p.clock_bits,
            at_least_one(col::M, p.m)?,
        );
        let f = match (fpr, explicit) {
            (Some(p), (None, None, None)) => {
                Target::window(w).fpr(p).build::<Filter>().map_err(e)?
            }
            (None, (Some(k), Some(s), Some(m))) => Filter::new(ClockBloomShape {
                window: w,
                hashes: k,
                cell_bits: s,
                cells: m,
            })
            .map_err(e)?,
            _ => {
                return Err(anyhow::anyhow!(
                    "clock_bloom needs window and fpr, or window, k, clock_bits and m"
                ))
            }
        };
        if w > MAX_EXACT_WINDOW {
            return Err(anyhow::anyhow!(
                "clock_bloom: window {w} is above 2^24, the largest the exact theory evaluates"
            ));
        }
        let th = f.theory();
        let (t_worst, _) = th.worst_moment();
        let period = th.period();
        let geometry = Geometry {
            window: w,
            slack: f.slack(),
            period,
            worst_phase: t_worst % period,
            guaranteed: true,
            horizon: None,
            // every clock decremented 2^s - 1 times before the first round
            warmup: Some(2 * th.longest()),
            spacing: None,
            time: None,
        };
        let resolved = vec![
            int(col::WINDOW, w),
            int(col::K, th.k),
            int(col::CLOCK_BITS, th.s),
            int(col::M, th.m),
        ];
        let memory = f.memory_bits();
        let theory = guaranteed_theory(th, w, t_worst, move || Figures {
            fpr_avg: fpr_avg(&th),
            probes: th.probes_negative_at(t_worst),
            lines: Some(th.lines_at(t_worst)),
            memory,
            payload: th.payload_bits(),
        });
        Ok(Built {
            filter: Some(Box::new(f)),
            summary: None,
            geometry,
            resolved,
            theory,
        })
    }

    fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        let w = c.window;
        let f: Filter = Target::window(w)
            .fpr(c.fpr)
            .build()
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let th = f.theory();
        let worst = th.worst_moment();
        let params = Candidate::ints(&[
            (col::WINDOW, w),
            (col::K, th.k as u64),
            (col::CLOCK_BITS, th.s as u64),
            (col::M, th.m),
        ]);
        // 64-byte lines at the worst moment
        let cost = (
            th.k as u64 * th.s as u64,
            th.lines_at(worst.0).query_negative,
        );
        let memory = f.memory_bits();
        Ok(vec![candidate(
            Self::NAME,
            params,
            &th,
            w,
            worst,
            memory,
            cost,
        )])
    }
}

/// [`ClockBloomTheory::fpr_avg`], memoized ([`bloomlab_filters::memo`]):
/// at a window of millions it takes a second, and a plan builds a
/// candidate more than once.
fn fpr_avg(th: &ClockBloomTheory) -> f64 {
    static MEMO: bloomlab_filters::memo::Memo<ClockBloomTheory, f64> =
        bloomlab_filters::memo::Memo::new();
    MEMO.get_or(*th, || th.fpr_avg())
}
