//! The line APBF against fastbloom, the APBF and the blocked APBF: the
//! benchmark of its speed targets (`docs/speed.md`, "One cache line per
//! operation").
//!
//! Windows 2^16 and 2^22 by default (`BLOOMLAB_BENCH_SIZES=16,22` sets
//! them), at one of two memory points a run (`BLOOMLAB_LINE_MEMORY`):
//!
//! - `k10` (the default): the bits of the APBF (10, 7) (g = ⌈w / 7⌉,
//!   ⌈10 g / ln 2⌉ bits a slice). fastbloom at those bits and k = 10; the
//!   blocked APBF (10, 7) at its default blocks (the same bits); the line
//!   APBF with as many whole lines as those bits fill and, of l = 31 - k,
//!   the k of lowest exact worst-phase FPR at that memory.
//! - `fpr`: the crate's default sizing for FPR 1e-3
//!   (`Target::window(w).fpr(1e-3)`) of each design; fastbloom at the
//!   APBF's bits with its k (13).
//!
//! Groups are operations, functions designs, parameters sizes, as in
//! `ops.rs`, so `bloomlab bench-report` reads them, fastbloom the baseline
//! of each memory point's run. Sliding designs are
//! filled with 3 windows, fastbloom with w keys; query keys come from pools
//! of 2^20 (4096 an iteration), so that 2^22 reads DRAM.

use bloomlab_filters::apbf::line::LineTheory;
use bloomlab_filters::hash::mix64;
use bloomlab_filters::{
    Apbf, ApbfShape, BlockedApbf, BlockedApbfShape, Filter, LineApbf, LineApbfShape, Target,
};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::collections::BTreeMap;
use std::hint::black_box;

const OPS: usize = 4096;
const POOL: usize = 1 << 20;

trait Subject {
    fn insert(&mut self, key: u64);
    fn contains(&self, key: u64) -> bool;
    fn bits(&self) -> u64;
}

struct Ours<F>(F);

impl<F: Filter> Subject for Ours<F> {
    #[inline]
    fn insert(&mut self, key: u64) {
        self.0.insert(key)
    }
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.0.contains(key)
    }
    fn bits(&self) -> u64 {
        self.0.memory_bits()
    }
}

struct Fast(fastbloom::BloomFilter);

impl Subject for Fast {
    #[inline]
    fn insert(&mut self, key: u64) {
        self.0.insert_hash(key);
    }
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.0.contains_hash(key)
    }
    fn bits(&self) -> u64 {
        self.0.num_bits() as u64
    }
}

fn sizes() -> Vec<u32> {
    std::env::var("BLOOMLAB_BENCH_SIZES")
        .map(|s| {
            s.split(',')
                .map(|x| x.trim().parse().expect("log2 sizes, e.g. 16,22"))
                .collect()
        })
        .unwrap_or_else(|_| vec![16, 22])
}

/// The line APBF on `lines` lines over window `w`: of k = 1..=16 (l = 31 - k)
/// the lowest exact worst-phase FPR.
fn line_at(w: u64, lines: u64) -> LineApbf {
    let best = (1..=16u32)
        .map(|k| {
            let l = 31 - k;
            LineTheory {
                k,
                l,
                g: w.div_ceil(l as u64),
                lines,
            }
        })
        .min_by(|a, b| a.fpr().unwrap().total_cmp(&b.fpr().unwrap()))
        .unwrap();
    LineApbf::new(LineApbfShape::from(best)).unwrap()
}

fn fast(bits: u64, k: u32) -> Fast {
    Fast(
        fastbloom::BloomFilter::with_num_bits(bits as usize)
            .seed(&1)
            .hashes(k),
    )
}

/// The run's memory point: `k10` or `fpr`.
fn memory_point() -> String {
    let p = std::env::var("BLOOMLAB_LINE_MEMORY").unwrap_or_else(|_| "k10".into());
    assert!(
        p == "k10" || p == "fpr",
        "BLOOMLAB_LINE_MEMORY: k10 or fpr, not {p:?}"
    );
    p
}

