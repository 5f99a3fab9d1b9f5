//! One conformance suite, instantiated for every design by a macro, checking
//! what that design promises:
//!
//! | promise | checks |
//! |---|---|
//! | `set` (Bloom, partitioned Bloom) | every inserted key reported up to capacity; FPR at capacity not significantly above its formula; memory exact; bad parameters rejected |
//! | `sliding` (APBF) | every key of age <= w reported over >= 1e6 insertions; worst-phase FPR on never-inserted keys, and on keys older than w + s, not significantly above the bound; memory exact; bad parameters rejected |
//! | `sliding` (blocked APBF) | as for APBF, with the exact blocked theory as the bound, including a filter sized by `with_fpr` (its theory must meet the target) |
//! | `sliding` (jumping window, double buffering, A2 buffering, Forgetful BF) | as for APBF, with each design's own window, slack and worst-phase FPR formula |
//! | `sliding` (Naor-Yogev) | as for APBF, with the paper's promise ε as the FPR bound (its worst-phase FPR is at most ε by construction), including c = 1 (four tag values, a wraparound every 4 generations), m/n = 1/64 (c >= 64), and a table loaded to 0.99 so that displacements and the stash are exercised |
//! | `stable` (Stable Bloom) | no window and no slack: those checks do not apply. Instead: PROCESS reports an element that repeats the previous one (Corollary 1) and every key of age <= Max (no cell can reach 0 in fewer than Max steps), over 1e6 insertions; stable FPR not significantly above (1 - q^Max)^K; memory exact; bad parameters rejected |
//!
//! Every design also answers `contains_many` (batched queries) exactly as
//! `contains`.
//!
//! A design joins by adding one macro invocation; it must say which promise
//! it makes, so no check is skipped silently.

mod common;

use bloomlab_filters::naor_yogev::{NaorYogev, Sizing};
use bloomlab_filters::segmented::{A2Buffer, DoubleBuffer, ForgetfulBloom, JumpingWindow};
use bloomlab_filters::{
    Apbf, BlockedApbf, BloomFilter, Filter, PartitionedBloomFilter, SlidingFilter,
    StableBloomFilter,
};
use common::{assert_rate_at_most, Keys, Rng};

/// Inserts `inserts` distinct keys; after each, checks the keys of age 1 and
/// age w and one random age in the window; every 9973 insertions (a prime, so
/// every phase is visited) checks the whole window.
fn no_false_negatives_in_window<F: SlidingFilter>(mut f: F, inserts: u64) {
    let keys = Keys::new(0xC0FFEE);
    let mut rng = Rng(1);
    let w = f.window();
    assert!(w >= 1);
    for t in 1..=inserts {
        f.insert(keys.stream(t));
        let oldest = w.min(t);
        for age in [1, oldest, rng.range(1, oldest)] {
            assert!(
                f.contains(keys.stream(t + 1 - age)),
                "{}: false negative at age {age} <= w = {w} after {t} insertions",
                f.name()
            );
        }
        if t % 9973 == 0 {
            for age in 1..=oldest {
                assert!(f.contains(keys.stream(t + 1 - age)), "age {age}, t {t}");
            }
        }
    }
}

/// Worst-phase FPR (just before a shift) over 200 filter states, on
/// never-inserted keys and on keys older than w + s.
fn fpr_within_bound<F: SlidingFilter>(mut f: F, bound: f64) {
    let keys = Keys::new(0xBEEF);
    let (w, s, period) = (f.window(), f.slack(), f.period());
    let mut t = 0u64;
    let insert = |f: &mut F, n: u64, t: &mut u64| {
        for _ in 0..n {
            *t += 1;
            f.insert(keys.stream(*t));
        }
    };
    insert(&mut f, (w + s + period).div_ceil(period) * period, &mut t);
    let per_state = ((2000.0 / bound) as u64 / 200).clamp(50, 50_000);
    let (mut fp, mut n, mut efp, mut en, mut neg) = (0, 0, 0, 0, 0);
    let mut rng = Rng(2);
    for _ in 0..200 {
        for _ in 0..per_state {
            neg += 1;
            fp += f.contains(keys.negative(neg)) as u64;
            n += 1;
        }
        // expired: older than w + s, and inserted (t - age + 1 >= 1)
        for _ in 0..50 {
            let age = rng.range(w + s + 1, (w + s + period).min(t));
            efp += f.contains(keys.stream(t + 1 - age)) as u64;
            en += 1;
        }
        insert(&mut f, period, &mut t);
    }
    assert_rate_at_most(&format!("{} FPR", f.name()), fp, n, bound);
    assert_rate_at_most(&format!("{} expired-key FPR", f.name()), efp, en, bound);
}

