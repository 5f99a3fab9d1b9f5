//! The conformance arms of the designs over a window of time (the `timed`
//! promise of the suite's table in `main.rs`).

use super::*;
use bloomlab_filters::clock_sketch::theory::ClockBloomTheory;
use bloomlab_filters::clock_sketch::TimedClockBloom;
use bloomlab_filters::half_sliding::theory::HalfSlidingTheory;
use bloomlab_filters::half_sliding::TimedHalfSliding;
use bloomlab_filters::she::theory::SheTheory;
use bloomlab_filters::she::TimedSheBloom;
use bloomlab_filters::sliding_sketch::theory::SlidingBloomTheory;
use bloomlab_filters::sliding_sketch::TimedSlidingBloom;
use bloomlab_filters::timing::{TimedSwbf, TimedTbf};
use bloomlab_filters::tlbf::{Tlbf, META_BITS};
use bloomlab_filters::{
    ApbfShape, BlockedApbfShape, DoubleBufferShape, JumpingWindowShape, NaorYogevShape, Target,
    TimedClockBloomShape, TimedHalfSlidingShape, TimedSheBloomShape, TimedSlidingBloomShape,
    TimedSwbfShape, TimedTbfShape, TlbfShape,
};
use bloomlab_filters::{
    Generational, LineApbf, LineApbfShape, NaorYogev, OnTime, TimedApbf, TimedFilter, Trigger,
};

/// A time window's promise: over 200 000 insertions at random times (bursts
/// of simultaneous keys, steady traffic, lulls of several generations),
/// after each insertion every key inside the design's guarantee is reported
/// (`guaranteed(age in time, insertions after it)`); after the stream,
/// nothing is left once `lull` time has passed without insertions; and at a
/// steady rate of `g` keys per `tau` the FPR is not significantly above
/// `bound` (the count-based design's worst phase).
fn time_promise<F: TimedFilter>(
    mut f: F,
    guaranteed: impl Fn(u64, u64) -> bool,
    (lull, g, tau): (u64, u64, u64),
    bound: f64,
) {
    let keys = Keys::new(0x71AE);
    let mut rng = Rng(7);
    let mut now = 0u64;
    let mut recent: std::collections::VecDeque<(u64, u64)> = Default::default();
    for t in 1..=200_000u64 {
        now += match rng.range(0, 99) {
            0..=29 => 0,
            30..=98 => rng.range(0, tau / 50),
            _ => rng.range(0, 3 * tau),
        };
        f.advance(now);
        f.insert(keys.stream(t));
        recent.push_front((t, now));
        recent.truncate(400);
        for _ in 0..3 {
            let (i, at) = recent[rng.range(0, recent.len() as u64 - 1) as usize];
            if guaranteed(now - at, t - i) {
                assert!(
                    f.contains(keys.stream(i)),
                    "{}: key of age {} (time) and {} (insertions) lost",
                    f.name(),
                    now - at,
                    t - i
                );
            }
        }
    }
    // lull 0: a design that promises no forgetting after a lull (SHE's
    // 1-bit stamps bring keys back after two phases, tested in she::timed)
    if lull > 0 {
        now += lull;
        f.advance(now);
        let lost = (1..=200_000u64)
            .filter(|&t| f.contains(keys.stream(t)))
            .count();
        assert_eq!(lost, 0, "{}: keys left after a lull", f.name());
        // and still once traffic resumes: the first insertion after the
        // lull must not bring an interrupted generation's keys back (the
        // TLBF's stamps did: 41 of 41 keys older than 5T reported)
        f.insert(keys.negative(0));
        let back = (1..=200_000u64)
            .filter(|&t| f.contains(keys.stream(t)))
            .count();
        assert_eq!(
            back,
            0,
            "{}: keys older than the lull reported once traffic resumed",
            f.name()
        );
    } else {
        now += 3 * tau;
        f.advance(now);
    }
    // a steady g per τ: the count-based worst phase bounds every moment
    let (mut fp, mut n) = (0u64, 0u64);
    for t in 0..(40 * g) {
        f.advance(now + t * tau / g);
        f.insert(keys.stream(1_000_000 + t));
        if t > 12 * g && t % 7 == 0 {
            n += 1;
            fp += f.contains(keys.negative(n)) as u64;
        }
    }
    assert_rate_at_most("steady-rate FPR", fp, n, bound);
}

