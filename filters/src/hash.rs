//! Keyed 64-bit hashing and index derivation.
//!
//! Keys reach a filter as one 64-bit hash, made once by [`KeyHasher`] from any
//! [`Hash`] item or byte string with a seed. Filters derive every index they need
//! from that hash with [`index`]: `fastrange(mix64(key + (i + 1) * φ), n)` where φ is
//! the 64-bit golden ratio. This is the SplitMix64 output sequence started at the
//! key, so the indices for different `i` behave as independent uniform draws (the
//! assumption every formula in `theory` modules makes), at the cost of one
//! multiply-xorshift finaliser per index. Kirsch-Mitzenmacher double hashing
//! would be cheaper but is only asymptotically independent; we prefer the theory
//! to hold exactly at the sizes we test.

use std::hash::{Hash, Hasher};
use xxhash_rust::xxh3::Xxh3;

/// The 64-bit golden ratio, used as the SplitMix64 increment.
pub const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// [`mix64`]'s two multipliers, in the order it applies them (shared with
/// the code that vectorises or inverts it).
pub(crate) const MIX64_MUL: [u64; 2] = [0xBF58_476D_1CE4_E5B9, 0x94D0_49BB_1331_11EB];

/// The MurmurHash3 / SplitMix64 64-bit finaliser: a bijection with full avalanche.
#[inline]
pub fn mix64(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(MIX64_MUL[0]);
    x ^= x >> 27;
    x = x.wrapping_mul(MIX64_MUL[1]);
    x ^ (x >> 31)
}

/// Maps a uniform 64-bit value onto `0..n` without division (Lemire's fastrange).
#[inline]
pub fn fastrange(h: u64, n: u64) -> u64 {
    ((h as u128 * n as u128) >> 64) as u64
}

/// A [`Hasher`] for the in-memory maps of already-hashed 64-bit keys (the
/// broom filter's remote dictionary, the exact window's counts): one
/// [`mix64`] per 64-bit field, instead of the standard library's SipHash.
/// Not for keys an adversary chooses to collide in the map itself.
#[derive(Debug, Default, Clone, Copy)]
pub struct MixHasher(u64);

impl Hasher for MixHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(b));
        }
    }

    #[inline]
    fn write_u8(&mut self, x: u8) {
        self.write_u64(x as u64);
    }

    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.0 = mix64(self.0.wrapping_add(GOLDEN) ^ x);
    }
}

/// Builds [`MixHasher`]s: `HashMap<K, V, MixBuild>`.
pub type MixBuild = std::hash::BuildHasherDefault<MixHasher>;

/// A map from 64-bit keys hashed by one [`mix64`] rather than SipHash: for
/// maps asked once or twice per key of a stream, whose order nothing reads
/// (a `HashMap`'s order is not a figure's).
pub type KeyMap<V> = std::collections::HashMap<u64, V, MixBuild>;

