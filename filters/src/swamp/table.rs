//! The compact multiset of fingerprints with counts behind SWAMP (TinyTable's
//! role in the paper).
//!
//! Fingerprints F ∈ [0, 2^L) are quotiented into B buckets of four slots: the
//! home bucket is q = F mod B and the remainder ρ = ⌊F / B⌋ takes
//! r = ⌈log2 ⌈2^L / B⌉⌉ bits, so (q, ρ) is F exactly and the multiset is exact
//! on fingerprints. An entry may sit in its home bucket or in
//! q' = (H(ρ) - q) mod B (cuckoo hashing; [`involution`]), and each slot
//! stores ρ, one bit saying which of the two it is in, and a 2-bit counter:
//! 0 empty, 1 and 2 the count, 3 "three or more", the count then kept in an
//! overflow map keyed by F. Insertions into two full buckets displace entries
//! along a random walk; what is left after [`MAX_KICKS`] steps goes to a stash.
//!
//! Slots are (1 + α)W rounded up to whole buckets, α = 0.2 as the SWAMP paper
//! runs TinyTable, so a window of W distinct fingerprints fills at most 83%.
//!
//! # Memory, against TinyTable's
//!
//! Each slot costs r + 3 bits, with r = ⌈L - log2(W(1 + α)/4)⌉, which is
//! L - log2 W + 2 at W = 2^16: L - log2 W + 5 bits per slot there, against
//! TinyTable's L - log2 W + 3 (between 4.7 and 5.7 for other W). The
//! overflow map and the stash are counted per entry at L bits of fingerprint
//! plus ⌈log2(W + 1)⌉ bits of count: nothing on a stream of distinct keys, the
//! flows of frequency ≥ 3 on a skewed one.

use crate::bits::PackedInts;
use crate::hash::{involution, mix64, xorshift64};
use std::collections::HashMap;

/// Displacements before an insertion gives up and uses the stash.
pub const MAX_KICKS: u32 = 500;

/// Slots per bucket.
pub const SLOTS: u64 = 4;

/// α: spare slots as a fraction of W.
pub const ALPHA: f64 = 0.2;

/// Counter value meaning "count in the overflow map".
const OVER: u64 = 3;

/// Buckets for a window of `w` fingerprints: ⌈(1 + α)w / 4⌉.
pub fn buckets_for(w: u64) -> u64 {
    ((w as f64 * (1.0 + ALPHA)) / SLOTS as f64).ceil().max(1.0) as u64
}

/// Remainder bits r for L-bit fingerprints in `buckets` buckets:
/// ⌈log2 ⌈2^L / B⌉⌉, at least 1.
pub fn remainder_bits(l: u32, buckets: u64) -> u32 {
    let quotients = (1u128 << l).div_ceil(buckets as u128);
    (128 - (quotients - 1).leading_zeros()).max(1)
}

/// A multiset of L-bit fingerprints with counts.
#[derive(Debug, Clone)]
pub struct CountingTable {
    slots: PackedInts,
    buckets: u64,
    r: u32,
    overflow: HashMap<u64, u64>,
    stash: Vec<(u64, u64)>,
    distinct: u64,
    rng: u64,
}

/// A fingerprint's place in a [`CountingTable`]: its two buckets and its
/// remainder ([`CountingTable::locate`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loc {
    f: u64,
    q: u64,
    q2: u64,
    rem: u64,
}

impl Loc {
    /// The home bucket.
    pub fn q(&self) -> u64 {
        self.q
    }

    /// The other bucket.
    pub fn q2(&self) -> u64 {
        self.q2
    }
}

impl CountingTable {
    /// An empty table for L-bit fingerprints (L ≤ 60) in `buckets` buckets.
    pub fn new(l: u32, buckets: u64) -> CountingTable {
        let r = remainder_bits(l, buckets);
        CountingTable {
            slots: PackedInts::new(buckets * SLOTS, r + 3),
            buckets,
            r,
            overflow: HashMap::new(),
            stash: Vec::new(),
            distinct: 0,
            rng: 0x9E37_79B9_7F4A_7C15,
        }
    }

    /// Remainder bits per slot.
    pub fn remainder_bits(&self) -> u32 {
        self.r
    }

    /// Slots (4B).
    pub fn slots(&self) -> u64 {
        self.slots.len()
    }

    /// Distinct fingerprints stored (Z).
    pub fn distinct(&self) -> u64 {
        self.distinct
    }

    /// Entries in the overflow map (fingerprints of count ≥ 3 in the table).
    pub fn overflow_len(&self) -> usize {
        self.overflow.len()
    }

