use super::*;
use crate::persist::Persist;

/// A seeded stream of uniform 64-bit values (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GOLDEN);
        mix64(self.0)
    }
}

fn shape(k: u32, l: u32, g: u64, lines: u64) -> LineApbfShape {
    LineApbfShape {
        hashes: k,
        extra_slices: l,
        generation: g,
        lines: Some(lines),
    }
}

#[test]
fn vector_and_portable_paths_give_the_same_bits() {
    let mut rng = Rng(11);
    for _ in 0..20_000 {
        let line: [u64; 8] = std::array::from_fn(|_| rng.next());
        let (a, b) = (rng.next(), rng.next());
        let portable = simd::hits_portable(&line, a, b);
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::avx2() {
            // SAFETY: checked just above.
            assert_eq!(unsafe { simd::avx2::hits(&line, a, b) }, portable);
            let newest = lane_words(rng.next() as u32 & 0x7FFF_FFFF);
            let stale = rng.next() as u32 & 0x7FFF_FFFF;
            let stamp = rng.next() << 48;
            let (mut x, mut y) = (line, line);
            // SAFETY: as above.
            unsafe { simd::avx2::update(&mut x, a, b, &newest, stale, stamp) };
            let clear = lane_words(stale);
            for j in 0..8 {
                y[j] &= !clear[j];
            }
            for j in 0..LANES {
                if newest[(j / 4) as usize] >> (16 * (j % 4)) & 1 == 1 {
                    y[(j / 4) as usize] |= 1u64 << (16 * (j % 4) + position(a, b, j));
                }
            }
            y[7] = (y[7] & !(0xFFFF << 48)) | stamp;
            assert_eq!(x, y);
        }
        // a lane hits exactly when its bit is set
        for j in 0..LANES {
            let bit = line[(j / 4) as usize] >> (16 * (j % 4) + position(a, b, j)) & 1;
            assert_eq!(portable >> j & 1, bit as u32);
        }
    }
}

/// The construction with every retired slice cleared in every line at its
/// shift: what the lazy clearing must answer like.
struct Eager {
    k: u32,
    n: u32,
    g: u64,
    lanes: Vec<[u16; 32]>,
    base: u32,
    count: u64,
}

impl Eager {
    fn insert(&mut self, key: u64) {
        if self.count == self.g {
            self.base = (self.base + self.n - 1) % self.n;
            for line in &mut self.lanes {
                line[self.base as usize] = 0;
            }
            self.count = 0;
        }
        self.count += 1;
        let i = fastrange(key, self.lanes.len() as u64) as usize;
        let (a, b) = positions(key);
        for s in 0..self.k {
            let p = (self.base + s) % self.n;
            self.lanes[i][p as usize] |= 1 << position(a, b, p);
        }
    }
    fn contains(&self, key: u64) -> bool {
        let line = &self.lanes[fastrange(key, self.lanes.len() as u64) as usize];
        let (a, b) = positions(key);
        let mut run = 0;
        for s in 0..self.n {
            let p = (self.base + s) % self.n;
            if line[p as usize] >> position(a, b, p) & 1 == 1 {
                run += 1;
                if run == self.k {
                    return true;
                }
            } else {
                run = 0;
            }
        }
        false
    }
}

#[test]
fn lazy_clearing_answers_as_clearing_at_every_shift() {
    // few lines and many generations between a line's writes (long
    // pending runs, full wraps of the ring), and past a sweep
    for (k, l, g, lines, simd) in [
        (3, 4, 5, 40, true),
        (5, 26, 3, 200, false),
        (10, 21, 1, 7, true),
        (2, 1, 1, 3, false),
    ] {
        let mut f = LineApbf::new(shape(k, l, g, lines)).unwrap();
        if !simd {
            f = f.portable();
        }
        let mut e = Eager {
            k,
            n: k + l,
            g,
            lanes: vec![[0; 32]; lines as usize],
            base: 0,
            count: 0,
        };
        let mut rng = Rng(k as u64 * 100 + l as u64);
        let mut inserted = Vec::new();
        let total = (SWEEP + 300) * g;
        for t in 0..total {
            let key = rng.next();
            f.insert(key);
            e.insert(key);
            inserted.push(key);
            if t % 97 == 0 || t + 200 > total {
                for _ in 0..4 {
                    let q = rng.next();
                    assert_eq!(f.contains(q), e.contains(q), "k {k} l {l} t {t}");
                }
                for back in [1usize, 2, 5, 40, 300] {
                    if let Some(&old) = inserted.len().checked_sub(back).map(|i| &inserted[i]) {
                        assert_eq!(
                            f.contains(old),
                            e.contains(old),
                            "k {k} l {l} t {t} back {back}"
                        );
                    }
                }
            }
        }
        assert!(f.generation >= SWEEP, "the test must pass a sweep");
    }
}

