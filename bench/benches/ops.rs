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
//! minimum retention `w` and FPR 1.5e-3. The designs over a window of time
//! (`apbf_time`, `apbf_hybrid`, `naor_yogev_hybrid`, `jumping_time`,
//! `double_buffer_time`, `tbf_time`, `swbf_hybrid`, `sliding_bloom_time`,
//! `half_sliding_time`, `clock_bloom_time`, `tlbf`) are sized by the crate's
//! builder for T·R = w keys at R = 10^6 keys a second, and every timed
//! insertion first advances their clock by 1 us (so the insertion rows
//! include the expiry the clock triggers). Our designs and fastbloom take the
//! 64-bit key hash as it is (`insert_hash`/`contains_hash`); `bloomfilter`
//! and `rotating-bloom-filter` only take items, so their rows include hashing
//! a u64 (SipHash-1-3 twice; foldhash), a few ns.
//!
//! Sizes: 2^12, 2^16, 2^20 and 2^24 for every design, and 2^22 for SWAMP
//! alone (its second target size); `BLOOMLAB_BENCH_SIZES=12,16` runs a
//! subset, and `BLOOMLAB_BENCH_DESIGNS=fastbloom,apbf` prepares only the
//! named designs. Filters are filled to steady state (sliding designs: 3 windows;
//! set filters: w keys) outside the timed loops. The designs of one size are
//! all prepared first and then timed operation by operation, so that the
//! designs compared in one table are measured next to each other in time.
//! 20 samples per benchmark. Compare designs only as ratios within one run:
//! the machine is shared and noisy; `docs/speed.md` gives the protocol for
//! two pinned runs and their spread.

use bloomlab_filters::clock_sketch::{ClockBloom, TimedClockBloom};
use bloomlab_filters::half_sliding::{HalfSliding, TimedHalfSliding};
use bloomlab_filters::hash::mix64;
use bloomlab_filters::segmented::{
    A2Buffer, DoubleBuffer, ForgetfulBloom, ForgetfulCode, JumpingWindow,
};
use bloomlab_filters::she::{SheBloom, TimedSheBloom};
use bloomlab_filters::sliding_sketch::{SlidingBloom, TimedSlidingBloom};
use bloomlab_filters::timing::{TimedSwbf, TimedTbf};
use bloomlab_filters::Instrumented;
use bloomlab_filters::{
    Apbf, BlockedApbf, Broom, Filter, LineApbf, NaorYogev, NyPocket, OnTime,
    PartitionedBloomFilter, SlidingHll, StableBloomFilter, Swamp, Swbf, Swlc, TimingBloom, Trigger,
    Wcss, WindowSummary,
};
use bloomlab_filters::{
    ApbfShape, BlockedApbfShape, NaorYogevShape, NyPocketShape, PartitionedBloomShape,
    SlidingHllShape, SwlcShape, WcssShape,
};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::Mutex;

/// Operations per timed iteration.
const OPS: usize = 4096;
/// Distinct query keys per kind (a multiple of `OPS`).
const POOL: usize = 1 << 20;
/// FPR the designs with a target are sized for.
const FPR: f64 = 1.5e-3;

/// Memory of every design x size benchmarked, for `bloomlab bench-report`
/// (written beside criterion's files as `bloomlab_memory.json`).
static MEMORY: Mutex<BTreeMap<String, u64>> = Mutex::new(BTreeMap::new());

/// Mean distinct cache lines a query reads, per `design/size/operation`, for
/// the designs that count them (`Filter::contains_probes`; fastbloom reads
/// one 512-bit block), written as `bloomlab_lines.json`.
static LINES: Mutex<BTreeMap<String, f64>> = Mutex::new(BTreeMap::new());

/// What the benchmarks need of a filter, ours or a crate's.
trait Target {
    fn insert(&mut self, key: u64);
    fn contains(&self, key: u64) -> bool;
    /// Bits of state, where the design reports them.
    fn memory_bits(&self) -> Option<u64> {
        None
    }
    /// Cache lines a query for `key` reads, where the design counts them.
    fn lines(&self, _key: u64) -> Option<u32> {
        None
    }
    fn contains_many(&self, keys: &[u64], out: &mut [bool]) {
        for (o, &k) in out.iter_mut().zip(keys) {
            *o = self.contains(k);
        }
    }
}

struct Ours<F>(F);