conformance!(timed apbf_time: TimedApbf::new(ApbfShape { hashes: 4, extra_slices: 3, generation: 500 }, 10_000, Trigger::Time).unwrap(),
    guarantee = |f: &TimedApbf| { let t = f.window_time(); move |age: u64, _| age < t },
    scales = |f: &TimedApbf| (f.inner().forgotten() * f.tau(), f.inner().generation_size(), f.tau()),
    bound = |f: &TimedApbf| f.theory().count_based().fpr(),
    memory = |f: &TimedApbf| (f.k() + f.l()) as u64 * f.m() + 4 * 64,
    bad = [TimedApbf::new(ApbfShape { hashes: 4, extra_slices: 3, generation: 500 }, 0, Trigger::Time), TimedApbf::new(ApbfShape { hashes: 0, extra_slices: 3, generation: 500 }, 10, Trigger::Time),
           Target::time(100.0, 0.1).fpr(0.0).build::<TimedApbf>()]);

conformance!(timed blocked_apbf_time: OnTime::wrap(BlockedApbf::new(BlockedApbfShape { hashes: 4, extra_slices: 3, generation: 500, blocks: Some(8) }).unwrap(), 10_000, Trigger::Time).unwrap(),
    guarantee = |f: &OnTime<BlockedApbf>| { let t = f.window_time(); move |age: u64, _| age < t },
    scales = |f: &OnTime<BlockedApbf>| (f.inner().forgotten() * f.tau(), f.inner().generation_size(), f.tau()),
    bound = |f: &OnTime<BlockedApbf>| blocked_bound(f.inner()),
    memory = |f: &OnTime<BlockedApbf>| blocked_memory(f.inner()) + 2 * 64,
    bad = [OnTime::wrap(BlockedApbf::new(BlockedApbfShape { hashes: 4, extra_slices: 3, generation: 500, blocks: Some(8) }).unwrap(), 0, Trigger::Time)]);

conformance!(timed line_apbf_time: OnTime::wrap(LineApbf::new(LineApbfShape { hashes: 4, extra_slices: 3, generation: 500, lines: Some(40) }).unwrap(), 10_000, Trigger::Time).unwrap(),
    guarantee = |f: &OnTime<LineApbf>| { let t = f.window_time(); move |age: u64, _| age < t },
    scales = |f: &OnTime<LineApbf>| (f.inner().forgotten() * f.tau(), f.inner().generation_size(), f.tau()),
    bound = |f: &OnTime<LineApbf>| f.inner().theory().fpr().unwrap(),
    memory = |f: &OnTime<LineApbf>| 512 * f.inner().line_count() + 3 * 64 + 2 * 64,
    bad = [OnTime::wrap(LineApbf::new(LineApbfShape { hashes: 4, extra_slices: 3, generation: 500, lines: Some(8) }).unwrap(), 0, Trigger::Time)]);

conformance!(timed apbf_hybrid: TimedApbf::new(ApbfShape { hashes: 4, extra_slices: 3, generation: 500 }, 10_000, Trigger::Hybrid).unwrap(),
    guarantee = |f: &TimedApbf| {
        let (tau, g, l) = (f.tau(), f.g(), f.l() as u64);
        move |age: u64, later: u64| age / tau + later / g < l
    },
    scales = |f: &TimedApbf| (f.inner().forgotten() * f.tau(), f.inner().generation_size(), f.tau()),
    bound = |f: &TimedApbf| f.theory().count_based().fpr(),
    memory = |f: &TimedApbf| (f.k() + f.l()) as u64 * f.m() + 4 * 64,
    bad = [TimedApbf::new(ApbfShape { hashes: 4, extra_slices: 3, generation: 0 }, 10, Trigger::Hybrid), Target::time(0.0, 0.1).fpr(0.01).trigger(Trigger::Hybrid).build::<TimedApbf>()]);

