//! The FPR the published `stable-bloom-filter` crate reaches against the one it
//! targets, beside this crate's Stable Bloom filter with the same m, d and K
//! and the smallest P that meets the target. Prints a markdown table.
//!
//! `cargo run --release -p bloomlab-bench --bin stable_crate_fpr`

use bloomlab_filters::hash::KeyHasher;
use bloomlab_filters::stable::theory::StableTheory;
use bloomlab_filters::{Filter, StableBloomFilter, Target};
use stable_bloom_filter::stable::StableBloomFilter as CrateSbf;
use stable_bloom_filter::Filter as CrateFilter;

/// Binomial 99% interval (normal approximation; counts are in the hundreds).
fn ci(x: u64, n: u64) -> (f64, f64) {
    let p = x as f64 / n as f64;
    let h = 2.5758 * (p * (1.0 - p) / n as f64).sqrt();
    (p - h, p + h)
}

fn main() {
    let hasher = KeyHasher::new(42);
    let (warm, spacing, states, queries) = (300_000u64, 20_000u64, 200u64, 2_000_000u64);
    println!("| m | d | target | crate K | crate P | crate FPR (theory) | crate FPR measured [99%] | ours P | ours FPR (theory) | ours FPR measured [99%] |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (m, d, target) in [
        (10_000usize, 1u8, 0.01),
        (10_000, 2, 0.01),
        (100_000, 1, 0.001),
        (100_000, 3, 0.01),
    ] {
        let mut theirs = CrateSbf::new(m, d, target);
        let (k, p) = (theirs.k() as u32, theirs.p() as u64);
        let their_theory = StableTheory {
            m: m as u64,
            d: d as u32,
            k,
            p,
        }
        .fpr();
        let sized = Target::memory(m as u64 * d as u64).fpr(target);
        let mut ours: StableBloomFilter = sized.cell_bits(d as u32).hashes(k).build().unwrap();
        // Warm up past the stable point, then measure over `states` filter
        // states `spacing` insertions apart: one state's FPR varies by several
        // percent with its zero count, so a single state would mislead.
        let (mut t, mut j) = (0u64, 0u64);
        let (mut fp_theirs, mut fp_ours) = (0u64, 0u64);
        for round in 0..=states {
            let until = if round == 0 { warm } else { t + spacing };
            while t < until {
                let bytes = t.to_le_bytes();
                theirs.add(&bytes);
                ours.insert(hasher.hash_bytes(&bytes));
                t += 1;
            }
            if round == 0 {
                continue;
            }
            for _ in 0..queries / states {
                let bytes = (u64::MAX - j).to_le_bytes();
                fp_theirs += theirs.test(&bytes) as u64;
                fp_ours += ours.contains(hasher.hash_bytes(&bytes)) as u64;
                j += 1;
            }
        }
        let (a, b) = ci(fp_theirs, queries);
        let (c, e) = ci(fp_ours, queries);
        println!(
            "| {m} | {d} | {target} | {k} | {p} | {their_theory:.5} | {:.5} [{a:.5}, {b:.5}] | {} | {:.5} | {:.5} [{c:.5}, {e:.5}] |",
            fp_theirs as f64 / queries as f64,
            ours.p(),
            ours.theory().fpr(),
            fp_ours as f64 / queries as f64,
        );
    }
}
