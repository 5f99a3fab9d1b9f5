//! SWAMP, the Sliding Window Approximate Measurement Protocol
//! (Assaf, Ben Basat, Einziger, Friedman, *Pay for a Sliding Bloom Filter
//! and Get Counting, Distinct Elements, and Entropy for Free*, INFOCOM
//! 2018): one structure over the last W
//! arrivals that answers membership, per-flow frequency, distinct count and
//! entropy.
//!
//! * Every key gets an L-bit fingerprint h(x), L = ⌈log2(W/ε)⌉.
//! * A cyclic fingerprint buffer (CFB) of W entries holds the window's
//!   fingerprints in arrival order; `curr` points at the oldest.
//! * A compact multiset ([`table::CountingTable`], TinyTable's role) holds the
//!   same fingerprints with counts.
//! * An update replaces the oldest fingerprint in the CFB with the new one,
//!   removes one occurrence of the old from the table and adds the new,
//!   and keeps Z (distinct fingerprints) and Σ n_φ log2 n_φ over fingerprints
//!   φ up to date, so every query is O(1).
//! * isMember(y): h(y) is in the table; Frequency(y): its count;
//!   DistinctLB: Z; DistinctMLE: ln(1 - Z/M)/ln(1 - 1/M), M = 2^L;
//!   Entropy: that of the fingerprint histogram.
//!
//! Before the first W arrivals the window is all arrivals so far. The
//! derivations of the guarantees and expected errors are in [`theory`].

mod lines;
pub mod table;
pub mod theory;

use crate::bits::PackedInts;
use crate::error::{check_bits, check_nonzero, check_probability};
use crate::hash::mix64;
use crate::summary::{
    entropy_from_sum, flogf, DistinctEstimator, EntropyEstimator, FrequencyEstimator, WindowSummary,
};
use crate::{Filter, ParamError, SlidingFilter};
use table::{buckets_for, CountingTable};

/// Largest fingerprint length.
pub const MAX_L: u32 = 60;

/// SWAMP over a window of W arrivals with L-bit fingerprints.
#[derive(Debug, Clone)]
pub struct Swamp {
    window: u64,
    l: u32,
    cfb: PackedInts,
    /// Oldest entry once the window is full; the next free one before
    /// (inserted mod W, kept to avoid a division per update).
    curr: u64,
    table: CountingTable,
    sum_flogf: f64,
    salt: u64,
    inserted: u64,
}

/// The shape of a [`Swamp`]: what [`Swamp::new`] takes, each paper letter
/// by a word (see [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SwampShape {
    /// The window, in insertions (`w`).
    pub window: u64,
    /// Bits per fingerprint (`l`).
    pub fingerprint_bits: u32,
}

impl Swamp {
    /// Window `w` with `l`-bit fingerprints (1..=60).
    pub fn new(shape: SwampShape) -> Result<Swamp, ParamError> {
        let SwampShape {
            window: w,
            fingerprint_bits: l,
        } = shape;
        check_nonzero("window", w)?;
        if !(1..=MAX_L).contains(&l) {
            return Err(ParamError::OutOfRange {
                name: "fingerprint_bits",
                value: l.to_string(),
                expected: "in 1..=60",
            });
        }
        check_bits(w.checked_mul(2 * l as u64 + 3))?;
        Ok(Swamp {
            window: w,
            l,
            cfb: PackedInts::new(w, l),
            curr: 0,
            table: CountingTable::new(l, buckets_for(w)),
            sum_flogf: 0.0,
            salt: 0x243F_6A88_85A3_08D3,
            inserted: 0,
        })
    }

