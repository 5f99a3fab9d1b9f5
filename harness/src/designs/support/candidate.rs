//! What a design offers a plan: the request ([`Constraints`]) and one
//! configuration with the figures its theory predicts ([`Candidate`]).
//! [`crate::plan`] picks among them.

use crate::metrics::columns::{col, Col};
use crate::metrics::Value;

/// Most memory a fast sizing may take, as a multiple of the least
/// (`bloomlab plan`'s fast sizings; a design that searches for its own, as
/// the blocked APBF does, stays within it).
pub const FAST_MEMORY: f64 = 1.25;

/// Constraints of a plan.
#[derive(Debug, Clone, Copy)]
pub struct Constraints {
    /// Window (insertions) the design must guarantee.
    pub window: u64,
    /// Target worst-phase FPR.
    pub fpr: f64,
    /// Largest acceptable peak NPWS.
    pub max_npws: Option<f64>,
    /// Largest acceptable bits per window element.
    pub max_bits_per_element: Option<f64>,
    /// A window of time instead: (T seconds, peak rate in keys per
    /// second); `window` is then T·R. Designs that forget by time plan only
    /// for such a request.
    pub time: Option<(f64, f64)>,
}

/// One design that meets the constraints.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// Design name as `bloomlab run` knows it.
    pub design: &'static str,
    /// Parameters (name, value), as a spec point or the flags take them.
    pub params: Vec<(Col, Value)>,
    /// Predicted `memory_bits`.
    pub memory_bits: u64,
    /// memory_bits / window.
    pub bits_per_element: f64,
    /// Worst-phase FPR.
    pub fpr: f64,
    /// Guaranteed window (>= the requested one).
    pub window: u64,
    /// Slack.
    pub slack: u64,
    /// Peak NPWS.
    pub npws_peak: f64,
    /// Bits written per insertion.
    pub insert_bits: u64,
    /// Expected 64-byte lines a never-inserted key's query reads, where the
    /// design's theory gives them (`bloomlab_filters::lines`).
    pub query_lines: Option<f64>,
}

impl Candidate {
    /// A design over an exact window of `w` arrivals: slack 0, NPWS 0.
    pub fn exact_window(
        design: &'static str,
        w: u64,
        params: Vec<(Col, Value)>,
        memory: u64,
        fpr: f64,
        insert_bits: u64,
        query_lines: Option<f64>,
    ) -> Candidate {
        Candidate {
            design,
            params,
            memory_bits: memory,
            bits_per_element: memory as f64 / w as f64,
            fpr,
            window: w,
            slack: 0,
            npws_peak: 0.0,
            insert_bits,
            query_lines,
        }
    }

    /// Whether every figure is a finite number in its range (the FPR in
    /// [0, 1], NPWS and probes non-negative): a plan never ranks a
    /// configuration its theory could not size.
    pub fn is_finite(&self) -> bool {
        let params = self.params.iter().all(|(_, v)| match v {
            Value::Num(x) => x.is_finite(),
            _ => true,
        });
        params
            && self.bits_per_element.is_finite()
            && (0.0..=1.0).contains(&self.fpr)
            && self.npws_peak.is_finite()
            && self.npws_peak >= 0.0
            && self.query_lines.is_none_or(|q| q.is_finite() && q >= 0.0)
    }

    /// The parameters as `k=v` words, as `plan` prints them.
    pub fn params_text(&self) -> String {
        self.params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The parameters as the point a spec or `measure` builds the candidate
    /// from.
    pub fn point(&self) -> anyhow::Result<crate::designs::Params> {
        self.params
            .iter()
            .map(|(k, v)| {
                v.num()
                    .map(|x| (k.to_string(), x))
                    .ok_or_else(|| anyhow::anyhow!("parameter {k} is not a number"))
            })
            .collect()
    }

    /// Integer parameters (name, value).
    pub fn ints(params: &[(Col, u64)]) -> Vec<(Col, Value)> {
        params.iter().map(|&(k, v)| (k, Value::Int(v))).collect()
    }
}

/// [`line_scalars`] for a theory averaged over the slices' rotations (the
/// APBF's and the blocked APBF's): the negative query's figure is named
/// `lines_query_negative_rotations_mean`, so that the membership pass, which
/// measures one rotation (its rounds are a whole number of the filter's
/// cycles apart), does not hold its count to it; the filters crate tests
/// the theory at each rotation (`apbf::lines`, `apbf::blocked::lines`).
pub(crate) fn line_scalars_over_rotations(
    lines: Option<bloomlab_filters::lines::Lines>,
) -> Vec<(Col, f64)> {
    line_scalars(lines)
        .into_iter()
        .map(|(name, x)| match name {
            col::LINES_QUERY_NEGATIVE => (col::LINES_QUERY_NEGATIVE_ROTATIONS_MEAN, x),
            _ => (name, x),
        })
        .collect()
}

/// The `theory` scalars of a design's cache lines: `lines_insert` (its
/// own lines and its periodic maintenance's, per insertion),
/// `lines_query_negative` and `lines_query_positive`; none when its theory
/// gives none, and no figure it leaves NaN.
pub(crate) fn line_scalars(lines: Option<bloomlab_filters::lines::Lines>) -> Vec<(Col, f64)> {
    lines
        .map(|x| {
            vec![
                (col::LINES_INSERT, x.insert + x.shift),
                (col::LINES_QUERY_NEGATIVE, x.query_negative),
                (col::LINES_QUERY_POSITIVE, x.query_positive),
            ]
        })
        .unwrap_or_default()
        .into_iter()
        // NaN: a figure the design's theory does not give
        .filter(|x| x.1.is_finite())
        .collect()
}
