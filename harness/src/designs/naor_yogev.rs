//! The Naor-Yogev sliding Bloom filter: a dictionary of fingerprints with
//! generation tags.

use super::built::{int, real, Built, Geometry, ProfileTheory, Theory};
use super::{at_least_one, probability, DesignDef};
use super::{Candidate, Constraints};
use crate::metrics::Value;
use crate::spec::Metric;
use bloomlab_filters::{naor_yogev, window, ParamError};
use serde::{Deserialize, Serialize};

/// Naor-Yogev parameters: window (n), slack (m, the largest slack allowed)
/// and fpr (ε); optional c (default: least memory) and max_load.
#[derive(clap::Args, Deserialize, Serialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct NaorYogevParams {
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
    /// Largest load of the cuckoo table, in [0.5, 1) (default 0.9)
    #[arg(long)]
    max_load: Option<f64>,
}

/// P(yes | age): 1 while the key's generation is active, the FPR after.
struct NaorYogevProfile {
    size: naor_yogev::Sizing,
    /// Phases averaged over (at most 256).
    grid: Vec<u64>,
}

impl ProfileTheory for NaorYogevProfile {
    fn worst(&self, age: u64) -> f64 {
        self.size.presence(age, self.size.g)
    }
    fn avg(&self, age: u64) -> f64 {
        let sum: f64 = self.grid.iter().map(|&p| self.size.presence(age, p)).sum();
        sum / self.grid.len() as f64
    }
}

/// Where the table's bits go per window key, as `ny_pocket` reports them:
/// remainder, metadata (the bucket bit), tag, the load's empty slots and the
/// slack's extra keys (N - n). They sum to the table's bits over n.
fn breakdown(size: &naor_yogev::Sizing) -> Vec<(&'static str, f64)> {
    let n = size.n as f64;
    let slot = size.slot_bits() as f64;
    vec![
        ("bits_remainder", size.remainder_bits as f64),
        ("bits_metadata", 1.0),
        ("bits_tag", size.tag_bits as f64),
        (
            "bits_empty_slots",
            (size.slots() - size.capacity) as f64 * slot / n,
        ),
        (
            "bits_slack_keys",
            (size.capacity - size.n) as f64 * slot / n,
        ),
    ]
}

/// The Naor-Yogev filter.
pub struct NaorYogev;

/// Slack candidates of a plan: w / 2^i for i = 0..=12.
const PLAN_SLACKS: u32 = 12;

impl DesignDef for NaorYogev {
    type Params = NaorYogevParams;
    const NAME: &'static str = "naor_yogev";
    const FILTER: &'static str = "NaorYogev";
    const OP_NS: (f64, f64) = (285.0, 80.0);
    const ALIASES: &'static [&'static str] = &["naor-yogev"];
    const ABOUT: &'static str =
        "Naor-Yogev sliding Bloom filter: a dictionary of fingerprints with generation tags";
    const CAPS: super::Capabilities = super::Capabilities::SLIDING;
    const METRICS: &'static [Metric] = super::DICTIONARY_METRICS;

    fn build(p: NaorYogevParams, seed: u64) -> anyhow::Result<Built> {
        const NEEDS: &str = "naor_yogev needs window, slack and fpr";
        let eps = probability("fpr", p.fpr)?.ok_or_else(|| anyhow::anyhow!(NEEDS))?;
        let n = at_least_one("window", p.window)?.ok_or_else(|| anyhow::anyhow!(NEEDS))?;
        let m = at_least_one("slack", p.slack)?.ok_or_else(|| anyhow::anyhow!(NEEDS))?;
        let c = at_least_one("c", p.c)?;
        let load = p.max_load.unwrap_or(naor_yogev::DEFAULT_MAX_LOAD);
        let e = |r: ParamError| anyhow::anyhow!("naor_yogev: {r}");
        let size = naor_yogev::Sizing::new(n, m, eps, c, load).map_err(e)?;
        let f = bloomlab_filters::NaorYogev::from_sizing(size)
            .map_err(e)?
            .with_seed(seed);
        let grid = window::phase_grid(size.g, 256);
        let phases = grid.len() as f64;
        let bound = naor_yogev::theory::space_bound_bits(n, m, eps);
        let theory = Theory {
            later: Default::default(),
            scalars: vec![
                ("fpr", size.fpr()),
                ("fpr_avg", size.fpr_avg()),
                ("fpr_expired", size.fpr()),
                ("fnr", 0.0),
                ("npws_peak", size.pws_at(size.g) / n as f64),
                (
                    "npws_avg",
                    grid.iter().map(|&p| size.pws_at(p)).sum::<f64>() / phases / n as f64,
                ),
                ("probes_negative", size.probes_negative()),
                ("bits_per_element", size.memory_bits() as f64 / n as f64),
                ("space_bound_bits", bound),
                ("space_bound_per_element", bound / n as f64),
                ("memory_over_bound", size.memory_bits() as f64 / bound),
                ("c_paper", naor_yogev::theory::c_paper(eps)),
                ("fingerprint_bits", size.range().log2()),
                ("load", size.load()),
            ]
            .into_iter()
            .chain(breakdown(&size))
            .chain(super::candidate::line_scalars(Some(
                bloomlab_filters::lines::two_bucket(size.slot_bits(), size.fpr(), size.buckets),
            )))
            .collect(),
            profile: Some(Box::new(NaorYogevProfile { size, grid })),
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
                int("buckets", size.buckets),
                int("remainder_bits", size.remainder_bits),
                int("tag_bits", size.tag_bits),
                real("slack_ratio", m as f64 / n as f64),
            ],
            filter: Some(Box::new(f)),
            summary: None,
            theory,
        })
    }

    /// The least-memory c for each largest slack w / 2^i; the peak NPWS is
    /// about slack / w (the whole slack is active just before a shift).
    fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        let (w, e) = (c.window, c.fpr);
        Ok((0..=PLAN_SLACKS)
            .filter_map(|i| {
                let m = (w >> i).max(1);
                let s =
                    naor_yogev::Sizing::new(w, m, e, None, naor_yogev::DEFAULT_MAX_LOAD).ok()?;
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
                    insert_bits: s.slot_bits() as u64,
                    // 64-byte lines: both buckets
                    query_lines: Some(
                        bloomlab_filters::lines::two_bucket(s.slot_bits(), s.fpr(), s.buckets)
                            .query_negative,
                    ),
                })
            })
            .collect())
    }
}