conformance!(timed jumping_time: OnTime::wrap(JumpingWindow::new(JumpingWindowShape { segments: 4, hashes: 7, generation: 500, bits_per_slice: 722 }).unwrap(), 10_000, Trigger::Time).unwrap(),
    guarantee = |f: &OnTime<JumpingWindow>| { let t = f.window_time(); move |age: u64, _| age < t },
    scales = |f: &OnTime<JumpingWindow>| (f.inner().forgotten() * f.tau(), f.inner().generation_size(), f.tau()),
    bound = |f: &OnTime<JumpingWindow>| f.inner().theory_fpr(500),
    memory = |_: &OnTime<JumpingWindow>| 4 * 7 * 722 + 2 * 64 + 2 * 64,
    bad = [OnTime::wrap(JumpingWindow::new(JumpingWindowShape { segments: 4, hashes: 7, generation: 500, bits_per_slice: 722 }).unwrap(), 0, Trigger::Time),
           OnTime::wrap(JumpingWindow::new(JumpingWindowShape { segments: 4, hashes: 7, generation: 500, bits_per_slice: 722 }).unwrap(), u64::MAX / 2, Trigger::Time)]);

conformance!(timed double_buffer_time: OnTime::wrap(DoubleBuffer::new(DoubleBufferShape { hashes: 7, generation: 500, bits_per_slice: 1443 }).unwrap(), 10_000, Trigger::Time).unwrap(),
    guarantee = |f: &OnTime<DoubleBuffer>| { let t = f.window_time(); move |age: u64, _| age < t },
    scales = |f: &OnTime<DoubleBuffer>| (f.inner().forgotten() * f.tau(), f.inner().generation_size(), f.tau()),
    bound = |f: &OnTime<DoubleBuffer>| f.inner().theory_fpr(500),
    memory = |_: &OnTime<DoubleBuffer>| 2 * 7 * 1443 + 64 + 2 * 64,
    bad = [OnTime::wrap(DoubleBuffer::new(DoubleBufferShape { hashes: 7, generation: 500, bits_per_slice: 1443 }).unwrap(), 0, Trigger::Time)]);

// 16 quanta of 625 per window of 10 000, cells sized for 500 keys per 10 000
conformance!(timed tbf_time: TimedTbf::new(TimedTbfShape { quanta: 16, quantum_ticks: 625, hashes: 7, cells_per_slice: 1087 }).unwrap(),
    guarantee = |f: &TimedTbf| { let t = f.window_time(); move |age: u64, _| age < t },
    scales = |f: &TimedTbf| (f.window_time() + f.slack_time(), 500, 10_000),
    bound = |f: &TimedTbf| f.fpr_theory(500.0 * 17.0 / 16.0),
    memory = |f: &TimedTbf| 7 * 1087 * f.inner().stamp_bits() as u64 + 256,
    bad = [TimedTbf::new(TimedTbfShape { quanta: 0, quantum_ticks: 625, hashes: 7, cells_per_slice: 1087 }), TimedTbf::new(TimedTbfShape { quanta: 16, quantum_ticks: 0, hashes: 7, cells_per_slice: 1087 }), TimedTbf::new(TimedTbfShape { quanta: 16, quantum_ticks: 625, hashes: 0, cells_per_slice: 1087 })]);

conformance!(timed naor_yogev_hybrid: OnTime::wrap(NaorYogev::new(NaorYogevShape { window: 2000, slack: 2000, fpr: 0.01, generations: Some(4), max_load: None }).unwrap(), 10_000, Trigger::Hybrid).unwrap(),
    guarantee = |f: &OnTime<NaorYogev>| {
        let (tau, g, c) = (f.tau(), f.inner().generation_size(), f.inner().sizing().c);
        move |age: u64, later: u64| age / tau + later / g < c
    },
    scales = |f: &OnTime<NaorYogev>| (f.inner().forgotten() * f.tau(), f.inner().generation_size(), f.tau()),
    bound = |f: &OnTime<NaorYogev>| f.inner().sizing().fpr(),
    memory = |f: &OnTime<NaorYogev>| f.inner().sizing().memory_bits() + 128,
    bad = [OnTime::wrap(NaorYogev::new(NaorYogevShape { window: 2000, slack: 2000, fpr: 0.01, generations: None, max_load: None }).unwrap(), 10_000, Trigger::Time),
           OnTime::wrap(NaorYogev::new(NaorYogevShape { window: 2000, slack: 2000, fpr: 0.01, generations: None, max_load: None }).unwrap(), 0, Trigger::Hybrid)]);

