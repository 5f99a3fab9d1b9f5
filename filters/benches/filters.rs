//! Criterion benchmarks: insert, positive query and negative query, per design
//! and size. Run with `cargo bench -p bloomlab-filters`. Compare designs as
//! ratios within one run: absolute times depend on the machine and its load.

use bloomlab_filters::hash::{mix64, KeyHasher};
use bloomlab_filters::stable::Decrement;
use bloomlab_filters::{Apbf, Filter, NaorYogev, PartitionedBloomFilter, StableBloomFilter};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use stable_bloom_filter::stable::StableBloomFilter as CrateSbf;
use stable_bloom_filter::Filter as CrateFilter;
use std::hint::black_box;

const OPS: u64 = 4096;

fn bench_design<F: Filter>(c: &mut Criterion, name: &str, window: u64, mut f: F) {
    // fill to steady state: the window plus a slack's worth
    for t in 0..3 * window {
        f.insert(mix64(t));
    }
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Elements(OPS));
    let mut t = 3 * window;
    g.bench_function(BenchmarkId::new("insert", window), |b| {
        b.iter(|| {
            for _ in 0..OPS {
                t += 1;
                f.insert(mix64(t));
            }
        })
    });
    let recent: Vec<u64> = (0..OPS).map(|i| mix64(t - (i * 7919) % window)).collect();
    g.bench_function(BenchmarkId::new("query_positive", window), |b| {
        b.iter(|| recent.iter().filter(|&&k| f.contains(black_box(k))).count())
    });
    let absent: Vec<u64> = (0..OPS).map(|i| mix64(u64::MAX - i)).collect();
    g.bench_function(BenchmarkId::new("query_negative", window), |b| {
        b.iter(|| absent.iter().filter(|&&k| f.contains(black_box(k))).count())
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    for log_w in [12u32, 16, 20] {
        let w = 1u64 << log_w;
        // APBF (10, 7) at FPR ~1.5e-3 beside a partitioned Bloom filter of the
        // same k sized for the window.
        bench_design(c, "apbf_k10_l7", w, Apbf::new(10, 7, w / 7 + 1).unwrap());
        bench_design(
            c,
            "partitioned_bloom_k10",
            w,
            PartitionedBloomFilter::new(10, (w as f64 / std::f64::consts::LN_2) as u64).unwrap(),
        );
        // Naor-Yogev at the same window and the APBF's FPR, any slack up to w
        bench_design(
            c,
            "naor_yogev_eps1.5e-3",
            w,
            NaorYogev::new(w, w, 1.5e-3).unwrap(),
        );
    }
}

/// Stable Bloom filters at equal (m, d, K, P): this crate's (uniform and
/// adjacent decrements) beside the published `stable-bloom-filter` crate. Both
/// sides hash the same 8-byte items (XXH3 here, FNV there), so the figures are
/// per item, hashing included.
fn stable_vs_crate(c: &mut Criterion) {
    let hasher = KeyHasher::new(1);
    for (m, d) in [(1usize << 16, 2u8), (1 << 20, 2)] {
        let mut theirs = CrateSbf::new(m, d, 0.01);
        let (k, p) = (theirs.k() as u32, theirs.p() as u64);
        let mut uniform = StableBloomFilter::new(m as u64, d as u32, k, p).unwrap();
        let mut adjacent = uniform.clone().with_decrement(Decrement::Adjacent);
        let items: Vec<[u8; 8]> = (0..OPS).map(|i| mix64(i).to_le_bytes()).collect();
        let absent: Vec<[u8; 8]> = (0..OPS)
            .map(|i| mix64(u64::MAX - i).to_le_bytes())
            .collect();
        for t in 0..4 * m as u64 {
            let b = t.to_le_bytes();
            theirs.add(&b);
            uniform.insert(hasher.hash_bytes(&b));
            adjacent.insert(hasher.hash_bytes(&b));
        }
        let mut g = c.benchmark_group(format!("stable_m{m}_d{d}_k{k}_p{p}"));
        g.throughput(Throughput::Elements(OPS));
        g.bench_function("insert/stable-bloom-filter crate", |b| {
            b.iter(|| {
                items.iter().for_each(|x| {
                    theirs.add(black_box(x));
                })
            })
        });
        g.bench_function("insert/bloomlab uniform", |b| {
            b.iter(|| {
                items
                    .iter()
                    .for_each(|x| uniform.insert(hasher.hash_bytes(black_box(x))))
            })
        });
        g.bench_function("insert/bloomlab adjacent", |b| {
            b.iter(|| {
                items
                    .iter()
                    .for_each(|x| adjacent.insert(hasher.hash_bytes(black_box(x))))
            })
        });
        g.bench_function("query/stable-bloom-filter crate", |b| {
            b.iter(|| {
                absent
                    .iter()
                    .filter(|x| theirs.test(black_box(&x[..])))
                    .count()
            })
        });
        g.bench_function("query/bloomlab", |b| {
            b.iter(|| {
                absent
                    .iter()
                    .filter(|x| uniform.contains(hasher.hash_bytes(black_box(&x[..]))))
                    .count()
            })
        });
        g.finish();
    }
}

criterion_group! {
    name = group;
    config = Criterion::default().sample_size(20).warm_up_time(std::time::Duration::from_millis(300)).measurement_time(std::time::Duration::from_secs(1));
    targets = benches, stable_vs_crate
}
criterion_main!(group);