    /// The paper's sizing: L = ⌈log2(W/ε)⌉, so FPR ≤ ε.
    ///
    /// ```
    /// use bloomlab_filters::{Filter, Swamp};
    /// let mut f = bloomlab_filters::Target::window(1024).fpr(1e-3).build::<Swamp>().unwrap();
    /// f.insert(5);
    /// assert!(f.contains(5));
    /// ```
    pub(crate) fn with_fpr(w: u64, eps: f64) -> Result<Swamp, ParamError> {
        check_nonzero("window", w)?;
        check_probability("fpr", eps)?;
        let l = theory::fingerprint_bits(w, eps);
        if l > MAX_L {
            return Err(ParamError::Unreachable {
                target: format!("fpr {eps} at window {w} with at most {MAX_L}-bit fingerprints"),
            });
        }
        Swamp::new(crate::SwampShape {
            window: w,
            fingerprint_bits: l,
        })
    }

    /// The same structure with fingerprints drawn under another seed
    /// (independent estimates of the same stream).
    pub fn with_seed(mut self, seed: u64) -> Swamp {
        self.salt = mix64(seed ^ 0x243F_6A88_85A3_08D3);
        self
    }

    /// L: fingerprint bits.
    pub fn fingerprint_bits(&self) -> u32 {
        self.l
    }

    /// The underlying table.
    pub fn table(&self) -> &CountingTable {
        &self.table
    }

    /// Z: distinct fingerprints in the window (DistinctLB).
    pub fn distinct_lb(&self) -> u64 {
        self.table.distinct()
    }

    /// DistinctMLE: ln(1 - Z/M) / ln(1 - 1/M).
    pub fn distinct_mle(&self) -> f64 {
        theory::distinct_mle(self.l, self.table.distinct() as f64)
    }

    #[inline]
    fn fingerprint(&self, key: u64) -> u64 {
        mix64(key ^ self.salt) >> (64 - self.l)
    }

    /// Bits per overflow or stash entry: L + ⌈log2(W + 1)⌉.
    fn entry_bits(&self) -> u64 {
        self.l as u64 + (64 - self.window.leading_zeros()) as u64
    }
}

impl Filter for Swamp {
    fn insert(&mut self, key: u64) {
        let f = self.fingerprint(key);
        let full = self.inserted >= self.window;
        let old = if full { self.cfb.get(self.curr) } else { f };
        // both fingerprints' buckets are read up front, so that their cache
        // misses overlap instead of following one another
        let (at_new, at_old) = (self.table.locate(f), self.table.locate(old));
        std::hint::black_box(self.table.warm(&at_new) ^ self.table.warm(&at_old));
        if full {
            let c = self.table.decrement_at(&at_old);
            self.sum_flogf += flogf(c) - flogf(c + 1);
        }
        self.cfb.set(self.curr, f);
        let c = self.table.increment_at(&at_new);
        self.sum_flogf += flogf(c) - flogf(c - 1);
        self.curr += 1;
        if self.curr == self.window {
            self.curr = 0;
        }
        self.inserted += 1;
    }

    fn contains(&self, key: u64) -> bool {
        self.table.count(self.fingerprint(key)) > 0
    }

    /// The CFB (W·L), the table (slots, overflow and stash entries) and four
    /// words (curr, the arrival count, the entropy sum, the walk state).
    fn memory_bits(&self) -> u64 {
        self.cfb.len() * self.l as u64 + self.table.bits(self.entry_bits()) + 4 * 64
    }

    fn name(&self) -> &'static str {
        "swamp"
    }
}

impl crate::Instrumented for Swamp {
    fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
        Some(Self::lines_read(self, key))
    }
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        (self.contains(key), 8 + self.table.stash_len() as u32)
    }
    /// The key's fingerprint's buckets (the expiring fingerprint's are
    /// read at the insertion, from the window's ring).
    fn prefetch_insert(&self, key: u64) {
        self.table.prefetch(self.fingerprint(key));
    }
    fn prefetch_query(&self, key: u64) {
        self.table.prefetch(self.fingerprint(key));
    }
}

impl SlidingFilter for Swamp {
    fn window(&self) -> u64 {
        self.window
    }

    fn slack(&self) -> u64 {
        0
    }

    fn inserted(&self) -> u64 {
        self.inserted
    }
}

