use super::*;
use crate::Instrumented;

fn keys(salt: u64) -> impl Iterator<Item = u64> {
    (0u64..).map(move |i| mix64(i ^ mix64(salt)))
}

#[test]
fn select_and_bucket_ranges_match_a_bit_by_bit_reading() {
    // select64 itself: bits::tests::select64_matches_a_bit_by_bit_reading
    // random headers: B buckets with random counts, total <= 128 - B
    let mut r = 7u64;
    for _ in 0..500 {
        r = mix64(r);
        let b = 8 + (r % 100) as u32;
        let mut counts = vec![0u32; b as usize];
        let mut room = 128 - b;
        let mut s = r;
        while room > 0 {
            s = mix64(s);
            if s.is_multiple_of(5) {
                break;
            }
            counts[(s % b as u64) as usize] += 1;
            room -= 1;
        }
        let mut h = 0u128;
        let mut bit = 0;
        for &c in &counts {
            for _ in 0..c {
                h |= 1 << bit;
                bit += 1;
            }
            bit += 1;
        }
        let mut first = 0;
        for (q, &c) in counts.iter().enumerate() {
            let (e0, cnt, _) = bucket_range(h, q as u32);
            assert_eq!((e0, cnt), (first, c), "bucket {q}");
            first += c;
        }
        // one more entry in a bucket: that bucket grows, the others keep
        // their counts
        if first < 128 - b {
            let q = (s % b as u64) as u32;
            let (_, cnt, start) = bucket_range(h, q);
            let h2 = header_insert(h, start + cnt);
            for (j, &c) in counts.iter().enumerate() {
                let want = c + (j as u32 == q) as u32;
                assert_eq!(bucket_range(h2, j as u32).1, want);
            }
        }
    }
}

#[test]
fn window_guarantee_and_expiry_are_exact() {
    // ε tiny so that collisions do not matter: presence exactly on the
    // generations rule, over many tag wraparounds
    for c in [1u64, 2, 4, 9] {
        let n = 40;
        let m = crate::naor_yogev::theory::slack_of(n, c).max(1);
        let mut f = NyPocket::from_sizing(Sizing::new(n, m, 1e-12, Some(c), 0.9).unwrap()).unwrap();
        let (n, g) = (f.window(), f.period());
        let s = f.slack();
        let ks: Vec<u64> = keys(c).take(3000).collect();
        for (t, &k) in ks.iter().enumerate() {
            f.insert(k);
            let phase = (t as u64) % g + 1;
            for age in 1..=(t as u64 + 1).min(n + s + 3 * (c + 2) * g) {
                let key = ks[t + 1 - age as usize];
                let expect = age <= phase + c * g;
                assert_eq!(f.contains(key), expect, "c {c} t {t} age {age}");
            }
        }
    }
}

#[test]
fn no_entry_outlives_the_generation_after_its_expiry() {
    // every stored tag is at most c + 1 generations old: the sweep purges
    // every block within the generation in which a tag expires
    // the third is overloaded, so that the stash (purged when the sweep
    // wraps) is in use
    let crowded = Sizing::new(1000, 100, 0.01, None, 0.99).unwrap();
    let crowded = Sizing {
        blocks: crowded.blocks * 3 / 4,
        ..crowded
    };
    for mut f in [
        NyPocket::new(crate::NyPocketShape {
            window: 1000,
            slack: 100,
            fpr: 0.01,
            generations: None,
            max_load: None,
        })
        .unwrap(),
        NyPocket::new(crate::NyPocketShape {
            window: 2000,
            slack: 2000,
            fpr: 0.05,
            generations: Some(1),
            max_load: None,
        })
        .unwrap(),
        NyPocket::from_sizing(crowded).unwrap(),
    ] {
        let s = *f.sizing();
        for k in keys(2).take(30_000) {
            f.insert(k);
            for b in 0..s.blocks {
                for i in 0..f.header(b).count_ones() {
                    let tag = f.entry(b, i) & f.tag_mask;
                    let age = (f.gen + s.tags - tag) % s.tags;
                    assert!(age <= s.c + 1, "block {b}: tag {age} generations old");
                }
            }
            for e in f.stash.iter() {
                let age = (f.gen + s.tags - e.tag) % s.tags;
                assert!(age <= s.c + 1, "stash: tag {age} generations old");
            }
        }
        if s.max_load == 0.99 {
            assert!(f.max_stash() > 0, "the stash was never used");
        }
    }
}