// 16 quanta of 625 (T = 10 000), at most 250 keys each: 4250 live keys
conformance!(timed swbf_hybrid: TimedSwbf::new(TimedSwbfShape { quanta: 16, quantum_ticks: 625, quantum_keys: 250, fingerprint_bits: 14 }).unwrap(),
    guarantee = |f: &TimedSwbf| {
        let (delta, g, r) = (f.delta(), f.g(), f.quanta());
        move |age: u64, later: u64| age / delta + later / g < r
    },
    scales = |f: &TimedSwbf| (f.window_time() + f.slack_time(), f.g(), f.delta()),
    bound = |f: &TimedSwbf| f.fpr_theory(17.0 * 250.0),
    memory = |f: &TimedSwbf| f.inner().buckets() * 4 * (14 + f.inner().stamp_bits() as u64) + 3 * 64 + 3 * 64,
    bad = [TimedSwbf::new(TimedSwbfShape { quanta: 0, quantum_ticks: 625, quantum_keys: 250, fingerprint_bits: 14 }), TimedSwbf::new(TimedSwbfShape { quanta: 16, quantum_ticks: 0, quantum_keys: 250, fingerprint_bits: 14 }), TimedSwbf::new(TimedSwbfShape { quanta: 16, quantum_ticks: 625, quantum_keys: 0, fingerprint_bits: 14 }),
           TimedSwbf::new(TimedSwbfShape { quanta: 16, quantum_ticks: 625, quantum_keys: 250, fingerprint_bits: 49 })]);

// T = 10 000, sized for 500 keys per T at 1%: a key is reported while at
// most T old, whatever the rate; nothing is left 2T after the last
conformance!(timed sliding_bloom_time: Target::time(10_000.0, 0.05).fpr(0.01).build::<TimedSlidingBloom>().unwrap(),
    guarantee = |f: &TimedSlidingBloom| { let t = f.window_time(); move |age: u64, _| age <= t },
    scales = |f: &TimedSlidingBloom| (f.window_time() + f.slack_time(), 500, 10_000),
    bound = |f: &TimedSlidingBloom| SlidingBloomTheory { k: f.k(), m: f.m(), w: 500 }.fpr(),
    memory = |f: &TimedSlidingBloom| 2 * f.k() as u64 * f.m() + 128,
    bad = [TimedSlidingBloom::new(TimedSlidingBloomShape { window_ticks: 0, arrays: 3, cells_per_array: 100 }), TimedSlidingBloom::new(TimedSlidingBloomShape { window_ticks: 100, arrays: 0, cells_per_array: 100 }),
           TimedSlidingBloom::new(TimedSlidingBloomShape { window_ticks: 100, arrays: 3, cells_per_array: 0 }), Target::time(100.0, 1.0).fpr(0.0).build::<TimedSlidingBloom>()]);

// T = 10 000, sized for 500 keys per T at 1%: a key is reported while at
// most T old, whatever the rate; nothing is left k·T/(k - lo - 1) after
// the last (the bound: the count filter guaranteeing 500 insertions)
conformance!(timed half_sliding_time: Target::time(10_000.0, 0.05).fpr(0.01).build::<TimedHalfSliding>().unwrap(),
    guarantee = |f: &TimedHalfSliding| { let t = f.window_time(); move |age: u64, _| age <= t },
    scales = |f: &TimedHalfSliding| (f.window_time() + f.slack_time(), 500, 10_000),
    bound = |f: &TimedHalfSliding| {
        let d = (f.k() - f.lo()) as u64;
        HalfSlidingTheory { k: f.k(), lo: f.lo(), m: f.m(), cycle: (500 * d).div_ceil(d - 1) }.fpr()
    },
    memory = |f: &TimedHalfSliding| f.k() as u64 * f.m() + 128,
    bad = [TimedHalfSliding::new(TimedHalfSlidingShape { window_ticks: 0, arrays: 5, queried_arrays: 2, cells_per_array: 100 }), TimedHalfSliding::new(TimedHalfSlidingShape { window_ticks: 100, arrays: 5, queried_arrays: 4, cells_per_array: 100 }),
           TimedHalfSliding::new(TimedHalfSlidingShape { window_ticks: 100, arrays: 5, queried_arrays: 0, cells_per_array: 100 }), TimedHalfSliding::new(TimedHalfSlidingShape { window_ticks: 100, arrays: 5, queried_arrays: 2, cells_per_array: 0 }),
           Target::time(100.0, 1.0).fpr(0.0).build::<TimedHalfSliding>()]);

