//! The adaptive promise of the broom filter (the `sliding` + `adaptive` row
//! of the suite's table in `main.rs`).

use super::*;
use bloomlab_filters::{BroomShape, Target};

/// What an adaptive filter promises, under the attack it is built for: the
/// window slides (deletions), every yes on a never-inserted key is reported
/// as a false positive, and the last 300 false positives found are replayed
/// after each 50 insertions. Checks: a fixed false positive answers no at once;
/// no key of the window is ever lost (Extend, ghosts and rehashing create no
/// false negative); fresh queries and replays both answer yes no more often
/// than the FPR bound; memory stays exactly accounted as adaptivity bits
/// come and go; the filter's own audit (Invariant 7) passes.
fn adaptive_promise(mut f: Broom, inserts: u64) {
    let keys = Keys::new(0xADA7);
    let w = f.window();
    let bound = f.filter().fpr_bound();
    let mut rng = Rng(3);
    let (mut found, mut neg) = (Vec::new(), 0u64);
    let (mut fresh_yes, mut fresh_n, mut replay_yes, mut replay_n) = (0, 0, 0, 0);
    for t in 1..=inserts {
        f.insert(keys.stream(t));
        neg += 1;
        let x = keys.negative(neg);
        let yes = f.contains(x);
        if t > w {
            fresh_yes += yes as u64;
            fresh_n += 1;
        }
        if yes {
            assert!(f.adapt(x), "a false positive was not taken");
            assert!(!f.contains(x), "a fixed false positive still answers yes");
            found.push(x);
            if found.len() > 300 {
                found.remove(0);
            }
        }
        if t % 50 == 0 {
            for &x in &found {
                let yes = f.contains(x);
                replay_yes += yes as u64;
                replay_n += 1;
                if yes {
                    f.adapt(x);
                }
            }
            let oldest = w.min(t);
            for _ in 0..20 {
                let age = rng.range(1, oldest);
                assert!(
                    f.contains(keys.stream(t + 1 - age)),
                    "false negative at age {age}, t {t}"
                );
            }
        }
        if t % 20_000 == 0 {
            f.filter().check_invariant(f.remote()).unwrap();
            assert_eq!(f.memory_bits(), broom_memory(&f));
        }
    }
    assert_eq!(f.refused(), 0);
    assert!(
        f.adaptivity_bits() > 0 && f.filter().stats().phases >= 1,
        "{:?}",
        f.filter().stats()
    );
    assert_rate_at_most(
        "broom fresh-query FPR under attack",
        fresh_yes,
        fresh_n,
        bound,
    );
    assert_rate_at_most(
        "broom replayed false positives",
        replay_yes,
        replay_n,
        bound,
    );
}

#[test]
fn broom_adaptive_promise() {
    adaptive_promise(
        Target::window(2000)
            .fpr(0.05)
            .seed(4)
            .build::<Broom>()
            .unwrap(),
        200_000,
    );
    // short remainders: many collisions, Extends on insertion and ghosts
    adaptive_promise(
        Broom::from_filter(
            BroomFilter::new(BroomShape {
                capacity: 500,
                slots: 560,
                remainder_bits: 2,
                moves_per_adapt: 3,
            })
            .map(|f| f.with_seed(5))
            .unwrap(),
        ),
        100_000,
    );
}