/// Why the filter's memory grows on traffic with heavy repeats (a packet
/// capture's large flows): a repeated key's entries all go to its two
/// blocks, so once those are full the rest go to the stash, and the
/// stash's capacity counts in `memory_bits`. Here one key repeated 600
/// times among a window's distinct keys: all but the two blocks' free
/// slots land in the stash.
#[test]
fn a_key_repeated_past_its_two_blocks_fills_the_stash() {
    let mut f = NyPocket::new(crate::NyPocketShape {
        window: 16_384,
        slack: 16_384,
        fpr: 1e-3,
        generations: None,
        max_load: None,
    })
    .unwrap();
    let s = *f.sizing();
    for k in keys(5).take(3 * 16_384) {
        f.insert(k);
    }
    let (before, memory) = (f.stash_len(), f.memory_bits());
    let repeats = 600u64;
    for _ in 0..repeats {
        f.insert(42);
    }
    let grown = (f.stash_len() - before) as u64;
    let slots = 2 * s.slots_per_block as u64;
    assert!(
        grown + slots >= repeats,
        "{grown} of {repeats} in the stash"
    );
    assert!(f.memory_bits() > memory);
    assert!(f.contains(42));
}

#[test]
fn a_repeated_key_takes_one_entry_per_insertion_and_expires_with_its_last() {
    // ε tiny: no collisions, so expiry is exact
    let mut f = NyPocket::new(crate::NyPocketShape {
        window: 100,
        slack: 10,
        fpr: 1e-9,
        generations: None,
        max_load: None,
    })
    .unwrap();
    let s = *f.sizing();
    for _ in 0..1000 {
        f.insert(42);
        // at most the insertions of the last c + 2 generations are stored
        assert!(f.occupied() <= s.capacity + s.g);
    }
    assert!(f.contains(42));
    for k in keys(3).take((s.n + s.slack()) as usize) {
        f.insert(k);
    }
    assert!(!f.contains(42), "expired with its last insertion");
}

#[test]
fn an_overloaded_table_keeps_the_window_through_the_stash() {
    // blocks sized for load 0.99 and then given a third more keys than
    // that: the stash takes what the blocks cannot, and drains
    let size = Sizing::new(4096, 512, 0.01, None, 0.99).unwrap();
    let smaller = Sizing {
        blocks: size.blocks * 3 / 4,
        ..size
    };
    let mut f = NyPocket::from_sizing(smaller).unwrap();
    let n = f.window();
    let ks: Vec<u64> = keys(5).take(100_000).collect();
    for (t, &k) in ks.iter().enumerate() {
        f.insert(k);
        let t = t as u64 + 1;
        for age in [1, n.min(t), (t * 7919) % n.min(t) + 1] {
            assert!(f.contains(ks[(t - age) as usize]), "t {t} age {age}");
        }
    }
    assert!(f.max_stash() > 0, "the stash was never used");
    assert!(f.stash_len() as u64 <= size.capacity);
    // a key matching nothing compares every stash entry with its first
    // block, after the lines of both blocks
    let mut compared = 0;
    for j in 0..20_000u64 {
        let key = mix64(j ^ 0xFACE);
        let fp = f.fingerprint(key);
        let (yes, probes) = f.contains_probes(key);
        if yes {
            continue;
        }
        let (h1, h2) = (f.header(fp.b1), f.header(fp.b2));
        let lines = f.lookup(fp.b1, h1, fp.q, fp.rem).1 + f.lookup(fp.b2, h2, fp.q, fp.rem).1;
        let same = f.stash.iter().filter(|e| e.fp.b1 == fp.b1).count() as u32;
        assert_eq!(probes, lines + same, "key {j}");
        compared += same;
    }
    assert!(compared > 0, "no query met the stash");
    assert_eq!(
        f.memory_bits(),
        size.memory_bits() - (size.words() - smaller.words()) * 64
            + f.stash_capacity() as u64 * theory::STASH_ENTRY_BITS
    );
}

#[test]
fn accessors_report_the_configuration() {
    let f = NyPocket::new(crate::NyPocketShape {
        window: 5000,
        slack: 500,
        fpr: 1e-3,
        generations: None,
        max_load: None,
    })
    .unwrap();
    let s = *f.sizing();
    assert_eq!(f.name(), "ny_pocket");
    assert_eq!((f.window(), f.slack(), f.period()), (5000, s.slack(), s.g));
    assert_eq!(f.memory_bits(), s.memory_bits());
    assert_eq!(f.words.len() as u64, s.words());
    assert_eq!((f.stash_len(), f.max_stash(), f.occupied()), (0, 0, 0));
}

