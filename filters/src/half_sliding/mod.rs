//! The Half Sliding Sketch's Bloom filter, HSS-BF (Half Sliding Sketch,
//! code `NLear/HalfSlidingSketch`, `src/Membership/HSS-BF/sliding_bloom.h`,
//! MIT; a manuscript under review at TNSM when that code was published).
//!
//! k arrays of m one-bit cells (half the Sl-BF's two bits, hence the name).
//! An insertion sets one cell per array. A clock clears cells in order,
//! (k - lo)·m of them per *cycle* of C insertions (here exactly: after t
//! insertions it has cleared ⌊t·(k - lo)·m / C⌋ cells), so it goes round all
//! k·m cells every k·C/(k - lo) insertions. A query reads only the lo arrays
//! after the one the clock is in, the ones it cleared longest ago, and
//! answers yes when all their cells are set.
//!
//! **What it remembers.** With T = C/(k - lo) the insertions the clock
//! spends in one array, the queried array j places after the clock's holds
//! the keys since its cells were cleared: between (k - j)·T and
//! (k - j + 1)·T insertions, by cell and by where the clock stands. The
//! newest queried array, lo places on, holds at least (k - lo - 1)·T: that
//! is the window the design guarantees, ⌊(k - lo - 1)·C/(k - lo)⌋
//! ([`window`](crate::SlidingFilter::window)). The reference code's
//! setting lo = k - 1 guarantees nothing: the array the clock has just
//! left is queried although its last cells were cleared a moment ago, so a
//! key younger than C can be lost (its FNR inside C is the theory's
//! [`fnr_at`](theory::HalfSlidingTheory::fnr_at)). A key is reported at
//! most about k·C/(k - lo) insertions after it was inserted.
//!
//! [`Target`](crate::build::Target) sizes it for a guaranteed window instead (k - lo
//! at least 2, C = ⌈w·(k - lo)/(k - lo - 1)⌉): no false negatives among the
//! last w insertions.
//!
//! The theory ([`theory`]) is exact under independent uniform hashing, as
//! the Sl-BF's is: each cell's last clearing is read off the clock's
//! schedule.

mod lines;
pub mod theory;
pub mod timed;

pub use timed::{TimedHalfSliding, TimedHalfSlidingShape};

use crate::bits::BitArray;
use crate::error::{check_bits, check_nonzero, check_probability};
use crate::hash::index;
use crate::{Filter, ParamError, SlidingFilter};

/// The HSS-BF: k one-bit arrays, lo of them queried, a clock clearing
/// (k - lo)·m cells per cycle of C insertions.
#[derive(Debug, Clone)]
pub struct HalfSliding {
    k: u32,
    lo: u32,
    m: u64,
    cycle: u64,
    bits: BitArray,
    /// Next cell the clock clears.
    hand: u64,
    /// Clock accumulator: (k - lo)·m per insertion, a cell per C.
    acc: u64,
    inserted: u64,
}

/// The shape of a [`HalfSliding`]: what [`HalfSliding::new`] takes, each paper letter
/// by a word (see [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HalfSlidingShape {
    /// Insertions per round of the clearing pointer (`cycle`).
    pub cycle: u64,
    /// Arrays of cells; a key hashes to one cell of each (`k`).
    pub arrays: u32,
    /// Arrays a query reads (`lo`).
    pub queried_arrays: u32,
    /// Cells in each array (`m`).
    pub cells_per_array: u64,
}

impl HalfSliding {
    /// k arrays of m cells, lo of them queried (1 <= lo < k), the clock
    /// clearing (k - lo)·m cells every `cycle` insertions: the paper's
    /// parameters (its code uses k = 7, lo = 6, C = 500,000).
    pub fn new(shape: HalfSlidingShape) -> Result<Self, ParamError> {
        let HalfSlidingShape {
            cycle,
            arrays: k,
            queried_arrays: lo,
            cells_per_array: m,
        } = shape;
        check_nonzero("cycle", cycle)?;
        crate::error::check_hashes(k)?;
        check_nonzero("lo", lo as u64)?;
        check_nonzero("m", m)?;
        if lo >= k {
            return Err(ParamError::OutOfRange {
                name: "lo",
                value: lo.to_string(),
                expected: "below k (the clock's array is never queried)",
            });
        }
        let cells = check_bits((k as u64).checked_mul(m))?;
        if cells.checked_mul(cycle).is_none() {
            return Err(ParamError::TooLarge {
                what: "cells times cycle",
                limit: "2^64".into(),
            });
        }
        Ok(HalfSliding {
            k,
            lo,
            m,
            cycle,
            bits: BitArray::new(cells),
            hand: 0,
            acc: 0,
            inserted: 0,
        })
    }

