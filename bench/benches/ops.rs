//! Criterion benchmarks organised by dimension: operation x design x size.
//!
//! Groups are operations (`insert`, `query_positive`, `query_negative`,
//! `query_negative_batched`), functions are designs, parameters are window
//! sizes `w2^12`, `w2^16`, `w2^20`, `w2^24` (L1/L2, last-level cache, DRAM
//! for every design here), so criterion writes
//! `target/criterion/<op>/<design>/<size>/`. `bloomlab bench-report` turns
//! that into the ns/op table, the ratios to fastbloom and the charts.
//!
//! Every design is sized for the window at FPR about 1.5e-3 with k = 10 where
//! it has a k: APBF and blocked APBF (10, 7); the partitioned Bloom filter,
//! the published `fastbloom` and `bloomfilter` crates at the blocked APBF's
//! total bits and k = 10 (equal memory and k; they are not sliding: they
//! hold the last `w` keys' worth of bits); Naor-Yogev and the segmented
//! baselines by `with_fpr(w, 1.5e-3)`; the Stable Bloom filter at the blocked
//! APBF's bits; the `rotating-bloom-filter` crate (double buffering) at
//! minimum retention `w` and FPR 1.5e-3. Our designs and fastbloom take the
//! 64-bit key hash as it is (`insert_hash`/`contains_hash`); `bloomfilter`
//! and `rotating-bloom-filter` only take items, so their rows include hashing
//! a u64 (SipHash-1-3 twice; foldhash), a few ns.
//!
//! Sizes: all four by default; `BLOOMLAB_BENCH_SIZES=12,16` runs a subset.
//! Filters are filled to steady state (sliding designs: 3 windows; set
//! filters: w keys) outside the timed loops. Compare designs only as ratios
//! within one run: the machine is shared and noisy.

use bloomlab_filters::hash::mix64;
use bloomlab_filters::segmented::{A2Buffer, DoubleBuffer, ForgetfulBloom, JumpingWindow};
use bloomlab_filters::{
    Apbf, BlockedApbf, Filter, NaorYogev, PartitionedBloomFilter, StableBloomFilter,
};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;

/// Operations per timed iteration.
const OPS: usize = 4096;
/// Distinct query keys per kind (a multiple of `OPS`).
const POOL: usize = 1 << 20;
/// FPR the designs with a target are sized for.
const FPR: f64 = 1.5e-3;

/// What the benchmarks need of a filter, ours or a crate's.
trait Target {
    fn insert(&mut self, key: u64);
    fn contains(&self, key: u64) -> bool;
    fn contains_many(&self, keys: &[u64], out: &mut [bool]) {
        for (o, &k) in out.iter_mut().zip(keys) {
            *o = self.contains(k);
        }
    }
}

struct Ours<F>(F);

impl<F: Filter> Target for Ours<F> {
    #[inline]
    fn insert(&mut self, key: u64) {
        self.0.insert(key)
    }
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.0.contains(key)
    }
    fn contains_many(&self, keys: &[u64], out: &mut [bool]) {
        self.0.contains_many(keys, out)
    }
}

struct Fast(fastbloom::BloomFilter);

impl Target for Fast {
    #[inline]
    fn insert(&mut self, key: u64) {
        self.0.insert_hash(key);
    }
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.0.contains_hash(key)
    }
}

struct Plain(bloomfilter::Bloom<u64>);

impl Target for Plain {
    #[inline]
    fn insert(&mut self, key: u64) {
        self.0.set(&key);
    }
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.0.check(&key)
    }
}

struct Rotating(rotating_bloom_filter::RotatingBloomFilter);

impl Target for Rotating {
    #[inline]
    fn insert(&mut self, key: u64) {
        self.0.insert(&key);
    }
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.0.contains(&key)
    }
}

fn sizes() -> Vec<u32> {
    match std::env::var("BLOOMLAB_BENCH_SIZES") {
        Ok(s) => s
            .split(',')
            .map(|x| {
                x.trim()
                    .parse()
                    .expect("BLOOMLAB_BENCH_SIZES: comma-separated log2 window sizes, e.g. 12,16")
            })
            .collect(),
        Err(_) => vec![12, 16, 20, 24],
    }
}

