//! SWBF, the sliding-window Bloom filter of the SWAMP paper's reference \[34\]
//! as that paper describes it: a cuckoo table of 2W entries, each a
//! fingerprint and a timestamp; entries older than the window count as empty,
//! and a cleanup sweep clears them before their timestamps wrap around
//! (the shared wraparound clock, `clock.rs`).
//!
//! The table has B = ⌈W/2⌉ buckets of four slots. A key's bucket q₁ and
//! f-bit fingerprint φ come from its hash; its other bucket is
//! q₂ = (H(φ) - q₁) mod B, an involution (partial-key cuckoo hashing: an
//! entry can move between its buckets knowing only φ). An arrival whose
//! fingerprint is already live in one of its buckets refreshes that entry's
//! timestamp; otherwise it takes a dead or empty slot, displacing entries
//! along a random walk of at most [`MAX_KICKS`] steps when both buckets are
//! live-full, and a small stash takes what is left (never reached at the
//! table's load of at most 1/2 in our runs).
//!
//! # Theory
//!
//! A query with fingerprint φ' and buckets {q₁', q₂'} matches a live entry
//! of key x iff φ_x = φ' and x's bucket pair is the same orbit {q, H(φ) - q}
//! as the query's. Given the query, that happens independently for each
//! distinct key in the window with probability 2^-f·|O'|/B, where |O'| = 2,
//! or 1 when q₁' is a fixed point (2q₁' ≡ H(φ') mod B, probability 1/B for
//! uniform H). Refreshing, displacement and the stash never change which
//! orbit and fingerprint hold a live entry, so with D distinct keys in the
//! window
//!
//! FPR = (1 - 1/B)(1 - (1 - 2^(1-f)/B)^D) + (1/B)(1 - (1 - 2^(-f)/B)^D),
//!
//! about 4D/(W·2^f). Memory: 4B slots of f + b bits, b = ⌈log2 2W⌉.

#[path = "swbf_lines.rs"]
pub mod lines;

use crate::bits::PackedInts;
use crate::clock::Clock;
use crate::error::{check_bits, check_nonzero, check_probability};
use crate::hash::{fastrange, involution, mix64, xorshift64};
use crate::{Filter, ParamError, SlidingFilter};

/// Displacements before an insertion gives up and uses the stash.
pub const MAX_KICKS: u32 = 500;

const SLOTS: u64 = 4;

/// FPR of an SWBF with `buckets` buckets and `f`-bit fingerprints holding D
/// distinct keys (derivation in the module documentation).
pub fn fpr(buckets: u64, f: u32, d: f64) -> f64 {
    let b = buckets as f64;
    let p1 = 2f64.powi(-(f as i32)) / b;
    let miss = |p: f64| (d * (-p).ln_1p()).exp();
    (1.0 - 1.0 / b) * (1.0 - miss(2.0 * p1)) + (1.0 / b) * (1.0 - miss(p1))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct StashEntry {
    bucket: u64,
    fp: u64,
    code: u64,
}

/// A sliding-window Bloom filter over a cuckoo table of 2W timestamped
/// fingerprints.
#[derive(Debug, Clone)]
pub struct Swbf {
    slots: PackedInts,
    buckets: u64,
    f: u32,
    clock: Clock,
    stash: Vec<StashEntry>,
    rng: u64,
    inserted: u64,
}

/// The shape of a [`Swbf`]: what [`Swbf::new`] takes, each paper letter
/// by a word (see [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SwbfShape {
    /// The window, in insertions (`w`).
    pub window: u64,
    /// Bits per fingerprint (`f`).
    pub fingerprint_bits: u32,
}

impl Swbf {
    /// Window `w` and `f`-bit fingerprints (1..=48), ⌈w/2⌉ buckets of four.
    pub fn new(shape: SwbfShape) -> Result<Swbf, ParamError> {
        let SwbfShape {
            window: w,
            fingerprint_bits: f,
        } = shape;
        Swbf::with_clock(w, w, f)
    }

