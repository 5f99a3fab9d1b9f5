use super::*;
use crate::hash::mix64;

/// The fill stands for n insertions: its share of bits set and its FPR
/// are those n keys give (within 4 standard errors), the keys inserted
/// before stay reported, and the bits past m stay clear.
#[test]
fn a_fill_as_if_is_the_state_of_n_insertions() {
    for (m, k, n) in [
        (1_000_003u64, 7u32, 100_000u64),
        (640_000, 25, 20_000),
        (70, 3, 10),
    ] {
        let mut f = BloomFilter::new(crate::BloomShape { bits: m, hashes: k }).unwrap();
        let before: Vec<u64> = (0..50).map(|i| mix64(i ^ 0xB0)).collect();
        for &key in &before {
            f.insert(key);
        }
        f.fill_as_if(n, 3);
        assert!(before.iter().all(|&key| f.contains(key)));
        assert_eq!(f.inserted(), 50 + n);
        let words = f.bits.words();
        if m % 64 != 0 {
            assert_eq!(f.bits.word(words - 1) >> (m % 64), 0, "bits past m");
        }
        if m < 1000 {
            continue;
        }
        let set = f.bits.count_ones_in(0, m - 1) as f64 / m as f64;
        let p = fill_ratio(k as f64 * (n + 50) as f64, m as f64);
        let se = (p * (1.0 - p) / m as f64).sqrt();
        assert!(
            (set - p).abs() < 4.0 * se + 2.0f64.powi(-16),
            "{set} against {p}"
        );
        let queries = 200_000;
        let yes = (0..queries).filter(|&i| f.contains(mix64(!i))).count() as f64;
        let fpr = f.theoretical_fpr(n + 50);
        let se = (fpr * (1.0 - fpr) / queries as f64).sqrt();
        assert!(
            (yes / queries as f64 - fpr).abs() < 4.0 * se,
            "{yes} against {fpr}"
        );
    }
}

#[test]
fn fill_probes_names_and_counts() {
    assert_eq!(fill_ratio(0.0, 1000.0), 0.0);
    let e = 1.0 - (-1.0f64).exp();
    assert!((fill_ratio(1e6, 1e6) - e).abs() < 1e-6);
    // an empty filter answers no at the first bit; a member reads k
    let mut b = BloomFilter::new(crate::BloomShape {
        bits: 4096,
        hashes: 5,
    })
    .unwrap();
    assert_eq!(b.contains_probes(7), (false, 1));
    b.insert(7);
    assert_eq!(b.contains_probes(7), (true, 5));
    assert_eq!(b.name(), "bloom");
    let mut p = PartitionedBloomFilter::new(crate::PartitionedBloomShape {
        hashes: 4,
        bits_per_slice: 1024,
    })
    .unwrap();
    for t in 0..10u64 {
        p.insert(mix64(t));
    }
    assert_eq!(p.inserted(), 10);
    assert_eq!(p.name(), "partitioned-bloom");
}

#[test]
fn paper_access_formula_matches_general_one_at_half() {
    for k in 1..20u32 {
        let paper = (2f64.powi(k as i32) / (2f64.powi(k as i32) - 1.0))
            * (1..=k).map(|i| i as f64 / 2f64.powi(i as i32)).sum::<f64>();
        assert!((negative_query_probes(0.5, k) - paper).abs() < 1e-12);
        assert!(paper < 2.0);
    }
}

#[test]
fn sizing_from_fpr() {
    let f = PartitionedBloomFilter::with_fpr(1000, 0.01).unwrap();
    assert_eq!(f.k(), 7);
    assert_eq!(f.m(), 1443);
    let b = BloomFilter::with_fpr(1000, 0.01).unwrap();
    assert_eq!(b.m(), 9586);
    assert_eq!(b.k(), 7);
}

#[test]
fn bad_parameters_are_rejected() {
    assert_eq!(
        BloomFilter::new(crate::BloomShape { bits: 0, hashes: 3 }).unwrap_err(),
        ParamError::Zero { name: "m" }
    );
    assert!(BloomFilter::new(crate::BloomShape {
        bits: 10,
        hashes: 0
    })
    .is_err());
    assert!(BloomFilter::with_fpr(10, 1.0).is_err());
    assert!(BloomFilter::with_fpr(10, f64::NAN).is_err());
    assert!(BloomFilter::with_fpr(u64::MAX, 1e-9).is_err());
    assert!(PartitionedBloomFilter::new(crate::PartitionedBloomShape {
        hashes: 3,
        bits_per_slice: u64::MAX
    })
    .is_err());
    assert!(PartitionedBloomFilter::with_fpr(0, 0.1).is_err());
}