    /// Entries in the stash.
    pub fn stash_len(&self) -> usize {
        self.stash.len()
    }

    /// Buckets B.
    pub fn buckets(&self) -> u64 {
        self.buckets
    }

    /// Bits per slot: r + 3.
    pub fn slot_bits(&self) -> u64 {
        self.r as u64 + 3
    }

    #[inline]
    fn other(&self, b: u64, rem: u64) -> u64 {
        involution(mix64(rem ^ 0x3C6E_F372_FE94_F82B), b, self.buckets)
    }

    /// The stash: (fingerprint, count) pairs.
    pub(crate) fn stash(&self) -> &[(u64, u64)] {
        &self.stash
    }

    /// Whether slot `s` holds the fingerprint at `at` ([`find`](Self::find)'s
    /// test of one slot).
    pub(crate) fn find_in(&self, at: &Loc, s: u64) -> bool {
        let &Loc { q, q2, rem, .. } = at;
        let side = u64::from(s / SLOTS != q);
        let v = self.slots.get(s);
        v & 3 != 0 && v >> 3 == rem && (q == q2 || (v >> 2) & 1 == side)
    }

    #[inline]
    fn split(&self, f: u64) -> (u64, u64) {
        (f % self.buckets, f / self.buckets)
    }

    #[inline]
    fn encode(rem: u64, side: u64, count: u64) -> u64 {
        (rem << 3) | (side << 2) | count
    }

    /// Where fingerprint `f` can sit: its buckets and remainder, computed
    /// once (a division and a hash) for the operations that take a [`Loc`].
    #[inline]
    pub fn locate(&self, f: u64) -> Loc {
        let (q, rem) = self.split(f);
        Loc {
            f,
            q,
            q2: self.other(q, rem),
            rem,
        }
    }

    /// Prefetches both of a fingerprint's buckets' lines (a hint: no
    /// read waits on it).
    pub fn prefetch(&self, f: u64) {
        let at = self.locate(f);
        self.slots.prefetch(at.q * SLOTS);
        self.slots.prefetch(at.q2 * SLOTS);
    }

    /// Reads the first word of both of a fingerprint's buckets and returns
    /// them mixed: called for two fingerprints before working on either, it
    /// puts their cache misses in flight together.
    #[inline]
    pub fn warm(&self, at: &Loc) -> u64 {
        self.slots.word_of(at.q * SLOTS) ^ self.slots.word_of(at.q2 * SLOTS)
    }

    /// The slot holding the fingerprint at `at`.
    fn find(&self, at: &Loc) -> Option<u64> {
        let &Loc { q, q2, rem, .. } = at;
        for (b, side) in [(q, 0), (q2, 1)] {
            for s in b * SLOTS..(b + 1) * SLOTS {
                let v = self.slots.get(s);
                // both sides match when q = q2 (the side bit is then moot)
                if v & 3 != 0 && v >> 3 == rem && (q == q2 || (v >> 2) & 1 == side) {
                    return Some(s);
                }
            }
        }
        None
    }

    /// The count of fingerprint `f` (0 if absent).
    pub fn count(&self, f: u64) -> u64 {
        match self.find(&self.locate(f)) {
            Some(s) => match self.slots.get(s) & 3 {
                OVER => self.overflow[&f],
                c => c,
            },
            None => self.stash.iter().find(|e| e.0 == f).map_or(0, |&(_, c)| c),
        }
    }

    /// Adds one occurrence of `f`; returns its new count.
    pub fn increment(&mut self, f: u64) -> u64 {
        self.increment_at(&self.locate(f))
    }

    /// [`increment`](Self::increment) of the fingerprint at `at`.
    pub fn increment_at(&mut self, at: &Loc) -> u64 {
        let f = at.f;
        if let Some(s) = self.find(at) {
            let v = self.slots.get(s);
            return match v & 3 {
                OVER => {
                    let c = self.overflow.get_mut(&f).expect("overflow entry");
                    *c += 1;
                    *c
                }
                2 => {
                    self.slots.set(s, v | OVER);
                    self.overflow.insert(f, 3);
                    3
                }
                _ => {
                    self.slots.set(s, v + 1);
                    2
                }
            };
        }
        if let Some(e) = self.stash.iter_mut().find(|e| e.0 == f) {
            e.1 += 1;
            return e.1;
        }
        self.distinct += 1;
        self.place(f);
        1
    }

    /// Removes one occurrence of `f`, which must be present; returns its new
    /// count.
    pub fn decrement(&mut self, f: u64) -> u64 {
        self.decrement_at(&self.locate(f))
    }