    /// A table of ⌈keys/2⌉ buckets of four for up to `keys` live keys, with a
    /// clock whose window is `w` ticks (arrivals for [`Swbf`]; time quanta
    /// for [`super::TimedSwbf`]).
    pub(crate) fn with_clock(keys: u64, w: u64, f: u32) -> Result<Swbf, ParamError> {
        check_nonzero("window", w)?;
        check_nonzero("keys", keys)?;
        if !(1..=48).contains(&f) {
            return Err(ParamError::OutOfRange {
                name: "fingerprint_bits",
                value: f.to_string(),
                expected: "in 1..=48",
            });
        }
        let buckets = keys.div_ceil(2);
        let clock = Clock::new(w, buckets.saturating_mul(SLOTS));
        check_bits(
            buckets
                .checked_mul(SLOTS)
                .and_then(|s| s.checked_mul((f + clock.bits()) as u64)),
        )?;
        Ok(Swbf {
            slots: PackedInts::new(buckets * SLOTS, f + clock.bits()),
            buckets,
            f,
            clock,
            stash: Vec::new(),
            rng: 0x2545_F491_4F6C_DD1D,
            inserted: 0,
        })
    }

    /// The fewest fingerprint bits with FPR ≤ `eps` over a window of `w`
    /// distinct keys.
    ///
    /// ```
    /// use bloomlab_filters::{Filter, Swbf};
    /// let mut f = bloomlab_filters::Target::window(1000).fpr(1e-2).build::<Swbf>().unwrap();
    /// f.insert(3);
    /// assert!(f.contains(3));
    /// ```
    pub(crate) fn with_fpr(w: u64, eps: f64) -> Result<Swbf, ParamError> {
        check_nonzero("window", w)?;
        check_probability("fpr", eps)?;
        let buckets = w.div_ceil(2);
        let f = (1..=48).find(|&f| fpr(buckets, f, w as f64) <= eps).ok_or(
            ParamError::Unreachable {
                target: format!("an SWBF with fpr {eps} at window {w}"),
            },
        )?;
        Swbf::new(crate::SwbfShape {
            window: w,
            fingerprint_bits: f,
        })
    }

    /// Fingerprint bits.
    pub fn fingerprint_bits(&self) -> u32 {
        self.f
    }

    /// Buckets of four slots.
    pub fn buckets(&self) -> u64 {
        self.buckets
    }

    /// Bits per timestamp.
    pub fn stamp_bits(&self) -> u32 {
        self.clock.bits()
    }

    /// Entries in the stash.
    pub fn stash_len(&self) -> usize {
        self.stash.len()
    }

    /// The theoretical FPR with D distinct keys in the window.
    pub fn fpr_theory(&self, d: f64) -> f64 {
        fpr(self.buckets, self.f, d)
    }

    #[inline]
    fn locate(&self, key: u64) -> (u64, u64, u64) {
        let h = mix64(key ^ 0x5851_F42D_4C95_7F2D);
        let q1 = fastrange(h, self.buckets);
        let fp = h & ((1 << self.f) - 1);
        (q1, self.other(q1, fp), fp)
    }

    #[inline]
    fn other(&self, b: u64, fp: u64) -> u64 {
        involution(
            mix64(fp.wrapping_add(0x1405_7B7E_F767_814F)),
            b,
            self.buckets,
        )
    }

    #[inline]
    fn split(&self, v: u64) -> (u64, u64) {
        let b = self.clock.bits();
        (v >> b, v & ((1 << b) - 1))
    }

    #[inline]
    fn join(&self, fp: u64, code: u64) -> u64 {
        (fp << self.clock.bits()) | code
    }

    /// The slot of a live entry with fingerprint `fp` in bucket `b`.
    fn find(&self, b: u64, fp: u64) -> Option<u64> {
        (b * SLOTS..(b + 1) * SLOTS).find(|&s| {
            let (f, c) = self.split(self.slots.get(s));
            f == fp && self.clock.live(c)
        })
    }

    /// A dead or empty slot of bucket `b`.
    fn free(&self, b: u64) -> Option<u64> {
        (b * SLOTS..(b + 1) * SLOTS).find(|&s| !self.clock.live(self.split(self.slots.get(s)).1))
    }