#[test]
fn both_paths_write_the_same_lines() {
    let make = || LineApbf::new(shape(7, 24, 13, 50)).unwrap();
    let (mut v, mut p) = (make(), make().portable());
    let mut rng = Rng(77);
    for _ in 0..20_000 {
        let key = rng.next();
        v.insert(key);
        p.insert(key);
    }
    assert_eq!(v.lines, p.lines);
}

#[test]
fn no_false_negative_within_the_window() {
    let mut f = LineApbf::new(shape(6, 20, 50, 30)).unwrap();
    let mut rng = Rng(5);
    let keys: Vec<u64> = (0..20_000).map(|_| rng.next()).collect();
    for (t, &key) in keys.iter().enumerate() {
        f.insert(key);
        let window = f.window() as usize;
        for &old in &keys[(t + 1).saturating_sub(window)..=t] {
            if t % 500 == 0 {
                assert!(f.contains(old));
            }
        }
    }
}

#[test]
fn sizing_meets_the_target_and_one_line_fewer_does_not() {
    for (w, e) in [(1000u64, 1e-2), (65_536, 1e-3), (5000, 1e-4)] {
        let t = LineApbf::sizing(w, e).unwrap();
        assert!(t.l as u64 * t.g >= w);
        assert!(t.fpr().unwrap() <= e, "{t:?}");
        let fewer = LineTheory {
            lines: t.lines - 1,
            ..t
        };
        assert!(fewer.fpr().unwrap() > e, "{t:?}");
    }
    assert!(LineApbf::sizing(0, 1e-2).is_err());
    assert!(LineApbf::sizing(10, 1.5).is_err());
    assert!(LineApbf::sizing_kl(100, 1e-2, 20, 12).is_err());
}

#[test]
fn bad_shapes_are_refused() {
    assert!(LineApbf::new(shape(0, 3, 10, 10)).is_err());
    assert!(LineApbf::new(shape(3, 0, 10, 10)).is_err());
    assert!(LineApbf::new(shape(3, 3, 0, 10)).is_err());
    assert!(LineApbf::new(shape(3, 3, 10, 0)).is_err());
    assert!(LineApbf::new(shape(20, 12, 10, 10)).is_err());
    assert!(LineApbf::new(shape(3, 3, 10, u64::MAX)).is_err());
}

#[test]
fn crafted_stamps_and_stray_lanes_are_refused_on_load() {
    let mut f = LineApbf::new(shape(3, 4, 10, 8)).unwrap();
    for key in 0..100u64 {
        f.insert(mix64(key));
    }
    let good = f.to_bytes();
    assert!(LineApbf::from_bytes(&good).is_ok());
    // a stamp ahead of the generation would hide a held key's lanes
    let mut bad = f.clone();
    bad.lines[0].0[7] = (bad.lines[0].0[7] & !(0xFFFF << 48)) | (12u64 << 48);
    assert!(LineApbf::from_bytes(&bad.to_bytes()).is_err());
    // a bit in a lane past k + l
    let mut bad = f.clone();
    bad.lines[1].0[3] |= 1 << 20; // lane 13
    assert!(LineApbf::from_bytes(&bad.to_bytes()).is_err());
    let mut bad = f;
    bad.base = 7;
    assert!(LineApbf::from_bytes(&bad.to_bytes()).is_err());
}

#[test]
fn a_loaded_filter_answers_as_the_saved_one() {
    let mut f = LineApbf::new(shape(4, 5, 20, 16)).unwrap();
    let mut rng = Rng(3);
    for _ in 0..500 {
        f.insert(rng.next());
    }
    let g = LineApbf::from_bytes(&f.to_bytes()).unwrap();
    for _ in 0..2000 {
        let q = rng.next();
        assert_eq!(f.contains(q), g.contains(q));
    }
    assert_eq!(g.newest, f.newest);
}

#[test]
fn counted_lines_match_the_theory() {
    let mut f = LineApbf::new(shape(10, 21, 100, 300)).unwrap();
    let mut rng = Rng(9);
    for _ in 0..5000 {
        f.insert(rng.next());
    }
    let theory = f.theory().lines_touched();
    for _ in 0..10_000 {
        let (_, lines) = f.lines_read(rng.next());
        assert_eq!(lines as f64, theory.query_negative);
    }
    assert_eq!(std::mem::align_of::<Line>(), 64);
    assert_eq!(std::mem::size_of::<Line>(), 64);
}