/// Fills `f` with `fill` keys, then times the four operations on it.
fn bench<T: Target>(c: &mut Criterion, design: &str, log_w: u32, fill: u64, mut f: T) {
    let w = 1u64 << log_w;
    let size = format!("w2^{log_w}");
    for t in 0..fill {
        f.insert(mix64(t));
    }
    let mut t = fill;
    // Query keys come from pools of 2^20 and each timed iteration takes the
    // next 4096, so that the lines a query touches are not still cached from
    // the previous iteration (a fixed set of 4096 keys touches at most a few
    // hundred KB and would hide DRAM at 2^24).
    let recent: Vec<u64> = (0..POOL as u64)
        .map(|i| mix64(t - 1 - mix64(i) % w))
        .collect();
    let absent: Vec<u64> = (0..POOL as u64).map(|i| mix64(u64::MAX - i)).collect();
    let mut out = vec![false; OPS];
    let mut at = 0usize;
    let mut next = || {
        at = (at + OPS) % POOL;
        at..at + OPS
    };

    time(c, "query_positive", design, &size, || {
        recent[next()]
            .iter()
            .filter(|&&k| f.contains(black_box(k)))
            .count()
    });
    time(c, "query_negative", design, &size, || {
        absent[next()]
            .iter()
            .filter(|&&k| f.contains(black_box(k)))
            .count()
    });
    time(c, "query_negative_batched", design, &size, || {
        f.contains_many(black_box(&absent[next()]), &mut out);
        out.iter().filter(|&&x| x).count()
    });
    // insert last: it moves the state on
    time(c, "insert", design, &size, || {
        for _ in 0..OPS {
            t += 1;
            f.insert(mix64(t));
        }
    });
}

/// Times `body` (OPS operations) as benchmark `op`/`design`/`size`.
fn time<R>(c: &mut Criterion, op: &str, design: &str, size: &str, mut body: impl FnMut() -> R) {
    let mut g = c.benchmark_group(op);
    g.throughput(Throughput::Elements(OPS as u64));
    g.bench_function(BenchmarkId::new(design, size), |b| b.iter(&mut body));
    g.finish();
}

fn designs(c: &mut Criterion) {
    for log_w in sizes() {
        let w = 1u64 << log_w;
        let g = w.div_ceil(7);
        let blocked = BlockedApbf::with_default_blocks(10, 7, g).unwrap();
        let bits = blocked.memory_bits() - 128;
        let sliding = 3 * w;
        bench(c, "blocked_apbf", log_w, sliding, Ours(blocked));
        bench(
            c,
            "apbf",
            log_w,
            sliding,
            Ours(Apbf::new(10, 7, g).unwrap()),
        );
        bench(
            c,
            "fastbloom",
            log_w,
            w,
            Fast(
                fastbloom::BloomFilter::with_num_bits(bits as usize)
                    .seed(&1)
                    .hashes(10),
            ),
        );
        // bloomfilter picks k = round(m / n ln 2): give it the n that makes 10
        let items = (bits as f64 * std::f64::consts::LN_2 / 10.0).round() as usize;
        let plain =
            bloomfilter::Bloom::new_with_seed((bits / 8) as usize, items, &[7; 32]).unwrap();
        assert_eq!(plain.number_of_hash_functions(), 10);
        bench(c, "bloomfilter", log_w, w, Plain(plain));
        bench(
            c,
            "partitioned_bloom",
            log_w,
            w,
            Ours(PartitionedBloomFilter::new(10, bits / 10).unwrap()),
        );
        bench(
            c,
            "naor_yogev",
            log_w,
            sliding,
            Ours(NaorYogev::new(w, w, FPR).unwrap()),
        );
        bench(
            c,
            "stable",
            log_w,
            sliding,
            Ours(StableBloomFilter::with_fpr(bits, FPR).unwrap()),
        );
        bench(
            c,
            "jumping",
            log_w,
            sliding,
            Ours(JumpingWindow::with_fpr(w, FPR, 5).unwrap()),
        );
        bench(
            c,
            "double_buffer",
            log_w,
            sliding,
            Ours(DoubleBuffer::with_fpr(w, FPR).unwrap()),
        );
        bench(
            c,
            "a2",
            log_w,
            sliding,
            Ours(A2Buffer::with_fpr(w, FPR).unwrap()),
        );
        bench(
            c,
            "forgetful",
            log_w,
            sliding,
            Ours(ForgetfulBloom::with_fpr(w, FPR, 4).unwrap()),
        );
        let mut rng = <rand_pcg_10::Pcg64 as rand_core_10::SeedableRng>::seed_from_u64(3);
        bench(
            c,
            "rotating-bloom-filter",
            log_w,
            sliding,
            Rotating(rotating_bloom_filter::RotatingBloomFilter::new(
                FPR, w as usize, &mut rng,
            )),
        );
    }
}

criterion_group! {
    name = group;
    // no plots: criterion's per-benchmark charts take longer than the
    // measurement; `bloomlab bench-report` draws its own
    config = Criterion::default()
        .without_plots()
        .sample_size(10)
        .warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_secs(1));
    targets = designs
}
criterion_main!(group);
