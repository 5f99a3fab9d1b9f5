//! One conformance suite, instantiated for every design by a macro, checking
//! what that design promises:
//!
//! | promise | checks |
//! |---|---|
//! | `set` (Bloom, partitioned Bloom) | every inserted key reported up to capacity; FPR at capacity not significantly above its formula; memory exact; bad parameters rejected |
//! | `sliding` (APBF) | every key of age <= w reported over >= 1e6 insertions; worst-phase FPR on never-inserted keys, and on keys older than w + s, not significantly above the bound; memory exact; bad parameters rejected |
//! | `sliding` (blocked APBF) | as for APBF, with the exact blocked theory as the bound, including a filter sized by `with_fpr` (its theory must meet the target) |
//! | `sliding` (line APBF) | as for APBF, with its exact theory (the blocked programme on 16-bit lanes) as the bound, at (10, 21), (1, 1) and sized by the builder for 1e-3 (its theory must meet the target) |
//! | `sliding` (jumping window, double buffering, A2 buffering, Forgetful BF) | as for APBF, with each design's own window, slack and worst-phase FPR formula |
//! | `sliding` (Naor-Yogev) | as for APBF, with the paper's promise ε as the FPR bound (its worst-phase FPR is at most ε by construction), including c = 1 (four tag values, a wraparound every 4 generations), m/n = 1/64 (c >= 64), and a table loaded to 0.99 so that displacements and the stash are exercised |
//! | `sliding` (pocket-dictionary Naor-Yogev, `ny_pocket`) | as for Naor-Yogev: ε as the FPR bound, c = 1 (three tag values), m/n = 1/64, and a table loaded to 0.99 so that the stash is exercised |
//! | `conditional` (the Sliding Sketches code's Forgetful filter, which writes a key only when its query answers no) | every key it wrote reported up to age w = (N + 1) g over 1e6 insertions of distinct keys (a key found at its arrival is not promised); worst-phase FPR on never-inserted keys, and on keys older than w + s, not significantly above its theory on new keys (an upper bound: it fills less); every key bit matters; memory exact; bad parameters rejected. Its loss of repeated keys inside the window is a property, not a promise (`segmented::forgetful_code`'s tests) |
//! | `stable` (Stable Bloom) | no window and no slack: those checks do not apply. Instead: PROCESS reports an element that repeats the previous one (Corollary 1) and every key of age <= Max (no cell can reach 0 in fewer than Max steps), over 1e6 insertions; stable FPR not significantly above (1 - q^Max)^K; memory exact; bad parameters rejected |
//!
//! | `sliding` (the Sliding Sketches' sliding Bloom filter, Sl-BF) | as for APBF, with its exact worst-phase theory as the bound: window W, slack W, memory 2 bits per cell and three words; at the sizing of `with_fpr` and with fewer cells than the window (k = 1, m = 20,000 over W = 40,000: the clock sweeps half a cell per insertion) |
//! | `sliding` (the Half Sliding Sketch's HSS-BF, sized by `with_fpr`) | as for APBF, with its exact worst-phase theory as the bound: the guaranteed window ⌊(k - lo - 1)·C/(k - lo)⌋ >= w, slack up to ⌈k·C/(k - lo)⌉, memory one bit per cell and three words |
//! | `sliding` (Clock-sketch's Bloom filter, sized by `with_fpr`, and at the reference code's s = 2 with fewer decrements than insertions) | as for APBF, with its worst-phase theory as the bound (exact in the pointer's schedule, the FPR under the Bloom filter's independence approximation): window W, slack ⌈W/(2^s - 2)⌉, memory s bits per cell and three words |
//! | `sliding` (SHE's Bloom filter, SHE-BF, sized by `with_fpr`, and at the reference code's groups of 64 and α) | as for APBF, with its worst-phase theory as the bound (exact in the groups' schedule, the FPR under the Bloom filter's independence approximation): window W, slack P - W, memory a bit per cell and per group and one word |
//! | `clock` (the HSS-BF at settings that guarantee less than its cycle C: the paper's lo = k - 1, and a clock clearing two cells per insertion) | at 300 moments of random phase, the share of 50 keys of ages in 1..=C answered no, less the exact FNR of that moment, has mean 0; every key of the guaranteed window reported; worst-phase FPR on never-inserted and expired keys not significantly above its theory; memory exact; bad parameters rejected |
//! | `sliding` (SWAMP, timing Bloom filter, SWBF) | as for APBF, with the exact FPR 1 - (1 - 2^-L)^w, (1 - (1 - 1/s)^w)^k and the SWBF orbit formula as bounds; plus, by property test, no false negative on streams with repeats (the refresh and counting paths) for windows 1..64 over 40 windows, so the b-bit timestamps wrap around about 20 times |
//! | `sliding` + `adaptive` (broom filter over a window: insert, delete the key leaving the window) | as for APBF, with the exact FPR n/(S·2^r) as the bound and memory S(r + 5) + 64⌈S/64⌉ + 2A; plus, under an attack that reports every false positive and replays the last 300 found: a fixed false positive answers no at once, no key of the window is lost, fresh and replayed queries answer yes no more often than the bound, memory stays exact and Invariant 7 holds; and by property test no false negative on streams with repeats |
//! | `timed` (APBF with time or hybrid generations; jumping window and double buffering with time generations; timing Bloom filter with a clock of time quanta; the Sl-BF, the HSS-BF and Clock-sketch's filter swept on a clock of time; SHE's filter with phases of time; the time-limited Bloom filter) | over 200 000 insertions at random times (bursts, steady traffic, lulls of several generations), every key inside the design's guarantee reported (time: age < T; hybrid: ⌊age/τ⌋ + ⌊later insertions/g⌋ < l); nothing left after a lull of T plus the slack (but SHE over time, whose 1-bit stamps bring keys back after a lull of two phases: tested in `she::timed`); at a steady g keys per τ the FPR not significantly above the count-based worst-phase F (for the TBF, its FPR at the most keys a window holds at that rate); memory exact; bad parameters rejected |
//! | `frequency` (SWAMP, WCSS, exact window) | by property test over skewed streams with repeats: the frequency estimate is never below the true window frequency; WCSS also stays within εW above it; SWAMP's DistinctLB never exceeds the true distinct count and its entropy never exceeds the true entropy |
//!
//! Every design also answers `contains_many` (batched queries) exactly as
//! `contains`, and takes the prefetch hints (`prefetch_insert`,
//! `prefetch_query`) for any key without a panic or a moved answer.
//!
//! A design joins by adding one macro invocation; it must say which promise
//! it makes, so no check is skipped silently.

