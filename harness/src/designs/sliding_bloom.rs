//! The Sliding Sketches' sliding Bloom filter (Sl-BF): k arrays of
//! two-bit cells under a sweeping clock; window W, slack W.

use super::built::{int, Built, Geometry, Later, ProfileTheory, Theory};
use super::candidate::line_scalars;
use super::{at_least_one, probability, DesignDef};
use super::{Candidate, Constraints};
use crate::metrics::columns::{col, Col};
use crate::spec::Metric;
use bloomlab_filters::build::Target;
use bloomlab_filters::sliding_sketch::theory::{
    mean_fpr, worst_fpr, SlidingBloomTheory, MAX_EXACT_WINDOW,
};
use bloomlab_filters::sliding_sketch::SlidingBloom as Filter;
use bloomlab_filters::SlidingBloomShape;
use bloomlab_filters::{Filter as _, ParamError};
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// Sl-BF parameters: window and fpr, or window, k and m.
#[derive(clap::Args, Deserialize, Serialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct SlidingBloomParams {
    /// Window W (insertions); keys are reported for at least W and at most 2W
    #[arg(long, alias = "w", value_parser = clap::value_parser!(u64).range(1..))]
    window: Option<u64>,
    /// Target worst-phase FPR, in (0, 1): picks k and m (fewest cells)
    #[arg(long, alias = "eps")]
    fpr: Option<f64>,
    /// Arrays (cells read per query; with m, instead of fpr)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    k: Option<u32>,
    /// Cells per array (two bits each; with k, instead of fpr)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    m: Option<u64>,
}

/// The Sl-BF.
pub struct SlidingBloom;

impl DesignDef for SlidingBloom {
    type Params = SlidingBloomParams;
    const NAME: &'static str = "sliding_bloom";
    const FILTER: &'static str = "SlidingBloom";
    const ALIASES: &'static [&'static str] = &["sl_bf", "sliding-bloom"];
    // from `measure sliding_bloom --window 65536 --fpr 1e-3` (37 and 35 ns; this
    // session's compare run shared the machine with others, its timings are not)
    const OP_NS: (f64, f64) = (40.0, 40.0);
    const ABOUT: &'static str =
        "Sliding Sketches' Sl-BF: k arrays of two-bit cells swept once per window (slack W)";
    const CAPS: super::Capabilities = super::Capabilities::SLIDING;
    const METRICS: &'static [Metric] = super::SLIDING_METRICS;

    fn build(p: SlidingBloomParams, _seed: u64) -> anyhow::Result<Built> {
        let fpr = probability(col::FPR, p.fpr)?;
        let w = at_least_one(col::WINDOW, p.window)?
            .ok_or_else(|| anyhow::anyhow!("sliding_bloom needs window"))?;
        let e = |r: ParamError| anyhow::anyhow!("sliding_bloom: {r}");
        // sizing and the exact theory take about 3 s + 1.6 µs a key of the
        // window here (4.2 s at 2^20, 7.3 s at 2^22, 29.5 s and 0.8 GB at
        // 2^24, measured with `time bloomlab theory sliding_bloom`): say so
        // before one of over 10 s, which ran silent
        let about = 3.0 + 1.6e-6 * w as f64;
        if about >= 10.0 && w <= MAX_EXACT_WINDOW {
            eprintln!(
                "sliding_bloom: sizing and the exact theory at a window of {w} (about {about:.0} s on a 2-core machine)"
            );
        }
        let f = match (fpr, at_least_one(col::K, p.k)?, at_least_one(col::M, p.m)?) {
            (Some(p), None, None) => Target::window(w).fpr(p).build::<Filter>().map_err(e)?,
            (None, Some(k), Some(m)) => Filter::new(SlidingBloomShape {
                window: w,
                arrays: k,
                cells_per_array: m,
            })
            .map_err(e)?,
            _ => {
                return Err(anyhow::anyhow!(
                    "sliding_bloom needs window and fpr, or window, k and m"
                ))
            }
        };
        if w > MAX_EXACT_WINDOW {
            return Err(anyhow::anyhow!(
                "sliding_bloom: window {w} is above 2^24, the largest the exact theory evaluates"
            ));
        }
        let th = f.theory();
        // the worst moment now (the pass's worst phase), the figures when
        // a pass asks for them
        let t_worst = worst_fpr(&th.phase_fprs()).0;
        let memory = f.memory_bits();
        let mut geometry = Geometry::sliding(&f);
        // the sweep repeats exactly every W insertions; the worst moment of
        // the FPR lies inside that period
        geometry.period = w;
        geometry.worst_phase = t_worst % w;
        let resolved = vec![int(col::WINDOW, w), int(col::K, th.k), int(col::M, th.m)];
        let theory = Theory {
            later: Later::new(move || figures(&th, memory)),
            profile: Some(Box::new(Profile {
                th,
                t_worst,
                curves: OnceLock::new(),
            })),
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
        let memory = f.memory_bits();
        let (t, fpr) = worst_fpr(&th.phase_fprs());
        Ok(vec![Candidate {
            design: Self::NAME,
            params: Candidate::ints(&[(col::WINDOW, w), (col::K, th.k as u64), (col::M, th.m)]),
            memory_bits: memory,
            bits_per_element: memory as f64 / w as f64,
            fpr,
            window: w,
            slack: w,
            npws_peak: th.pws_at(t) / w as f64,
            insert_bits: th.k as u64,
            // 64-byte lines at the worst moment
            query_lines: Some(th.lines_at(t).query_negative).filter(|x| x.is_finite()),
        }])
    }
}

