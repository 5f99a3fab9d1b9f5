//! The designs whose FPR is the exact programme over correlated loads (the
//! blocked APBF's blocks, the line APBF's lines: `apbf::blocked`'s theory):
//! their theory and their plan's NPWS, from the filter theory's P(yes | j
//! shifts) by phase, whose last entry is the phase's FPR.

use crate::designs::built::{switching_theory, Theory};
use crate::metrics::columns::col;
use bloomlab_filters::{window, SlidingFilter};

/// The switching theory on `phases` phases, each phase's presence vector
/// computed once (the exact programme is the slow part) and its FPR read
/// as the vector's last entry; plus `fpr_independent`, the slices at their
/// mean fills.
pub(crate) fn exact_loads_theory(
    f: &dyn SlidingFilter,
    payload_bits: u64,
    phases: u64,
    presence_by_shift: &dyn Fn(u64) -> Vec<f64>,
    fpr_independent: f64,
) -> Theory {
    let by_shift = std::cell::RefCell::new(std::collections::HashMap::new());
    let presence = |p: u64| -> Vec<f64> {
        by_shift
            .borrow_mut()
            .entry(p)
            .or_insert_with(|| presence_by_shift(p))
            .clone()
    };
    let mut theory = switching_theory(
        f,
        payload_bits,
        phases,
        &|p| *presence(p).last().expect("k + l + 1 entries"),
        &presence,
    );
    theory.scalars.push((col::FPR_INDEPENDENT, fpr_independent));
    theory
}

/// The peak NPWS over `phases` phases of a window `win`, slack `slack` and
/// generation `g`, from the FPR and P(yes | j shifts) at each phase.
pub(crate) fn npws_peak(
    (win, slack, g): (u64, u64, u64),
    phases: u64,
    fpr_at: &dyn Fn(u64) -> f64,
    presence_by_shift: &dyn Fn(u64) -> Vec<f64>,
) -> f64 {
    window::phase_grid(g, phases)
        .into_iter()
        .map(|p| window::pws(&presence_by_shift(p), fpr_at(p), win, slack, g, p))
        .fold(0.0, f64::max)
        / win as f64
}