impl<F: Instrumented> Target for Ours<F> {
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
    fn memory_bits(&self) -> Option<u64> {
        Some(self.0.memory_bits())
    }
    fn lines(&self, key: u64) -> Option<u32> {
        Some(self.0.contains_probes(key).1)
    }
}

/// A design over a window of time, driven by a clock that advances
/// `DT` ticks (ns) before each insertion: a constant rate of 10^6 keys a
/// second, so that T·R keys fill its window of time T.
struct Timed<F>(F, u64);

/// Ticks between insertions of a [`Timed`] design: 1 us.
const DT: u64 = 1_000;

impl<F: bloomlab_filters::TimedFilter> Timed<F> {
    /// Sized by the crate's builder for a window of `w` keys at 10^6 keys a
    /// second (T = w us) and FPR 1.5e-3.
    fn sized(w: u64, trigger: Option<bloomlab_filters::Trigger>) -> Self
    where
        F: bloomlab_filters::build::Build,
    {
        let mut t = bloomlab_filters::build::Target::time(w as f64 * 1e-6, 1e6)
            .ticks_per_unit(1e9)
            .fpr(FPR);
        if let Some(tr) = trigger {
            t = t.trigger(tr);
        }
        Timed(t.build().unwrap(), 0)
    }
}

impl<F: bloomlab_filters::TimedFilter> Target for Timed<F> {
    #[inline]
    fn insert(&mut self, key: u64) {
        self.1 += DT;
        self.0.advance(self.1);
        self.0.insert(key)
    }
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.0.contains(key)
    }
    fn memory_bits(&self) -> Option<u64> {
        Some(self.0.memory_bits())
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
    fn memory_bits(&self) -> Option<u64> {
        Some(self.0.num_bits() as u64)
    }
    fn lines(&self, _key: u64) -> Option<u32> {
        // fastbloom sets and tests all k bits in one 512-bit block
        Some(1)
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
    fn memory_bits(&self) -> Option<u64> {
        Some(self.0.len())
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

/// `cuckoo-clock` 0.2 (a cuckoo filter with TTL bits beside each
/// fingerprint, the crate Vector uses): 12-bit fingerprints in buckets of 4,
/// a TTL of 4 scans, and the scan that ages every TTL counter run every
/// w/3 insertions, so that a key is reported for at least w and at most
/// 4w/3 insertions; its capacity 4w/3. The scans' cost is in the insertion
/// row (amortised: a scan of every bucket per w/3 insertions). It hashes
/// keys with std's SipHash-1-3 (its `BuildHasher`), a few ns in every row.
struct CuckooClock {
    f: cuckoo_clock::CuckooFilter<std::hash::RandomState>,
    every: u64,
    n: u64,
}

impl CuckooClock {
    fn new(w: u64) -> CuckooClock {
        use cuckoo_clock::config::{CuckooConfiguration, TtlConfig};
        let every = w.div_ceil(3).max(1);
        let config = CuckooConfiguration::builder((4 * every) as usize)
            .fingerprint_bits(12.try_into().unwrap())
            .bucket_size(4.try_into().unwrap())
            .with_ttl(TtlConfig {
                ttl: 4.try_into().unwrap(),
                ttl_bits: 3.try_into().unwrap(),
            })
            .build()
            .unwrap();
        CuckooClock {
            f: cuckoo_clock::CuckooFilter::new(config, std::hash::RandomState::new()),
            every,
            n: 0,
        }
    }
}

impl Target for CuckooClock {
    #[inline]
    fn insert(&mut self, key: u64) {
        self.n += 1;
        if self.n.is_multiple_of(self.every) {
            self.f.scan_and_update_ttl();
        }
        self.f.insert(&key);
    }
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.f.contains(&key)
    }
    fn memory_bits(&self) -> Option<u64> {
        Some(8 * self.f.get_memory_usage() as u64)
    }
}

/// `expiring-atomic-filter` 0.1 (a ring of lock-free cuckoo filters, one
/// written at a time, expired by the wall clock): 16-bit fingerprints in
/// buckets of 4, a TTL of two expiration periods (four slots; a query
/// reads every slot), capacity 2w per slot (a cuckoo table loaded to half
/// at most). Its slot is chosen by the
/// system time, which a benchmark cannot drive, so its expiry is stood in
/// for by clearing it when the slot written holds w keys (amortised O(1)
/// per insertion); without that its insertions fail once the slot is full.
/// It hashes with std's `DefaultHasher` (SipHash-1-3) and reads the system
/// time on every insertion: both are its own cost, in its rows.
struct ExpiringAtomic {
    f: expiring_atomic_filter::ExpiringAtomicFilter,
    w: usize,
}

impl ExpiringAtomic {
    fn new(w: u64) -> ExpiringAtomic {
        let f = expiring_atomic_filter::ExpiringAtomicFilter::builder()
            .capacity(4 * w as usize)
            .fingerprint_size(16)
            .bucket_size(4)
            .ttl(7200)
            .expiration_period(3600)
            .build()
            .unwrap();
        ExpiringAtomic { f, w: w as usize }
    }
}

impl Target for ExpiringAtomic {
    #[inline]
    fn insert(&mut self, key: u64) {
        if self.f.len() >= self.w {
            self.f.clear();
        }
        // a full slot cannot happen below w keys at twice that capacity;
        // an error would be a broken comparison, so it stops the benchmark
        self.f.insert(&key).unwrap();
    }
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.f.contains(&key)
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
        Err(_) => vec![12, 16, 20, 22, 24],
    }
}

/// Whether `design` is to be prepared: every design, or those named in
/// `BLOOMLAB_BENCH_DESIGNS` (comma-separated, e.g. `apbf,fastbloom`), so that
/// a run of a few designs does not fill the others (criterion's own filter
/// only skips the timing).
fn selected(design: &str) -> bool {
    match std::env::var("BLOOMLAB_BENCH_DESIGNS") {
        Ok(s) => s.split(',').any(|d| d.trim() == design),
        Err(_) => true,
    }
}

/// A design filled to steady state, with its pool of recent keys.
struct Prepared {
    design: &'static str,
    f: Box<dyn Target>,
    recent: Vec<u64>,
    /// Keys inserted so far (the next insertion's counter).
    t: u64,
}

/// Not selected: nothing built (its sizing may cost seconds).
struct Skipped;

impl Target for Skipped {
    fn insert(&mut self, _key: u64) {}
    fn contains(&self, _key: u64) -> bool {
        false
    }
}

/// [`prepare`], building the filter only when `design` is selected.
fn prepare_with<T: Target + 'static>(
    design: &'static str,
    log_w: u32,
    fill: u64,
    make: impl FnOnce() -> T,
) -> Prepared {
    if selected(design) {
        prepare(design, log_w, fill, make())
    } else {
        prepare(design, log_w, fill, Skipped)
    }
}

