//! Unit tests of the broom filter: the table against a model, the invariant
//! under churn, the timing attack, adaptivity bits and the window.

use super::*;
use crate::hash::mix64;
use crate::Filter;

fn keys(salt: u64, n: u64) -> Vec<u64> {
    (0..n)
        .map(|i| mix64(i ^ salt.wrapping_mul(GOLDEN)))
        .collect()
}

/// Inserts, deletes and fixes false positives at random on a small
/// filter with short remainders (many collisions, many Extends, several
/// phases), auditing the invariant and checking for false negatives.
#[test]
fn invariant_holds_and_no_false_negatives_under_churn() {
    let mut f = BroomFilter::new(crate::BroomShape {
        capacity: 200,
        slots: 230,
        remainder_bits: 2,
        moves_per_adapt: 3,
    })
    .map(|f| f.with_seed(9))
    .unwrap();
    let mut remote = Remote::new();
    let pool = keys(1, 400);
    let mut present = std::collections::BTreeSet::new();
    let mut state = 12345u64;
    let mut most_ghosts = 0;
    for step in 0..40_000u64 {
        let x = crate::hash::xorshift64(&mut state);
        let key = pool[(x % pool.len() as u64) as usize];
        match (x >> 32) % 3 {
            0 => {
                if f.insert(key, &mut remote).is_ok() {
                    present.insert(key);
                } else {
                    assert_eq!(f.len(), 200);
                }
            }
            1 => {
                assert_eq!(f.delete(key, &mut remote), present.remove(&key));
            }
            _ => {
                let q = mix64(x) | 1; // odd: never in the pool's keys? not guaranteed, so check
                if !present.contains(&q) && f.contains(q) {
                    assert!(f.adapt(q, &mut remote));
                    assert!(!f.contains(q), "a fixed false positive still answers yes");
                }
            }
        }
        // ghosts fill at most half the spare slots (one more while an
        // insertion is refused), and the filter is empty only when it is
        let spare = f.slots() - f.capacity();
        assert!(
            f.len() + f.ghosts() <= f.slots() - spare / 2 + 1,
            "step {step}"
        );
        assert_eq!(f.is_empty(), present.is_empty());
        most_ghosts = most_ghosts.max(f.ghosts());
        if step % 500 == 0 {
            f.check_invariant(&remote).unwrap();
            for &k in &present {
                assert!(f.contains(k), "false negative at step {step}");
            }
        }
    }
    let s = f.stats();
    assert!(s.fixed > 100 && s.phases >= 2 && s.moved > 1000, "{s:?}");
    // every fix is at least one Extend, and the ghosts forced the frontier
    assert!(s.extends >= s.fixed && s.extends < 40_000, "{s:?}");
    assert!(s.forced > 0 && s.forced < 40_000, "{s:?}");
    assert!(most_ghosts > 0, "no deletion left a ghost");
    assert_eq!(s.unresolved, 0);
}

/// The paper's timing attack: find a false positive x and the element y
/// behind it, then repeat "query x, delete y, insert y". With ghosts, y
/// comes back with its adaptivity bits and x stays fixed.
#[test]
fn ghosts_defeat_the_delete_reinsert_attack() {
    let mut f = BroomFilter::new(crate::BroomShape {
        capacity: 1000,
        slots: 1100,
        remainder_bits: 3,
        moves_per_adapt: 3,
    })
    .map(|f| f.with_seed(5))
    .unwrap();
    let mut remote = Remote::new();
    let members = keys(2, 1000);
    for &k in &members {
        f.insert(k, &mut remote).unwrap();
    }
    let x = keys(3, 100_000)
        .into_iter()
        .find(|&q| f.contains(q))
        .unwrap();
    // the element behind x: delete members until x answers no
    let y = *members
        .iter()
        .find(|&&y| {
            let mut g = f.clone();
            let mut r = remote.clone();
            g.delete(y, &mut r);
            !g.contains(x)
        })
        .unwrap();
    assert!(f.adapt(x, &mut remote));
    for _ in 0..20 {
        assert!(!f.contains(x), "the attack found x again");
        f.delete(y, &mut remote);
        f.insert(y, &mut remote).unwrap();
        assert!(f.contains(y));
    }
    f.check_invariant(&remote).unwrap();
}

/// Adaptivity bits are reclaimed: under a steady stream of fixed false
/// positives the total stays bounded (the frontier retires hash
/// functions), and with no adaptivity the memory is S(r + 5) + 64⌈S/64⌉.
#[test]
fn adaptivity_bits_stay_bounded_and_memory_is_exact() {
    let mut f = BroomFilter::with_fpr(2000, 0.05)
        .map(|f| f.with_seed(7))
        .unwrap();
    let s = f.slots();
    assert_eq!(
        f.memory_bits(),
        s * (f.r() as u64 + 5) + 64 * s.div_ceil(64)
    );
    let mut remote = Remote::new();
    for k in keys(4, 2000) {
        f.insert(k, &mut remote).unwrap();
    }
    let mut peak = 0;
    for (i, q) in keys(5, 400_000).into_iter().enumerate() {
        if f.contains(q) {
            f.adapt(q, &mut remote);
        }
        if i % 1000 == 0 {
            peak = peak.max(f.adaptivity_bits());
        }
    }
    f.check_invariant(&remote).unwrap();
    let st = f.stats();
    assert!(st.phases >= 3, "{st:?}");
    // each phase adds O(n) bits and retires the previous phase's
    assert!(peak < 4 * 2000, "peak {peak} adaptivity bits");
    assert_eq!(
        f.memory_bits(),
        s * (f.r() as u64 + 5) + 64 * s.div_ceil(64) + 2 * f.adaptivity_bits()
    );
}