    /// [`decrement`](Self::decrement) of the fingerprint at `at`.
    pub fn decrement_at(&mut self, at: &Loc) -> u64 {
        let f = at.f;
        if let Some(s) = self.find(at) {
            let v = self.slots.get(s);
            return match v & 3 {
                OVER => {
                    let c = self.overflow.get_mut(&f).expect("overflow entry");
                    *c -= 1;
                    if *c == 2 {
                        self.overflow.remove(&f);
                        self.slots.set(s, v - 1);
                        2
                    } else {
                        *c
                    }
                }
                1 => {
                    self.slots.set(s, 0);
                    self.distinct -= 1;
                    0
                }
                _ => {
                    self.slots.set(s, v - 1);
                    1
                }
            };
        }
        let i = self
            .stash
            .iter()
            .position(|e| e.0 == f)
            .expect("decrement of a fingerprint not in the table");
        self.stash[i].1 -= 1;
        let c = self.stash[i].1;
        if c == 0 {
            self.stash.swap_remove(i);
            self.distinct -= 1;
        }
        c
    }

    fn free(&self, b: u64) -> Option<u64> {
        (b * SLOTS..(b + 1) * SLOTS).find(|&s| self.slots.get(s) & 3 == 0)
    }

    fn next_random(&mut self) -> u64 {
        xorshift64(&mut self.rng)
    }

    /// Stores a new fingerprint with count 1.
    fn place(&mut self, f: u64) {
        let (q, rem) = self.split(f);
        let q2 = self.other(q, rem);
        for (b, side) in [(q, 0), (q2, 1)] {
            if let Some(s) = self.free(b) {
                self.slots.set(s, Self::encode(rem, side, 1));
                return;
            }
        }
        let (mut b, side) = if self.next_random() & 1 == 0 {
            (q, 0)
        } else {
            (q2, 1)
        };
        let mut carried = Self::encode(rem, side, 1);
        for _ in 0..MAX_KICKS {
            let s = b * SLOTS + self.next_random() % SLOTS;
            let victim = self.slots.get(s);
            self.slots.set(s, carried);
            // the victim moves to its other bucket, its side bit flipped
            b = self.other(b, victim >> 3);
            carried = victim ^ 4;
            if let Some(t) = self.free(b) {
                self.slots.set(t, carried);
                return;
            }
        }
        // the carried entry sits (logically) in bucket b on its side bit
        let rem = carried >> 3;
        let home = if (carried >> 2) & 1 == 0 {
            b
        } else {
            self.other(b, rem)
        };
        let f = rem * self.buckets + home;
        let count = match carried & 3 {
            OVER => self.overflow.remove(&f).expect("overflow entry"),
            c => c,
        };
        self.stash.push((f, count));
    }

    /// Bits of the table: 4B slots of r + 3 bits, plus overflow and stash
    /// entries at `entry_bits` each.
    pub fn bits(&self, entry_bits: u64) -> u64 {
        self.slots.len() * self.slot_bits()
            + (self.overflow.len() + self.stash.len()) as u64 * entry_bits
    }
}

crate::persist::codec_struct!(CountingTable {
    slots,
    buckets,
    r,
    overflow,
    stash,
    distinct,
    rng
});

