//! Unit tests of the Stable Bloom filter.

use super::*;
use proptest::prelude::*;

proptest! {
    #[test]
    fn packed_cells_round_trip(d in 1u32..=16, writes in proptest::collection::vec((0u64..200, 0u64..65536), 1..100)) {
        let mut f = StableBloomFilter::new(crate::StableShape { cells: 200, cell_bits: d, hashes: 1, decrements: 1 }).unwrap();
        let mut model = vec![0u64; 200];
        let mask = (1u64 << d) - 1;
        for (j, v) in writes {
            f.set_cell(j, v & mask);
            model[j as usize] = v & mask;
            for (i, &x) in model.iter().enumerate() {
                prop_assert_eq!(f.cell(i as u64), x);
            }
        }
    }
}

proptest! {
    #[test]
    fn word_at_a_time_decrement_matches_cell_by_cell(
        d in prop::sample::select(vec![1u32, 2, 3, 4, 5, 8, 16]),
        values in proptest::collection::vec(0u64..65536, 300),
        from in 0u64..300, len in 0u64..300,
    ) {
        let mut f = StableBloomFilter::new(crate::StableShape { cells: 300, cell_bits: d, hashes: 1, decrements: 1 }).unwrap();
        let mask = (1u64 << d) - 1;
        let mut model: Vec<u64> = values.iter().map(|v| v & mask).collect();
        for (j, &v) in model.iter().enumerate() {
            f.set_cell(j as u64, v);
        }
        let to = (from + len).min(300);
        f.decrement_range(from, to);
        for v in &mut model[from as usize..to as usize] {
            *v = v.saturating_sub(1);
        }
        for (j, &v) in model.iter().enumerate() {
            prop_assert_eq!(f.cell(j as u64), v, "cell {}", j);
        }
    }
}

#[test]
fn insert_and_process_leave_the_same_state() {
    for decrement in [Decrement::Uniform, Decrement::Adjacent] {
        let mut a = StableBloomFilter::new(crate::StableShape {
            cells: 1000,
            cell_bits: 2,
            hashes: 4,
            decrements: 50,
        })
        .unwrap()
        .with_decrement(decrement);
        let mut b = a.clone();
        for t in 0..5_000u64 {
            a.insert(mix64(t));
            b.process(mix64(t));
        }
        assert_eq!(a.words, b.words);
    }
}

#[test]
fn process_reports_immediate_duplicates() {
    // Corollary 1: x_t = x_{t-1} is always reported.
    let mut f = StableBloomFilter::new(crate::StableShape {
        cells: 1000,
        cell_bits: 2,
        hashes: 4,
        decrements: 50,
    })
    .unwrap();
    for t in 0..10_000u64 {
        let key = mix64(t);
        f.process(key);
        assert!(f.process(key));
    }
}

#[test]
fn uniform_decrements_are_distinct() {
    let mut f = StableBloomFilter::new(crate::StableShape {
        cells: 50,
        cell_bits: 8,
        hashes: 1,
        decrements: 40,
    })
    .unwrap();
    for t in 0..100 {
        f.decrement_cells();
        let mut s = f.scratch[..40].to_vec();
        s.sort_unstable();
        assert!(s.windows(2).all(|w| w[0] < w[1]), "step {t}");
    }
}

/// The subset as first built: batches of draws, sorted, deduplicated,
/// topped up; the fast path must pick the same cells and leave the
/// generator where this leaves it.
fn batch_subset(f: &mut StableBloomFilter) -> Vec<u64> {
    let mut s = Vec::new();
    while (s.len() as u64) < f.p {
        while (s.len() as u64) < f.p {
            let r = f.next_random();
            s.push(fastrange(r, f.m));
        }
        s.sort_unstable();
        s.dedup();
    }
    s
}