/// One step of Marsaglia's xorshift64 (13, 7, 17) on `state` (never 0):
/// the cheap generator the cuckoo tables use for their displacement walks.
#[inline]
pub fn xorshift64(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// (h mod n - b) mod n for b < n: with h fixed, an involution on 0..n (it is
/// its own inverse), which gives a cuckoo entry's other bucket from either of
/// its two.
#[inline]
pub fn involution(h: u64, b: u64, n: u64) -> u64 {
    let h = fastrange(h, n);
    if h >= b {
        h - b
    } else {
        h + n - b
    }
}

/// The `i`-th derived index of `key` in `0..n`.
#[inline]
pub fn index(key: u64, i: u64, n: u64) -> u64 {
    fastrange(mix64(key.wrapping_add((i + 1).wrapping_mul(GOLDEN))), n)
}

/// Makes the 64-bit key hash of any item, with a seed (XXH3-64).
///
/// # Stability
///
/// A persisted filter holds the hashes of its keys, so the hash of a key must
/// not change between platforms, builds or versions of this crate: a filter
/// saved by one and loaded by another must answer the same. [`hash_bytes`]
/// is XXH3-64 of the bytes with the seed, a published function. [`hash`]
/// feeds the item's [`Hash`] impl to a [`StableHasher`], which writes every
/// integer little-endian and every `usize`/`isize` as 64 bits, so that the
/// byte stream XXH3 sees does not depend on the platform's endianness or
/// word size. What it cannot pin is the `Hash` impl itself: the standard
/// library's impls for `str` (the bytes, then a `0xff` terminator) and for
/// slices (a length prefix, then the items) are documented behaviour that
/// has not changed since Rust 1.0, and the test vectors in this module (a
/// `u64`, `u32`, `i64`, `usize`, `bool`, `char`, `str`, `String`, `[u8]`,
/// a tuple and a derived struct) fail if a toolchain ever changes them. A
/// caller who wants no dependence on `Hash` at all hashes bytes with
/// [`hash_bytes`] or passes its own 64-bit hashes to the filters' `u64`
/// methods.
///
/// Note that `hash("a") != hash_bytes(b"a")`: the first includes the
/// terminator.
///
/// [`hash`]: KeyHasher::hash
/// [`hash_bytes`]: KeyHasher::hash_bytes
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyHasher {
    seed: u64,
}

impl KeyHasher {
    /// A hasher with the given seed.
    pub fn new(seed: u64) -> Self {
        KeyHasher { seed }
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The key of a byte string (a line of a trace file, say): XXH3-64 of
    /// the bytes with the seed.
    pub fn hash_bytes(&self, bytes: &[u8]) -> u64 {
        xxhash_rust::xxh3::xxh3_64_with_seed(bytes, self.seed)
    }

    /// The key of any `Hash` item, through a [`StableHasher`] (see the
    /// type's documentation for what is stable). `hash("a") !=
    /// hash_bytes(b"a")`: `Hash` for `str` appends a `0xff` terminator.
    pub fn hash<T: Hash + ?Sized>(&self, item: &T) -> u64 {
        let mut h = StableHasher::with_seed(self.seed);
        item.hash(&mut h);
        h.finish()
    }
}

/// The [`Hasher`] behind [`KeyHasher::hash`]: streaming XXH3-64 with a seed,
/// fed every integer as its little-endian bytes and every `usize`/`isize`
/// widened to 64 bits, so that its output is the same on every platform.
#[derive(Clone)]
pub struct StableHasher(Xxh3);

impl StableHasher {
    /// A hasher with the given seed.
    pub fn with_seed(seed: u64) -> Self {
        StableHasher(Xxh3::with_seed(seed))
    }
}

impl std::fmt::Debug for StableHasher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StableHasher")
    }
}

