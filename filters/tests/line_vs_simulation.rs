//! The line APBF's theory (the blocked APBF's exact programme with 16-bit
//! lanes over the correlated line loads) against simulation: FPR at the
//! worst and at random phases, P(yes | age) in the slack, and the rejection
//! of the approximation without the line loads' variance (the checks and
//! their statistics: `exact_loads/mod.rs`). The filters run through the lazy
//! clearing (their lines are cleaned only when written), so these also test
//! that it forgets exactly as a shift that clears.

mod common;
mod exact_loads;

use bloomlab_filters::apbf::line::{default_lines, LineApbf, LineTheory};
use bloomlab_filters::LineApbfShape;
use exact_loads::Exact;

impl Exact for LineApbf {
    fn make(k: u32, l: u32, g: u64, lines: u64) -> Self {
        LineApbf::new(LineApbfShape {
            hashes: k,
            extra_slices: l,
            generation: g,
            lines: Some(lines),
        })
        .unwrap()
    }
    fn theory_fpr(k: u32, l: u32, g: u64, lines: u64) -> f64 {
        LineTheory { k, l, g, lines }.fpr().unwrap()
    }
    fn fpr_at(&self, phase: u64) -> f64 {
        self.theory().fpr_at(phase).unwrap()
    }
    fn fpr_independent(&self, phase: u64) -> f64 {
        self.theory().fpr_independent(phase)
    }
    fn presence_by_shift(&self, phase: u64) -> Vec<f64> {
        self.theory().presence_by_shift(phase).unwrap()
    }
}

#[test]
fn fpr_matches_the_exact_programme() {
    // (k, l, g, L): every lane used, a crowded filter, few slices, high k
    exact_loads::fpr_matches_the_exact_programme::<LineApbf>(&[
        (10, 21, 200, default_lines(10, 200).unwrap()),
        (6, 3, 300, default_lines(6, 300).unwrap() / 2),
        (4, 9, 250, default_lines(4, 250).unwrap()),
        (13, 18, 150, default_lines(13, 150).unwrap()),
    ]);
}

#[test]
fn independent_slices_approximation_is_rejected() {
    // the line loads' variance raises the FPR
    let (k, l, g) = (10, 21, 200);
    exact_loads::independent_slices_approximation_is_rejected::<LineApbf>(
        k,
        l,
        g,
        default_lines(k, g).unwrap(),
    );
}

#[test]
fn presence_in_the_slack_matches_theory() {
    let (k, l, g) = (6u32, 3u32, 200u64);
    exact_loads::presence_in_the_slack_matches_theory::<LineApbf>(
        k,
        l,
        g,
        default_lines(k, g).unwrap() / 2,
    );
}