/// Fills `f` with `fill` keys and records its memory and the lines its
/// queries read.
fn prepare<T: Target + 'static>(design: &'static str, log_w: u32, fill: u64, mut f: T) -> Prepared {
    if !selected(design) {
        return Prepared {
            design,
            f: Box::new(f),
            recent: Vec::new(),
            t: 0,
        };
    }
    let w = 1u64 << log_w;
    let size = format!("w2^{log_w}");
    if let Some(bits) = f.memory_bits() {
        MEMORY
            .lock()
            .unwrap()
            .insert(format!("{design}/{size}"), bits);
    }
    for t in 0..fill {
        f.insert(mix64(t));
    }
    // Query keys come from pools of 2^20 and each timed iteration takes the
    // next 4096, so that the lines a query touches are not still cached from
    // the previous iteration (a fixed set of 4096 keys touches at most a few
    // hundred KB and would hide DRAM at 2^24).
    let recent: Vec<u64> = (0..POOL as u64)
        .map(|i| mix64(fill - 1 - mix64(i) % w))
        .collect();
    for (op, keys) in [
        ("query_positive", &recent),
        ("query_negative", &absent(OPS)),
    ] {
        let lines: Option<Vec<u32>> = keys[..OPS].iter().map(|&k| f.lines(k)).collect();
        if let Some(lines) = lines {
            let mean = lines.iter().map(|&x| x as f64).sum::<f64>() / OPS as f64;
            let mut map = LINES.lock().unwrap();
            map.insert(format!("{design}/{size}/{op}"), mean);
            if op == "query_negative" {
                map.insert(format!("{design}/{size}/query_negative_batched"), mean);
            }
        }
    }
    Prepared {
        design,
        f: Box::new(f),
        recent,
        t: fill,
    }
}

/// The first `n` keys never inserted (the insertions use `mix64` of small
/// counters).
fn absent(n: usize) -> Vec<u64> {
    (0..n as u64).map(|i| mix64(u64::MAX - i)).collect()
}