#[path = "../common/mod.rs"]
mod common;

use bloomlab_filters::clock_sketch::ClockBloom;
use bloomlab_filters::half_sliding::HalfSliding;
use bloomlab_filters::naor_yogev::{NaorYogev, Sizing};
use bloomlab_filters::ny_pocket::{self, NyPocket};
use bloomlab_filters::segmented::{
    A2Buffer, DoubleBuffer, ForgetfulBloom, ForgetfulCode, JumpingWindow,
};
use bloomlab_filters::she::SheBloom;
use bloomlab_filters::sliding_sketch::SlidingBloom;
use bloomlab_filters::swamp::{table, theory as swamp_theory};
use bloomlab_filters::{
    A2BufferShape, ApbfShape, BlockedApbfShape, BloomShape, BroomShape, ClockBloomShape,
    DoubleBufferShape, ForgetfulBloomShape, HalfSlidingShape, JumpingWindowShape, NaorYogevShape,
    NyPocketShape, PartitionedBloomShape, SheBloomShape, SlidingBloomShape, StableShape,
    SwampShape, SwbfShape, Target, TimingBloomShape,
};
use bloomlab_filters::{
    AdaptiveFilter, Apbf, BlockedApbf, BloomFilter, Broom, BroomFilter, DistinctEstimator,
    EntropyEstimator, ExactWindow, Filter, FrequencyEstimator, LineApbf, LineApbfShape,
    PartitionedBloomFilter, SlidingFilter, StableBloomFilter, Swamp, Swbf, TimingBloom, Wcss,
    WindowSummary,
};
use common::{assert_mean, assert_rate_at_most, within, Keys, Rng, DEADLINE_SECS};
use proptest::prelude::*;

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
            // the insertion count the filter reports (found untested by
            // cargo mutants)
            assert_eq!(f.inserted(), t, "{}: inserted()", f.name());
        }
    }
    assert_eq!(f.inserted(), inserts, "{}: inserted()", f.name());
}

/// The Sliding Sketches code's Forgetful filter, over `inserts` distinct
/// keys: every key it wrote (its query at arrival said no) is reported at
/// age 1, at the oldest age of the window and at a random one, after every
/// insertion, and at every age of the window every 9973 insertions.
fn written_keys_kept_in_window(mut f: ForgetfulCode, inserts: u64) {
    let keys = Keys::new(0xC0DE);
    let mut rng = Rng(4);
    let w = f.window();
    let mut written = vec![false; inserts as usize + 1];
    for t in 1..=inserts {
        written[t as usize] = f.insert_if_absent(keys.stream(t));
        let oldest = w.min(t);
        let check = |age: u64| {
            let at = t + 1 - age;
            assert!(
                !written[at as usize] || f.contains(keys.stream(at)),
                "forgetful_code: written key lost at age {age} <= w = {w} after {t} insertions"
            );
        };
        for age in [1, oldest, rng.range(1, oldest)] {
            check(age);
        }
        if t % 9973 == 0 {
            (1..=oldest).for_each(check);
        }
    }
    let kept = written.iter().filter(|&&x| x).count() as u64;
    assert!(kept > inserts * 9 / 10, "only {kept} of {inserts} written");
    assert_eq!(f.inserted(), inserts);
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
        // expired: older than w + s, and inserted (t - age + 1 >= 1); at
        // least 50 distinct ages, so that designs with period 1 do not query
        // one key 50 times
        for _ in 0..50 {
            let age = rng.range(w + s + 1, (w + s + period.max(50)).min(t));
            efp += f.contains(keys.stream(t + 1 - age)) as u64;
            en += 1;
        }
        // whole periods (the worst phase), at least 50 insertions so that
        // the expired keys of consecutive states differ
        insert(&mut f, 50u64.div_ceil(period) * period, &mut t);
    }
    assert_rate_at_most(&format!("{} FPR", f.name()), fp, n, bound);
    assert_rate_at_most(&format!("{} expired-key FPR", f.name()), efp, en, bound);
}

/// Every bit of a key matters: after `fill` insertions, each of (up to 1000
/// of) the inserted keys with any one of its 64 bits flipped is a
/// never-inserted key, reported at no more than the FPR bound. A design that
/// derived its indices from part of the key (say its low 32 bits) would
/// report the flipped keys of the other bits as present.
fn every_key_bit_matters<F: Filter>(mut f: F, fill: u64, bound: f64) {
    let keys = Keys::new(0xB175);
    for t in 1..=fill {
        f.insert(keys.stream(t));
    }
    let (mut fp, mut n) = (0u64, 0u64);
    let mut per_bit = [0u64; 64];
    for t in fill.saturating_sub(999).max(1)..=fill {
        for (b, hits) in per_bit.iter_mut().enumerate() {
            let yes = f.contains(keys.stream(t) ^ (1 << b));
            fp += yes as u64;
            *hits += yes as u64;
            n += 1;
        }
    }
    let worst = (0..64).max_by_key(|&b| per_bit[b]).unwrap_or(0);
    assert_rate_at_most(
        &format!(
            "{} FPR of keys one bit away (most at bit {worst}: {})",
            f.name(),
            per_bit[worst]
        ),
        fp,
        n,
        bound,
    );
}