impl Hasher for StableHasher {
    fn finish(&self) -> u64 {
        self.0.digest()
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
    fn write_u8(&mut self, x: u8) {
        self.write(&[x]);
    }
    fn write_u16(&mut self, x: u16) {
        self.write(&x.to_le_bytes());
    }
    fn write_u32(&mut self, x: u32) {
        self.write(&x.to_le_bytes());
    }
    fn write_u64(&mut self, x: u64) {
        self.write(&x.to_le_bytes());
    }
    fn write_u128(&mut self, x: u128) {
        self.write(&x.to_le_bytes());
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
    fn write_i8(&mut self, x: i8) {
        self.write_u8(x as u8);
    }
    fn write_i16(&mut self, x: i16) {
        self.write_u16(x as u16);
    }
    fn write_i32(&mut self, x: i32) {
        self.write_u32(x as u32);
    }
    fn write_i64(&mut self, x: i64) {
        self.write_u64(x as u64);
    }
    fn write_i128(&mut self, x: i128) {
        self.write_u128(x as u128);
    }
    fn write_isize(&mut self, x: isize) {
        self.write_u64(x as i64 as u64);
    }
}

#[cfg(test)]
mod vectors {
    use super::*;

    #[derive(Hash)]
    struct Event<'a> {
        id: u64,
        source: &'a str,
    }

    /// What `KeyHasher::new(0x5eed)` gives each item: the hashes a persisted
    /// filter depends on. A change here breaks every saved filter; it must
    /// never happen without a new format version.
    pub(super) fn computed() -> Vec<(&'static str, u64)> {
        let h = KeyHasher::new(0x5eed);
        vec![
            ("bytes b\"evt-1\"", h.hash_bytes(b"evt-1")),
            ("bytes b\"\"", h.hash_bytes(b"")),
            ("u64 42", h.hash(&42u64)),
            ("u32 42", h.hash(&42u32)),
            ("i64 -1", h.hash(&-1i64)),
            ("usize 42", h.hash(&42usize)),
            ("bool true", h.hash(&true)),
            ("char 'é'", h.hash(&'é')),
            ("str \"evt-1\"", h.hash("evt-1")),
            ("String \"evt-1\"", h.hash(&String::from("evt-1"))),
            ("[u8] b\"evt-1\"", h.hash(&b"evt-1"[..])),
            ("(u32, &str) (7, \"a\")", h.hash(&(7u32, "a"))),
            (
                "derived Event { id: 7, source: \"eu\" }",
                h.hash(&Event {
                    id: 7,
                    source: "eu",
                }),
            ),
            ("seed 0 str \"\"", KeyHasher::new(0).hash("")),
        ]
    }

    /// The committed vectors: computed on x86_64 with Rust 1.9x, and
    /// checked on every platform CI runs.
    const EXPECTED: [(&str, u64); 14] = [
        ("bytes b\"evt-1\"", 0x41AC74986FA579F1),
        ("bytes b\"\"", 0x52A2D296AA031B06),
        ("u64 42", 0x46E1D22F2FB22CAE),
        ("u32 42", 0x934BB348C9B52C92),
        ("i64 -1", 0x7FFCCE101572D0A4),
        ("usize 42", 0x46E1D22F2FB22CAE),
        ("bool true", 0x85AD3879E9BAED83),
        ("char 'é'", 0x3C86FA29642495AB),
        ("str \"evt-1\"", 0x68E75A586ACA523B),
        ("String \"evt-1\"", 0x68E75A586ACA523B),
        ("[u8] b\"evt-1\"", 0xC97D457C39C132B0),
        ("(u32, &str) (7, \"a\")", 0x49B3C13DA11136F6),
        (
            "derived Event { id: 7, source: \"eu\" }",
            0x300DBA9289D9CE35,
        ),
        ("seed 0 str \"\"", 0xD6BCEC3C6B29D72E),
    ];

    #[test]
    fn key_hashes_match_the_committed_vectors() {
        let got = computed();
        assert_eq!(got.len(), EXPECTED.len());
        for ((what, v), (name, want)) in got.into_iter().zip(EXPECTED) {
            assert_eq!(what, name);
            assert_eq!(v, want, "{what}: 0x{v:016X}, committed 0x{want:016X}");
        }
    }

    /// XXH3-64's published vector for the empty input with seed 0: the
    /// hash under the stable one is XXH3 itself, not a variant.
    #[test]
    fn hash_bytes_is_published_xxh3() {
        assert_eq!(KeyHasher::new(0).hash_bytes(b""), 0x2D06_8005_38D3_94C2);
        // `str` hashes its bytes then 0xff: one stream, whatever the chunks
        let h = KeyHasher::new(9);
        assert_eq!(h.hash("ab"), h.hash_bytes(&[b'a', b'b', 0xff]));
        assert_eq!(h.hash(&1u16), h.hash_bytes(&[1, 0]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix64_is_a_bijection_on_a_sample() {
        let mut seen = std::collections::HashSet::new();
        for x in 0..100_000u64 {
            assert!(seen.insert(mix64(x)));
        }
    }

    #[test]
    fn fastrange_stays_in_range() {
        for &n in &[1u64, 2, 3, 1000, u64::MAX] {
            for &h in &[0u64, 1, u64::MAX / 2, u64::MAX] {
                assert!(fastrange(h, n) < n);
            }
        }
    }

    #[test]
    fn indices_are_roughly_uniform() {
        // chi-square over 16 cells, 160k draws: the 0.999 quantile of chi2(15) is 37.7.
        let n = 16u64;
        let mut counts = vec![0u64; n as usize];
        for key in 0..40_000u64 {
            for i in 0..4 {
                counts[index(mix64(key), i, n) as usize] += 1;
            }
        }
        let e = 160_000.0 / n as f64;
        let chi2: f64 = counts.iter().map(|&c| (c as f64 - e).powi(2) / e).sum();
        assert!(chi2 < 37.7, "chi2 = {chi2}");
    }

    #[test]
    fn hasher_is_seeded_and_stable() {
        let a = KeyHasher::new(1);
        let b = KeyHasher::new(2);
        assert_eq!(a.hash_bytes(b"x"), a.hash_bytes(b"x"));
        assert_ne!(a.hash_bytes(b"x"), b.hash_bytes(b"x"));
        assert_eq!(a.hash(&42u32), a.hash(&42u32));
        assert_ne!(a.hash("x"), a.hash("y"));
    }

    /// mix64 is SplitMix64's finaliser: its published output for seed 0
    /// (state advanced by the golden ratio). Statistical tests cannot see a
    /// finaliser that still mixes well but differently (cargo mutants:
    /// `x ^= x >> 30` as `|=` or `<<` passed them); the vectors can.
    #[test]
    fn mix64_matches_splitmix64_test_vectors() {
        let mut state = 0u64;
        let mut next = || {
            state = state.wrapping_add(GOLDEN);
            mix64(state)
        };
        for expected in [
            0xE220_A839_7B1D_CDAF,
            0x6E78_9E6A_A1B9_65F4,
            0x06C4_5D18_8009_454F,
            0xF88B_B8A8_724C_81EC,
        ] {
            assert_eq!(next(), expected);
        }
    }

    /// Flipping any one of the 64 key bits moves each derived index with
    /// probability 1 - 1/n (a derivation from part of the key would leave
    /// the index fixed for the other bits' flips).
    #[test]
    fn every_key_bit_moves_every_index() {
        let n = 1000u64;
        let trials = 4000u64;
        for bit in 0..64 {
            for i in 0..4 {
                let same = (0..trials)
                    .filter(|&t| {
                        let key = mix64(t ^ 0xC0FFEE);
                        index(key, i, n) == index(key ^ (1 << bit), i, n)
                    })
                    .count() as f64;
                // expected trials / n = 4; 30 is beyond any chance
                assert!(
                    same < 30.0,
                    "bit {bit}, index {i}: unchanged {same} of {trials}"
                );
            }
        }
    }

    /// Derived indices are uniform on 0..n: chi-square over 64 cells.
    #[test]
    fn derived_indices_are_uniform() {
        let cells = 64u64;
        for i in 0..3 {
            let mut count = [0f64; 64];
            let draws = 64_000u64;
            for t in 0..draws {
                count[index(mix64(t), i, cells) as usize] += 1.0;
            }
            let e = draws as f64 / cells as f64;
            let chi2: f64 = count.iter().map(|c| (c - e) * (c - e) / e).sum();
            // 63 degrees of freedom: P(chi2 > 110) is about 2e-4
            assert!(chi2 < 110.0, "index {i}: chi-square {chi2:.1}");
        }
    }

    /// The map hasher is one SplitMix step per 64-bit field: bytes in
    /// little-endian words (the last zero-padded), a byte as a word.
    #[test]
    fn the_map_hasher_mixes_each_field_in_turn() {
        let of = |f: &dyn Fn(&mut MixHasher)| {
            let mut h = MixHasher::default();
            f(&mut h);
            h.finish()
        };
        let step = |state: u64, x: u64| mix64(state.wrapping_add(GOLDEN) ^ x);
        assert_eq!(of(&|h| h.write_u64(7)), step(0, 7));
        assert_eq!(of(&|h| h.write_u8(7)), step(0, 7));
        let two = of(&|h| {
            h.write_u64(1);
            h.write_u64(2)
        });
        assert_eq!(two, step(step(0, 1), 2));
        let bytes: Vec<u8> = (1..=11).collect();
        let words = step(
            step(0, u64::from_le_bytes([1, 2, 3, 4, 5, 6, 7, 8])),
            u64::from_le_bytes([9, 10, 11, 0, 0, 0, 0, 0]),
        );
        assert_eq!(of(&|h| h.write(&bytes)), words);
        // distinct keys, distinct hashes: a map of them is not one chain
        let hashes: std::collections::HashSet<u64> =
            (0..1000u64).map(|k| of(&|h| h.write_u64(k))).collect();
        assert_eq!(hashes.len(), 1000);
    }

    #[test]
    fn xorshift_and_the_involution() {
        // Marsaglia's (13, 7, 17) step, written out, over many steps (from
        // 1 the first steps' shifted bits are disjoint, so | would pass)
        let mut x = GOLDEN;
        let mut want = GOLDEN;
        for _ in 0..1000 {
            want ^= want << 13;
            want ^= want >> 7;
            want ^= want << 17;
            assert_eq!(xorshift64(&mut x), want);
            assert_eq!(x, want);
        }
        for n in [1u64, 7, 1000] {
            for key in 0..200u64 {
                let h = mix64(key);
                for b in 0..n.min(50) {
                    let other = involution(h, b, n);
                    assert!(other < n);
                    assert_eq!(involution(h, other, n), b, "n {n} key {key} b {b}");
                    assert_eq!(other, (fastrange(h, n) + n - b) % n);
                }
            }
        }
    }

    #[test]
    fn fastrange_is_the_high_word_of_the_product() {
        assert_eq!(fastrange(u64::MAX, 10), 9);
        assert_eq!(fastrange(1 << 63, 10), 5);
        assert_eq!(fastrange(1 << 63, 3), 1);
        assert_eq!(fastrange(0, 10), 0);
        assert_eq!(index(5, 0, 1 << 20), mix64(5u64.wrapping_add(GOLDEN)) >> 44);
        assert_eq!(
            index(5, 2, 1 << 20),
            mix64(5u64.wrapping_add(3u64.wrapping_mul(GOLDEN))) >> 44
        );
        assert_eq!(KeyHasher::new(9).seed(), 9);
    }
}
