//! The blocked APBF: the APBF with each key's k + l slices in one block of
//! words: a query reads its block's middle words and, when they match, the
//! whole block (the lines it reads: `bloomlab_filters::apbf::blocked::Lines`).

use super::built::{int, Built, Geometry};
use super::candidate::line_scalars_over_rotations;
use super::exact_loads::{exact_loads_theory, npws_peak};
use super::{at_least_one, probability, DesignDef};
use super::{Candidate, Constraints};
use crate::metrics::columns::col;
use crate::spec::Metric;
use bloomlab_filters::apbf::blocked::{self, BlockedApbf as Filter, BlockedTheory};
use bloomlab_filters::build::Target;
use bloomlab_filters::BlockedApbfShape;
use bloomlab_filters::{ParamError, SlidingFilter};
use serde::{Deserialize, Serialize};

/// Blocked APBF parameters: (k, l, g | window[, blocks]) (default blocks:
/// the unblocked APBF's bits per slice in whole words) or (fpr, window):
/// the unblocked choice of (k, l) and the fewest blocks meeting fpr in
/// theory.
#[derive(clap::Args, Deserialize, Serialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct BlockedApbfParams {
    /// Slices written per insertion
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    k: Option<u32>,
    /// Extra slices (window = l g)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    l: Option<u32>,
    /// Generation size
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    g: Option<u64>,
    /// Window (insertions): g = ⌈window / l⌉
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    window: Option<u64>,
    /// Blocks of k + l words (default: the unblocked APBF's memory)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    blocks: Option<u64>,
    /// Target worst-phase FPR, in (0, 1) (with window)
    #[arg(long)]
    fpr: Option<f64>,
}

/// The blocked APBF.
pub struct BlockedApbf;

/// Phases the theory averages over (each evaluation is k 2^(k-1) states per
/// slice, 1.6e8 updates at (k, l) = (17, 32)).
const PHASES: u64 = 8;