#[test]
fn uniform_subsets_match_sorted_batches() {
    for (m, p) in [
        (50, 40),
        (64, 64),
        (1000, 35),
        (1 << 16, 35),
        (5000, 256),
        (3000, 300),
    ] {
        let mut fast = StableBloomFilter::new(crate::StableShape {
            cells: m,
            cell_bits: 2,
            hashes: 1,
            decrements: p,
        })
        .unwrap();
        let mut reference = fast.clone();
        for t in 0..200 {
            let mut s = Vec::new();
            fast.uniform_subset(&mut s, false);
            s.sort_unstable();
            assert_eq!(s, batch_subset(&mut reference), "m {m}, p {p}, step {t}");
            assert_eq!(fast.rng, reference.rng, "m {m}, p {p}, step {t}");
        }
    }
}

#[test]
fn uniform_decrements_match_sorted_batches() {
    for (m, d, p) in [
        (50, 2, 40),
        (64, 4, 64),
        (1 << 16, 2, 35),
        (5000, 8, 256),
        (3000, 1, 200),
        (1000, 3, 35),
        (3000, 16, 300),
        (2000, 5, 257),
    ] {
        let mut fast = StableBloomFilter::new(crate::StableShape {
            cells: m,
            cell_bits: d,
            hashes: 1,
            decrements: p,
        })
        .unwrap();
        let max = (1u64 << d) - 1;
        for j in 0..m {
            fast.set_cell(j, mix64(j) % (max + 1));
        }
        let mut reference = fast.clone();
        for t in 0..100 {
            fast.decrement_cells();
            for j in batch_subset(&mut reference) {
                reference.decrement_cell(j);
            }
            assert_eq!(fast.words, reference.words, "m {m}, d {d}, p {p}, step {t}");
            assert_eq!(fast.rng, reference.rng, "m {m}, d {d}, p {p}, step {t}");
        }
    }
}

#[test]
fn aligned_decrements_saturate_at_zero() {
    for d in [1u32, 2, 4, 8, 16] {
        let mut f = StableBloomFilter::new(crate::StableShape {
            cells: 256,
            cell_bits: d,
            hashes: 1,
            decrements: 1,
        })
        .unwrap();
        let v = |j: u64| (j % 3).min((1 << d) - 1);
        for j in 0..256 {
            f.set_cell(j, v(j));
        }
        for j in 0..256 {
            f.decrement_aligned(j);
            let want = v(j).saturating_sub(1);
            assert_eq!(f.cell(j), want, "d {d}, cell {j}");
        }
    }
}

#[test]
fn contains_agrees_with_contains_probes() {
    for k in [1u32, 3, 8, 9] {
        let mut f = StableBloomFilter::new(crate::StableShape {
            cells: 2000,
            cell_bits: 2,
            hashes: k,
            decrements: 30,
        })
        .unwrap();
        for t in 0..3000u64 {
            f.insert(mix64(t));
        }
        for t in 0..20_000u64 {
            let key = mix64(t ^ 0x55);
            assert_eq!(f.contains(key), f.contains_probes(key).0, "k {k}, key {t}");
        }
    }
}

#[test]
fn bad_parameters_are_rejected() {
    assert!(StableBloomFilter::new(crate::StableShape {
        cells: 0,
        cell_bits: 1,
        hashes: 1,
        decrements: 1
    })
    .is_err());
    assert!(StableBloomFilter::new(crate::StableShape {
        cells: 10,
        cell_bits: 0,
        hashes: 1,
        decrements: 1
    })
    .is_err());
    assert!(StableBloomFilter::new(crate::StableShape {
        cells: 10,
        cell_bits: 17,
        hashes: 1,
        decrements: 1
    })
    .is_err());
    assert!(StableBloomFilter::new(crate::StableShape {
        cells: 10,
        cell_bits: 1,
        hashes: 0,
        decrements: 1
    })
    .is_err());
    assert!(StableBloomFilter::new(crate::StableShape {
        cells: 10,
        cell_bits: 1,
        hashes: 10,
        decrements: 1
    })
    .is_err());
    assert!(StableBloomFilter::new(crate::StableShape {
        cells: 10,
        cell_bits: 1,
        hashes: 2,
        decrements: 0
    })
    .is_err());
    assert!(StableBloomFilter::new(crate::StableShape {
        cells: 10,
        cell_bits: 1,
        hashes: 2,
        decrements: 11
    })
    .is_err());
    assert!(StableBloomFilter::new(crate::StableShape {
        cells: 1 << 40,
        cell_bits: 16,
        hashes: 2,
        decrements: 1
    })
    .is_err());
    assert!(StableBloomFilter::with_fpr(1000, 0.0).is_err());
    assert!(StableBloomFilter::with_fpr(1000, 1.0).is_err());
    assert!(StableBloomFilter::with_fpr(0, 0.1).is_err());
    assert!(StableBloomFilter::with_fpr_for(100, 1, 7, 1e-12).is_err());
}

