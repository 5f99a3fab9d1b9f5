//! SHE's Bloom filter: bits in groups under 1-bit timestamps, each group
//! cleared once per phase of P = α·W insertions; a group that flipped
//! within the window counts as all ones. Window W, slack P - W.

use super::built::{int, Built, Geometry};
use super::presence::{candidate, guaranteed_theory, Figures};
use super::{at_least_one, probability, DesignDef};
use super::{Candidate, Constraints};
use crate::metrics::columns::col;
use crate::spec::Metric;
use bloomlab_filters::build::Target;
use bloomlab_filters::she::theory::{code_alpha, phase_of, SheTheory, MAX_EXACT_WINDOW};
use bloomlab_filters::she::{SheBloom as Filter, CODE_GROUP};
use bloomlab_filters::SheBloomShape;
use bloomlab_filters::{Filter as _, ParamError, SlidingFilter as _};
use serde::{Deserialize, Serialize};

/// SHE-BF parameters: window and fpr, or window, k and m (with the
/// reference code's groups of 64 and α unless group and alpha or phase are
/// given).
#[derive(clap::Args, Deserialize, Serialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct SheBloomParams {
    /// Window W (insertions); keys are reported for at least W and at most
    /// the phase P
    #[arg(long, alias = "w", value_parser = clap::value_parser!(u64).range(1..))]
    window: Option<u64>,
    /// Target worst-phase FPR, in (0, 1): picks k, the phase and m (fewest
    /// bits, groups of 64)
    #[arg(long, alias = "eps")]
    fpr: Option<f64>,
    /// Bits set and read per key (with m, instead of fpr)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    k: Option<u32>,
    /// Bits (a multiple of the group)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    m: Option<u64>,
    /// Bits per timestamp (default 64, the reference code's)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    group: Option<u64>,
    /// Phase length over the window, α >= 1 (default: the reference code's
    /// equation)
    #[arg(long)]
    alpha: Option<f64>,
    /// Phase length P in insertions, >= W (instead of alpha)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    phase: Option<u64>,
}

/// SHE's Bloom filter.
pub struct SheBloom;

impl DesignDef for SheBloom {
    type Params = SheBloomParams;
    const NAME: &'static str = "she_bloom";
    const FILTER: &'static str = "SheBloom";
    const ALIASES: &'static [&'static str] = &["she", "she_bf", "she-bf"];
    // a first estimate: k bits and their groups' timestamps read
    const OP_NS: (f64, f64) = (60.0, 40.0);
    const ABOUT: &'static str =
        "SHE's Bloom filter: bits in groups under 1-bit timestamps, cleared lazily once per phase";
    const CAPS: super::Capabilities = super::Capabilities::SLIDING;
    const METRICS: &'static [Metric] = super::SLIDING_METRICS;

    fn build(p: SheBloomParams, _seed: u64) -> anyhow::Result<Built> {
        let f = filter(&p)?;
        let th = f.theory();
        let w = th.w;
        if w > MAX_EXACT_WINDOW {
            return Err(anyhow::anyhow!(
                "she_bloom: window {w} is above 2^24, the largest the exact theory evaluates"
            ));
        }
        let sweep = sweep(&th);
        let geometry = Geometry {
            window: w,
            slack: f.slack(),
            period: th.period(),
            worst_phase: sweep.0 % th.period(),
            guaranteed: true,
            horizon: None,
            // every group flipped at least once before the first round
            warmup: Some(th.steady()),
            spacing: None,
            time: None,
        };
        let resolved = vec![
            int(col::WINDOW, w),
            int(col::K, th.k),
            int(col::M, th.m),
            int(col::GROUP, th.g),
            int(col::PHASE, th.phase),
        ];
        let memory = f.memory_bits();
        let theory = guaranteed_theory(th, w, sweep.0, move || Figures {
            fpr_avg: sweep.1,
            probes: th.probes_negative_at(sweep.0),
            lines: Some(th.lines_at(sweep.0)),
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
        // (not the build's memoized sweep: its mean costs a power per
        // moment of the period, which a plan alone does not need)
        let worst = th.worst_moment();
        let params = Candidate::ints(&[
            (col::WINDOW, w),
            (col::K, th.k as u64),
            (col::M, th.m),
            (col::GROUP, th.g),
            (col::PHASE, th.phase),
        ]);
        // 64-byte lines at the worst moment
        let cost = (th.k as u64, th.lines_at(worst.0).query_negative);
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

/// The filter the parameters name.
fn filter(p: &SheBloomParams) -> anyhow::Result<Filter> {
    let fpr = probability(col::FPR, p.fpr)?;
    let w = at_least_one(col::WINDOW, p.window)?
        .ok_or_else(|| anyhow::anyhow!("she_bloom needs window"))?;
    let e = |r: ParamError| anyhow::anyhow!("she_bloom: {r}");
    let (k, m) = (at_least_one(col::K, p.k)?, at_least_one(col::M, p.m)?);
    let group = at_least_one(col::GROUP, p.group)?;
    let explicit = k.is_some() || m.is_some() || group.is_some();
    let alpha = match p.alpha {
        Some(a) if !(a.is_finite() && a >= 1.0) => {
            return Err(anyhow::anyhow!(
                "she_bloom: alpha must be a finite number >= 1, got {a}"
            ))
        }
        a => a,
    };
    match (fpr, k, m) {
        (Some(fpr), None, None) if !explicit && alpha.is_none() && p.phase.is_none() => {
            Target::window(w).fpr(fpr).build::<Filter>().map_err(e)
        }
        (None, Some(k), Some(m)) => {
            let g = group.unwrap_or(CODE_GROUP);
            let phase = match (alpha, p.phase) {
                (Some(_), Some(_)) => {
                    return Err(anyhow::anyhow!("she_bloom: give alpha or phase, not both"))
                }
                (_, Some(ph)) => ph,
                (Some(a), None) => phase_of(w, a),
                (None, None) => phase_of(w, code_alpha(w, k, m, g)),
            };
            Filter::new(SheBloomShape { window: w, hashes: k, bits: m, group_bits: g, phase }).map_err(e)
        }
        _ => Err(anyhow::anyhow!(
            "she_bloom needs window and fpr, or window, k and m (and optionally group, alpha or phase)"
        )),
    }
}

/// The worst moment of the period and the mean FPR over it
/// ([`SheTheory::sweep`]), memoized ([`bloomlab_filters::memo`]): at a
/// window of millions the sweep takes seconds, and a plan builds a
/// candidate more than once.
fn sweep(th: &SheTheory) -> (u64, f64) {
    static MEMO: bloomlab_filters::memo::Memo<SheTheory, (u64, f64)> =
        bloomlab_filters::memo::Memo::new();
    MEMO.get_or(*th, || {
        let s = th.sweep(true);
        (s.worst_t, s.mean)
    })
}