/// Times the four operations of every prepared design, operation by
/// operation, so that the designs of one operation are measured next to
/// each other in time (a drift of the machine then moves them together).
/// Insertions go last: they move the state on.
fn bench_all(c: &mut Criterion, log_w: u32, designs: &mut [Prepared]) {
    let size = format!("w2^{log_w}");
    let absent = absent(POOL);
    let mut out = vec![false; OPS];
    let mut designs: Vec<&mut Prepared> =
        designs.iter_mut().filter(|p| selected(p.design)).collect();
    for op in ["query_positive", "query_negative", "query_negative_batched"] {
        for p in designs.iter_mut() {
            let mut at = 0usize;
            let mut next = || {
                at = (at + OPS) % POOL;
                at..at + OPS
            };
            let f = &p.f;
            let recent = &p.recent;
            match op {
                "query_positive" => time(c, op, p.design, &size, || {
                    recent[next()]
                        .iter()
                        .filter(|&&k| f.contains(black_box(k)))
                        .count()
                }),
                "query_negative" => time(c, op, p.design, &size, || {
                    absent[next()]
                        .iter()
                        .filter(|&&k| f.contains(black_box(k)))
                        .count()
                }),
                _ => time(c, op, p.design, &size, || {
                    f.contains_many(black_box(&absent[next()]), &mut out);
                    out.iter().filter(|&&x| x).count()
                }),
            }
        }
    }
    for p in designs.iter_mut() {
        let (f, t) = (&mut p.f, &mut p.t);
        time(c, "insert", p.design, &size, || {
            for _ in 0..OPS {
                *t += 1;
                f.insert(mix64(*t));
            }
        });
    }
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
        let sliding = 3 * w;
        if log_w == 22 {
            // 2^22 is SWAMP's second target size; the others are read at
            // 2^20 and 2^24
            let mut v = vec![prepare(
                "swamp",
                log_w,
                sliding,
                Ours(
                    bloomlab_filters::Target::window(w)
                        .fpr(FPR)
                        .build::<Swamp>()
                        .unwrap(),
                ),
            )];
            bench_all(c, log_w, &mut v);
            continue;
        }
        let g = w.div_ceil(7);
        let blocked = BlockedApbf::new(BlockedApbfShape {
            hashes: 10,
            extra_slices: 7,
            generation: g,
            blocks: None,
        })
        .unwrap();
        let bits = blocked.memory_bits() - 128;
        // bloomfilter picks k = round(m / n ln 2): give it the n that makes 10
        let items = (bits as f64 * std::f64::consts::LN_2 / 10.0).round() as usize;
        let plain =
            bloomfilter::Bloom::new_with_seed((bits / 8) as usize, items, &[7; 32]).unwrap();
        assert_eq!(plain.number_of_hash_functions(), 10);
        let fast = fastbloom::BloomFilter::with_num_bits(bits as usize)
            .seed(&1)
            .hashes(10);
        let mut rng = <rand_pcg_10::Pcg64 as rand_core_10::SeedableRng>::seed_from_u64(3);
        let rotating = rotating_bloom_filter::RotatingBloomFilter::new(FPR, w as usize, &mut rng);
        let mut v = vec![
            prepare("fastbloom", log_w, w, Fast(fast)),
            prepare("blocked_apbf", log_w, sliding, Ours(blocked)),
            prepare(
                "apbf",
                log_w,
                sliding,
                Ours(
                    Apbf::new(ApbfShape {
                        hashes: 10,
                        extra_slices: 7,
                        generation: g,
                    })
                    .unwrap(),
                ),
            ),
            // the plan's two sizings at FPR 1.5e-3 (`bloomlab plan --window W
            // --fpr 1.5e-3 --design apbf`, the same (k, l) at every window
            // here, held by the harness's plan tests): least memory (13, 30)
            // and fast (11, 10); the blocked APBF at each (k, l) with the
            // fewest blocks meeting the target
            prepare_with("apbf_least", log_w, sliding, || {
                Ours(
                    bloomlab_filters::Target::window(w)
                        .fpr(FPR)
                        .build::<Apbf>()
                        .unwrap(),
                )
            }),
            prepare_with("apbf_fast", log_w, sliding, || {
                Ours(
                    Apbf::new(ApbfShape {
                        hashes: 11,
                        extra_slices: 10,
                        generation: w.div_ceil(10),
                    })
                    .unwrap(),
                )
            }),
            prepare_with("blocked_apbf_least", log_w, sliding, || {
                Ours(
                    bloomlab_filters::Target::window(w)
                        .fpr(FPR)
                        .build::<BlockedApbf>()
                        .unwrap(),
                )
            }),
            prepare_with("blocked_apbf_fast", log_w, sliding, || {
                Ours(
                    bloomlab_filters::Target::window(w)
                        .fpr(FPR)
                        .hashes(11)
                        .extra_slices(10)
                        .build::<BlockedApbf>()
                        .unwrap(),
                )
            }),
            // the line APBF sized by the crate's builder at this bench's FPR
            // (`benches/line.rs` compares it at equal memory)
            prepare_with("line_apbf", log_w, sliding, || {
                Ours(
                    bloomlab_filters::Target::window(w)
                        .fpr(FPR)
                        .build::<LineApbf>()
                        .unwrap(),
                )
            }),
            prepare("bloomfilter", log_w, w, Plain(plain)),
            prepare(
                "partitioned_bloom",
                log_w,
                w,
                Ours(
                    PartitionedBloomFilter::new(PartitionedBloomShape {
                        hashes: 10,
                        bits_per_slice: bits / 10,
                    })
                    .unwrap(),
                ),
            ),
            prepare(
                "naor_yogev",
                log_w,
                sliding,
                Ours(
                    NaorYogev::new(NaorYogevShape {
                        window: w,
                        slack: w,
                        fpr: FPR,
                        generations: None,
                        max_load: None,
                    })
                    .unwrap(),
                ),
            ),
            prepare(
                "ny_pocket",
                log_w,
                sliding,
                Ours(
                    NyPocket::new(NyPocketShape {
                        window: w,
                        slack: w,
                        fpr: FPR,
                        generations: None,
                        max_load: None,
                    })
                    .unwrap(),
                ),
            ),
            prepare(
                "stable",
                log_w,
                sliding,
                Ours(
                    bloomlab_filters::Target::memory(bits)
                        .fpr(FPR)
                        .build::<StableBloomFilter>()
                        .unwrap(),
                ),
            ),
            prepare(
                "jumping",
                log_w,
                sliding,
                Ours(
                    bloomlab_filters::Target::window(w)
                        .fpr(FPR)
                        .segments(5)
                        .build::<JumpingWindow>()
                        .unwrap(),
                ),
            ),
            prepare(
                "double_buffer",
                log_w,
                sliding,
                Ours(
                    bloomlab_filters::Target::window(w)
                        .fpr(FPR)
                        .build::<DoubleBuffer>()
                        .unwrap(),
                ),
            ),
            prepare(
                "a2",
                log_w,
                sliding,
                Ours(
                    bloomlab_filters::Target::window(w)
                        .fpr(FPR)
                        .build::<A2Buffer>()
                        .unwrap(),
                ),
            ),
            prepare(
                "forgetful",
                log_w,
                sliding,
                Ours(
                    bloomlab_filters::Target::window(w)
                        .fpr(FPR)
                        .past(4)
                        .build::<ForgetfulBloom>()
                        .unwrap(),
                ),
            ),
            prepare(
                "forgetful_code",
                log_w,
                sliding,
                Ours(
                    bloomlab_filters::Target::window(w)
                        .fpr(FPR)
                        .past(8)
                        .build::<ForgetfulCode>()
                        .unwrap(),
                ),
            ),
            prepare_with("sliding_bloom", log_w, sliding, || {
                Ours(
                    bloomlab_filters::Target::window(w)
                        .fpr(FPR)
                        .build::<SlidingBloom>()
                        .unwrap(),
                )
            }),
            prepare_with("half_sliding", log_w, sliding, || {
                Ours(
                    bloomlab_filters::Target::window(w)
                        .fpr(FPR)
                        .build::<HalfSliding>()
                        .unwrap(),
                )
            }),
            prepare_with("clock_bloom", log_w, sliding, || {
                Ours(
                    bloomlab_filters::Target::window(w)
                        .fpr(FPR)
                        .build::<ClockBloom>()
                        .unwrap(),
                )
            }),
            prepare_with("she_bloom", log_w, sliding, || {
                Ours(
                    bloomlab_filters::Target::window(w)
                        .fpr(FPR)
                        .build::<SheBloom>()
                        .unwrap(),
                )
            }),
            // the designs over a window of time, at 10^6 keys a second
            // (T = w us), sized by the crate's builder
            prepare_with("apbf_time", log_w, sliding, || {
                Timed::<OnTime<Apbf>>::sized(w, Some(Trigger::Time))
            }),
            prepare_with("apbf_hybrid", log_w, sliding, || {
                Timed::<OnTime<Apbf>>::sized(w, Some(Trigger::Hybrid))
            }),
            prepare_with("naor_yogev_hybrid", log_w, sliding, || {
                Timed::<OnTime<NaorYogev>>::sized(w, None)
            }),
            prepare_with("jumping_time", log_w, sliding, || {
                Timed::<OnTime<JumpingWindow>>::sized(w, None)
            }),
            prepare_with("double_buffer_time", log_w, sliding, || {
                Timed::<OnTime<DoubleBuffer>>::sized(w, None)
            }),
            prepare_with("tbf_time", log_w, sliding, || {
                Timed::<TimedTbf>::sized(w, None)
            }),
            prepare_with("swbf_hybrid", log_w, sliding, || {
                Timed::<TimedSwbf>::sized(w, None)
            }),
            prepare_with("sliding_bloom_time", log_w, sliding, || {
                Timed::<TimedSlidingBloom>::sized(w, None)
            }),
            prepare_with("half_sliding_time", log_w, sliding, || {
                Timed::<TimedHalfSliding>::sized(w, None)
            }),
            prepare_with("clock_bloom_time", log_w, sliding, || {
                Timed::<TimedClockBloom>::sized(w, None)
            }),
            prepare_with("she_bloom_time", log_w, sliding, || {
                Timed::<TimedSheBloom>::sized(w, None)
            }),
            prepare_with("blocked_apbf_time", log_w, sliding, || {
                // no builder sizing: the count design's, τ = T/l
                let inner = bloomlab_filters::Target::window(w)
                    .fpr(FPR)
                    .build::<BlockedApbf>()
                    .unwrap();
                let tau = (w * DT).div_ceil(inner.l() as u64);
                let f: OnTime<BlockedApbf> = OnTime::wrap(inner, tau, Trigger::Time).unwrap();
                Timed(f, 0)
            }),
            prepare_with("line_apbf_time", log_w, sliding, || {
                Timed::<OnTime<LineApbf>>::sized(w, None)
            }),
            prepare_with("tlbf", log_w, sliding, || {
                Timed::<bloomlab_filters::tlbf::Tlbf>::sized(w, None)
            }),
            prepare("rotating-bloom-filter", log_w, sliding, Rotating(rotating)),
            prepare("cuckoo-clock", log_w, sliding, CuckooClock::new(w)),
            prepare("expiring-atomic-filter", log_w, w, ExpiringAtomic::new(w)),
            prepare(
                "swamp",
                log_w,
                sliding,
                Ours(
                    bloomlab_filters::Target::window(w)
                        .fpr(FPR)
                        .build::<Swamp>()
                        .unwrap(),
                ),
            ),
            prepare(
                "tbf",
                log_w,
                sliding,
                Ours(
                    bloomlab_filters::Target::window(w)
                        .fpr(FPR)
                        .build::<TimingBloom>()
                        .unwrap(),
                ),
            ),
            prepare(
                "swbf",
                log_w,
                sliding,
                Ours(
                    bloomlab_filters::Target::window(w)
                        .fpr(FPR)
                        .build::<Swbf>()
                        .unwrap(),
                ),
            ),
        ];
        // the broom filter's window insertion costs several us: 2^24
        // windows would take minutes to fill
        if log_w <= 20 {
            v.push(prepare(
                "broom",
                log_w,
                2 * w,
                Ours(
                    bloomlab_filters::Target::window(w)
                        .fpr(FPR)
                        .seed(7)
                        .build::<Broom>()
                        .unwrap(),
                ),
            ));
        }
        bench_all(c, log_w, &mut v);
        drop(v);
        summary(
            c,
            "wcss",
            log_w,
            Wcss::new(WcssShape::for_error(w, 1e-3).unwrap()).unwrap(),
        );
        summary(
            c,
            "swhll",
            log_w,
            SlidingHll::new(SlidingHllShape {
                window: w,
                registers: 1024,
            })
            .unwrap(),
        );
        summary(
            c,
            "swlc",
            log_w,
            Swlc::new(SwlcShape {
                window: w,
                registers: 16384,
            })
            .unwrap(),
        );
    }
    write_memory();
}