impl CountingTable {
    /// The invariants of a loaded table for L-bit fingerprints in `buckets`
    /// buckets: its sizes, and its contents read back as fingerprint counts
    /// (each stored once, in a slot its own buckets hold or in the stash, an
    /// overflow entry exactly for each saturated slot), returned for the
    /// caller to compare with the window's fingerprints.
    pub(crate) fn contents(&self, l: u32, buckets: u64) -> Result<HashMap<u64, u64>, String> {
        use crate::persist::ensure;
        ensure(
            self.buckets == buckets
                && self.buckets >= 1
                && self.r == remainder_bits(l, self.buckets)
                && self.buckets.checked_mul(SLOTS) == Some(self.slots.len())
                && self.slots.width() == self.r + 3,
            || {
                format!(
                    "a table of {} slots for {} buckets",
                    self.slots.len(),
                    self.buckets
                )
            },
        )?;
        let mut counts = HashMap::new();
        let mut over = 0;
        for s in 0..self.slots.len() {
            let v = self.slots.get(s);
            if v & 3 == 0 {
                continue;
            }
            let (b, rem) = (s / SLOTS, v >> 3);
            let home = if (v >> 2) & 1 == 0 {
                b
            } else {
                self.other(b, rem)
            };
            let f = rem as u128 * self.buckets as u128 + home as u128;
            ensure(f < 1u128 << l, || {
                format!("slot {s} holds no {l}-bit fingerprint")
            })?;
            let f = f as u64;
            ensure(self.find(&self.locate(f)) == Some(s), || {
                format!("slot {s} is not where its fingerprint is looked for")
            })?;
            let c = match v & 3 {
                OVER => {
                    over += 1;
                    let c = self.overflow.get(&f).copied().unwrap_or(0);
                    ensure(c >= 3, || format!("slot {s} overflows with no count"))?;
                    c
                }
                c => c,
            };
            counts.insert(f, c);
        }
        ensure(over == self.overflow.len(), || {
            "overflow entries of no slot".into()
        })?;
        for &(f, c) in &self.stash {
            ensure(
                f >> l == 0 && c >= 1 && self.find(&self.locate(f)).is_none(),
                || "a stash entry out of range".into(),
            )?;
            ensure(counts.insert(f, c).is_none(), || {
                "a fingerprint stored twice".into()
            })?;
        }
        ensure(counts.len() as u64 == self.distinct, || {
            format!("{} fingerprints counted as {}", counts.len(), self.distinct)
        })?;
        Ok(counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn counts_match_a_hash_map_under_heavy_load() {
        // 48 buckets (192 slots) and up to ~180 distinct fingerprints of 9
        // bits: displacements, overflow counters and the stash all happen.
        let mut t = CountingTable::new(9, 48);
        let mut truth: HashMap<u64, u64> = HashMap::new();
        let mut x = 12345u64;
        for step in 0..200_000u64 {
            x = mix64(x + step);
            let f = x % 180 + (x >> 40) % 2 * 300;
            let f = f % 512;
            let c = truth.get(&f).copied().unwrap_or(0);
            if c > 0 && (x >> 20).is_multiple_of(2) {
                assert_eq!(t.decrement(f), c - 1);
                if c == 1 {
                    truth.remove(&f);
                } else {
                    truth.insert(f, c - 1);
                }
            } else {
                assert_eq!(t.increment(f), c + 1);
                truth.insert(f, c + 1);
            }
            if step % 997 == 0 {
                for g in 0..512 {
                    assert_eq!(t.count(g), truth.get(&g).copied().unwrap_or(0), "f {g}");
                }
                assert_eq!(t.distinct(), truth.len() as u64);
            }
        }
        assert_eq!(remainder_bits(9, 48), 4); // ceil(512 / 48) = 11 quotients
    }

    #[test]
    fn memory_counts_slots_overflow_and_stash_exactly() {
        // 4 buckets (16 slots) and 40 distinct fingerprints: every slot
        // full, 24 in the stash; one fingerprint in a slot counted 5 times
        // (an overflow entry), one in the stash twice
        let mut t = CountingTable::new(20, 4);
        assert_eq!((t.remainder_bits(), t.slot_bits(), t.slots()), (18, 21, 16));
        let fs: Vec<u64> = (0..40u64).map(|i| mix64(i) % (1 << 20)).collect();
        for &f in &fs {
            assert_eq!(t.increment(f), 1);
        }
        assert_eq!((t.distinct(), t.stash_len(), t.overflow_len()), (40, 24, 0));
        let in_slot = *fs
            .iter()
            .find(|&&f| t.find(&t.locate(f)).is_some())
            .unwrap();
        let stashed = *fs
            .iter()
            .find(|&&f| t.find(&t.locate(f)).is_none())
            .unwrap();
        for c in 2..=5 {
            assert_eq!(t.increment(in_slot), c);
        }
        assert_eq!(t.increment(stashed), 2);
        assert_eq!((t.stash_len(), t.overflow_len()), (24, 1));
        assert_eq!(t.bits(0), 16 * 21);
        assert_eq!(t.bits(30), 16 * 21 + 25 * 30);
        // back down: the overflow entry goes at a count of 2
        for c in (2..=4).rev() {
            assert_eq!(t.decrement(in_slot), c);
        }
        assert_eq!(t.overflow_len(), 0);
        assert_eq!(t.count(in_slot), 2);
        assert_eq!((t.decrement(stashed), t.decrement(stashed)), (1, 0));
        assert_eq!((t.stash_len(), t.distinct()), (23, 39));
    }

    #[test]
    fn a_remainder_s_alternate_buckets_are_spread() {
        // the alternate bucket hashes the whole remainder: 1024 remainders
        // from one bucket of 1000 reach most of the buckets (1000 (1 -
        // e^-1.024) = 641 expected)
        let t = CountingTable::new(30, 1000);
        let alternates: std::collections::HashSet<u64> =
            (0..1024).map(|rem| t.other(7, rem)).collect();
        assert!(alternates.len() > 550, "{}", alternates.len());
        for rem in 0..1024 {
            assert_eq!(t.other(t.other(7, rem), rem), 7);
        }
    }
}
