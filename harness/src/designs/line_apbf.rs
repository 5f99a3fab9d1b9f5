//! The line APBF: the APBF with each key's k + l slices in 16-bit lanes of
//! one 64-byte line (`bloomlab_filters::apbf::line`): every operation
//! touches that one line.

use super::built::{int, Built, Geometry};
use super::candidate::line_scalars;
use super::exact_loads::{exact_loads_theory, npws_peak};
use super::{at_least_one, probability, DesignDef};
use super::{Candidate, Constraints};
use crate::metrics::columns::col;
use crate::spec::Metric;
use bloomlab_filters::apbf::blocked::MAX_EXACT_K;
use bloomlab_filters::apbf::line::{LineApbf as Filter, LineTheory};
use bloomlab_filters::build::Target;
use bloomlab_filters::LineApbfShape;
use bloomlab_filters::{ParamError, SlidingFilter};
use serde::{Deserialize, Serialize};

/// Line APBF parameters: (k, l, g | window[, lines]) (default lines: the
/// APBF's bits per slice in 16-bit lanes) or (fpr, window[, k, l]): the
/// builder's sizing, the fewest lines meeting fpr in exact theory.
#[derive(clap::Args, Deserialize, Serialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct LineApbfParams {
    /// Slices written per insertion (k + l <= 31)
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
    /// 64-byte lines (default: the APBF's bits per slice in 16-bit lanes)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    line_count: Option<u64>,
    /// Target worst-phase FPR, in (0, 1) (with window)
    #[arg(long)]
    fpr: Option<f64>,
}

/// The line APBF.
pub struct LineApbf;

/// Phases the theory averages over.
const PHASES: u64 = 8;

impl DesignDef for LineApbf {
    type Params = LineApbfParams;
    const NAME: &'static str = "line_apbf";
    const FILTER: &'static str = "LineApbf";
    /// Medians over `results/line_apbf.csv` (it is not in `compare` yet).
    const OP_NS: (f64, f64) = (30.0, 22.0);
    const ALIASES: &'static [&'static str] = &["line-apbf"];
    const ABOUT: &'static str =
        "Line APBF: each key's slices in 16-bit lanes of one 64-byte line (every operation one line)";
    const CAPS: super::Capabilities = super::Capabilities::SLIDING;
    const METRICS: &'static [Metric] = super::SLIDING_METRICS;

    /// Its theory is the exact programme of `apbf::blocked` on 16-bit
    /// lanes, on a grid of 8 phases; also `fpr_independent`, the lanes
    /// taken at their mean fills (the line loads' variance dropped).
    fn build(p: LineApbfParams, _seed: u64) -> anyhow::Result<Built> {
        let fpr = probability(col::FPR, p.fpr)?;
        let (k, l) = (at_least_one(col::K, p.k)?, at_least_one(col::L, p.l)?);
        let (g, w, lines) = (
            at_least_one(col::G, p.g)?,
            at_least_one(col::WINDOW, p.window)?,
            at_least_one(col::LINE_COUNT, p.line_count)?,
        );
        let e = |r: ParamError| anyhow::anyhow!("line_apbf: {r}");
        let f = match (k, l, g, w, lines, fpr) {
            (None, None, None, Some(w), None, Some(e2)) => {
                Target::window(w).fpr(e2).build::<Filter>().map_err(e)?
            }
            (Some(k), Some(l), None, Some(w), None, Some(e2)) => Target::window(w)
                .fpr(e2)
                .hashes(k)
                .extra_slices(l)
                .build::<Filter>()
                .map_err(e)?,
            (Some(k), Some(l), g, w, lines, None) if g.is_some() != w.is_some() => {
                let g = g.unwrap_or_else(|| w.expect("one of g, window").div_ceil(l as u64));
                Filter::new(LineApbfShape {
                    hashes: k,
                    extra_slices: l,
                    generation: g,
                    lines,
                })
                .map_err(e)?
            }
            _ => {
                return Err(anyhow::anyhow!(
                    "line_apbf needs k, l and g or window (and optionally line_count), or fpr and window (and optionally k and l)"
                ))
            }
        };
        if f.k() > MAX_EXACT_K {
            return Err(anyhow::anyhow!(
                "line_apbf: its exact theory takes k <= {MAX_EXACT_K}, got k = {}",
                f.k()
            ));
        }
        let t = f.theory();
        const CHECKED: &str = "k checked against MAX_EXACT_K";
        let mut theory = exact_loads_theory(
            &f,
            t.payload_bits(),
            PHASES,
            &|p| t.presence_by_shift(p).expect(CHECKED),
            t.fpr_independent(f.g()),
        );
        theory.scalars.extend(line_scalars(Some(t.lines_touched())));
        Ok(Built {
            geometry: Geometry::sliding(&f),
            resolved: vec![
                int(col::K, f.k()),
                int(col::L, f.l()),
                int(col::G, f.g()),
                int(col::LINE_COUNT, f.line_count()),
                int(col::WINDOW, f.window()),
                int(col::SLACK, f.slack()),
            ],
            filter: Some(Box::new(f)),
            summary: None,
            theory,
        })
    }

    /// The builder's sizing (every lane used, the k of fewest lines): one
    /// candidate, since every query reads one line and an insertion writes
    /// its k lanes with one masked OR whatever (k, l), so the least memory
    /// is also the fastest.
    fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        let t = Filter::sizing(c.window, c.fpr).map_err(|e| anyhow::anyhow!("{e}"))?;
        Ok(vec![candidate(t)])
    }
}

/// The plan's figures for one sizing: memory, worst-phase FPR, window,
/// slack, peak NPWS over the phases, one line a query.
fn candidate(t: LineTheory) -> Candidate {
    let (win, slack) = (t.l as u64 * t.g, t.k as u64 * t.g);
    let fpr_at = |p: u64| t.fpr_at(p).unwrap_or(1.0);
    let npws = npws_peak((win, slack, t.g), PHASES, &fpr_at, &|p| {
        t.presence_by_shift(p).unwrap_or_default()
    });
    let memory = t.payload_bits() + 3 * 64;
    Candidate {
        design: LineApbf::NAME,
        params: Candidate::ints(&[
            (col::K, t.k as u64),
            (col::L, t.l as u64),
            (col::G, t.g),
            (col::LINE_COUNT, t.lines),
        ]),
        memory_bits: memory,
        bits_per_element: memory as f64 / win as f64,
        fpr: fpr_at(t.g),
        window: win,
        slack,
        npws_peak: npws,
        insert_bits: t.k as u64,
        query_lines: Some(t.lines_touched().query_negative),
    }
}
