//! Criterion benchmark: the Stable Bloom filter beside the published
//! `stable-bloom-filter` crate at equal (m, d, K, P). Run with
//! `cargo bench -p bloomlab-bench --bench stable_crate`; compare as ratios
//! within one run. The other designs are in `benches/ops.rs`.

use bloomlab_filters::hash::{mix64, KeyHasher};
use bloomlab_filters::stable::Decrement;
use bloomlab_filters::Instrumented;
use bloomlab_filters::StableShape;
use bloomlab_filters::{Filter, StableBloomFilter};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use stable_bloom_filter::stable::StableBloomFilter as CrateSbf;
use stable_bloom_filter::Filter as CrateFilter;
use std::hint::black_box;

const OPS: u64 = 4096;

/// Stable Bloom filters at equal (m, d, K, P): this crate's (uniform and
/// adjacent decrements) beside the published `stable-bloom-filter` crate. Both
/// sides hash the same 8-byte items (XXH3 here, FNV there), so the figures are
/// per item, hashing included.
fn stable_vs_crate(c: &mut Criterion) {
    let hasher = KeyHasher::new(1);
    for (m, d) in [(1usize << 16, 2u8), (1 << 20, 2)] {
        let mut theirs = CrateSbf::new(m, d, 0.01);
        let (k, p) = (theirs.k() as u32, theirs.p() as u64);
        let mut uniform = StableBloomFilter::new(StableShape {
            cells: m as u64,
            cell_bits: d as u32,
            hashes: k,
            decrements: p,
        })
        .unwrap();
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
        g.bench_function("query/hash only", |b| {
            b.iter(|| {
                absent
                    .iter()
                    .filter(|x| hasher.hash_bytes(black_box(&x[..])) & 1 == 0)
                    .count()
            })
        });
        g.bench_function("query/bloomlab probes", |b| {
            b.iter(|| {
                absent
                    .iter()
                    .filter(|x| {
                        uniform
                            .contains_probes(hasher.hash_bytes(black_box(&x[..])))
                            .0
                    })
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
    config = Criterion::default().without_plots().sample_size(20).warm_up_time(std::time::Duration::from_millis(300)).measurement_time(std::time::Duration::from_secs(1));
    targets = stable_vs_crate
}
criterion_main!(group);