#[test]
fn constructor_from_fpr_reports_what_it_reaches() {
    let f = StableBloomFilter::with_fpr_for(10_000, 1, 7, 0.01).unwrap();
    let t = f.theory();
    assert!(t.fpr() <= 0.01);
    assert_eq!(f.p(), 7);
    let g = StableBloomFilter::with_fpr(100_000, 0.01).unwrap();
    assert!(g.theory().fpr() <= 0.01 && g.memory_bits() <= 100_000 + 64);
}

#[test]
fn adjacent_decrements_wrap_around_the_cells() {
    // P cells from a random start, wrapping past the last cell to the first,
    // against a cell-by-cell model; m small so that most steps wrap
    for p in [1u64, 7, 60, 64] {
        let mut f = StableBloomFilter::new(crate::StableShape {
            cells: 64,
            cell_bits: 3,
            hashes: 2,
            decrements: p,
        })
        .unwrap()
        .with_decrement(Decrement::Adjacent);
        for t in 0..200u64 {
            for j in 0..64 {
                f.set_cell(j, mix64(t ^ j) & 7);
            }
            let mut model: Vec<u64> = (0..64).map(|j| f.cell(j)).collect();
            let start = crate::hash::fastrange(mix64(f.rng.wrapping_add(GOLDEN)), 64);
            for i in 0..p {
                let c = &mut model[((start + i) % 64) as usize];
                *c = c.saturating_sub(1);
            }
            f.decrement_cells();
            let now: Vec<u64> = (0..64).map(|j| f.cell(j)).collect();
            assert_eq!(now, model, "p {p}, step {t}, start {start}");
        }
    }
}

#[test]
fn accessors_probes_and_zero_fraction_report_the_state() {
    let mut f = StableBloomFilter::new(crate::StableShape {
        cells: 4096,
        cell_bits: 2,
        hashes: 5,
        decrements: 9,
    })
    .unwrap();
    assert_eq!((f.m(), f.d(), f.k(), f.p()), (4096, 2, 5, 9));
    assert_eq!(f.zero_fraction(), Some(1.0));
    // an empty filter answers no at the first cell read
    assert_eq!(f.contains_probes(42), (false, 1));
    for t in 0..100u64 {
        f.insert(mix64(t));
    }
    assert_eq!(f.inserted(), 100);
    assert_eq!(f.contains_probes(mix64(99)), (true, 5));
    assert_eq!(f.zero_fraction(), Some(f.count_zero_fraction()));
    assert!(f.count_zero_fraction() < 1.0);
}

#[test]
fn more_than_sixteen_cells_per_key() {
    // K > 16 takes the larger buffer on insertion
    let mut f = StableBloomFilter::new(crate::StableShape {
        cells: 1 << 14,
        cell_bits: 3,
        hashes: 20,
        decrements: 5,
    })
    .unwrap();
    for t in 0..50u64 {
        f.insert(mix64(t));
    }
    assert!(f.contains(mix64(49)));
    assert_eq!(f.contains_probes(mix64(49)), (true, 20));
}
