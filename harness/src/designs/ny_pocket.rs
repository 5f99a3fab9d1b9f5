//! The pocket-dictionary sliding filter: the Naor-Yogev construction over
//! two-choice blocks with unary headers.

use super::built::{int, real, Built, Geometry, ProfileTheory, Theory};
use super::{at_least_one, probability, DesignDef};
use super::{Candidate, Constraints};
use crate::metrics::Value;
use crate::spec::Metric;
use bloomlab_filters::{naor_yogev, ny_pocket, window, ParamError};
use serde::{Deserialize, Serialize};

/// ny_pocket parameters: window (n), slack (m, the largest slack allowed)
/// and fpr (ε); optional c (default: least memory) and max_load.
#[derive(clap::Args, Deserialize, Serialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct NyPocketParams {
    /// Window n: every key among the last n insertions is reported
    #[arg(long, alias = "n", value_parser = clap::value_parser!(u64).range(1..))]
    window: Option<u64>,
    /// Largest slack m: keys older than n + m are reported at most at rate fpr
    #[arg(long, alias = "m", value_parser = clap::value_parser!(u64).range(1..))]
    slack: Option<u64>,
    /// Target FPR ε, in (0, 1)
    #[arg(long, alias = "eps")]
    fpr: Option<f64>,
    /// Trade-off parameter c: generations of ⌈(n-1)/c⌉ insertions (default: least memory)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    c: Option<u64>,
    /// Largest load of the blocks, in [0.5, 1) (default 0.92)
    #[arg(long)]
    max_load: Option<f64>,
}

/// P(yes | age): 1 while the key's generation is active, the FPR after.
struct Profile {
    size: ny_pocket::Sizing,
    grid: Vec<u64>,
}

impl ProfileTheory for Profile {
    fn worst(&self, age: u64) -> f64 {
        self.size.presence(age, self.size.g)
    }
    fn avg(&self, age: u64) -> f64 {
        let sum: f64 = self.grid.iter().map(|&p| self.size.presence(age, p)).sum();
        sum / self.grid.len() as f64
    }
}

/// The pocket-dictionary sliding filter.
pub struct NyPocket;

/// Slack candidates of a plan: w / 2^i for i = 0..=12.
const PLAN_SLACKS: u32 = 12;

/// Theory scalars of a sizing (shared by `build` and the tests).
fn scalars(size: &ny_pocket::Sizing) -> Vec<(&'static str, f64)> {
    let (n, m, eps) = (size.n, size.m, size.eps);
    let grid = window::phase_grid(size.g, 256);
    let phases = grid.len() as f64;
    let bound = naor_yogev::theory::space_bound_bits(n, m, eps);
    let mut v = vec![
        ("fpr", size.fpr()),
        ("fpr_avg", size.fpr_avg()),
        ("fpr_expired", size.fpr()),
        ("fnr", 0.0),
        ("npws_peak", size.pws_at(size.g) / n as f64),
        (
            "npws_avg",
            grid.iter().map(|&p| size.pws_at(p)).sum::<f64>() / phases / n as f64,
        ),
        ("bits_per_element", size.memory_bits() as f64 / n as f64),
        ("space_bound_bits", bound),
        ("space_bound_per_element", bound / n as f64),
        ("memory_over_bound", size.memory_bits() as f64 / bound),
        ("fingerprint_bits", size.fingerprint_bits()),
        ("candidates_negative", size.candidates_negative()),
        ("load", size.load()),
    ];
    v.extend(size.breakdown());
    v
}

impl DesignDef for NyPocket {
    type Params = NyPocketParams;
    const NAME: &'static str = "ny_pocket";
    const FILTER: &'static str = "NyPocket";
    // from results/space_vs_bound_quick.csv beside naor_yogev's rows there
    const OP_NS: (f64, f64) = (540.0, 300.0);
    const ALIASES: &'static [&'static str] = &["ny-pocket"];
    const ABOUT: &'static str =
        "Naor-Yogev generations over two-choice pocket dictionaries: nearer the space bound";
    const CAPS: super::Capabilities = super::Capabilities::SLIDING;
    const METRICS: &'static [Metric] = super::DICTIONARY_METRICS;

    /// The filter has no randomness of its own: the seed only moves keys.
    fn build(p: NyPocketParams, _seed: u64) -> anyhow::Result<Built> {
        const NEEDS: &str = "ny_pocket needs window, slack and fpr";
        let eps = probability("fpr", p.fpr)?.ok_or_else(|| anyhow::anyhow!(NEEDS))?;
        let n = at_least_one("window", p.window)?.ok_or_else(|| anyhow::anyhow!(NEEDS))?;
        let m = at_least_one("slack", p.slack)?.ok_or_else(|| anyhow::anyhow!(NEEDS))?;
        let c = at_least_one("c", p.c)?;
        let load = p.max_load.unwrap_or(ny_pocket::DEFAULT_MAX_LOAD);
        let e = |r: ParamError| anyhow::anyhow!("ny_pocket: {r}");
        let size = ny_pocket::Sizing::new(n, m, eps, c, load).map_err(e)?;
        let f = bloomlab_filters::NyPocket::from_sizing(size).map_err(e)?;
        let grid = window::phase_grid(size.g, 256);
        let theory = Theory {
            later: Default::default(),
            scalars: scalars(&size)
                .into_iter()
                .chain(super::candidate::line_scalars(Some(size.lines())))
                .collect(),
            profile: Some(Box::new(Profile { size, grid })),
            convergence: None,
            estimates: None,
            moment: None,
        };
        Ok(Built {
            geometry: Geometry::sliding(&f),
            resolved: vec![
                int("c", size.c),
                int("g", size.g),
                int("window", n),
                int("slack", size.slack()),
                int("blocks", size.blocks),
                int("slots_per_block", size.slots_per_block as u64),
                int("remainder_bits", size.remainder_bits as u64),
                int("tag_bits", size.tag_bits as u64),
                real("slack_ratio", m as f64 / n as f64),
            ],
            filter: Some(Box::new(f)),
            summary: None,
            theory,
        })
    }

    /// The least-memory configuration for each largest slack w / 2^i.
    fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        let (w, e) = (c.window, c.fpr);
        Ok((0..=PLAN_SLACKS)
            .filter_map(|i| {
                let m = (w >> i).max(1);
                let s = ny_pocket::Sizing::new(w, m, e, None, ny_pocket::DEFAULT_MAX_LOAD).ok()?;
                Some(Candidate {
                    design: Self::NAME,
                    params: Candidate::ints(&[("window", w), ("slack", m), ("c", s.c)])
                        .into_iter()
                        .chain([("fpr", Value::Num(e))])
                        .collect(),
                    memory_bits: s.memory_bits(),
                    bits_per_element: s.memory_bits() as f64 / w as f64,
                    fpr: s.fpr(),
                    window: w,
                    slack: s.slack(),
                    npws_peak: s.pws_at(s.g) / w as f64,
                    insert_bits: s.entry_bits() as u64,
                    // 64-byte lines: both headers and buckets
                    query_lines: Some(s.lines().query_negative),
                })
            })
            .collect())
    }
}