    fn next_random(&mut self) -> u64 {
        xorshift64(&mut self.rng)
    }

    fn place(&mut self, q1: u64, q2: u64, fp: u64, code: u64) {
        if let Some(s) = self.free(q1).or_else(|| self.free(q2)) {
            self.slots.set(s, self.join(fp, code));
            return;
        }
        let mut b = if self.next_random() & 1 == 0 { q1 } else { q2 };
        let mut carried = self.join(fp, code);
        for _ in 0..MAX_KICKS {
            let s = b * SLOTS + self.next_random() % SLOTS;
            let victim = self.slots.get(s);
            self.slots.set(s, carried);
            carried = victim;
            b = self.other(b, self.split(victim).0);
            if let Some(t) = self.free(b) {
                self.slots.set(t, carried);
                return;
            }
        }
        let (fp, code) = self.split(carried);
        self.stash.push(StashEntry {
            bucket: b,
            fp,
            code,
        });
    }
}

impl Swbf {
    /// Stores `key` with the current code, without ticking (the clock of
    /// [`super::TimedSwbf`] ticks on time quanta).
    pub(crate) fn write(&mut self, key: u64) {
        let code = self.clock.current();
        self.store(key, code);
        self.inserted += 1;
    }

    /// Ticks the clock `n` times, sweeping after each tick; after a lull
    /// longer than the window and a whole sweep, clears every slot and the
    /// stash at once.
    pub(crate) fn tick_quanta(&mut self, n: u64) {
        if n == 0 {
            return;
        }
        if n > self.clock.window() + self.clock.sweep_period() {
            self.slots.clear();
            self.stash.clear();
            self.clock.skip(n);
            return;
        }
        for _ in 0..n {
            self.clock.tick();
            self.clock.clear_dead(&mut self.slots);
        }
        let clock = self.clock;
        self.stash.retain(|e| clock.live(e.code));
    }

    /// Refreshes a live entry of `key`'s fingerprint or places a new one
    /// with `code`.
    fn store(&mut self, key: u64, code: u64) {
        let clock = self.clock;
        self.stash.retain(|e| clock.live(e.code));
        let (q1, q2, fp) = self.locate(key);
        if let Some(s) = self.find(q1, fp).or_else(|| self.find(q2, fp)) {
            self.slots.set(s, self.join(fp, code));
        } else if let Some(e) = self
            .stash
            .iter_mut()
            .find(|e| e.fp == fp && (e.bucket == q1 || e.bucket == q2))
        {
            e.code = code;
        } else {
            self.place(q1, q2, fp, code);
        }
    }
}

impl Filter for Swbf {
    fn insert(&mut self, key: u64) {
        let code = self.clock.tick();
        self.store(key, code);
        self.clock.clear_dead(&mut self.slots);
        self.inserted += 1;
    }

    fn contains(&self, key: u64) -> bool {
        let (q1, q2, fp) = self.locate(key);
        self.find(q1, fp).is_some()
            || self.find(q2, fp).is_some()
            || self.stash.iter().any(|e| {
                e.fp == fp && (e.bucket == q1 || e.bucket == q2) && self.clock.live(e.code)
            })
    }

    /// 4B slots of f + b bits, the stash as (bucket word, fingerprint,
    /// timestamp) per entry, and three words (clock, sweep, walk state).
    fn memory_bits(&self) -> u64 {
        let entry = (self.f + self.clock.bits()) as u64;
        self.slots.len() * entry + self.stash.len() as u64 * (64 + entry) + 3 * 64
    }

    fn name(&self) -> &'static str {
        "swbf"
    }
}

impl crate::Instrumented for Swbf {
    fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
        Some(Self::lines_read(self, key))
    }
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        let (q1, _, fp) = self.locate(key);
        let first = self.find(q1, fp).is_some();
        (self.contains(key), if first { 4 } else { 8 })
    }
}

impl SlidingFilter for Swbf {
    fn window(&self) -> u64 {
        self.clock.window()
    }

    fn slack(&self) -> u64 {
        0
    }