impl DesignDef for BlockedApbf {
    type Params = BlockedApbfParams;
    const NAME: &'static str = "blocked_apbf";
    const FILTER: &'static str = "BlockedApbf";
    const OP_NS: (f64, f64) = (80.0, 105.0);
    const ALIASES: &'static [&'static str] = &["blocked-apbf"];
    const ABOUT: &'static str =
        "Blocked APBF: each key's slices in one block of 64-bit words (a query reads the block's lines)";
    const CAPS: super::Capabilities = super::Capabilities::SLIDING;
    const METRICS: &'static [Metric] = super::SLIDING_METRICS;

    /// Its theory is the exact programme of `apbf::blocked`, on a grid of 8
    /// phases. Also reports `fpr_independent`, the slices taken as
    /// independent at their mean fills, which is the FPR of the unblocked
    /// APBF with the same k, l, g and memory: the gap to `fpr` is the whole
    /// cost of blocking.
    fn build(p: BlockedApbfParams, _seed: u64) -> anyhow::Result<Built> {
        let fpr = probability(col::FPR, p.fpr)?;
        let (k, l) = (at_least_one(col::K, p.k)?, at_least_one(col::L, p.l)?);
        let (g, w, blocks) = (
            at_least_one(col::G, p.g)?,
            at_least_one(col::WINDOW, p.window)?,
            at_least_one(col::BLOCKS, p.blocks)?,
        );
        let e = |r: ParamError| anyhow::anyhow!("blocked_apbf: {r}");
        let f = match (k, l, g, w, blocks, fpr) {
            (None, None, None, Some(w), None, Some(e2)) => {
                Target::window(w).fpr(e2).build::<Filter>().map_err(e)?
            }
            (Some(k), Some(l), g, w, b, None) if g.is_some() != w.is_some() => {
                let g = g.unwrap_or_else(|| w.expect("one of g, window").div_ceil(l as u64));
                match b {
                    Some(b) => Filter::new(BlockedApbfShape {
                        hashes: k,
                        extra_slices: l,
                        generation: g,
                        blocks: Some(b),
                    }),
                    None => Filter::new(BlockedApbfShape {
                        hashes: k,
                        extra_slices: l,
                        generation: g,
                        blocks: None,
                    }),
                }
                .map_err(e)?
            }
            _ => {
                return Err(anyhow::anyhow!(
                "blocked_apbf needs k, l and g or window (and optionally blocks), or fpr and window"
            ))
            }
        };
        let t = f.theory();
        if f.k() > blocked::MAX_EXACT_K {
            return Err(anyhow::anyhow!(
                "blocked_apbf: its exact theory takes k <= {}, got k = {}",
                blocked::MAX_EXACT_K,
                f.k()
            ));
        }
        // the exact programme's time grows about 2.2x per slice: say so
        // before a long one (k = 20 took 32 s without a word)
        if f.k() >= 17 {
            eprintln!(
                "blocked_apbf: computing the exact theory of k = {} (about {:.0} s on a 2-core machine)",
                f.k(),
                1.26 * 2.24f64.powi(f.k() as i32 - 16)
            );
        }
        const CHECKED: &str = "k checked against MAX_EXACT_K";
        let mut theory = exact_loads_theory(
            &f,
            t.payload_bits(),
            PHASES,
            &|p| t.presence_by_shift(p).expect(CHECKED),
            t.fpr_independent(f.g()),
        );
        // 64-byte lines per operation, over the rotations at the worst phase
        theory
            .scalars
            .extend(line_scalars_over_rotations(t.lines_mean()));
        Ok(Built {
            geometry: Geometry::sliding(&f),
            resolved: vec![
                int(col::K, f.k()),
                int(col::L, f.l()),
                int(col::G, f.g()),
                int(col::BLOCKS, f.blocks()),
                int(col::WINDOW, f.window()),
                int(col::SLACK, f.slack()),
            ],
            filter: Some(Box::new(f)),
            summary: None,
            theory,
        })
    }

    /// The configuration `with_fpr` builds: the unblocked APBF's (k, l) and
    /// the fewest blocks meeting the FPR in exact theory.
    /// The least-memory sizing and, as a fast one, the (k, l) that reads
    /// the fewest lines in a negative query among those within
    /// [`super::FAST_MEMORY`] times the memory (each (k, l) estimated
    /// at the unblocked APBF's bits, the best [`FAST_TRIED`] sized exactly).
    fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        let t: BlockedTheory =
            Filter::sizing(c.window, c.fpr).map_err(|e| anyhow::anyhow!("{e}"))?;
        let least = candidate(t);
        let limit = super::FAST_MEMORY * least.memory_bits as f64;
        let mut quick: Vec<(f64, u32, u32)> = (1..=bloomlab_filters::apbf::DEFAULT_MAX_L)
            .filter(|&l| l != t.l)
            .filter_map(|l| {
                let (k, _) = bloomlab_filters::apbf::choose(
                    c.fpr,
                    bloomlab_filters::apbf::KlRule::FixedL(l),
                )
                .ok()?;
                let g = c.window.div_ceil(l as u64);
                let blocks = blocked::default_blocks(k, g)?;
                let x = BlockedTheory { k, l, g, blocks };
                if (x.payload_bits() + 128) as f64 > limit {
                    return None;
                }
                Some((x.lines_mean()?.query_negative, k, l))
            })
            .collect();
        quick.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut out = vec![least];
        for &(_, k, l) in quick.iter().take(FAST_TRIED) {
            if let Ok(x) = Filter::sizing_kl(c.window, c.fpr, k, l) {
                out.push(candidate(x));
            }
        }
        Ok(out)
    }
}

/// Configurations of the fast sizing's search sized exactly (the rest are
/// ranked by their lines at the unblocked APBF's bits).
const FAST_TRIED: usize = 3;

/// The plan's figures for one sizing: memory, worst-phase FPR, window,
/// slack, peak NPWS over the phases, and the lines a negative query reads
/// averaged over the slices' rotations ([`BlockedTheory::lines_mean`],
/// tested against counted lines).
fn candidate(t: BlockedTheory) -> Candidate {
    let (win, slack) = (t.l as u64 * t.g, t.k as u64 * t.g);
    let fpr_at = |p: u64| t.fpr_at(p).unwrap_or(1.0);
    let npws = npws_peak((win, slack, t.g), PHASES, &fpr_at, &|p| {
        t.presence_by_shift(p).unwrap_or_default()
    });
    let memory = t.payload_bits() + 128;
    Candidate {
        design: BlockedApbf::NAME,
        params: Candidate::ints(&[
            (col::K, t.k as u64),
            (col::L, t.l as u64),
            (col::G, t.g),
            (col::BLOCKS, t.blocks),
        ]),
        memory_bits: memory,
        bits_per_element: memory as f64 / win as f64,
        fpr: fpr_at(t.g),
        window: win,
        slack,
        npws_peak: npws,
        insert_bits: t.k as u64,
        query_lines: t.lines_mean().map(|x| x.query_negative),
    }
}
