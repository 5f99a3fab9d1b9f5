//! The work a run may do: a point's estimated work is refused above
//! [`MAX_POINT_NS`], and a run estimated above [`ANNOUNCE_S`] says so
//! before it starts. (The memory budget is checked in `prepare`, from the
//! points' plans; what the machine gives is [`crate::resources`].)

use crate::resources::duration;

/// The most work one point may be estimated at, in nanoseconds of the
/// shard weights ([`crate::passes::PointPlan::cost`], this repository's machine): a day.
/// `--rounds` or `--queries` of 2^64 - 1 ran silently for ever.
pub const MAX_POINT_NS: f64 = 86_400e9;

/// A run estimated above this many seconds says so before it starts.
pub const ANNOUNCE_S: f64 = 10.0;

/// Refuses a point whose estimated work passes [`MAX_POINT_NS`].
pub fn check_work(cost_ns: f64) -> anyhow::Result<()> {
    if cost_ns.is_finite() && cost_ns <= MAX_POINT_NS {
        return Ok(());
    }
    Err(anyhow::anyhow!(
        "its work is estimated at {}, above the limit of a day a point: fewer rounds, queries or operations",
        duration(cost_ns * 1e-9)
    ))
}