/// Inserts `capacity` keys, checks each is reported, then measures the FPR.
fn set_promise<F: Filter>(mut f: F, capacity: u64, bound: f64) {
    let keys = Keys::new(0xFEED);
    for t in 1..=capacity {
        f.insert(keys.stream(t));
    }
    for t in 1..=capacity {
        assert!(f.contains(keys.stream(t)), "{}: false negative", f.name());
    }
    let n = ((4000.0 / bound) as u64).clamp(100_000, 5_000_000);
    let fp = (1..=n).filter(|&j| f.contains(keys.negative(j))).count() as u64;
    assert_rate_at_most(&format!("{} FPR", f.name()), fp, n, bound);
}

/// What a Stable Bloom filter promises: keys of age <= Max are reported, and
/// PROCESS answers yes for an immediate repeat; FPR at the stable point.
fn stable_promise(mut f: StableBloomFilter, inserts: u64) {
    let keys = Keys::new(0xD00D);
    let max = f.max_value();
    let t = f.theory();
    for s in 1..=inserts {
        f.insert(keys.stream(s));
        for age in 1..=max.min(s) {
            assert!(
                f.contains(keys.stream(s + 1 - age)),
                "age {age} <= Max lost"
            );
        }
        if s % 1000 == 0 {
            let key = keys.stream(s);
            assert!(f.process(key), "an immediate repeat was not reported");
        }
    }
    let (mut fp, mut n) = (0, 0);
    let warm = 2 * t.steps_to_stable(1e-4);
    let mut s = inserts;
    for round in 0..100u64 {
        let until = if round == 0 { s.max(warm) } else { s + 1000 };
        while s < until {
            s += 1;
            f.insert(keys.stream(s));
        }
        for j in 0..2000 {
            fp += f.contains(keys.negative(round * 2000 + j)) as u64;
            n += 1;
        }
    }
    assert_rate_at_most("stable FPR", fp, n, t.fpr());
}

/// `contains_many` answers exactly as `contains`, over recent, old and
/// never-inserted keys, for batch lengths that do and do not divide evenly.
fn batched_queries_agree<F: Filter>(mut f: F) {
    let keys = Keys::new(0xBA7C);
    for t in 1..=30_000 {
        f.insert(keys.stream(t));
    }
    let queries: Vec<u64> = (1..=3_001)
        .map(|i| {
            if i % 2 == 0 {
                keys.stream(30_001 - 5 * i)
            } else {
                keys.negative(i)
            }
        })
        .collect();
    for len in [0, 1, 15, 16, 17, 3_001] {
        let mut out = vec![false; len];
        f.contains_many(&queries[..len], &mut out);
        for (q, o) in queries[..len].iter().zip(&out) {
            assert_eq!(*o, f.contains(*q), "batch of {len}");
        }
    }
}

macro_rules! conformance {
    (stable $name:ident: $build:expr, bad = [$($bad:expr),* $(,)?]) => {
        mod $name {
            use super::*;
            #[test]
            fn batched_queries_agree_with_contains() {
                batched_queries_agree($build);
            }
            #[test]
            fn recent_keys_reported_and_fpr_within_stable_bound() {
                stable_promise($build, 1_000_000);
            }
            #[test]
            fn memory_reported_exactly() {
                let f = $build;
                assert_eq!(f.memory_bits(), f.m() * f.d() as u64 + 64);
            }
            #[test]
            fn bad_parameters_rejected() {
                $( assert!(($bad).is_err(), "accepted: {}", stringify!($bad)); )*
            }
        }
    };
    (sliding $name:ident: $build:expr, bound = $bound:expr, memory = $mem:expr, bad = [$($bad:expr),* $(,)?]) => {
        mod $name {
            use super::*;
            #[test]
            fn batched_queries_agree_with_contains() {
                batched_queries_agree($build);
            }
            #[test]
            fn no_false_negatives_over_a_million_insertions() {
                no_false_negatives_in_window($build, 1_000_000);
            }
            #[test]
            fn fpr_within_its_bound() {
                let f = $build;
                let bound: f64 = ($bound)(&f);
                fpr_within_bound(f, bound);
            }
            #[test]
            fn memory_reported_exactly() {
                let f = $build;
                let expected: u64 = ($mem)(&f);
                assert_eq!(f.memory_bits(), expected);
            }
            #[test]
            fn bad_parameters_rejected() {
                $( assert!(($bad).is_err(), "accepted: {}", stringify!($bad)); )*
            }
        }
    };
    (set $name:ident: $build:expr, capacity = $cap:expr, bound = $bound:expr,
     memory = $mem:expr, bad = [$($bad:expr),* $(,)?]) => {
        mod $name {
            use super::*;
            #[test]
            fn batched_queries_agree_with_contains() {
                batched_queries_agree($build);
            }
            #[test]
            fn no_false_negatives_and_fpr_within_bound() {
                let f = $build;
                let bound: f64 = ($bound)(&f);
                set_promise(f, $cap, bound);
            }
            #[test]
            fn memory_reported_exactly() {
                let f = $build;
                let expected: u64 = ($mem)(&f);
                assert_eq!(f.memory_bits(), expected);
            }
            #[test]
            fn bad_parameters_rejected() {
                $( assert!(($bad).is_err(), "accepted: {}", stringify!($bad)); )*
            }
        }
    };
}

