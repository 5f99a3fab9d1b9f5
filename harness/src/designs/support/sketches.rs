//! What the measurement-only baselines (WCSS, sliding HyperLogLog, SWLC)
//! share: an exact window, no membership queries, no plan.

use crate::designs::at_least_one;
use crate::designs::built::{int, Built, Geometry, Theory};
use crate::designs::shared::RegistersParams;
use crate::metrics::columns::{col, Col};
use crate::metrics::Value;
use bloomlab_filters::WindowSummary;

/// Why a summary takes no part in a plan.
pub(in crate::designs) const NOT_A_FILTER: &str =
    "a measurement summary: it answers no membership queries";

/// A summary over an exact window of `w` arrivals.
pub(in crate::designs) fn summary(
    s: Box<dyn WindowSummary + Send>,
    w: u64,
    resolved: Vec<(Col, Value)>,
) -> Built {
    Built {
        geometry: Geometry::exact(w, false),
        resolved,
        filter: None,
        summary: Some(s),
        theory: Theory::default(),
    }
}

/// A register sketch over a window from (window, registers): `make` builds
/// it, seeded.
pub(in crate::designs) fn registers(
    design: &str,
    p: RegistersParams,
    make: impl FnOnce(u64, u64) -> Result<Box<dyn WindowSummary + Send>, bloomlab_filters::ParamError>,
) -> anyhow::Result<Built> {
    let needs = || anyhow::anyhow!("{design} needs window and registers");
    let w = at_least_one(col::WINDOW, p.window)?.ok_or_else(needs)?;
    let m = at_least_one(col::REGISTERS, p.registers)?.ok_or_else(needs)?;
    let s = make(w, m).map_err(|e| anyhow::anyhow!("{design}: {e}"))?;
    Ok(summary(
        s,
        w,
        vec![int(col::WINDOW, w), int(col::REGISTERS, m)],
    ))
}
