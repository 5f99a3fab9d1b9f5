//! The broom filter's FPR formula against simulation.
//!
//! By Invariant 7 the stored fingerprints are prefix-free, so the events
//! "p(y) ⊑ h(x)" are disjoint and a fresh key's FPR is exactly
//! Σ_y 2^-L(y) / S (`BroomFilter::fpr_now`); with no adaptivity bits,
//! n / (S·2^r) (`fpr_bound`). Each check uses ≥ 2·10^6 fresh keys at an FPR
//! near 0.1, so a formula 5% off is more than 20 standard errors away.

mod common;

use bloomlab_filters::broom::{BroomFilter, Remote};
use bloomlab_filters::BroomShape;
use common::{assert_rate, Keys};

/// n = 20 000 stream keys in S = 23 000 slots with r = 3 (FPR near 0.1).
fn at_capacity(keys: &Keys, seed: u64) -> (BroomFilter, Remote) {
    let mut f = BroomFilter::new(bloomlab_filters::BroomShape {
        capacity: 20_000,
        slots: 23_000,
        remainder_bits: 3,
        moves_per_adapt: 3,
    })
    .map(|f| f.with_seed(seed))
    .unwrap();
    let mut remote = Remote::new();
    for t in 1..=20_000 {
        f.insert(keys.stream(t), &mut remote).unwrap();
    }
    (f, remote)
}

fn measure(f: &BroomFilter, keys: &Keys, from: u64, n: u64) -> u64 {
    (from..from + n)
        .filter(|&j| f.contains(keys.negative(j)))
        .count() as u64
}

#[test]
fn fpr_at_capacity_without_adaptivity_is_n_over_s_2r() {
    let keys = Keys::new(0xB200);
    let (f, _) = at_capacity(&keys, 1);
    // insertions Extend on collisions, so some elements have adaptivity
    // bits (at r = 3, many); the exact formula counts them, the bound does not
    let exact = f.fpr_now();
    assert!(exact <= f.fpr_bound());
    assert_rate(
        "FPR at capacity",
        measure(&f, &keys, 0, 2_000_000),
        2_000_000,
        exact,
    );
}

#[test]
fn fpr_after_adaptation_matches_the_sum_over_fingerprints() {
    let keys = Keys::new(0xB201);
    let (mut f, mut remote) = at_capacity(&keys, 2);
    // an adversary's fixes: 30 000 false positives, each Extend lowers one
    // element's share of the FPR; the frontier rehashes elements meanwhile
    let mut j = 10_000_000u64;
    let mut fixed = 0;
    while fixed < 30_000 {
        j += 1;
        let x = keys.negative(j);
        if f.contains(x) && f.adapt(x, &mut remote) {
            fixed += 1;
        }
    }
    f.check_invariant(&remote).unwrap();
    let exact = f.fpr_now();
    assert!(
        exact < 0.97 * f.fpr_bound(),
        "adaptation lowered the FPR only to {exact}"
    );
    assert_rate(
        "FPR after adaptation",
        measure(&f, &keys, 0, 2_000_000),
        2_000_000,
        exact,
    );
}

#[test]
fn with_fpr_meets_its_target() {
    for (n, eps) in [(1000, 0.1), (50_000, 0.01), (10_000, 1e-4)] {
        let f = BroomFilter::new(BroomShape::for_fpr(n, eps).unwrap())
            .unwrap()
            .with_seed(3);
        assert!(
            f.fpr_bound() <= eps,
            "n {n}, eps {eps}: bound {}",
            f.fpr_bound()
        );
        assert!(f.fpr_bound() > eps / 2.0, "r one bit too many");
    }
}