fn apbf_memory(f: &Apbf) -> u64 {
    (f.k() + f.l()) as u64 * f.m() + 128
}

fn apbf_bound(f: &Apbf) -> f64 {
    f.theory().fpr()
}

conformance!(sliding apbf_k4_l3: Apbf::new(4, 3, 500).unwrap(), bound = apbf_bound,
    memory = apbf_memory,
    bad = [Apbf::new(0, 3, 5), Apbf::new(4, 0, 5), Apbf::new(4, 3, 0),
           Apbf::new(4, 3, u64::MAX), Apbf::with_fpr(100, 0.0), Apbf::with_fpr(100, 1.0)]);
conformance!(sliding apbf_k10_l7: Apbf::new(10, 7, 1000).unwrap(), bound = apbf_bound,
    memory = apbf_memory,
    bad = [Apbf::new(u32::MAX, 2, 5), Apbf::with_fpr(0, 0.1), Apbf::with_fpr_and_l(100, 0.1, 0)]);
conformance!(sliding apbf_k6_l14: Apbf::new(6, 14, 300).unwrap(), bound = apbf_bound,
    memory = apbf_memory,
    bad = [Apbf::with_fpr(100, f64::NAN), Apbf::with_fpr(100, -0.5)]);
conformance!(sliding apbf_k1_l1: Apbf::new(1, 1, 64).unwrap(), bound = apbf_bound,
    memory = apbf_memory,
    bad = [Apbf::new(1, 1, 0)]);
conformance!(sliding apbf_from_fpr: Apbf::with_fpr(5000, 1e-3).unwrap(), bound = apbf_bound,
    memory = apbf_memory,
    bad = [Apbf::with_fpr(5000, 1e-300)]);

fn blocked_memory(f: &BlockedApbf) -> u64 {
    (f.k() + f.l()) as u64 * 64 * f.blocks() + 128
}

fn blocked_bound(f: &BlockedApbf) -> f64 {
    f.theory().fpr().unwrap()
}

conformance!(sliding blocked_apbf_k10_l7: BlockedApbf::with_default_blocks(10, 7, 1000).unwrap(),
    bound = blocked_bound, memory = blocked_memory,
    bad = [BlockedApbf::new(0, 3, 5, 8), BlockedApbf::new(4, 0, 5, 8), BlockedApbf::new(4, 3, 0, 8),
           BlockedApbf::new(4, 3, 5, 0), BlockedApbf::new(40, 30, 5, 8),
           BlockedApbf::new(10, 7, 5, 1 << 40)]);
conformance!(sliding blocked_apbf_k4_l3: BlockedApbf::new(4, 3, 500, 8).unwrap(),
    bound = blocked_bound, memory = blocked_memory,
    bad = [BlockedApbf::with_fpr(0, 0.1), BlockedApbf::with_fpr(100, 0.0)]);
conformance!(sliding blocked_apbf_k1_l1: BlockedApbf::new(1, 1, 64, 2).unwrap(),
    bound = blocked_bound, memory = blocked_memory,
    bad = [BlockedApbf::with_fpr(100, f64::NAN), BlockedApbf::with_fpr(100, 1.0)]);
conformance!(sliding blocked_apbf_from_fpr: BlockedApbf::with_fpr(5000, 1e-3).unwrap(),
    bound = |f: &BlockedApbf| { assert!(blocked_bound(f) <= 1e-3); blocked_bound(f) },
    memory = blocked_memory,
    bad = [BlockedApbf::with_fpr(5000, 1e-12)]);

conformance!(set bloom: BloomFilter::with_fpr(20_000, 0.01).unwrap(),
    capacity = 20_000, bound = |f: &BloomFilter| f.theoretical_fpr(20_000),
    memory = |f: &BloomFilter| f.m(),
    bad = [BloomFilter::new(0, 3), BloomFilter::new(64, 0), BloomFilter::with_fpr(10, 2.0)]);
conformance!(set partitioned_bloom: PartitionedBloomFilter::with_fpr(20_000, 0.001).unwrap(),
    capacity = 20_000, bound = |f: &PartitionedBloomFilter| f.theoretical_fpr(20_000),
    memory = |f: &PartitionedBloomFilter| f.k() as u64 * f.m(),
    bad = [PartitionedBloomFilter::new(0, 3), PartitionedBloomFilter::new(3, 0),
           PartitionedBloomFilter::with_fpr(10, 0.0)]);

