//! The Naor-Yogev sliding Bloom filter: a dictionary of fingerprints with
//! generation tags.

use super::built::{int, real, Built, Geometry, ProfileTheory, Theory};
use super::{at_least_one, probability, DesignDef};
use super::{Candidate, Constraints};
use crate::metrics::columns::{col, Col};
use crate::metrics::Value;
use crate::spec::Metric;
use bloomlab_filters::NaorYogevShape;
use bloomlab_filters::{naor_yogev, window, ParamError};
use serde::{Deserialize, Serialize};

/// Naor-Yogev parameters: window (n), slack (m, the largest slack allowed)
/// and fpr (ε); optional c (default: least memory) and max_load.
#[derive(clap::Args, Deserialize, Serialize, Debug, Default, Clone)]
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
fn breakdown(size: &naor_yogev::Sizing) -> Vec<(Col, f64)> {
    let n = size.n as f64;
    let slot = size.slot_bits() as f64;
    vec![
        (col::BITS_REMAINDER, size.remainder_bits as f64),
        (col::BITS_METADATA, 1.0),
        (col::BITS_TAG, size.tag_bits as f64),
        (
            col::BITS_EMPTY_SLOTS,
            (size.slots() - size.capacity) as f64 * slot / n,
        ),
        (
            col::BITS_SLACK_KEYS,
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
        let eps = probability(col::FPR, p.fpr)?.ok_or_else(|| anyhow::anyhow!(NEEDS))?;
        let n = at_least_one(col::WINDOW, p.window)?.ok_or_else(|| anyhow::anyhow!(NEEDS))?;
        let m = at_least_one(col::SLACK, p.slack)?.ok_or_else(|| anyhow::anyhow!(NEEDS))?;
        let c = at_least_one(col::C, p.c)?;
        let load = p.max_load.unwrap_or(naor_yogev::DEFAULT_MAX_LOAD);
        let e = |r: ParamError| anyhow::anyhow!("naor_yogev: {r}");
        let shape = NaorYogevShape {
            window: n,
            slack: m,
            fpr: eps,
            generations: c,
            max_load: Some(load),
        };
        let f = bloomlab_filters::NaorYogev::new(shape)
            .map_err(e)?
            .with_seed(seed);
        let size = *f.sizing();
        let grid = window::phase_grid(size.g, 256);
        let phases = grid.len() as f64;
        let bound = naor_yogev::theory::space_bound_bits(n, m, eps);
        let theory = Theory {
            later: Default::default(),
            scalars: vec![
                (col::FPR, size.fpr()),
                (col::FPR_AVG, size.fpr_avg()),
                (col::FPR_EXPIRED, size.fpr()),
                (col::FNR, 0.0),
                (col::NPWS_PEAK, size.pws_at(size.g) / n as f64),
                (
                    col::NPWS_AVG,
                    grid.iter().map(|&p| size.pws_at(p)).sum::<f64>() / phases / n as f64,
                ),
                (col::PROBES_NEGATIVE, size.probes_negative()),
                (col::BITS_PER_ELEMENT, size.memory_bits() as f64 / n as f64),
                (col::SPACE_BOUND_BITS, bound),
                (col::SPACE_BOUND_PER_ELEMENT, bound / n as f64),
                (col::MEMORY_OVER_BOUND, size.memory_bits() as f64 / bound),
                (col::C_PAPER, naor_yogev::theory::c_paper(eps)),
                (col::FINGERPRINT_BITS, size.range().log2()),
                (col::LOAD, size.load()),
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
                int(col::C, size.c),
                int(col::G, size.g),
                int(col::WINDOW, n),
                int(col::SLACK, size.slack()),
                int(col::BUCKETS, size.buckets),
                int(col::REMAINDER_BITS, size.remainder_bits),
                int(col::TAG_BITS, size.tag_bits),
                real(col::SLACK_RATIO, m as f64 / n as f64),
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
