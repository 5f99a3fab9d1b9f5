//! What the measurement-only baselines (WCSS, sliding HyperLogLog, SWLC)
//! share: an exact window, no membership queries, no plan.

use super::built::{Built, Geometry, Theory};
use crate::metrics::Value;
use bloomlab_filters::WindowSummary;

/// Why a summary takes no part in a plan.
pub(super) const NOT_A_FILTER: &str = "a measurement summary: it answers no membership queries";

/// A summary over an exact window of `w` arrivals.
pub(super) fn summary(
    s: Box<dyn WindowSummary + Send>,
    w: u64,
    resolved: Vec<(&'static str, Value)>,
) -> Built {
    Built {
        geometry: Geometry::exact(w, false),
        resolved,
        filter: None,
        summary: Some(s),
        theory: Theory::default(),
    }
}
