//! The pocket-dictionary sliding filter: the Naor-Yogev construction over
//! two-choice blocks with unary headers.

use super::built::{int, real, Built, Geometry, ProfileTheory, Theory};
use super::{at_least_one, probability, DesignDef};
use super::{Candidate, Constraints};
use crate::metrics::columns::{col, Col};
use crate::metrics::Value;
use crate::spec::Metric;
use bloomlab_filters::NyPocketShape;
use bloomlab_filters::{naor_yogev, ny_pocket, window, ParamError};
use serde::{Deserialize, Serialize};

/// ny_pocket parameters: window (n), slack (m, the largest slack allowed)
/// and fpr (ε); optional c (default: least memory) and max_load.
#[derive(clap::Args, Deserialize, Serialize, Debug, Default, Clone)]
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
fn scalars(size: &ny_pocket::Sizing) -> Vec<(Col, f64)> {
    let (n, m, eps) = (size.n, size.m, size.eps);
    let grid = window::phase_grid(size.g, 256);
    let phases = grid.len() as f64;
    let bound = naor_yogev::theory::space_bound_bits(n, m, eps);
    let mut v = vec![
        (col::FPR, size.fpr()),
        (col::FPR_AVG, size.fpr_avg()),
        (col::FPR_EXPIRED, size.fpr()),
        (col::FNR, 0.0),
        (col::NPWS_PEAK, size.pws_at(size.g) / n as f64),
        (
            col::NPWS_AVG,
            grid.iter().map(|&p| size.pws_at(p)).sum::<f64>() / phases / n as f64,
        ),
        (col::BITS_PER_ELEMENT, size.memory_bits() as f64 / n as f64),
        (col::SPACE_BOUND_BITS, bound),
        (col::SPACE_BOUND_PER_ELEMENT, bound / n as f64),
        (col::MEMORY_OVER_BOUND, size.memory_bits() as f64 / bound),
        (col::FINGERPRINT_BITS, size.fingerprint_bits()),
        (col::CANDIDATES_NEGATIVE, size.candidates_negative()),
        (col::LOAD, size.load()),
    ];
    // the crate names its breakdown's parts by their columns (a test
    // below holds every name to the registry)
    v.extend(
        size.breakdown()
            .into_iter()
            .filter_map(|(n, x)| Some((crate::metrics::columns::lookup(n)?.col, x))),
    );
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
        let eps = probability(col::FPR, p.fpr)?.ok_or_else(|| anyhow::anyhow!(NEEDS))?;
        let n = at_least_one(col::WINDOW, p.window)?.ok_or_else(|| anyhow::anyhow!(NEEDS))?;
        let m = at_least_one(col::SLACK, p.slack)?.ok_or_else(|| anyhow::anyhow!(NEEDS))?;
        let c = at_least_one(col::C, p.c)?;
        let load = p.max_load.unwrap_or(ny_pocket::DEFAULT_MAX_LOAD);
        let e = |r: ParamError| anyhow::anyhow!("ny_pocket: {r}");
        let shape = NyPocketShape {
            window: n,
            slack: m,
            fpr: eps,
            generations: c,
            max_load: Some(load),
        };
        let f = bloomlab_filters::NyPocket::new(shape).map_err(e)?;
        let size = *f.sizing();
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
                int(col::C, size.c),
                int(col::G, size.g),
                int(col::WINDOW, n),
                int(col::SLACK, size.slack()),
                int(col::BLOCKS, size.blocks),
                int(col::SLOTS_PER_BLOCK, size.slots_per_block as u64),
                int(col::REMAINDER_BITS, size.remainder_bits as u64),
                int(col::TAG_BITS, size.tag_bits as u64),
                real(col::SLACK_RATIO, m as f64 / n as f64),
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
                    params: Candidate::ints(&[(col::WINDOW, w), (col::SLACK, m), (col::C, s.c)])
                        .into_iter()
                        .chain([(col::FPR, Value::Num(e))])
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