/// A window summary: `insert` (record an arrival) and its query, the
/// frequency of a key (WCSS) or the distinct count (sliding HLL, SWLC),
/// after 3 windows of Zipf-free distinct arrivals.
fn summary<S: WindowSummary>(c: &mut Criterion, design: &str, log_w: u32, mut s: S) {
    if !selected(design) {
        return;
    }
    let w = 1u64 << log_w;
    let size = format!("w2^{log_w}");
    MEMORY
        .lock()
        .unwrap()
        .insert(format!("{design}/{size}"), s.summary_bits());
    let mut t = 0u64;
    for _ in 0..3 * w {
        t += 1;
        s.record(mix64(t % (w / 4).max(1)));
    }
    if let Some(freq) = s.as_frequency() {
        let keys: Vec<u64> = (0..POOL as u64)
            .map(|i| mix64(i % (w / 4).max(1)))
            .collect();
        let mut at = 0usize;
        time(c, "query_frequency", design, &size, || {
            at = (at + OPS) % POOL;
            keys[at..at + OPS]
                .iter()
                .map(|&k| freq.frequency(black_box(k)))
                .sum::<u64>()
        });
    }
    if let Some(d) = s.as_distinct() {
        let mut g = c.benchmark_group("query_distinct");
        g.bench_function(BenchmarkId::new(design, &size), |b| b.iter(|| d.distinct()));
        g.finish();
    }
    time(c, "insert", design, &size, || {
        for _ in 0..OPS {
            t += 1;
            s.record(mix64(t % (w / 4).max(1)));
        }
    });
}

