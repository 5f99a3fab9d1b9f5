//! The Half Sliding Sketch's Bloom filter (HSS-BF): k one-bit arrays, a
//! clock clearing (k - lo)·m cells per cycle, queries reading the lo
//! arrays it cleared longest ago.

use super::built::{int, Built, Geometry, Later, Theory};
use super::candidate::line_scalars;
use super::presence::{candidate, PresenceProfile};
use super::{at_least_one, probability, DesignDef};
use super::{Candidate, Constraints};
use crate::metrics::columns::{col, Col};
use crate::spec::Metric;
use bloomlab_filters::build::Target;
use bloomlab_filters::half_sliding::theory::{HalfSlidingTheory, MAX_EXACT_WINDOW};
use bloomlab_filters::half_sliding::HalfSliding as Filter;
use bloomlab_filters::HalfSlidingShape;
use bloomlab_filters::{Filter as _, ParamError, SlidingFilter as _};
use serde::{Deserialize, Serialize};

/// HSS-BF parameters: window and fpr (sized for a guaranteed window), or
/// cycle, k, lo and m (the paper's; window then names the window the FNR
/// is measured over, the cycle by default).
#[derive(clap::Args, Deserialize, Serialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct HalfSlidingParams {
    /// Window W (insertions): guaranteed with fpr; with cycle, k, lo and m
    /// the window the FNR is measured over (default: the cycle)
    #[arg(long, alias = "w", value_parser = clap::value_parser!(u64).range(1..))]
    window: Option<u64>,
    /// Target worst-phase FPR, in (0, 1): picks k, lo, m and the cycle
    #[arg(long, alias = "eps")]
    fpr: Option<f64>,
    /// Insertions per (k - lo)·m cells cleared (the paper's CYCLE)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    cycle: Option<u64>,
    /// Arrays (cells set per insertion)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    k: Option<u32>,
    /// Arrays read per query (below k; the paper's code uses k - 1)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    lo: Option<u32>,
    /// Cells per array (one bit each)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    m: Option<u64>,
}

/// The HSS-BF.
pub struct HalfSliding;

/// Moments the profile, the FNR and the mean PWS average over (each costs
/// a sort of lo·m cells): a quarter of the FPR's grid, tested in the crate
/// against the full grid.
const PROFILE_MOMENTS: u64 = 16;