/// The designs of one window at the run's memory point, by name, and the
/// keys each was filled with.
fn designs(log_w: u32) -> Vec<(&'static str, Box<dyn Subject>, u64)> {
    let w = 1u64 << log_w;
    let sliding = 3 * w;
    if memory_point() == "fpr" {
        let least: Apbf = Target::window(w).fpr(1e-3).build().unwrap();
        let least_bits = (least.k() + least.l()) as u64 * least.m();
        return vec![
            ("fastbloom", Box::new(fast(least_bits, least.k())), w),
            ("apbf", Box::new(Ours(least)), sliding),
            (
                "blocked_apbf",
                Box::new(Ours(
                    Target::window(w).fpr(1e-3).build::<BlockedApbf>().unwrap(),
                )),
                sliding,
            ),
            (
                "line_apbf",
                Box::new(Ours(
                    Target::window(w).fpr(1e-3).build::<LineApbf>().unwrap(),
                )),
                sliding,
            ),
        ];
    }
    let g = w.div_ceil(7);
    let apbf = Apbf::new(ApbfShape {
        hashes: 10,
        extra_slices: 7,
        generation: g,
    })
    .unwrap();
    let bits = 17 * apbf.m();
    vec![
        ("fastbloom", Box::new(fast(bits, 10)) as Box<dyn Subject>, w),
        ("apbf", Box::new(Ours(apbf)), sliding),
        (
            "blocked_apbf",
            Box::new(Ours(
                BlockedApbf::new(BlockedApbfShape {
                    hashes: 10,
                    extra_slices: 7,
                    generation: g,
                    blocks: None,
                })
                .unwrap(),
            )),
            sliding,
        ),
        ("line_apbf", Box::new(Ours(line_at(w, bits / 512))), sliding),
    ]
}

fn time<R>(c: &mut Criterion, op: &str, design: &str, size: &str, mut body: impl FnMut() -> R) {
    let mut g = c.benchmark_group(op);
    g.throughput(Throughput::Elements(OPS as u64));
    g.bench_function(BenchmarkId::new(design, size), |b| b.iter(&mut body));
    g.finish();
}

fn bench(c: &mut Criterion) {
    let mut memory = BTreeMap::new();
    for log_w in sizes() {
        let w = 1u64 << log_w;
        let size = format!("w2^{log_w}");
        let mut ds = designs(log_w);
        for (name, f, fill) in ds.iter_mut() {
            for t in 0..*fill {
                f.insert(mix64(t));
            }
            memory.insert(format!("{name}/{size}"), f.bits());
        }
        let absent: Vec<u64> = (0..POOL as u64).map(|i| mix64(u64::MAX - i)).collect();
        for op in ["query_negative", "query_positive"] {
            for (name, f, fill) in ds.iter() {
                let recent: Vec<u64> = (0..POOL as u64)
                    .map(|i| mix64(fill - 1 - mix64(i) % w))
                    .collect();
                let keys = if op == "query_negative" {
                    &absent
                } else {
                    &recent
                };
                let mut at = 0usize;
                time(c, op, name, &size, || {
                    at = (at + OPS) % POOL;
                    keys[at..at + OPS]
                        .iter()
                        .filter(|&&k| f.contains(black_box(k)))
                        .count()
                });
            }
        }
        for (name, f, fill) in ds.iter_mut() {
            let mut t = *fill;
            time(c, "insert", name, &size, || {
                for _ in 0..OPS {
                    t += 1;
                    f.insert(mix64(t));
                }
            });
        }
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/criterion");
    let _ = std::fs::create_dir_all(&dir);
    let json: Vec<String> = memory
        .iter()
        .map(|(k, v)| format!("  \"{k}\": {v}"))
        .collect();
    std::fs::write(
        dir.join("bloomlab_memory.json"),
        format!("{{\n{}\n}}\n", json.join(",\n")),
    )
    .expect("writes the memory beside criterion's files");
}

criterion_group! {
    name = group;
    config = Criterion::default()
        .without_plots()
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = bench
}
criterion_main!(group);
