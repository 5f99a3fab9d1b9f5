//! Throughput of the concurrent blocked APBF and the concurrent line APBF
//! from 1, 2, 4 and 8 threads, each beside fastbloom's `AtomicBloomFilter`
//! (a Bloom filter with `&self` insertions, not sliding) at the same bits
//! and k (`fastbloom_atomic` at the blocked APBF's, `fastbloom_atomic_line`
//! at the line APBF's), and a `Mutex` around the sequential blocked APBF
//! (what a user without a concurrent variant writes).
//!
//! Groups: `concurrent_insert` (each thread inserts its own keys) and
//! `concurrent_mixed` (each thread inserts a key, then queries one); the
//! function is the contender, the parameter `t<threads>`. Every contender
//! is sized for a window of 2^20 insertions at FPR 1e-3 (the blocked
//! APBF's contenders by `BlockedApbf::sizing`, the line APBF's by
//! `LineApbf::sizing`); the hybrid contenders also move their clock
//! (shared, one tick per 256 operations of a thread, τ of 64 ticks), so its
//! shifts come from both triggers. A sample spawns the threads, starts
//! the clock when all wait at a barrier, and stops it when all are done:
//! the time is wall time for all the operations, and throughput is
//! operations per second over all threads.
//!
//! On a machine with fewer cores than threads the threads take turns: the
//! 4- and 8-thread rows then measure contention and the cost of being
//! descheduled (a `Mutex` holder that loses its core stalls the others),
//! not parallel speed-up. `bloomlab bench-report` writes the table
//! (`results/bench_concurrent.csv`) and the chart.

use bloomlab_filters::hash::mix64;
use bloomlab_filters::{BlockedApbf, BlockedApbfShape, Filter, LineApbf, Trigger};
use bloomlab_filters::{ConcurrentApbf, ConcurrentLineApbf};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Barrier, Mutex};
use std::time::{Duration, Instant};

const WINDOW: u64 = 1 << 20;
const FPR: f64 = 1e-3;
/// Operations per iteration, over all threads.
const OPS: u64 = 1 << 16;
const THREADS: [u64; 4] = [1, 2, 4, 8];

/// A filter shared by threads, behind whatever it needs.
trait Shared: Sync {
    fn insert(&self, key: u64, tick: &AtomicU64, i: u64);
    fn contains(&self, key: u64) -> bool;
}

/// The concurrent filters: the clock moved one tick every 256 operations of
/// a thread (it changes nothing under count generations).
macro_rules! shared_on_self {
    ($($t:ty),*) => {$(
        impl Shared for $t {
            fn insert(&self, key: u64, tick: &AtomicU64, i: u64) {
                if i.is_multiple_of(256) {
                    self.advance(tick.fetch_add(1, Relaxed) + 1);
                }
                self.insert_hash(key)
            }
            fn contains(&self, key: u64) -> bool {
                self.contains_hash(key)
            }
        }
    )*};
}
shared_on_self!(ConcurrentApbf, ConcurrentLineApbf);

impl Shared for Mutex<BlockedApbf> {
    fn insert(&self, key: u64, _: &AtomicU64, _: u64) {
        self.lock().unwrap().insert(key)
    }
    fn contains(&self, key: u64) -> bool {
        self.lock().unwrap().contains(key)
    }
}

impl Shared for fastbloom::AtomicBloomFilter {
    fn insert(&self, key: u64, _: &AtomicU64, _: u64) {
        self.insert_hash(key);
    }
    fn contains(&self, key: u64) -> bool {
        self.contains_hash(key)
    }
}