    /// Sized for a guaranteed window of `w` insertions (no false negatives
    /// among them) at worst-phase FPR <= `fpr`: the (k, lo, m) of fewest
    /// cells with k - lo >= 2 ([`theory::sizing`]). Windows above
    /// [`theory::MAX_EXACT_WINDOW`] are refused (the exact theory costs
    /// O(k·m) per moment).
    ///
    /// ```
    /// use bloomlab_filters::half_sliding::HalfSliding;
    /// use bloomlab_filters::{Filter, SlidingFilter};
    /// let mut f = bloomlab_filters::Target::window(1000).fpr(1e-2).build::<HalfSliding>().unwrap();
    /// f.insert(3);
    /// assert!(f.contains(3) && f.window() >= 1000);
    /// assert!(f.theory().fpr() <= 1e-2);
    /// ```
    pub(crate) fn with_fpr(w: u64, fpr: f64) -> Result<Self, ParamError> {
        check_nonzero("window", w)?;
        if w > theory::MAX_EXACT_WINDOW {
            return Err(ParamError::TooLarge {
                what: "window for the exact sizing",
                limit: "2^24 insertions; give cycle, k, lo and m to new".into(),
            });
        }
        let s = theory::sizing(w, check_probability("fpr", fpr)?).ok_or_else(|| {
            ParamError::Unreachable {
                target: format!("half sliding fpr {fpr} at window {w}"),
            }
        })?;
        Self::new(HalfSlidingShape {
            cycle: s.cycle,
            arrays: s.k,
            queried_arrays: s.lo,
            cells_per_array: s.m,
        })
    }

    /// k: arrays (cells set per insertion).
    pub fn k(&self) -> u32 {
        self.k
    }

    /// lo: arrays read per query.
    pub fn lo(&self) -> u32 {
        self.lo
    }

    /// m: cells per array.
    pub fn m(&self) -> u64 {
        self.m
    }

    /// C: insertions per (k - lo)·m cells cleared.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// The theory of this configuration.
    pub fn theory(&self) -> theory::HalfSlidingTheory {
        theory::HalfSlidingTheory {
            k: self.k,
            lo: self.lo,
            m: self.m,
            cycle: self.cycle,
        }
    }

    fn cells(&self) -> u64 {
        self.k as u64 * self.m
    }

    /// Moves the clock on by one insertion.
    fn tick(&mut self) {
        self.acc += (self.k - self.lo) as u64 * self.m;
        while self.acc >= self.cycle {
            self.acc -= self.cycle;
            let p = self.hand;
            self.bits.clear_range(p, p + 1);
            self.hand = if p + 1 == self.cells() { 0 } else { p + 1 };
        }
    }

    /// The arrays a query reads now, in the order it reads them.
    fn queried(&self) -> impl Iterator<Item = u32> + '_ {
        let c = (self.hand / self.m) as u32;
        (1..=self.lo).map(move |j| (c + j) % self.k)
    }

    #[inline]
    fn cell(&self, key: u64, i: u32) -> u64 {
        i as u64 * self.m + index(key, i as u64, self.m)
    }
}

impl Filter for HalfSliding {
    fn insert(&mut self, key: u64) {
        self.inserted += 1;
        self.tick();
        for i in 0..self.k {
            let c = self.cell(key, i);
            self.bits.set(c);
        }
    }

    fn contains(&self, key: u64) -> bool {
        self.queried().all(|i| self.bits.get(self.cell(key, i)))
    }

    /// One bit per cell, plus 64 bits each for the hand, the clock
    /// accumulator and the insertion count.
    fn memory_bits(&self) -> u64 {
        self.cells() + 3 * 64
    }

    fn name(&self) -> &'static str {
        "half_sliding"
    }
}

impl crate::Instrumented for HalfSliding {
    fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
        Some(Self::lines_read(self, key))
    }
    /// The answer and the cells read (stopping at the first unset one).
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        for (n, i) in self.queried().enumerate() {
            if !self.bits.get(self.cell(key, i)) {
                return (false, n as u32 + 1);
            }
        }
        (true, self.lo)
    }
    /// The k cells' lines.
    fn prefetch_insert(&self, key: u64) {
        for i in 0..self.k {
            self.bits.prefetch(self.cell(key, i));
        }
    }
    /// The first two queried cells' lines.
    fn prefetch_query(&self, key: u64) {
        for i in self.queried().take(2) {
            self.bits.prefetch(self.cell(key, i));
        }
    }
}

impl SlidingFilter for HalfSliding {
    /// The guaranteed window, ⌊(k - lo - 1)·C/(k - lo)⌋: 0 when lo = k - 1.
    fn window(&self) -> u64 {
        self.theory().guaranteed()
    }

    /// Up to ⌈k·C/(k - lo)⌉ insertions, the longest a cell goes uncleared,
    /// minus the window.
    fn slack(&self) -> u64 {
        let th = self.theory();
        th.longest() - th.guaranteed()
    }

    /// C / gcd(C, k - lo): the state repeats, arrays relabelled.
    fn period(&self) -> u64 {
        self.theory().period()
    }

    fn inserted(&self) -> u64 {
        self.inserted
    }
}

crate::persist::codec_struct!(HalfSliding {
    k,
    lo,
    m,
    cycle,
    bits,
    hand,
    acc,
    inserted
});

impl crate::persist::sealed::Design for HalfSliding {
    fn tag() -> String {
        "half_sliding".into()
    }
    fn check(&self) -> Result<(), String> {
        let cells = (self.k as u64).checked_mul(self.m);
        crate::persist::ensure(
            (1..=crate::MAX_HASHES).contains(&self.k)
                && self.lo >= 1
                && self.lo < self.k
                && self.m >= 1
                && self.cycle >= 1
                && cells == Some(self.bits.len())
                && self.hand < self.bits.len()
                && self.acc < self.cycle
                && cells.and_then(|c| c.checked_mul(self.cycle)).is_some(),
            || {
                format!(
                    "{} cells for k = {}, lo = {}, m = {}",
                    self.bits.len(),
                    self.k,
                    self.lo,
                    self.m
                )
            },
        )
    }
}

crate::persist::persists!(HalfSliding);

#[cfg(test)]
mod tests;
