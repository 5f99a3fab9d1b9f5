//! Unit tests of the Naor-Yogev filter.

use super::*;

#[test]
fn active_codes_match_the_modular_rule_on_both_sides_of_128_tags() {
    // tags = 2c + 2: 126, 128 and 130 codes, the mask used below 128 only
    for c in [62u64, 63, 64] {
        let mut f = NaorYogev::new(crate::NaorYogevShape {
            window: 1 << 14,
            slack: 1 << 14,
            fpr: 1e-3,
            generations: Some(c),
            max_load: None,
        })
        .unwrap();
        assert_eq!(f.size.tags, 2 * c + 2);
        for gen in 0..f.size.tags {
            f.gen = gen;
            f.active_codes = active_codes(gen, &f.size);
            for code in 0..=f.size.tags {
                let want = is_active(code, gen, &f.size);
                assert_eq!(f.active(code), want, "c {c} gen {gen} code {code}");
            }
        }
    }
}

#[test]
fn active_code_masks_match_the_modular_rule() {
    for (n, m, eps) in [
        (4096u64, 4096u64, 1e-3),
        (1000, 125, 1e-2),
        (1 << 16, 1 << 13, 1e-4),
    ] {
        let f = NaorYogev::new(crate::NaorYogevShape {
            window: n,
            slack: m,
            fpr: eps,
            generations: None,
            max_load: None,
        })
        .unwrap();
        let size = f.size;
        assert!(size.tags < 128, "tags {}", size.tags);
        for gen in 0..size.tags {
            let mask = active_codes(gen, &size);
            for code in 0..=f.tag_mask.min(size.tags) {
                let want = is_active(code, gen, &size);
                assert_eq!(mask >> code & 1 == 1, want, "gen {gen} code {code}");
            }
        }
    }
}

fn keys(salt: u64) -> impl Iterator<Item = u64> {
    (0u64..).map(move |i| mix64(i ^ mix64(salt)))
}

#[test]
fn window_guarantee_and_expiry_are_exact() {
    // tiny range so that collisions do not matter: check presence exactly
    // on the design's own age boundaries, over many tag wraparounds
    let mut f = NaorYogev::new(crate::NaorYogevShape {
        window: 40,
        slack: 10,
        fpr: 1e-9,
        generations: Some(4),
        max_load: None,
    })
    .unwrap();
    let (n, s, g) = (f.window(), f.slack(), f.period());
    assert_eq!((g, s), (10, 10));
    let ks: Vec<u64> = keys(1).take(5000).collect();
    for (t, &k) in ks.iter().enumerate() {
        f.insert(k);
        let phase = (t as u64) % g + 1;
        for age in 1..=(t as u64 + 1).min(n + s + 20) {
            let key = ks[t + 1 - age as usize];
            let expect = age <= phase + f.size.c * g;
            assert_eq!(f.contains(key), expect, "t {t} age {age} phase {phase}");
        }
    }
    assert_eq!(f.stash_len(), 0);
}

#[test]
fn expired_entries_are_gone_within_one_scan_period() {
    // an entry is deleted at most one scan period after it expires: no
    // slot holds a tag more than c + ⌈period/g⌉ + 1 generations old
    let mut f = NaorYogev::new(crate::NaorYogevShape {
        window: 1000,
        slack: 100,
        fpr: 0.01,
        generations: None,
        max_load: None,
    })
    .unwrap();
    let s = *f.sizing();
    let period = s.slots().div_ceil(s.scan_per_insert());
    let oldest = s.c + period.div_ceil(s.g) + 1;
    assert!(oldest < s.tags, "the bound must be below a tag cycle");
    for k in keys(2).take(50_000) {
        f.insert(k);
        for i in 0..f.slots.len() {
            let code = f.slots.get(i) & f.tag_mask;
            if code != 0 {
                let age = (f.gen + s.tags + 1 - code) % s.tags;
                assert!(age <= oldest, "slot {i}: tag {age} generations old");
            }
        }
    }
    assert_eq!(f.stash_len(), 0);
}

#[test]
fn work_counts_on_a_lightly_loaded_table() {
    // a new key's insertion reads both buckets whole (4 slots when they
    // coincide) and its share of the scan; a negative query the same
    // slots
    let mut f = NaorYogev::new(crate::NaorYogevShape {
        window: 10_000,
        slack: 1_000,
        fpr: 0.01,
        generations: None,
        max_load: None,
    })
    .unwrap();
    for t in 0..200u64 {
        let key = mix64(t);
        let (q, rem) = f.fingerprint(key);
        let both = if f.other(q, rem) == q { 4 } else { 8 };
        assert_eq!(f.contains_probes(key), (false, both), "key {t}");
        let scan = f.scan_per as u32;
        assert_eq!(f.insert_probes(key), Some(both + scan), "key {t}");
    }
    assert_eq!(f.name(), "naor_yogev");
}

#[test]
fn remainders_depend_on_every_key_bit() {
    // flipping any one of the 64 key bits changes the remainder but for
    // the 2^-r chance of a collision
    let f = NaorYogev::new(crate::NaorYogevShape {
        window: 10_000,
        slack: 1_000,
        fpr: 0.001,
        generations: None,
        max_load: None,
    })
    .unwrap();
    for bit in 0..64 {
        let same = (0..400u64)
            .filter(|&t| {
                let key = mix64(t);
                f.fingerprint(key).1 == f.fingerprint(key ^ (1 << bit)).1
            })
            .count();
        assert!(same <= 20, "bit {bit}: {same} of 400 remainders unchanged");
    }
}

#[test]
fn repeated_keys_refresh_instead_of_duplicating() {
    let mut f = NaorYogev::new(crate::NaorYogevShape {
        window: 100,
        slack: 10,
        fpr: 0.01,
        generations: None,
        max_load: None,
    })
    .unwrap();
    for _ in 0..1000 {
        f.insert(42);
    }
    assert_eq!(f.occupied(), 1);
    assert!(f.contains(42));
}