/// Writes `MEMORY` beside criterion's output (target/criterion).
fn write_memory() {
    let Some(target) = std::env::current_exe()
        .ok()
        .and_then(|e| Some(e.parent()?.parent()?.parent()?.to_path_buf()))
    else {
        return;
    };
    let dir = target.join("criterion");
    let _ = std::fs::create_dir_all(&dir);
    let json = |body: Vec<String>| format!("{{\n{}\n}}\n", body.join(",\n"));
    let memory = MEMORY.lock().unwrap();
    let body = memory.iter().map(|(k, v)| format!("  \"{k}\": {v}"));
    let _ = std::fs::write(dir.join("bloomlab_memory.json"), json(body.collect()));
    let lines = LINES.lock().unwrap();
    let body = lines.iter().map(|(k, v)| format!("  \"{k}\": {v}"));
    let _ = std::fs::write(dir.join("bloomlab_lines.json"), json(body.collect()));
}

/// The machine's memory-access limit at working sets of 2^12 .. 2^28
/// bytes: the time of one dependent random read (a pointer chase through a
/// random cycle, Sattolo's shuffle) and of one read among 8 independent
/// chases advanced together (the memory-level parallelism a query's
/// independent probes can use). `bloomlab bench-report` sets each design's
/// ns/op against these at its own memory size.
fn memory_probe(c: &mut Criterion) {
    for log_bytes in (12..=28).step_by(2) {
        let n = (1usize << log_bytes) / 8;
        let mut next: Vec<u64> = (0..n as u64).collect();
        // Sattolo: one cycle through every slot
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for i in (1..n).rev() {
            x = mix64(x);
            let j = (x % i as u64) as usize;
            next.swap(i, j);
        }
        let size = format!("bytes2^{log_bytes}");
        let mut p = 0usize;
        time(c, "memory_probe", "dependent_read", &size, || {
            for _ in 0..OPS {
                p = next[p] as usize;
            }
            p
        });
        let mut ps: [usize; 8] = std::array::from_fn(|i| i * n / 8);
        let mut g = c.benchmark_group("memory_probe");
        g.throughput(Throughput::Elements(OPS as u64));
        g.bench_function(BenchmarkId::new("independent_read_x8", &size), |b| {
            b.iter(|| {
                for _ in 0..OPS / 8 {
                    for q in ps.iter_mut() {
                        *q = next[*q] as usize;
                    }
                }
                ps[0]
            })
        });
        g.finish();
    }
}

criterion_group! {
    name = group;
    // no plots: criterion's per-benchmark charts take longer than the
    // measurement; `bloomlab bench-report` draws its own
    config = Criterion::default()
        .without_plots()
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_secs(1));
    targets = memory_probe, designs
}
criterion_main!(group);