impl WindowSummary for Swamp {
    fn record(&mut self, key: u64) {
        self.insert(key);
    }

    fn summary_window(&self) -> u64 {
        self.window
    }

    fn summary_bits(&self) -> u64 {
        self.memory_bits()
    }

    fn summary_name(&self) -> &'static str {
        "swamp"
    }

    fn as_frequency(&self) -> Option<&dyn FrequencyEstimator> {
        Some(self)
    }

    fn as_distinct(&self) -> Option<&dyn DistinctEstimator> {
        Some(self)
    }

    fn as_entropy(&self) -> Option<&dyn EntropyEstimator> {
        Some(self)
    }
}

impl FrequencyEstimator for Swamp {
    fn frequency(&self, key: u64) -> u64 {
        self.table.count(self.fingerprint(key))
    }

    fn never_underestimates(&self) -> bool {
        true
    }
}

impl DistinctEstimator for Swamp {
    /// DistinctMLE.
    fn distinct(&self) -> f64 {
        self.distinct_mle()
    }

    fn distinct_name(&self) -> &'static str {
        "mle"
    }

    /// DistinctLB (Z).
    fn distinct_lower_bound(&self) -> Option<f64> {
        Some(self.distinct_lb() as f64)
    }
}

impl EntropyEstimator for Swamp {
    fn entropy(&self) -> f64 {
        entropy_from_sum(self.inserted.min(self.window), self.sum_flogf)
    }
}

crate::persist::codec_struct!(Swamp {
    window,
    l,
    cfb,
    curr,
    table,
    sum_flogf,
    salt,
    inserted
});

impl crate::persist::sealed::Design for Swamp {
    fn tag() -> String {
        "swamp".into()
    }
    fn check(&self) -> Result<(), String> {
        use crate::persist::ensure;
        ensure((1..=MAX_L).contains(&self.l) && self.window >= 1, || {
            format!("window {}, l = {}", self.window, self.l)
        })?;
        ensure(
            self.cfb.len() == self.window && self.cfb.width() == self.l && self.curr < self.window,
            || format!("{} fingerprints for window {}", self.cfb.len(), self.window),
        )?;
        ensure(self.curr == self.inserted % self.window, || {
            format!("position {} after {} arrivals", self.curr, self.inserted)
        })?;
        let stored = self.table.contents(self.l, buckets_for(self.window))?;
        let mut live = std::collections::HashMap::new();
        for i in 0..self.inserted.min(self.window) {
            *live.entry(self.cfb.get(i)).or_insert(0u64) += 1;
        }
        ensure(stored == live, || {
            "a table that does not count the window".into()
        })
    }
}

crate::persist::persists!(Swamp);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_counts_overflow_and_stash_entries_at_their_width() {
        // 4-bit fingerprints over a window of 1000: most fingerprints repeat
        // three times or more, so the overflow map is in use
        let mut f = Swamp::new(crate::SwampShape {
            window: 1000,
            fingerprint_bits: 4,
        })
        .unwrap();
        for t in 0..5_000u64 {
            f.insert(mix64(t));
        }
        let t = f.table();
        let extra = (t.overflow_len() + t.stash_len()) as u64;
        assert!(t.overflow_len() > 0);
        // an entry: 4 fingerprint bits and a 10-bit count (1000 < 2^10)
        let want = 1000 * 4 + t.slots() * t.slot_bits() + extra * (4 + 10) + 256;
        assert_eq!(f.memory_bits(), want);
    }

    #[test]
    fn the_largest_fingerprint_is_accepted_and_one_more_refused() {
        // w / eps = 2^60 needs exactly MAX_L = 60 bits, 2^61 one more
        let f = Swamp::with_fpr(1 << 10, 2f64.powi(-50)).unwrap();
        assert_eq!(f.fingerprint_bits(), MAX_L);
        assert!(Swamp::with_fpr(1 << 10, 2f64.powi(-51)).is_err());
    }
}