impl DesignDef for HalfSliding {
    type Params = HalfSlidingParams;
    const NAME: &'static str = "half_sliding";
    const FILTER: &'static str = "HalfSliding";
    const ALIASES: &'static [&'static str] = &["hss_bf", "hss-bf", "half-sliding"];
    // a first estimate, by analogy with the Sl-BF (one bit per array read)
    const OP_NS: (f64, f64) = (40.0, 40.0);
    const ABOUT: &'static str =
        "Half Sliding Sketch's HSS-BF: k one-bit arrays, a clock, queries read the lo oldest";
    const CAPS: super::Capabilities = super::Capabilities::SLIDING;
    const METRICS: &'static [Metric] = super::SLIDING_METRICS;

    fn build(p: HalfSlidingParams, _seed: u64) -> anyhow::Result<Built> {
        let fpr = probability(col::FPR, p.fpr)?;
        let window = at_least_one(col::WINDOW, p.window)?;
        let e = |r: ParamError| anyhow::anyhow!("half_sliding: {r}");
        let explicit = (
            at_least_one(col::CYCLE, p.cycle)?,
            at_least_one(col::K, p.k)?,
            at_least_one(col::LO, p.lo)?,
            at_least_one(col::M, p.m)?,
        );
        let (f, w) = match (window, fpr, explicit) {
            (Some(w), Some(p), (None, None, None, None)) => (Target::window(w).fpr(p).build::<Filter>().map_err(e)?, w),
            (w, None, (Some(c), Some(k), Some(lo), Some(m))) => {
                (Filter::new(HalfSlidingShape { cycle: c, arrays: k, queried_arrays: lo, cells_per_array: m }).map_err(e)?, w.unwrap_or(c))
            }
            _ => {
                return Err(anyhow::anyhow!(
                    "half_sliding needs window and fpr, or cycle, k, lo and m (and a window to measure the FNR over)"
                ))
            }
        };
        let th = f.theory();
        if th.longest() > 2 * MAX_EXACT_WINDOW {
            return Err(anyhow::anyhow!(
                "half_sliding: keys are kept up to {} insertions, above 2^25, the longest the harness profiles",
                th.longest()
            ));
        }
        let guaranteed = f.window() >= w;
        // the worst moment now (the pass's worst phase), the figures when
        // a pass asks for them
        let t_worst = th.worst_moment().0;
        let memory = f.memory_bits();
        let period = th.period();
        let geometry = Geometry {
            window: w,
            slack: th.longest().saturating_sub(w),
            period,
            worst_phase: t_worst % period,
            guaranteed,
            horizon: None,
            // every cell cleared at least once before the first round
            warmup: Some(2 * th.longest()),
            spacing: None,
            time: None,
        };
        let resolved = vec![
            int(col::WINDOW, w),
            int(col::CYCLE, th.cycle),
            int(col::K, th.k),
            int(col::LO, th.lo),
            int(col::M, th.m),
        ];
        let theory = Theory {
            later: Later::new(move || figures(&th, w, guaranteed, memory)),
            profile: Some(Box::new(PresenceProfile::new(th, t_worst, PROFILE_MOMENTS))),
            ..Theory::default()
        };
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
            (col::CYCLE, th.cycle),
            (col::K, th.k as u64),
            (col::LO, th.lo as u64),
            (col::M, th.m),
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

/// The theory the harness compares with over a window of interest `w`:
/// FPR at the worst moment and averaged over the period; FNR over ages
/// 1..=w (0 when guaranteed), which the pass measures half at the worst
/// phase and half at random ones, so the theory is the mean of the two;
/// PWS over the ages past w likewise; probes at the worst moment.
///
/// Memoized ([`bloomlab_filters::memo`]): at a window of millions they
/// take seconds, and a plan builds a candidate more than once.
fn figures(th: &HalfSlidingTheory, w: u64, guaranteed: bool, memory: u64) -> Scalars {
    static MEMO: bloomlab_filters::memo::Memo<(HalfSlidingTheory, u64, bool, u64), Scalars> =
        bloomlab_filters::memo::Memo::new();
    MEMO.get_or((*th, w, guaranteed, memory), || {
        scalars(th, w, guaranteed, memory)
    })
}

/// The theory's figures, by name.
type Scalars = Vec<(Col, f64)>;

/// [`figures`], uncached.
fn scalars(th: &HalfSlidingTheory, w: u64, guaranteed: bool, memory: u64) -> Scalars {
    let (t_worst, _) = th.worst_moment();
    let worst = th.presence(t_worst);
    let slack = th.longest().saturating_sub(w);
    let moments: Vec<u64> = th.moments_n(PROFILE_MOMENTS);
    let n = moments.len() as f64;
    let (mut fnr_avg, mut pws_avg) = (0.0, 0.0);
    for &t in &moments {
        let p = th.presence(t);
        fnr_avg += (1.0 - p.sum(0, w) / w as f64) / n;
        pws_avg += p.sum(w, w + slack) / n;
    }
    let fnr_worst = 1.0 - worst.sum(0, w) / w as f64;
    let fnr = if guaranteed {
        0.0
    } else {
        (fnr_worst + fnr_avg) / 2.0
    };
    let wf = w as f64;
    vec![
        (col::FPR, worst.fpr()),
        (col::FPR_AVG, th.fpr_avg()),
        (col::FPR_EXPIRED, worst.fpr()),
        (col::FNR, fnr),
        (col::NPWS_PEAK, worst.sum(w, w + slack) / wf),
        (col::NPWS_AVG, pws_avg / wf),
        (col::PROBES_NEGATIVE, th.probes_negative_at(t_worst)),
        (col::MEMORY_BITS, memory as f64),
        (col::BITS_PER_ELEMENT, th.payload_bits() as f64 / wf),
    ]
    .into_iter()
    .chain(line_scalars(Some(th.lines_at(t_worst))))
    .collect()
}