/// Wall time of `iters` iterations of OPS operations split over `threads`.
fn timed<F: Shared>(f: &F, threads: u64, iters: u64, mixed: bool, round: &AtomicU64) -> Duration {
    let per = iters * OPS / threads;
    let barrier = Barrier::new(threads as usize + 1);
    let tick = AtomicU64::new(0);
    // fresh keys in every sample, so that insertions keep the filter sliding
    let first = round.fetch_add(iters * OPS, Relaxed);
    std::thread::scope(|s| {
        for t in 0..threads {
            let (barrier, tick) = (&barrier, &tick);
            s.spawn(move || {
                barrier.wait();
                let base = first + t * per;
                let mut hits = 0u64;
                for i in 0..per {
                    let key = mix64(base + i);
                    f.insert(key, tick, i);
                    if mixed {
                        hits += f.contains(mix64(base + i / 2)) as u64;
                    }
                }
                std::hint::black_box(hits);
            });
        }
        barrier.wait();
        let start = Instant::now();
        // the scope joins every thread before returning
        start
    })
    .elapsed()
}

fn bench(c: &mut Criterion) {
    let sizing = BlockedApbf::sizing(WINDOW, FPR).expect("sizing");
    let bits = (sizing.k + sizing.l) as u64 * sizing.blocks * 64;
    let shape = BlockedApbfShape::from(sizing);
    let counted = ConcurrentApbf::new(shape).expect("filter").with_seed(1);
    let hybrid = ConcurrentApbf::timed(shape, 64, Trigger::Hybrid)
        .expect("filter")
        .with_seed(1);
    let mutex = Mutex::new(BlockedApbf::new(shape).expect("filter"));
    let fast = fastbloom::AtomicBloomFilter::with_num_bits(bits as usize).hashes(sizing.k);
    let line_sizing = LineApbf::sizing(WINDOW, FPR).expect("line sizing");
    let line = ConcurrentLineApbf::new(line_sizing.into())
        .expect("filter")
        .with_seed(1);
    let line_hybrid = ConcurrentLineApbf::timed(line_sizing.into(), 64, Trigger::Hybrid)
        .expect("filter")
        .with_seed(1);
    let fast_line = fastbloom::AtomicBloomFilter::with_num_bits(line_sizing.lines as usize * 512)
        .hashes(line_sizing.k);
    let round = AtomicU64::new(0);
    // fill every contender to its steady state first
    let all = [&counted as &dyn Fill, &hybrid, &mutex, &fast];
    for f in all
        .into_iter()
        .chain([&line as &dyn Fill, &line_hybrid, &fast_line])
    {
        f.fill(3 * WINDOW, &round);
    }
    for (group, mixed) in [("concurrent_insert", false), ("concurrent_mixed", true)] {
        let mut g = c.benchmark_group(group);
        g.sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2))
            .throughput(Throughput::Elements(OPS * if mixed { 2 } else { 1 }));
        for threads in THREADS {
            let id = |name: &str| BenchmarkId::new(name, format!("t{threads}"));
            g.bench_function(id("concurrent_apbf"), |b| {
                b.iter_custom(|n| timed(&counted, threads, n, mixed, &round))
            });
            g.bench_function(id("concurrent_apbf_hybrid"), |b| {
                b.iter_custom(|n| timed(&hybrid, threads, n, mixed, &round))
            });
            g.bench_function(id("mutex_blocked_apbf"), |b| {
                b.iter_custom(|n| timed(&mutex, threads, n, mixed, &round))
            });
            g.bench_function(id("fastbloom_atomic"), |b| {
                b.iter_custom(|n| timed(&fast, threads, n, mixed, &round))
            });
            g.bench_function(id("concurrent_line_apbf"), |b| {
                b.iter_custom(|n| timed(&line, threads, n, mixed, &round))
            });
            g.bench_function(id("concurrent_line_apbf_hybrid"), |b| {
                b.iter_custom(|n| timed(&line_hybrid, threads, n, mixed, &round))
            });
            g.bench_function(id("fastbloom_atomic_line"), |b| {
                b.iter_custom(|n| timed(&fast_line, threads, n, mixed, &round))
            });
        }
        g.finish();
    }
}

/// Inserts `n` fresh keys from one thread.
trait Fill {
    fn fill(&self, n: u64, round: &AtomicU64);
}

impl<F: Shared> Fill for F {
    fn fill(&self, n: u64, round: &AtomicU64) {
        let first = round.fetch_add(n, Relaxed);
        let tick = AtomicU64::new(0);
        for i in 0..n {
            self.insert(mix64(first + i), &tick, i);
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