/// An HSS-BF that guarantees no window (the paper's lo = k - 1): at 300
/// moments of random phase, the share of 50 keys of distinct ages in
/// 1..=C (the cycle) answered no, less the exact FNR of that moment, has
/// mean 0; every key younger than its guaranteed window is reported.
fn clock_loss_promise(mut f: HalfSliding) {
    let keys = Keys::new(0x1055);
    let th = f.theory();
    let (c, g) = (th.cycle, f.window());
    let mut rng = Rng(3);
    let mut t = 0u64;
    let step = |f: &mut HalfSliding, n: u64, t: &mut u64| {
        for _ in 0..n {
            *t += 1;
            f.insert(keys.stream(*t));
        }
    };
    step(&mut f, 2 * th.longest(), &mut t);
    let mut diffs = Vec::new();
    for _ in 0..300 {
        step(&mut f, rng.range(1, th.period()), &mut t);
        let offset = rng.range(0, c - 1);
        let lost = (0..50)
            .map(|i| 1 + (offset + i * c / 50) % c)
            .filter(|&age| !f.contains(keys.stream(t + 1 - age)))
            .count();
        diffs.push(lost as f64 / 50.0 - th.fnr_at(t, c));
        for age in 1..=g {
            assert!(f.contains(keys.stream(t + 1 - age)), "age {age} <= {g}");
        }
    }
    assert_mean("HSS-BF FNR inside the cycle, less its theory", &diffs, 0.0);
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
/// never-inserted keys, for batch lengths that do and do not divide evenly;
/// and so does `counted_lines`, where the design counts its lines; the
/// prefetch hints panic on no key and move no answer.
fn batched_queries_agree<F: bloomlab_filters::Instrumented>(mut f: F) {
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
    for &q in &queries {
        if let Some((yes, lines)) = f.counted_lines(q) {
            assert_eq!(yes, f.contains(q), "counted_lines answers as contains");
            assert!(lines <= 4096, "{lines} lines for one query");
        }
    }
    // the prefetch hints: no panic on any key, and no answer moved
    let before: Vec<bool> = queries.iter().map(|&q| f.contains(q)).collect();
    for &q in queries.iter().chain(&[0, u64::MAX]) {
        f.prefetch_insert(q);
        f.prefetch_query(q);
    }
    let after: Vec<bool> = queries.iter().map(|&q| f.contains(q)).collect();
    assert_eq!(before, after, "a prefetch hint changed an answer");
    for len in [0, 1, 15, 16, 17, 3_001] {
        let mut out = vec![false; len];
        f.contains_many(&queries[..len], &mut out);
        for (q, o) in queries[..len].iter().zip(&out) {
            assert_eq!(*o, f.contains(*q), "batch of {len}");
        }
    }
}

macro_rules! conformance {
    (timed $name:ident: $build:expr, guarantee = $rule:expr, scales = $scales:expr, bound = $bound:expr, memory = $mem:expr, bad = [$($bad:expr),* $(,)?]) => {
        mod $name {
            use super::*;
            #[test]
            fn batched_queries_agree_with_contains() {
                within(DEADLINE_SECS, || batched_queries_agree($build));
            }
            #[test]
            fn keys_in_the_time_window_reported_and_fpr_within_bound() {
                let f = $build;
                let rule = ($rule)(&f);
                let bound = ($bound)(&f);
                let scales = ($scales)(&f);
                within(DEADLINE_SECS, move || time_promise(f, rule, scales, bound));
            }
            #[test]
            fn memory_reported_exactly() {
                let f = $build;
                assert_eq!(f.memory_bits(), ($mem)(&f));
            }
            #[test]
            fn bad_parameters_rejected() {
                $( assert!(($bad).is_err(), "accepted: {}", stringify!($bad)); )*
            }
        }
    };
    (stable $name:ident: $build:expr, bad = [$($bad:expr),* $(,)?]) => {
        mod $name {
            use super::*;
            #[test]
            fn batched_queries_agree_with_contains() {
                within(DEADLINE_SECS, || batched_queries_agree($build));
            }
            #[test]
            fn recent_keys_reported_and_fpr_within_stable_bound() {
                within(DEADLINE_SECS, || stable_promise($build, 1_000_000));
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
        conformance!(@windowed $name: $build,
            no_false_negatives_over_a_million_insertions = no_false_negatives_in_window,
            bound = $bound, memory = $mem, bad = [$($bad),*]);
    };
    (conditional $name:ident: $build:expr, bound = $bound:expr, memory = $mem:expr, bad = [$($bad:expr),* $(,)?]) => {
        conformance!(@windowed $name: $build,
            written_keys_kept_over_a_million_insertions = written_keys_kept_in_window,
            bound = $bound, memory = $mem, bad = [$($bad),*]);
    };
    // the `sliding` and `conditional` arms: what a window promises its keys
    // (`$check` over a million insertions, as test `$test`), then the same
    // FPR, key-bit, memory and parameter checks
    (@windowed $name:ident: $build:expr, $test:ident = $check:ident, bound = $bound:expr, memory = $mem:expr, bad = [$($bad:expr),* $(,)?]) => {
        mod $name {
            use super::*;
            #[test]
            fn batched_queries_agree_with_contains() {
                within(DEADLINE_SECS, || batched_queries_agree($build));
            }
            #[test]
            fn $test() {
                within(DEADLINE_SECS, || $check($build, 1_000_000));
            }
            #[test]
            fn fpr_within_its_bound() {
                within(DEADLINE_SECS, || {
                    let f = $build;
                    let bound: f64 = ($bound)(&f);
                    fpr_within_bound(f, bound);
                });
            }
            #[test]
            fn every_key_bit_matters() {
                within(DEADLINE_SECS, || {
                    let f = $build;
                    let bound: f64 = ($bound)(&f);
                    let fill = f.window();
                    super::every_key_bit_matters(f, fill, bound);
                });
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
    (clock $name:ident: $build:expr, bad = [$($bad:expr),* $(,)?]) => {
        mod $name {
            use super::*;
            #[test]
            fn batched_queries_agree_with_contains() {
                within(DEADLINE_SECS, || batched_queries_agree($build));
            }
            #[test]
            fn keys_lost_at_the_theory_rate() {
                within(DEADLINE_SECS, || clock_loss_promise($build));
            }
            #[test]
            fn fpr_within_its_bound() {
                within(DEADLINE_SECS, || {
                    let f = $build;
                    let bound = f.theory().fpr();
                    fpr_within_bound(f, bound);
                });
            }
            #[test]
            fn memory_reported_exactly() {
                let f = $build;
                assert_eq!(f.memory_bits(), f.k() as u64 * f.m() + 3 * 64);
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
                within(DEADLINE_SECS, || batched_queries_agree($build));
            }
            #[test]
            fn no_false_negatives_and_fpr_within_bound() {
                within(DEADLINE_SECS, || {
                    let f = $build;
                    let bound: f64 = ($bound)(&f);
                    set_promise(f, $cap, bound);
                });
            }
            #[test]
            fn every_key_bit_matters() {
                within(DEADLINE_SECS, || {
                    let f = $build;
                    let bound: f64 = ($bound)(&f);
                    super::every_key_bit_matters(f, $cap, bound);
                });
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

conformance!(sliding apbf_k4_l3: Apbf::new(ApbfShape { hashes: 4, extra_slices: 3, generation: 500 }).unwrap(), bound = apbf_bound,
    memory = apbf_memory,
    bad = [Apbf::new(ApbfShape { hashes: 0, extra_slices: 3, generation: 5 }), Apbf::new(ApbfShape { hashes: 4, extra_slices: 0, generation: 5 }), Apbf::new(ApbfShape { hashes: 4, extra_slices: 3, generation: 0 }),
           Apbf::new(ApbfShape { hashes: 4, extra_slices: 3, generation: u64::MAX }), Target::window(100).fpr(0.0).build::<Apbf>(), Target::window(100).fpr(1.0).build::<Apbf>()]);
conformance!(sliding apbf_k10_l7: Apbf::new(ApbfShape { hashes: 10, extra_slices: 7, generation: 1000 }).unwrap(), bound = apbf_bound,
    memory = apbf_memory,
    bad = [Apbf::new(ApbfShape { hashes: u32::MAX, extra_slices: 2, generation: 5 }), Target::window(0).fpr(0.1).build::<Apbf>(), Target::window(100).fpr(0.1).extra_slices(0).build::<Apbf>()]);
conformance!(sliding apbf_k6_l14: Apbf::new(ApbfShape { hashes: 6, extra_slices: 14, generation: 300 }).unwrap(), bound = apbf_bound,
    memory = apbf_memory,
    bad = [Target::window(100).fpr(f64::NAN).build::<Apbf>(), Target::window(100).fpr(-0.5).build::<Apbf>()]);
conformance!(sliding apbf_k1_l1: Apbf::new(ApbfShape { hashes: 1, extra_slices: 1, generation: 64 }).unwrap(), bound = apbf_bound,
    memory = apbf_memory,
    bad = [Apbf::new(ApbfShape { hashes: 1, extra_slices: 1, generation: 0 })]);
conformance!(sliding apbf_from_fpr: Target::window(5000).fpr(1e-3).build::<Apbf>().unwrap(), bound = apbf_bound,
    memory = apbf_memory,
    bad = [Target::window(5000).fpr(1e-300).build::<Apbf>()]);

fn blocked_memory(f: &BlockedApbf) -> u64 {
    (f.k() + f.l()) as u64 * 64 * f.blocks() + 128
}

fn blocked_bound(f: &BlockedApbf) -> f64 {
    f.theory().fpr().unwrap()
}

conformance!(sliding blocked_apbf_k10_l7: BlockedApbf::new(BlockedApbfShape { hashes: 10, extra_slices: 7, generation: 1000, blocks: None }).unwrap(),
    bound = blocked_bound, memory = blocked_memory,
    bad = [BlockedApbf::new(BlockedApbfShape { hashes: 0, extra_slices: 3, generation: 5, blocks: Some(8) }), BlockedApbf::new(BlockedApbfShape { hashes: 4, extra_slices: 0, generation: 5, blocks: Some(8) }), BlockedApbf::new(BlockedApbfShape { hashes: 4, extra_slices: 3, generation: 0, blocks: Some(8) }),
           BlockedApbf::new(BlockedApbfShape { hashes: 4, extra_slices: 3, generation: 5, blocks: Some(0) }), BlockedApbf::new(BlockedApbfShape { hashes: 40, extra_slices: 30, generation: 5, blocks: Some(8) }),
           BlockedApbf::new(BlockedApbfShape { hashes: 10, extra_slices: 7, generation: 5, blocks: Some(1 << 40) })]);
conformance!(sliding blocked_apbf_k4_l3: BlockedApbf::new(BlockedApbfShape { hashes: 4, extra_slices: 3, generation: 500, blocks: Some(8) }).unwrap(),
    bound = blocked_bound, memory = blocked_memory,
    bad = [Target::window(0).fpr(0.1).build::<BlockedApbf>(), Target::window(100).fpr(0.0).build::<BlockedApbf>()]);
conformance!(sliding blocked_apbf_k1_l1: BlockedApbf::new(BlockedApbfShape { hashes: 1, extra_slices: 1, generation: 64, blocks: Some(2) }).unwrap(),
    bound = blocked_bound, memory = blocked_memory,
    bad = [Target::window(100).fpr(f64::NAN).build::<BlockedApbf>(), Target::window(100).fpr(1.0).build::<BlockedApbf>()]);
conformance!(sliding blocked_apbf_from_fpr: Target::window(5000).fpr(1e-3).build::<BlockedApbf>().unwrap(),
    bound = |f: &BlockedApbf| { assert!(blocked_bound(f) <= 1e-3); blocked_bound(f) },
    memory = blocked_memory,
    bad = [Target::window(5000).fpr(1e-12).build::<BlockedApbf>()]);

fn line_memory(f: &LineApbf) -> u64 {
    512 * f.line_count() + 3 * 64
}

fn line_bound(f: &LineApbf) -> f64 {
    f.theory().fpr().unwrap()
}

conformance!(sliding line_apbf_k10_l21: LineApbf::new(LineApbfShape { hashes: 10, extra_slices: 21, generation: 300, lines: None }).unwrap(),
    bound = line_bound, memory = line_memory,
    bad = [LineApbf::new(LineApbfShape { hashes: 0, extra_slices: 3, generation: 5, lines: Some(8) }), LineApbf::new(LineApbfShape { hashes: 4, extra_slices: 0, generation: 5, lines: Some(8) }), LineApbf::new(LineApbfShape { hashes: 4, extra_slices: 3, generation: 0, lines: Some(8) }),
           LineApbf::new(LineApbfShape { hashes: 4, extra_slices: 3, generation: 5, lines: Some(0) }), LineApbf::new(LineApbfShape { hashes: 20, extra_slices: 12, generation: 5, lines: Some(8) }),
           LineApbf::new(LineApbfShape { hashes: 10, extra_slices: 7, generation: 5, lines: Some(1 << 40) })]);
conformance!(sliding line_apbf_k1_l1: LineApbf::new(LineApbfShape { hashes: 1, extra_slices: 1, generation: 64, lines: Some(2) }).unwrap(),
    bound = line_bound, memory = line_memory,
    bad = [Target::window(100).fpr(f64::NAN).build::<LineApbf>(), Target::window(100).fpr(1.0).build::<LineApbf>(), Target::window(0).fpr(0.1).build::<LineApbf>()]);
conformance!(sliding line_apbf_from_fpr: Target::window(5000).fpr(1e-3).build::<LineApbf>().unwrap(),
    bound = |f: &LineApbf| { assert!(line_bound(f) <= 1e-3); line_bound(f) },
    memory = line_memory,
    bad = [Target::window(5000).fpr(1e-300).build::<LineApbf>()]);

conformance!(set bloom: Target::window(20_000).fpr(0.01).build::<BloomFilter>().unwrap(),
    capacity = 20_000, bound = |f: &BloomFilter| f.theoretical_fpr(20_000),
    memory = |f: &BloomFilter| f.m(),
    bad = [BloomFilter::new(BloomShape { bits: 0, hashes: 3 }), BloomFilter::new(BloomShape { bits: 64, hashes: 0 }), Target::window(10).fpr(2.0).build::<BloomFilter>()]);
conformance!(set partitioned_bloom: Target::window(20_000).fpr(0.001).build::<PartitionedBloomFilter>().unwrap(),
    capacity = 20_000, bound = |f: &PartitionedBloomFilter| f.theoretical_fpr(20_000),
    memory = |f: &PartitionedBloomFilter| f.k() as u64 * f.m(),
    bad = [PartitionedBloomFilter::new(PartitionedBloomShape { hashes: 0, bits_per_slice: 3 }), PartitionedBloomFilter::new(PartitionedBloomShape { hashes: 3, bits_per_slice: 0 }),
           Target::window(10).fpr(0.0).build::<PartitionedBloomFilter>()]);

conformance!(stable stable_d1: Target::memory(10_000).cell_bits(1).hashes(7).fpr(0.01).build::<StableBloomFilter>().unwrap(),
    bad = [StableBloomFilter::new(StableShape { cells: 10, cell_bits: 1, hashes: 10, decrements: 1 }), StableBloomFilter::new(StableShape { cells: 10, cell_bits: 0, hashes: 2, decrements: 1 }),
           StableBloomFilter::new(StableShape { cells: 10, cell_bits: 17, hashes: 2, decrements: 1 }), StableBloomFilter::new(StableShape { cells: 10, cell_bits: 1, hashes: 2, decrements: 0 }),
           Target::memory(1000).fpr(1.5).build::<StableBloomFilter>()]);
conformance!(stable stable_d3: StableBloomFilter::new(StableShape { cells: 20_000, cell_bits: 3, hashes: 4, decrements: 30 }).unwrap(),
    bad = [StableBloomFilter::new(StableShape { cells: 0, cell_bits: 3, hashes: 4, decrements: 30 }), Target::memory(200).cell_bits(2).hashes(3).fpr(0.0).build::<StableBloomFilter>()]);
conformance!(stable stable_adjacent: StableBloomFilter::new(StableShape { cells: 20_000, cell_bits: 2, hashes: 4, decrements: 20 }).unwrap()
        .with_decrement(bloomlab_filters::stable::Decrement::Adjacent),
    bad = [StableBloomFilter::new(StableShape { cells: 100, cell_bits: 2, hashes: 4, decrements: 101 })]);

conformance!(sliding jumping_n4: Target::window(3000).fpr(0.01).segments(4).build::<JumpingWindow>().unwrap(),
    bound = |f: &JumpingWindow| f.theory_fpr(f.g()),
    memory = |f: &JumpingWindow| f.segments() as u64 * f.k() as u64 * f.m() + 128,
    bad = [JumpingWindow::new(JumpingWindowShape { segments: 1, hashes: 3, generation: 10, bits_per_slice: 10 }), Target::window(100).fpr(0.0).segments(3).build::<JumpingWindow>()]);
conformance!(sliding double_buffer: Target::window(2000).fpr(0.01).build::<DoubleBuffer>().unwrap(),
    bound = |f: &DoubleBuffer| f.theory_fpr(f.g()),
    memory = |f: &DoubleBuffer| 2 * f.k() as u64 * f.m() + 64,
    bad = [DoubleBuffer::new(DoubleBufferShape { hashes: 3, generation: 0, bits_per_slice: 10 }), Target::window(0).fpr(0.1).build::<DoubleBuffer>()]);
conformance!(sliding a2_buffer: Target::window(2000).fpr(0.01).build::<A2Buffer>().unwrap(),
    bound = |f: &A2Buffer| f.as_jumping().theory_fpr(f.as_jumping().g()),
    memory = |f: &A2Buffer| 2 * f.as_jumping().k() as u64 * f.as_jumping().m() + 128,
    bad = [A2Buffer::new(A2BufferShape { hashes: 0, generation: 10, bits_per_slice: 10 }), Target::window(10).fpr(1.5).build::<A2Buffer>()]);
conformance!(sliding forgetful_n3: Target::window(3000).fpr(0.01).past(3).build::<ForgetfulBloom>().unwrap(),
    bound = |f: &ForgetfulBloom| f.theory_fpr(f.g()),
    memory = |f: &ForgetfulBloom| (f.past() as u64 + 2) * f.k() as u64 * f.m() + 128,
    bad = [ForgetfulBloom::new(ForgetfulBloomShape { past_filters: 0, hashes: 3, generation: 10, bits_per_slice: 10 }), Target::window(100).fpr(0.01).past(20).build::<ForgetfulBloom>()]);

conformance!(conditional forgetful_code_n8: Target::window(3000).fpr(0.01).past(8).build::<ForgetfulCode>().unwrap(),
    bound = |f: &ForgetfulCode| f.theory_fpr(f.g()),
    memory = |f: &ForgetfulCode| (f.past() as u64 + 2) * f.k() as u64 * f.m() + 128,
    bad = [ForgetfulCode::new(ForgetfulBloomShape { past_filters: 0, hashes: 3, generation: 10, bits_per_slice: 10 }), Target::window(100).fpr(0.01).past(20).build::<ForgetfulCode>()]);

fn ny_memory(f: &NaorYogev) -> u64 {
    let s = f.sizing();
    s.slots() * s.slot_bits() as u64 + 4 * 64
}

conformance!(sliding naor_yogev_default: NaorYogev::new(NaorYogevShape { window: 3000, slack: 300, fpr: 0.01, generations: None, max_load: None }).unwrap(),
    bound = |f: &NaorYogev| f.sizing().eps,
    memory = ny_memory,
    bad = [NaorYogev::new(NaorYogevShape { window: 0, slack: 10, fpr: 0.01, generations: None, max_load: None }), NaorYogev::new(NaorYogevShape { window: 100, slack: 0, fpr: 0.01, generations: None, max_load: None }), NaorYogev::new(NaorYogevShape { window: 100, slack: 10, fpr: 0.0, generations: None, max_load: None }),
           NaorYogev::new(NaorYogevShape { window: 100, slack: 10, fpr: 0.01, generations: Some(0), max_load: None }), NaorYogev::new(NaorYogevShape { window: 100, slack: 10, fpr: 0.01, generations: Some(2), max_load: None }),
           NaorYogev::new(NaorYogevShape { window: 1 << 40, slack: 1 << 40, fpr: 0.01, generations: None, max_load: None })]);
conformance!(sliding naor_yogev_c1: NaorYogev::new(NaorYogevShape { window: 2000, slack: 2000, fpr: 0.05, generations: Some(1), max_load: None }).unwrap(),
    bound = |f: &NaorYogev| f.sizing().eps,
    memory = ny_memory,
    bad = [NaorYogev::new(NaorYogevShape { window: 2000, slack: 1000, fpr: 0.05, generations: Some(1), max_load: None })]);
conformance!(sliding naor_yogev_small_slack: NaorYogev::new(NaorYogevShape { window: 6400, slack: 100, fpr: 1e-3, generations: None, max_load: None }).unwrap(),
    bound = |f: &NaorYogev| f.sizing().eps,
    memory = ny_memory,
    bad = [NaorYogev::new(NaorYogevShape { window: 6400, slack: 100, fpr: f64::NAN, generations: None, max_load: None })]);
conformance!(sliding naor_yogev_load_099:
    NaorYogev::new(NaorYogevShape { window: 3000, slack: 300, fpr: 0.01, generations: None, max_load: Some(0.99) }).unwrap(),
    bound = |f: &NaorYogev| f.sizing().eps,
    // the stash may have grown: its allocation is counted
    memory = |f: &NaorYogev| f.sizing().memory_bits() + f.stash_capacity() as u64 * f.sizing().stash_entry_bits(),
    bad = [Sizing::new(3000, 300, 0.01, None, 1.0)]);

fn ny_pocket_memory(f: &NyPocket) -> u64 {
    let s = f.sizing();
    // blocks of 128 + C(r + t) bits, whole words plus a padding word, and six
    // words of state
    ((s.blocks * (128 + s.slots_per_block as u64 * (s.remainder_bits + s.tag_bits) as u64))
        .div_ceil(64)
        + 1
        + 6)
        * 64
}

conformance!(sliding ny_pocket_default: NyPocket::new(NyPocketShape { window: 3000, slack: 300, fpr: 0.01, generations: None, max_load: None }).unwrap(),
    bound = |f: &NyPocket| f.sizing().eps,
    memory = ny_pocket_memory,
    bad = [NyPocket::new(NyPocketShape { window: 0, slack: 10, fpr: 0.01, generations: None, max_load: None }), NyPocket::new(NyPocketShape { window: 100, slack: 0, fpr: 0.01, generations: None, max_load: None }), NyPocket::new(NyPocketShape { window: 100, slack: 10, fpr: 0.0, generations: None, max_load: None }),
           NyPocket::new(NyPocketShape { window: 100, slack: 10, fpr: 0.01, generations: Some(0), max_load: None }), NyPocket::new(NyPocketShape { window: 100, slack: 10, fpr: 0.01, generations: Some(2), max_load: None }),
           NyPocket::new(NyPocketShape { window: 1 << 40, slack: 1 << 40, fpr: 0.01, generations: None, max_load: None })]);
conformance!(sliding ny_pocket_c1: NyPocket::new(NyPocketShape { window: 2000, slack: 2000, fpr: 0.05, generations: Some(1), max_load: None }).unwrap(),
    bound = |f: &NyPocket| f.sizing().eps,
    memory = ny_pocket_memory,
    bad = [NyPocket::new(NyPocketShape { window: 2000, slack: 1000, fpr: 0.05, generations: Some(1), max_load: None })]);
conformance!(sliding ny_pocket_small_slack: NyPocket::new(NyPocketShape { window: 6400, slack: 100, fpr: 1e-3, generations: None, max_load: None }).unwrap(),
    bound = |f: &NyPocket| f.sizing().eps,
    memory = ny_pocket_memory,
    bad = [NyPocket::new(NyPocketShape { window: 6400, slack: 100, fpr: f64::NAN, generations: None, max_load: None })]);
conformance!(sliding ny_pocket_load_099:
    NyPocket::new(NyPocketShape { window: 3000, slack: 300, fpr: 0.01, generations: None, max_load: Some(0.99) }).unwrap(),
    bound = |f: &NyPocket| f.sizing().eps,
    // the stash may have grown: its allocation is counted
    memory = |f: &NyPocket| ny_pocket_memory(f) + f.stash_capacity() as u64 * 128,
    bad = [ny_pocket::Sizing::new(3000, 300, 0.01, None, 1.0)]);

fn swamp_memory(f: &Swamp) -> u64 {
    let t = f.table();
    // no flow repeats in a distinct stream: no overflow entries
    assert_eq!(t.overflow_len() + t.stash_len(), 0);
    f.window() * f.fingerprint_bits() as u64 + t.slots() * t.slot_bits() + 4 * 64
}

conformance!(sliding swamp_default: Target::window(3000).fpr(0.01).build::<Swamp>().unwrap(),
    bound = |f: &Swamp| swamp_theory::fpr(f.fingerprint_bits(), f.window() as f64),
    memory = swamp_memory,
    bad = [Swamp::new(SwampShape { window: 0, fingerprint_bits: 10 }), Swamp::new(SwampShape { window: 100, fingerprint_bits: 0 }), Swamp::new(SwampShape { window: 100, fingerprint_bits: 61 }), Target::window(100).fpr(0.0).build::<Swamp>(),
           Target::window(100).fpr(1.0).build::<Swamp>(), Target::window(1 << 40).fpr(1e-12).build::<Swamp>(), Swamp::new(SwampShape { window: 1 << 40, fingerprint_bits: 60 })]);
conformance!(sliding swamp_short_fingerprints: Swamp::new(SwampShape { window: 1000, fingerprint_bits: 12 }).unwrap(),
    bound = |f: &Swamp| swamp_theory::fpr(f.fingerprint_bits(), f.window() as f64),
    memory = swamp_memory,
    bad = [Target::window(100).fpr(f64::NAN).build::<Swamp>()]);
conformance!(sliding sliding_bloom: Target::window(3000).fpr(0.01).build::<SlidingBloom>().unwrap(),
    bound = |f: &SlidingBloom| f.theory().fpr(),
    memory = |f: &SlidingBloom| 2 * f.k() as u64 * f.m() + 3 * 64,
    bad = [SlidingBloom::new(SlidingBloomShape { window: 0, arrays: 3, cells_per_array: 10 }), SlidingBloom::new(SlidingBloomShape { window: 10, arrays: 0, cells_per_array: 10 }), SlidingBloom::new(SlidingBloomShape { window: 10, arrays: 3, cells_per_array: 0 }),
           Target::window(10).fpr(0.0).build::<SlidingBloom>(), SlidingBloom::new(SlidingBloomShape { window: 10, arrays: 3, cells_per_array: 1 << 40 })]);
conformance!(sliding half_sliding: Target::window(3000).fpr(0.01).build::<HalfSliding>().unwrap(),
    bound = |f: &HalfSliding| f.theory().fpr(),
    memory = |f: &HalfSliding| f.k() as u64 * f.m() + 3 * 64,
    bad = [HalfSliding::new(HalfSlidingShape { cycle: 0, arrays: 3, queried_arrays: 1, cells_per_array: 10 }), HalfSliding::new(HalfSlidingShape { cycle: 10, arrays: 0, queried_arrays: 1, cells_per_array: 10 }), HalfSliding::new(HalfSlidingShape { cycle: 10, arrays: 3, queried_arrays: 3, cells_per_array: 10 }),
           HalfSliding::new(HalfSlidingShape { cycle: 10, arrays: 3, queried_arrays: 0, cells_per_array: 10 }), HalfSliding::new(HalfSlidingShape { cycle: 10, arrays: 3, queried_arrays: 1, cells_per_array: 0 }), Target::window(10).fpr(0.0).build::<HalfSliding>(),
           HalfSliding::new(HalfSlidingShape { cycle: 1 << 40, arrays: 3, queried_arrays: 1, cells_per_array: 1 << 30 })]);
conformance!(clock half_sliding_paper: HalfSliding::new(HalfSlidingShape { cycle: 3000, arrays: 7, queried_arrays: 6, cells_per_array: 2000 }).unwrap(),
    bad = [Target::window(0).fpr(0.01).build::<HalfSliding>(), Target::window(10).fpr(1.0).build::<HalfSliding>()]);
conformance!(clock half_sliding_fast_clock: HalfSliding::new(HalfSlidingShape { cycle: 500, arrays: 5, queried_arrays: 2, cells_per_array: 1000 }).unwrap(),
    bad = [Target::window(1 << 30).fpr(0.01).build::<HalfSliding>()]);
conformance!(sliding clock_bloom: Target::window(3000).fpr(0.01).build::<ClockBloom>().unwrap(),
    bound = |f: &ClockBloom| f.theory().fpr(),
    memory = |f: &ClockBloom| f.clock_bits() as u64 * f.m() + 3 * 64,
    bad = [ClockBloom::new(ClockBloomShape { window: 0, hashes: 3, cell_bits: 2, cells: 10 }), ClockBloom::new(ClockBloomShape { window: 10, hashes: 0, cell_bits: 2, cells: 10 }), ClockBloom::new(ClockBloomShape { window: 10, hashes: 3, cell_bits: 1, cells: 10 }),
           ClockBloom::new(ClockBloomShape { window: 10, hashes: 3, cell_bits: 17, cells: 10 }), ClockBloom::new(ClockBloomShape { window: 10, hashes: 3, cell_bits: 2, cells: 0 }), Target::window(10).fpr(0.0).build::<ClockBloom>(),
           Target::window(1 << 30).fpr(0.01).build::<ClockBloom>(), ClockBloom::new(ClockBloomShape { window: 1 << 63, hashes: 3, cell_bits: 16, cells: 1 << 40 })]);
conformance!(sliding clock_bloom_slow_pointer: ClockBloom::new(ClockBloomShape { window: 40_000, hashes: 4, cell_bits: 2, cells: 16_000 }).unwrap(),
    bound = |f: &ClockBloom| f.theory().fpr(),
    memory = |f: &ClockBloom| f.clock_bits() as u64 * f.m() + 3 * 64,
    bad = [Target::window(0).fpr(0.01).build::<ClockBloom>(), Target::window(10).fpr(1.0).build::<ClockBloom>()]);
conformance!(sliding she_bloom: Target::window(3000).fpr(0.01).build::<SheBloom>().unwrap(),
    bound = |f: &SheBloom| f.theory().fpr(),
    memory = |f: &SheBloom| f.m() + f.m() / f.group() + 64,
    bad = [SheBloom::new(SheBloomShape { window: 0, hashes: 3, bits: 64, group_bits: 8, phase: 10 }), SheBloom::new(SheBloomShape { window: 10, hashes: 0, bits: 64, group_bits: 8, phase: 10 }), SheBloom::new(SheBloomShape { window: 10, hashes: 3, bits: 64, group_bits: 7, phase: 10 }),
           SheBloom::new(SheBloomShape { window: 10, hashes: 3, bits: 64, group_bits: 8, phase: 9 }), SheBloom::new(SheBloomShape { window: 10, hashes: 3, bits: 0, group_bits: 8, phase: 10 }), Target::window(10).fpr(0.0).build::<SheBloom>(),
           Target::window(1 << 30).fpr(0.01).build::<SheBloom>(), SheBloom::new(SheBloomShape { window: 1 << 62, hashes: 3, bits: 1 << 20, group_bits: 1, phase: 1 << 62 })]);
conformance!(sliding she_bloom_code: SheBloom::code(4000, 8, 80_000).unwrap(),
    bound = |f: &SheBloom| f.theory().fpr(),
    memory = |f: &SheBloom| f.m() + f.m() / f.group() + 64,
    bad = [Target::window(0).fpr(0.01).build::<SheBloom>(), Target::window(10).fpr(1.0).build::<SheBloom>(), SheBloom::code(0, 8, 100)]);
conformance!(sliding sliding_bloom_slow_clock: SlidingBloom::new(SlidingBloomShape { window: 40_000, arrays: 1, cells_per_array: 20_000 }).unwrap(),
    bound = |f: &SlidingBloom| f.theory().fpr(),
    memory = |f: &SlidingBloom| 2 * f.k() as u64 * f.m() + 3 * 64,
    bad = [Target::window(10).fpr(1.0).build::<SlidingBloom>()]);
conformance!(sliding tbf: Target::window(3000).fpr(0.01).build::<TimingBloom>().unwrap(),
    bound = |f: &TimingBloom| f.fpr_theory(f.window() as f64),
    memory = |f: &TimingBloom| f.k() as u64 * f.slice_cells() * f.stamp_bits() as u64 + 128,
    bad = [TimingBloom::new(TimingBloomShape { window: 0, hashes: 3, cells_per_slice: 10 }), TimingBloom::new(TimingBloomShape { window: 10, hashes: 0, cells_per_slice: 10 }), TimingBloom::new(TimingBloomShape { window: 10, hashes: 3, cells_per_slice: 0 }),
           Target::window(10).fpr(0.0).build::<TimingBloom>(), TimingBloom::new(TimingBloomShape { window: 10, hashes: 3, cells_per_slice: 1 << 40 })]);
conformance!(sliding swbf: Target::window(3000).fpr(0.01).build::<Swbf>().unwrap(),
    bound = |f: &Swbf| f.fpr_theory(f.window() as f64),
    memory = |f: &Swbf| {
        assert_eq!(f.stash_len(), 0);
        4 * f.buckets() * (f.fingerprint_bits() + f.stamp_bits()) as u64 + 3 * 64
    },
    bad = [Swbf::new(SwbfShape { window: 0, fingerprint_bits: 8 }), Swbf::new(SwbfShape { window: 10, fingerprint_bits: 0 }), Swbf::new(SwbfShape { window: 10, fingerprint_bits: 49 }), Target::window(10).fpr(1.5).build::<Swbf>()]);

fn broom_memory(f: &Broom) -> u64 {
    let (s, r) = (f.filter().slots(), f.filter().r() as u64);
    s * (r + 5) + 64 * s.div_ceil(64) + 2 * f.filter().adaptivity_bits()
}

conformance!(sliding broom: Target::window(3000).fpr(0.01).seed(1).build::<Broom>().unwrap(),
    bound = |f: &Broom| f.filter().fpr_bound(),
    memory = broom_memory,
    bad = [Target::window(0).fpr(0.01).seed(1).build::<Broom>(), Target::window(100).fpr(0.0).seed(1).build::<Broom>(), Target::window(100).fpr(f64::NAN).seed(1).build::<Broom>(),
           BroomFilter::new(BroomShape { capacity: 100, slots: 100, remainder_bits: 4, moves_per_adapt: 3 }).map(|f| f.with_seed(1)).map(Broom::from_filter)]);

#[test]
#[should_panic(expected = "did not finish within 1 s")]
fn a_check_that_loops_fails_by_name_instead_of_hanging() {
    within(1, || loop {
        std::hint::spin_loop();
    });
}

mod adaptive;
mod arrivals;
mod repeats;
mod time;
