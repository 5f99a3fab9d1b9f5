//! The Age-Partitioned Bloom filter (Shtul, Baquero, Almeida).

use super::built::{int, Built, Geometry, ShiftProfile, Theory};
use super::candidate::line_scalars_over_rotations;
use super::{at_least_one, probability, DesignDef, Params};
use super::{Candidate, Constraints};
use crate::metrics::columns::col;
use crate::spec::Metric;
use bloomlab_filters::apbf::theory::{self as apbf_theory, ApbfTheory};
use bloomlab_filters::apbf::{self, KlRule};
use bloomlab_filters::ApbfShape;
use bloomlab_filters::{naor_yogev, window, SlidingFilter};
use serde::{Deserialize, Serialize};

/// Most steps the APBF's theory may take (about a minute here).
const MAX_THEORY_WORK: f64 = 1e11;

/// APBF parameters: (k, l, g | window), or (fpr[, l], g | window) picking
/// k (and l), or (fpr, window, slack) picking the (k, l) with fewest bits
/// whose slack k g is at most `slack`.
#[derive(clap::Args, Deserialize, Serialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct ApbfParams {
    /// Slices written per insertion
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    k: Option<u32>,
    /// Extra slices (window = l g)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    l: Option<u32>,
    /// Generation size (command line default 1024 when no window is given)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    g: Option<u64>,
    /// Target worst-phase FPR, in (0, 1): picks k (and l if not given)
    #[arg(long)]
    fpr: Option<f64>,
    /// Window (insertions): g = ⌈window / l⌉
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    window: Option<u64>,
    /// Largest slack k g (with fpr and window): fewest bits within it
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    slack: Option<u64>,
}

/// The APBF.
pub struct Apbf;

impl DesignDef for Apbf {
    type Params = ApbfParams;
    const NAME: &'static str = "apbf";
    const FILTER: &'static str = "Apbf";
    const OP_NS: (f64, f64) = (70.0, 120.0);
    const ABOUT: &'static str =
        "Age-Partitioned Bloom filter: k + l slices, a shift every g insertions";
    const CAPS: super::Capabilities = super::Capabilities::SLIDING;
    const METRICS: &'static [Metric] = super::SLIDING_METRICS;

    fn cli_defaults(p: &mut Params) {
        if !p.contains_key(col::G.name()) && !p.contains_key(col::WINDOW.name()) {
            p.insert("g".into(), 1024.0);
        }
    }

    fn build(p: ApbfParams, _seed: u64) -> anyhow::Result<Built> {
        let (k, l, g) = resolve(&p)?;
        let (slack, window, fpr) = (p.slack, p.window, p.fpr);
        // the age profile evaluates F for every shift count at up to 256
        // phases, each in (k + l) k steps: refuse what would not finish
        let phases = g.min(256) as f64;
        let slices = k as f64 + l as f64;
        let work = phases * (slices + 1.0) * slices * k as f64;
        if work > MAX_THEORY_WORK {
            return Err(anyhow::anyhow!(
                "apbf: the theory of k = {k}, l = {l} takes about {work:.1e} steps (limit {MAX_THEORY_WORK:.0e}): choose a smaller k + l"
            ));
        }
        let f = bloomlab_filters::Apbf::new(ApbfShape {
            hashes: k,
            extra_slices: l,
            generation: g,
        })
        .map_err(|e| anyhow::anyhow!("apbf: {e}"))?;
        let t: ApbfTheory = f.theory();
        // with a largest slack, the Naor-Yogev lower bound for (window, slack,
        // fpr) applies to the APBF as to any sliding Bloom filter
        let bound = match (slack, window, fpr) {
            (Some(m), Some(w), Some(e)) => vec![(
                col::SPACE_BOUND_BITS,
                naor_yogev::theory::space_bound_bits(w, m, e),
            )],
            _ => Vec::new(),
        };
        let cost = t.query_cost();
        let profile = ShiftProfile {
            g,
            by_phase: window::phase_grid(g, 256)
                .into_iter()
                .map(|p| (p, t.presence_by_shift(p)))
                .collect(),
        };
        let theory = Theory {
            later: Default::default(),
            scalars: vec![
                (col::FPR, t.fpr()),
                (col::FPR_PAPER_FORMULA, apbf_theory::fpr_paper(k, l)),
                (col::FPR_ASYMPTOTIC, apbf_theory::fpr(k, l)),
                (col::FPR_AVG, t.fpr_avg()),
                (col::FPR_EXPIRED, t.fpr()),
                (col::FNR, 0.0),
                (col::PROBES_NEGATIVE, cost.probes_no),
                (col::PROBES_FALSE_POSITIVE, cost.probes_yes),
                (col::NPWS_PEAK, t.npws_peak()),
                (
                    col::NPWS_PEAK_PAPER_FORMULA,
                    apbf_theory::npws_peak_paper(k, l),
                ),
                (col::NPWS_AVG, t.npws_avg()),
                (col::BITS_PER_ELEMENT, t.bits_per_element()),
                (col::EFFICIENCY_VS_BLOOM, t.efficiency_vs_bloom()),
                (
                    col::EFFICIENCY_PAPER_FORMULA,
                    apbf_theory::efficiency_paper(k, l),
                ),
                (
                    col::EFFICIENCY_ASYMPTOTIC,
                    apbf_theory::efficiency_vs_bloom(k, l),
                ),
            ]
            .into_iter()
            .chain(bound)
            // 64-byte lines at the worst phase, on the vector query's path
            // (what the filter counts on every processor)
            .chain(line_scalars_over_rotations(t.lines_counted()))
            .collect(),
            profile: Some(Box::new(profile)),
            convergence: None,
            estimates: None,
            moment: Some(super::built::switching_moment(
                g,
                move |p| t.fpr_at(p),
                move |p| t.presence_by_shift(p),
            )),
        };
        Ok(Built {
            geometry: Geometry::sliding(&f),
            resolved: vec![
                int(col::K, k),
                int(col::L, l),
                int(col::G, g),
                int(col::M, f.m()),
                int(col::WINDOW, f.window()),
                int(col::SLACK, f.slack()),
            ],
            filter: Some(Box::new(f)),
            summary: None,
            theory,
        })
    }

