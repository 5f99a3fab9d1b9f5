//! What the segmentation baselines (jumping window, A2, double buffering,
//! the Forgetful Bloom filter) share: sized from (window, fpr) or given
//! (k, g, m) explicitly, and a switching theory.

use super::built::{int, switching_theory, Built, Geometry, Theory};
use super::Candidate;
use super::{at_least_one, probability};
use crate::metrics::columns::{col, Col};
use crate::spec::Metric;
use bloomlab_filters::build::Target;
use bloomlab_filters::segmented::theory as seg;
use bloomlab_filters::segmented::JumpingWindow;
use bloomlab_filters::Instrumented;
use bloomlab_filters::{window, SlidingFilter};

/// The metrics `measure` takes for a segmentation baseline.
pub(super) const METRICS: &[Metric] = super::SLIDING_METRICS;

/// A segmented design's parameter struct: its own fields, then (window,
/// fpr) or (k, g, m). A macro because serde's `deny_unknown_fields` does not
/// combine with `flatten`.
macro_rules! segmented_params {
    ($(#[$meta:meta])* $name:ident { $($extra:tt)* }) => {
        $(#[$meta])*
        #[derive(clap::Args, serde::Deserialize, serde::Serialize, Debug, Default, Clone)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            $($extra)*
            /// Window (insertions)
            #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
            window: Option<u64>,
            /// Target worst-phase FPR, in (0, 1)
            #[arg(long)]
            fpr: Option<f64>,
            /// Slices per segment
            #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
            k: Option<u32>,
            /// Generation size
            #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
            g: Option<u64>,
            /// Bits per slice
            #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
            m: Option<u64>,
        }
    };
}
pub(super) use segmented_params;

/// How a segmented design is sized: explicitly, or from a window and FPR.
pub(super) enum Sizing {
    /// (k, g, m) as given.
    Explicit(u32, u64, u64),
    /// A window and an FPR, for the design's sizing in the crate
    /// (`bloomlab_filters::build`).
    Target(Target),
}

/// Reads (window, fpr) or (k, g, m).
pub(super) fn sizing(
    design: &str,
    window: Option<u64>,
    fpr: Option<f64>,
    k: Option<u32>,
    g: Option<u64>,
    m: Option<u64>,
) -> anyhow::Result<Sizing> {
    let fpr = probability(col::FPR, fpr)?;
    let window = at_least_one(col::WINDOW, window)?;
    let (k, g, m) = (
        at_least_one(col::K, k)?,
        at_least_one(col::G, g)?,
        at_least_one(col::M, m)?,
    );
    match (window, fpr, k, g, m) {
        (Some(w), Some(e), None, None, None) => Ok(Sizing::Target(Target::window(w).fpr(e))),
        (None, None, Some(k), Some(g), Some(m)) => Ok(Sizing::Explicit(k, g, m)),
        _ => Err(anyhow::anyhow!(
            "{design} needs window and fpr, or k, g and m"
        )),
    }
}

/// The switching theory of a segmented filter with `payload` bits.
pub(super) fn theory(
    f: &dyn SlidingFilter,
    payload: u64,
    fpr_at: &dyn Fn(u64) -> f64,
    by_shift: &dyn Fn(u64) -> Vec<f64>,
) -> Theory {
    switching_theory(f, payload, 256, fpr_at, by_shift)
}

/// The theory of a jumping window (A2 is a two-segment one).
pub(super) fn jumping_theory(f: &JumpingWindow) -> Theory {
    let segments = f.segments();
    let payload = segments as u64 * f.k() as u64 * f.m();
    let mut t = theory(f, payload, &|p| f.theory_fpr(p), &|p| {
        f.theory_presence_by_shift(p)
    });
    t.scalars.extend([
        (
            col::PROBES_NEGATIVE,
            seg::jumping_probes_negative(segments, f.k(), f.g(), f.m()),
        ),
        (
            col::LINES_QUERY_NEGATIVE,
            seg::jumping_lines_negative(segments, f.k(), f.g(), f.m()),
        ),
        (
            col::LINES_QUERY_POSITIVE,
            seg::jumping_lines_positive(segments, f.k(), f.g(), f.m()),
        ),
        (col::LINES_INSERT, {
            let (insert, shift) = seg::segment_insert_lines(1, f.k(), f.m(), f.g());
            insert + shift
        }),
    ]);
    t
}

/// The built design, resolved parameters (k, g, m, the design's own
/// count, window, slack).
pub(super) fn finish(
    filter: Box<dyn Instrumented + Send>,
    geometry: Geometry,
    theory: Theory,
    (k, g, m): (u32, u64, u64),
    extra: Option<(Col, u32)>,
) -> Built {
    let mut resolved = vec![int(col::K, k), int(col::G, g), int(col::M, m)];
    if let Some((name, v)) = extra {
        resolved.push(int(name, v));
    }
    resolved.push(int(col::WINDOW, geometry.window));
    resolved.push(int(col::SLACK, geometry.slack));
    Built {
        filter: Some(filter),
        summary: None,
        geometry,
        resolved,
        theory,
    }
}

fn npws_peak(by_j: &[f64], tail: f64, w: u64, s: u64, g: u64) -> f64 {
    window::pws(by_j, tail, w, s, g, g) / w as f64
}

/// Most slices a plan considers for one segment.
pub(super) const MAX_PLAN_K: u32 = 64;

/// The plan candidate of a jumping window of `n` segments (A2: n = 2), if
/// it needs at most [`MAX_PLAN_K`] slices per segment.
pub(super) fn jumping_candidate(design: &'static str, w: u64, e: f64, n: u32) -> Option<Candidate> {
    let (k, g, m) = JumpingWindow::sizing(w, e, n);
    if k > MAX_PLAN_K {
        return None;
    }
    let (win, slack) = ((n as u64 - 1) * g, g);
    let fpr = seg::jumping_fpr(n, k, g, m, g);
    let mut by_j = vec![1.0; n as usize];
    by_j.push(fpr);
    let memory = n as u64 * k as u64 * m + 128;
    let mut params = vec![(col::K, k as u64), (col::G, g), (col::M, m)];
    if design == "jumping" {
        params.push((col::SEGMENTS, n as u64));
    }
    Some(candidate(
        design,
        params,
        memory,
        (win, slack, g),
        fpr,
        &by_j,
        k as u64,
        // 64-byte lines: a probe per slice, less the lines two slices share
        Some(seg::jumping_lines_negative(n, k, g, m)),
    ))
}

/// A candidate from its switching figures.
#[allow(clippy::too_many_arguments)]
pub(super) fn candidate(
    design: &'static str,
    params: Vec<(Col, u64)>,
    memory: u64,
    (win, slack, g): (u64, u64, u64),
    fpr: f64,
    by_j: &[f64],
    insert_bits: u64,
    query_lines: Option<f64>,
) -> Candidate {
    Candidate {
        design,
        params: Candidate::ints(&params),
        memory_bits: memory,
        bits_per_element: memory as f64 / win as f64,
        fpr,
        window: win,
        slack,
        npws_peak: npws_peak(by_j, fpr, win, slack, g),
        insert_bits,
        query_lines,
    }
}