/// The 64-byte lines a query reads, counted by brute force over the bit
/// ranges it reads (found unchecked by cargo mutants): per block, the
/// header and the entries of its bucket up to a hit; the second block only
/// after a miss; plus the stash entries with the key's first block.
#[test]
fn contains_probes_counts_the_lines_it_reads() {
    use std::collections::BTreeSet;
    let mut f = NyPocket::new(crate::NyPocketShape {
        window: 20_000,
        slack: 20_000,
        fpr: 0.05,
        generations: None,
        max_load: None,
    })
    .unwrap();
    let ks: Vec<u64> = keys(11).take(60_000).collect();
    for &k in &ks {
        f.insert(k);
    }
    let lines_of = |a: u64, b: u64, set: &mut BTreeSet<u64>| {
        if b > a {
            set.extend(a / 512..=(b - 1) / 512);
        }
    };
    let (mut hits, mut misses) = (0, 0);
    for (i, &k) in ks
        .iter()
        .rev()
        .take(3000)
        .chain(keys(12).take(3000).collect::<Vec<_>>().iter())
        .enumerate()
    {
        let fp = f.fingerprint(k);
        let mut want = 0u32;
        let mut yes = false;
        for blk in [fp.b1, fp.b2] {
            let mut set = BTreeSet::new();
            let base = blk * f.block_bits;
            lines_of(base, base + 128, &mut set);
            let (e0, cnt, _) = bucket_range(f.header(blk), fp.q);
            let mut end = e0;
            for e in e0..e0 + cnt {
                end = e + 1;
                let v = f.entry(blk, e);
                if v >> f.size.tag_bits == fp.rem && f.active(v & f.tag_mask) {
                    yes = true;
                    break;
                }
            }
            lines_of(f.entry_pos(blk, e0), f.entry_pos(blk, end), &mut set);
            want += set.len() as u32;
            if yes {
                break;
            }
        }
        let got = f.contains_probes(k);
        assert_eq!(got, (yes, want), "query {i}");
        assert_eq!(f.contains(k), yes, "query {i}: contains");
        assert!((1..=8).contains(&want));
        if yes {
            hits += 1
        } else {
            misses += 1
        }
    }
    assert!(hits >= 3000 && misses > 1000, "{hits} {misses}");
}

/// Insertions report their work: some, bounded by a few blocks' entries
/// (a subtraction in the count would wrap around to billions), and at
/// least one entry each (its own).
#[test]
fn insert_probes_are_bounded_and_positive() {
    let mut f = NyPocket::new(crate::NyPocketShape {
        window: 5000,
        slack: 5000,
        fpr: 1e-3,
        generations: None,
        max_load: None,
    })
    .unwrap();
    let bound = 4 * f.sizing().slots_per_block + 64;
    for k in keys(13).take(50_000) {
        let p = f.insert_probes(k).expect("ny_pocket counts its insertions");
        assert!((1..=bound).contains(&p), "{p} > {bound}");
    }
}

#[test]
fn entry_widths_up_to_57_bits_are_accepted() {
    let s = Sizing::new(1000, 1000, 1e-3, None, DEFAULT_MAX_LOAD).unwrap();
    let at = |bits: u32| Sizing {
        remainder_bits: bits - s.tag_bits,
        ..s
    };
    assert!(NyPocket::from_sizing(at(57)).is_ok());
    assert!(NyPocket::from_sizing(at(58)).is_err());
}

#[test]
fn tags_on_both_sides_of_the_128_bit_mask() {
    // c = 126: 128 tag values, the mask; c = 127: 129, the modular rule
    for c in [126u64, 127] {
        let n = 2 * c + 1;
        let m = crate::naor_yogev::theory::slack_of(n, c).max(1);
        let mut f = NyPocket::from_sizing(Sizing::new(n, m, 1e-12, Some(c), 0.9).unwrap()).unwrap();
        let g = f.period();
        let ks: Vec<u64> = keys(c).take((3 * (c + 2) * g) as usize).collect();
        for (t, &k) in ks.iter().enumerate() {
            f.insert(k);
            let phase = (t as u64) % g + 1;
            for age in [1, phase + c * g, phase + c * g + 1] {
                if age as usize <= t + 1 {
                    let want = age <= phase + c * g;
                    assert_eq!(
                        f.contains(ks[t + 1 - age as usize]),
                        want,
                        "c {c} t {t} age {age}"
                    );
                }
            }
        }
    }
}