// T = 10 000, sized for 500 keys per T at 1%: a key is reported while at
// most T old, whatever the rate; nothing is left T·D/(D - 1) after the last
conformance!(timed clock_bloom_time: Target::time(10_000.0, 0.05).fpr(0.01).build::<TimedClockBloom>().unwrap(),
    guarantee = |f: &TimedClockBloom| { let t = f.window_time(); move |age: u64, _| age <= t },
    scales = |f: &TimedClockBloom| (f.window_time() + f.slack_time(), 500, 10_000),
    bound = |f: &TimedClockBloom| ClockBloomTheory { w: 500, k: f.k(), s: f.clock_bits(), m: f.m() }.fpr(),
    memory = |f: &TimedClockBloom| f.clock_bits() as u64 * f.m() + 128,
    bad = [TimedClockBloom::new(TimedClockBloomShape { window_ticks: 0, hashes: 3, cell_bits: 2, cells: 100 }), TimedClockBloom::new(TimedClockBloomShape { window_ticks: 100, hashes: 3, cell_bits: 1, cells: 100 }),
           TimedClockBloom::new(TimedClockBloomShape { window_ticks: 100, hashes: 0, cell_bits: 2, cells: 100 }), TimedClockBloom::new(TimedClockBloomShape { window_ticks: 100, hashes: 3, cell_bits: 2, cells: 0 }),
           Target::time(100.0, 1.0).fpr(0.0).build::<TimedClockBloom>()]);

// T = 10 000, first sized for 500 keys per T at 1%: no key younger than T
// is lost whatever the rate; nothing is left T after the last insertion; at
// a steady rate the FPR is the APBF's F(k, l) (its slices fill as the
// APBF's)
conformance!(timed tlbf: Target::time(10_000.0, 0.05).fpr(0.01).build::<Tlbf>().unwrap(),
    guarantee = |f: &Tlbf| { let t = f.window_time(); move |age: u64, _| age <= t },
    scales = |f: &Tlbf| (f.window_time() + 1, 500, 10_000),
    bound = |f: &Tlbf| bloomlab_filters::apbf::theory::fpr(f.k(), f.l()),
    memory = |f: &Tlbf| f.control().slices.iter().map(|s| s.size).sum::<u64>() + META_BITS * f.slices() as u64 + 7 * 64,
    bad = [Tlbf::new(TlbfShape { hashes: 0, extra_slices: 3, window_ticks: 100, initial_bits_per_slice: 100 }), Tlbf::new(TlbfShape { hashes: 3, extra_slices: 0, window_ticks: 100, initial_bits_per_slice: 100 }), Tlbf::new(TlbfShape { hashes: 3, extra_slices: 3, window_ticks: 0, initial_bits_per_slice: 100 }),
           Tlbf::new(TlbfShape { hashes: 3, extra_slices: 3, window_ticks: 100, initial_bits_per_slice: 5 }), Target::time(100.0, 1.0).fpr(0.0).build::<Tlbf>()]);

// T = 10 000, sized for 500 keys per T at 1%: a key is reported while at
// most T old, whatever the rate. No promise after a lull (lull 0): a group
// untouched since its last flip keeps its keys through the next, and a
// lull of two phases brings every key back (tested in she::timed)
conformance!(timed she_bloom_time: Target::time(10_000.0, 0.05).fpr(0.01).build::<TimedSheBloom>().unwrap(),
    guarantee = |f: &TimedSheBloom| { let t = f.window_time(); move |age: u64, _| age <= t },
    scales = |_: &TimedSheBloom| (0, 500, 10_000),
    bound = |f: &TimedSheBloom| {
        let phase = (f.phase() * 500).div_ceil(10_000);
        SheTheory { w: 500, k: f.k(), m: f.m(), g: f.group(), phase }.fpr()
    },
    memory = |f: &TimedSheBloom| f.m() + f.m() / f.group() + 64,
    bad = [TimedSheBloom::new(TimedSheBloomShape { window_ticks: 0, hashes: 3, bits: 64, group_bits: 8, phase_ticks: 10 }), TimedSheBloom::new(TimedSheBloomShape { window_ticks: 10, hashes: 0, bits: 64, group_bits: 8, phase_ticks: 10 }),
           TimedSheBloom::new(TimedSheBloomShape { window_ticks: 10, hashes: 3, bits: 64, group_bits: 7, phase_ticks: 10 }), TimedSheBloom::new(TimedSheBloomShape { window_ticks: 10, hashes: 3, bits: 64, group_bits: 8, phase_ticks: 9 }),
           Target::time(100.0, 1.0).fpr(0.0).build::<TimedSheBloom>()]);