    fn inserted(&self) -> u64 {
        self.inserted
    }
}

crate::persist::codec_struct!(StashEntry { bucket, fp, code });
crate::persist::codec_struct!(Swbf {
    slots,
    buckets,
    f,
    clock,
    stash,
    rng,
    inserted
});

impl crate::persist::sealed::Design for Swbf {
    fn tag() -> String {
        "swbf".into()
    }
    fn check(&self) -> Result<(), String> {
        use crate::persist::ensure;
        let cells = self.buckets.checked_mul(SLOTS);
        ensure((1..=48).contains(&self.f) && self.buckets >= 1, || {
            format!("f = {}, {} buckets", self.f, self.buckets)
        })?;
        ensure(
            cells == Some(self.slots.len())
                && cells == Some(self.clock.len())
                && self.slots.width() == self.f + self.clock.bits(),
            || format!("{} slots of {} bits", self.slots.len(), self.slots.width()),
        )?;
        for e in &self.stash {
            ensure(e.bucket < self.buckets && e.code >= 1, || {
                "a stash entry out of range".into()
            })?;
        }
        Ok(())
    }
}

crate::persist::persists!(Swbf);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::mix64;
    use crate::Instrumented;

    /// A table of 16 slots under a window of 64: most live keys go to the
    /// stash. Keys repeat (a pool of 100), so stashed keys are refreshed.
    #[test]
    fn an_overloaded_table_keeps_the_window_in_its_stash() {
        let mut f = Swbf::with_clock(8, 64, 12).unwrap();
        let (mut arrivals, mut max_stash) = (Vec::new(), 0);
        for t in 0..5_000u64 {
            let key = mix64(mix64(t) % 100);
            f.insert(key);
            arrivals.push(key);
            max_stash = max_stash.max(f.stash_len());
            for &k in arrivals.iter().rev().take(64) {
                assert!(f.contains(k), "a key of the window lost at {t}");
            }
            // one live entry per key of the window: a refresh never copies
            let (q1, q2, fp) = f.locate(key);
            let in_stash = f
                .stash
                .iter()
                .filter(|e| e.fp == fp && (e.bucket == q1 || e.bucket == q2))
                .count();
            let in_table = [q1, q2]
                .iter()
                .filter(|&&b| f.find(b, fp).is_some())
                .count();
            assert!(in_stash + in_table >= 1 && in_stash <= 1, "t {t}");
            // probes: the first bucket, or both; the answer of contains
            let (yes, p) = f.contains_probes(key);
            assert!(yes && (p == 4 || p == 8));
            assert_eq!(p == 4, f.find(q1, fp).is_some());
            let entry = (12 + f.clock.bits()) as u64;
            let stash = f.stash_len() as u64;
            assert_eq!(f.memory_bits(), 16 * entry + stash * (64 + entry) + 192);
            // keys never inserted: about 8 / 2^12 of them answer yes
            let yes = (0..200u64)
                .filter(|&i| f.contains(mix64(i + 1_000_000)))
                .count();
            assert!(
                yes <= 5,
                "{yes} of 200 never-inserted keys answer yes at {t}"
            );
        }
        assert!(max_stash > 10, "the stash was not used: {max_stash}");
        assert_eq!(f.name(), "swbf");
    }

    #[test]
    fn sizing_meets_target() {
        for &(w, eps) in &[(1000u64, 0.1), (1 << 16, 1e-3), (3, 0.5)] {
            let f = Swbf::with_fpr(w, eps).unwrap();
            assert!(f.fpr_theory(w as f64) <= eps);
            let f1 = f.fingerprint_bits() - 1;
            assert!(f1 == 0 || fpr(f.buckets(), f1, w as f64) > eps);
        }
        assert!(Swbf::new(crate::SwbfShape {
            window: 10,
            fingerprint_bits: 0
        })
        .is_err());
        assert!(Swbf::new(crate::SwbfShape {
            window: 10,
            fingerprint_bits: 49
        })
        .is_err());
        assert!(Swbf::with_fpr(0, 0.1).is_err());
    }
}