/// Tiny windows with one spare slot and a skewed stream with repeats:
/// ghosts must be pushed out before an insertion needs their slot (a
/// refused insertion is a false negative). The property test of the
/// conformance suite found this at w = 2.
#[test]
fn tiny_tables_never_refuse_a_window_key() {
    for w in 1..=8u64 {
        let f = BroomFilter::new(crate::BroomShape {
            capacity: w,
            slots: w + 1,
            remainder_bits: 2,
            moves_per_adapt: 3,
        })
        .map(|f| f.with_seed(w))
        .unwrap();
        let mut b = Broom::from_filter(f);
        let mut window = std::collections::VecDeque::new();
        let mut state = 99 + w;
        for t in 0..5000u64 {
            let x = crate::hash::xorshift64(&mut state);
            let k = mix64(x % (1 + x % 12)); // ranks skewed towards 0
            b.insert(k);
            window.push_back(k);
            if window.len() > w as usize {
                window.pop_front();
            }
            let q = mix64(x ^ 0xF00D) | 1 << 63;
            if !window.contains(&q) && b.contains(q) {
                b.adapt(q);
            }
            for &k in &window {
                assert!(b.contains(k), "w {w}: false negative at {t}");
            }
        }
        assert_eq!(b.refused(), 0);
        b.filter().check_invariant(b.remote()).unwrap();
    }
}

#[test]
fn bad_parameters_are_rejected() {
    assert!(BroomFilter::with_fpr(0, 0.01).is_err());
    assert!(BroomFilter::with_fpr(10, 1.0).is_err());
    let ok = crate::BroomShape {
        capacity: 10,
        slots: 20,
        remainder_bits: 4,
        moves_per_adapt: 3,
    };
    assert!(BroomFilter::new(ok).is_ok());
    for bad in [
        crate::BroomShape { slots: 10, ..ok },
        crate::BroomShape {
            remainder_bits: 0,
            ..ok
        },
        crate::BroomShape {
            remainder_bits: 60,
            ..ok
        },
        crate::BroomShape {
            moves_per_adapt: 0,
            ..ok
        },
    ] {
        assert!(BroomFilter::new(bad).is_err(), "{bad:?}");
    }
    // more than MAX_BITS allocated: an error, not an abort
    assert!(BroomFilter::new(crate::BroomShape {
        capacity: 1 << 30,
        slots: 1 << 31,
        remainder_bits: 8,
        moves_per_adapt: 3
    })
    .is_err());
}

#[test]
fn a_full_filter_refuses_with_a_message() {
    let mut f = BroomFilter::with_fpr(16, 0.01)
        .map(|f| f.with_seed(3))
        .unwrap();
    let mut remote = Remote::new();
    for k in keys(9, f.capacity()) {
        f.insert(k, &mut remote).unwrap();
    }
    let err = f.insert(mix64(12345), &mut remote).unwrap_err();
    assert_eq!(err, BroomError::Full);
    assert_eq!(err.to_string(), "broom filter full (capacity reached)");
}

#[test]
fn ghosts_only_for_adapted_elements_and_adapt_only_for_false_positives() {
    let mut f = BroomFilter::with_fpr(64, 0.01)
        .map(|f| f.with_seed(5))
        .unwrap();
    let mut remote = Remote::new();
    assert!(f.is_empty() && f.ghosts() == 0);
    let pool = keys(3, 40);
    for &k in &pool {
        f.insert(k, &mut remote).unwrap();
    }
    assert!(!f.is_empty());
    // no adaptivity bits yet: a deletion leaves no ghost
    assert!(f.delete(pool[0], &mut remote));
    assert_eq!(f.ghosts(), 0);
    // adapt on a member, or on a key answering no, changes nothing
    let before = f.stats();
    assert!(!f.adapt(pool[1], &mut remote));
    let negative = (0..)
        .map(|i| mix64(i ^ 0xABC))
        .find(|&q| !f.contains(q))
        .unwrap();
    assert!(!f.adapt(negative, &mut remote));
    assert_eq!(f.stats(), before);
}

#[test]
fn the_window_counts_insertions_and_stores_its_distinct_keys() {
    let mut f = Broom::with_fpr(500, 0.01).map(|f| f.with_seed(3)).unwrap();
    let mut window = crate::ExactWindow::new(500).unwrap();
    for t in 0..3000u64 {
        let key = mix64(t % 700 + (t % 3) * 5000);
        f.insert(key);
        window.push(key);
        assert_eq!(crate::SlidingFilter::inserted(&f), t + 1);
        let stored = crate::AdaptiveFilter::stored(&f);
        assert_eq!(stored, window.flows().count() as u64, "t {t}");
    }
    assert_eq!(f.name(), "broom");
}

/// The audit the other tests rely on reports a broken state: an element
/// the remote dictionary lost, whose entry the table still holds.
#[test]
fn the_invariant_audit_finds_a_lost_element() {
    let mut f = BroomFilter::with_fpr(200, 0.05)
        .map(|f| f.with_seed(7))
        .unwrap();
    let mut remote = Remote::new();
    for k in 0..150u64 {
        f.insert(mix64(k), &mut remote).unwrap();
    }
    f.check_invariant(&remote).unwrap();
    remote.remove(mix64(3));
    let e = f.check_invariant(&remote).unwrap_err();
    assert!(e.contains("counts"), "{e}");
}
