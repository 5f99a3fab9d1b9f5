//! The blocked APBF's theory (exact expectation over correlated block loads)
//! against simulation: FPR at the worst and at random phases, P(yes | age) in
//! the slack, and the rejection of the independent-slices approximation (the
//! checks and their statistics: `exact_loads/mod.rs`).

mod common;
mod exact_loads;

use bloomlab_filters::apbf::blocked::{default_blocks, BlockedApbf, BlockedTheory};
use bloomlab_filters::BlockedApbfShape;
use exact_loads::Exact;

impl Exact for BlockedApbf {
    fn make(k: u32, l: u32, g: u64, blocks: u64) -> Self {
        BlockedApbf::new(BlockedApbfShape {
            hashes: k,
            extra_slices: l,
            generation: g,
            blocks: Some(blocks),
        })
        .unwrap()
    }
    fn theory_fpr(k: u32, l: u32, g: u64, blocks: u64) -> f64 {
        BlockedTheory { k, l, g, blocks }.fpr().unwrap()
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
    // (k, l, g, B): the default memory, a crowded filter, a high-accuracy one
    exact_loads::fpr_matches_the_exact_programme::<BlockedApbf>(&[
        (10, 7, 400, default_blocks(10, 400).unwrap()),
        (6, 3, 300, default_blocks(6, 300).unwrap() / 2),
        (4, 9, 250, default_blocks(4, 250).unwrap()),
        (14, 11, 300, default_blocks(14, 300).unwrap()),
    ]);
}

#[test]
fn independent_slices_approximation_is_rejected() {
    // at k = 10 the correlation between slices raises the FPR by a third
    let (k, l, g) = (10, 7, 400);
    exact_loads::independent_slices_approximation_is_rejected::<BlockedApbf>(
        k,
        l,
        g,
        default_blocks(k, g).unwrap(),
    );
}

#[test]
fn presence_in_the_slack_matches_theory() {
    let (k, l, g) = (6u32, 3u32, 200u64);
    exact_loads::presence_in_the_slack_matches_theory::<BlockedApbf>(
        k,
        l,
        g,
        default_blocks(k, g).unwrap() / 2,
    );
}