    /// One configuration per l <= 32: the smallest k meeting the FPR.
    fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        let (w, e) = (c.window, c.fpr);
        Ok((1..=bloomlab_filters::apbf::DEFAULT_MAX_L)
            .filter_map(|l| {
                let (k, _) = apbf::choose(e, KlRule::FixedL(l)).ok()?;
                let g = w.div_ceil(l as u64);
                let t = ApbfTheory::new(k, l, g)?;
                Some(Candidate {
                    design: Self::NAME,
                    params: Candidate::ints(&[(col::K, k as u64), (col::L, l as u64), (col::G, g)]),
                    memory_bits: t.payload_bits() + 128,
                    bits_per_element: (t.payload_bits() + 128) as f64 / t.window() as f64,
                    fpr: t.fpr(),
                    window: t.window(),
                    slack: t.slack(),
                    npws_peak: t.pws_at(g) / t.window() as f64,
                    insert_bits: k as u64,
                    // 64-byte lines, on the vector query's path
                    query_lines: t.lines_counted().map(|x| x.query_negative),
                })
            })
            .collect())
    }
}

/// (k, l, g) from the parameters: as given, or chosen for an FPR target
/// (and a largest slack) by the crate's rule ([`apbf::choose`]).
fn resolve(p: &ApbfParams) -> anyhow::Result<(u32, u32, u64)> {
    let fpr = probability(col::FPR, p.fpr)?;
    let (k, l) = (at_least_one(col::K, p.k)?, at_least_one(col::L, p.l)?);
    let (g, window) = (
        at_least_one(col::G, p.g)?,
        at_least_one(col::WINDOW, p.window)?,
    );
    let slack = at_least_one(col::SLACK, p.slack)?;
    if k.is_some() && fpr.is_some() {
        return Err(anyhow::anyhow!("apbf: give k or fpr, not both"));
    }
    if g.is_some() && window.is_some() {
        return Err(anyhow::anyhow!("apbf: give g or window, not both"));
    }
    let choose =
        |e: f64, rule: KlRule| apbf::choose(e, rule).map_err(|e| anyhow::anyhow!("apbf: {e}"));
    let (k, l) = match (slack, fpr, window, k, l, g) {
        // fewest bits with slack <= max_slack: needs fpr and window only
        (Some(slack), Some(e), Some(window), None, None, None) => {
            choose(e, KlRule::WithinSlack { window, slack })?
        }
        (Some(_), ..) => {
            return Err(anyhow::anyhow!(
                "apbf: slack (the largest slack) goes with fpr and window only"
            ))
        }
        (None, Some(e), _, None, None, _) => choose(e, KlRule::FewestBits)?,
        (None, Some(e), _, None, Some(l), _) => choose(e, KlRule::FixedL(l))?,
        (None, None, _, Some(k), Some(l), _) => (k, l),
        _ => {
            return Err(anyhow::anyhow!(
                "apbf needs k and l, or fpr (and optionally l)"
            ))
        }
    };
    let g = match (g, window) {
        (Some(g), None) => g,
        (None, Some(w)) => w.div_ceil(l as u64),
        _ => return Err(anyhow::anyhow!("apbf needs g or window")),
    };
    Ok((k, l, g))
}