/// The theory's figures the harness compares with, from the FPR at each
/// moment of the period ([`SlidingBloomTheory::phase_fprs`], memoized
/// there): the FPR at the worst moment (where the pass measures its worst
/// phase) and averaged over the period, PWS and probes likewise. Memoized
/// ([`bloomlab_filters::memo`]): at a window of millions they take
/// seconds, and a plan builds a candidate more than once.
fn figures(th: &SlidingBloomTheory, memory: u64) -> Vec<(Col, f64)> {
    static MEMO: bloomlab_filters::memo::Memo<(SlidingBloomTheory, u64), Vec<(Col, f64)>> =
        bloomlab_filters::memo::Memo::new();
    MEMO.get_or((*th, memory), || scalars(th, &th.phase_fprs(), memory))
}

/// [`figures`], uncached.
fn scalars(th: &SlidingBloomTheory, phases: &[(u64, f64)], memory: u64) -> Vec<(Col, f64)> {
    let (t_worst, fpr) = worst_fpr(phases);
    let w = th.w as f64;
    // the PWS over every moment of the FPR's grid up to W = 2^20, over
    // every fourth above (a PWS costs O(kW); on the smooth periodic curve
    // the coarser grid moves the mean by under 1e-3 relative, tested in
    // the crate's sliding_sketch tests)
    let stride = if th.w <= 1 << 20 { 1 } else { 4 };
    let moments: Vec<u64> = th.moments().into_iter().step_by(stride).collect();
    let n = moments.len() as f64;
    let npws_avg = moments.iter().map(|&t| th.pws_at(t)).sum::<f64>() / n / w;
    vec![
        (col::FPR, fpr),
        (col::FPR_AVG, mean_fpr(phases)),
        (col::FPR_EXPIRED, fpr),
        (col::FNR, 0.0),
        (col::NPWS_PEAK, th.pws_at(t_worst) / w),
        (col::NPWS_AVG, npws_avg),
        (col::PROBES_NEGATIVE, th.probes_negative_at(t_worst)),
        (col::MEMORY_BITS, memory as f64),
        (col::BITS_PER_ELEMENT, th.payload_bits() as f64 / w),
    ]
    .into_iter()
    .chain(line_scalars(Some(th.lines_at(t_worst))))
    .collect()
}

/// P(yes | age) at the worst moment and averaged over the period's
/// moments, computed on first use (two curves of 2W + 1 ages).
struct Profile {
    th: SlidingBloomTheory,
    t_worst: u64,
    curves: OnceLock<(Vec<f64>, Vec<f64>)>,
}

impl Profile {
    fn curves(&self) -> &(Vec<f64>, Vec<f64>) {
        self.curves.get_or_init(|| {
            let max_age = 2 * self.th.w;
            let worst = self.th.presence_curve(self.t_worst, max_age);
            let moments = self.th.moments();
            let mut avg = vec![0.0; worst.len()];
            for &t in &moments {
                for (a, p) in avg.iter_mut().zip(self.th.presence_curve(t, max_age)) {
                    *a += p;
                }
            }
            avg.iter_mut().for_each(|a| *a /= moments.len() as f64);
            (worst, avg)
        })
    }
}

/// P(yes) at harness age `age` (1: the latest insertion), which is the
/// theory's age - 1 (0: the latest); from 2W on no cell holds the key: the
/// curve's last value.
fn at(curve: &[f64], age: u64) -> f64 {
    curve[(age.saturating_sub(1) as usize).min(curve.len() - 1)]
}

impl ProfileTheory for Profile {
    fn worst(&self, age: u64) -> f64 {
        at(&self.curves().0, age)
    }
    fn avg(&self, age: u64) -> f64 {
        at(&self.curves().1, age)
    }
}