conformance!(stable stable_d1: StableBloomFilter::with_fpr_for(10_000, 1, 7, 0.01).unwrap(),
    bad = [StableBloomFilter::new(10, 1, 10, 1), StableBloomFilter::new(10, 0, 2, 1),
           StableBloomFilter::new(10, 17, 2, 1), StableBloomFilter::new(10, 1, 2, 0),
           StableBloomFilter::with_fpr(1000, 1.5)]);
conformance!(stable stable_d3: StableBloomFilter::new(20_000, 3, 4, 30).unwrap(),
    bad = [StableBloomFilter::new(0, 3, 4, 30), StableBloomFilter::with_fpr_for(100, 2, 3, 0.0)]);
conformance!(stable stable_adjacent: StableBloomFilter::new(20_000, 2, 4, 20).unwrap()
        .with_decrement(bloomlab_filters::stable::Decrement::Adjacent),
    bad = [StableBloomFilter::new(100, 2, 4, 101)]);

conformance!(sliding jumping_n4: JumpingWindow::with_fpr(3000, 0.01, 4).unwrap(),
    bound = |f: &JumpingWindow| f.theory_fpr(f.g()),
    memory = |f: &JumpingWindow| f.segments() as u64 * f.k() as u64 * f.m() + 128,
    bad = [JumpingWindow::new(1, 3, 10, 10), JumpingWindow::with_fpr(100, 0.0, 3)]);
conformance!(sliding double_buffer: DoubleBuffer::with_fpr(2000, 0.01).unwrap(),
    bound = |f: &DoubleBuffer| f.theory_fpr(f.g()),
    memory = |f: &DoubleBuffer| 2 * f.k() as u64 * f.m() + 64,
    bad = [DoubleBuffer::new(3, 0, 10), DoubleBuffer::with_fpr(0, 0.1)]);
conformance!(sliding a2_buffer: A2Buffer::with_fpr(2000, 0.01).unwrap(),
    bound = |f: &A2Buffer| f.as_jumping().theory_fpr(f.as_jumping().g()),
    memory = |f: &A2Buffer| 2 * f.as_jumping().k() as u64 * f.as_jumping().m() + 128,
    bad = [A2Buffer::new(0, 10, 10), A2Buffer::with_fpr(10, 1.5)]);
conformance!(sliding forgetful_n3: ForgetfulBloom::with_fpr(3000, 0.01, 3).unwrap(),
    bound = |f: &ForgetfulBloom| f.theory_fpr(f.g()),
    memory = |f: &ForgetfulBloom| (f.past() as u64 + 2) * f.k() as u64 * f.m() + 128,
    bad = [ForgetfulBloom::new(0, 3, 10, 10), ForgetfulBloom::with_fpr(100, 0.01, 20)]);

fn ny_memory(f: &NaorYogev) -> u64 {
    let s = f.sizing();
    s.slots() * s.slot_bits() as u64 + 4 * 64
}

conformance!(sliding naor_yogev_default: NaorYogev::new(3000, 300, 0.01).unwrap(),
    bound = |f: &NaorYogev| f.sizing().eps,
    memory = ny_memory,
    bad = [NaorYogev::new(0, 10, 0.01), NaorYogev::new(100, 0, 0.01), NaorYogev::new(100, 10, 0.0),
           NaorYogev::with_c(100, 10, 0.01, 0), NaorYogev::with_c(100, 10, 0.01, 2),
           NaorYogev::new(1 << 40, 1 << 40, 0.01)]);
conformance!(sliding naor_yogev_c1: NaorYogev::with_c(2000, 2000, 0.05, 1).unwrap(),
    bound = |f: &NaorYogev| f.sizing().eps,
    memory = ny_memory,
    bad = [NaorYogev::with_c(2000, 1000, 0.05, 1)]);
conformance!(sliding naor_yogev_small_slack: NaorYogev::new(6400, 100, 1e-3).unwrap(),
    bound = |f: &NaorYogev| f.sizing().eps,
    memory = ny_memory,
    bad = [NaorYogev::new(6400, 100, f64::NAN)]);
conformance!(sliding naor_yogev_load_099:
    NaorYogev::from_sizing(Sizing::new(3000, 300, 0.01, None, 0.99).unwrap()).unwrap(),
    bound = |f: &NaorYogev| f.sizing().eps,
    // the stash may have grown: its allocation is counted
    memory = |f: &NaorYogev| f.sizing().memory_bits() + f.stash_capacity() as u64 * f.sizing().stash_entry_bits(),
    bad = [Sizing::new(3000, 300, 0.01, None, 1.0)]);
