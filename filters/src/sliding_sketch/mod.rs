//! The Sliding Bloom filter of Sliding Sketches (Gou, He, Zhang et al.,
//! KDD 2020, "Sliding Sketches: A Framework using Time Zones for Data
//! Stream Processing in Sliding Windows"), its membership instance Sl-BF.
//!
//! k arrays of m cells; a cell holds two bits, *future* and *now*. An
//! insertion sets the future bit of one cell per array (the key's i-th
//! index in array i). A clock sweeps the k·m cells in order, all of them
//! once per window of W insertions (here exactly: after t insertions it has
//! swept ⌊t·k·m / W⌋ cells), and a swept cell moves its future bit to now
//! and clears future (the old now is dropped). A query answers yes when
//! every array's cell has either bit.
//!
//! So a cell holds the keys inserted since the sweep before its last one:
//! between W and 2W insertions, by where the clock stands. A key is
//! reported until the second sweep of one of its cells after its
//! insertion: for sure while it is among the last W insertions (window W),
//! never once it is 2W old (slack W). The paper's "time zones" are these
//! two bits; its window is relaxed by design.
//!
//! The theory ([`theory`]) is exact under independent uniform hashing: at
//! a moment t, the cell at sweep position p holds the keys of the last
//! N(p, t) insertions, where N is read off the sweep schedule, and a
//! never-inserted key is reported with probability
//! ∏ᵢ meanⱼ (1 - (1 - 1/m)^N(i·m + j, t)): the FPR of a phase, from which
//! the worst phase and the average follow. The reference implementation
//! (`sliding-sketch/Sliding-Sketch`, `src/Membership/sliding_bloom.cpp`)
//! moves its clock by ⌊k·m / W⌋ cells per insertion, a period slightly
//! longer than W when W does not divide k·m; this one spreads the sweep
//! exactly.

mod lines;
pub mod sweep;
pub mod theory;
pub mod timed;

pub use timed::{TimedSlidingBloom, TimedSlidingBloomShape};

use crate::bits::BitArray;
use crate::error::{check_bits, check_nonzero, check_probability};
use crate::{Filter, ParamError, SlidingFilter};

/// The two-bit cells both Sl-BFs share (over insertions and over time):
/// k arrays of m cells, each a *future* and a *now* bit, the key's cell of
/// array i at its i-th index.
pub(crate) mod cells {
    use crate::bits::BitArray;
    use crate::hash::index;

    /// The key's cell in array `i`.
    #[inline]
    pub fn cell(m: u64, key: u64, i: u32) -> u64 {
        i as u64 * m + index(key, i as u64, m)
    }

    /// Sets the key's future bit in every array.
    pub fn insert(future: &mut BitArray, k: u32, m: u64, key: u64) {
        for i in 0..k {
            future.set(cell(m, key, i));
        }
    }

    /// The answer and the cells read: stop at the first array whose cell
    /// has neither bit.
    pub fn probe(future: &BitArray, now: &BitArray, k: u32, m: u64, key: u64) -> (bool, u32) {
        for i in 0..k {
            let c = cell(m, key, i);
            if !(future.get(c) || now.get(c)) {
                return (false, i + 1);
            }
        }
        (true, k)
    }

    /// One sweep of cell `p`: its future bit moves to now, future cleared.
    pub fn sweep(future: &mut BitArray, now: &mut BitArray, p: u64) {
        let f = future.get(p);
        future.clear_range(p, p + 1);
        now.clear_range(p, p + 1);
        if f {
            now.set(p);
        }
    }
}

/// The Sliding Sketches' sliding Bloom filter over the last W insertions.
#[derive(Debug, Clone)]
pub struct SlidingBloom {
    k: u32,
    m: u64,
    w: u64,
    future: BitArray,
    now: BitArray,
    /// Next cell the clock sweeps.
    hand: u64,
    /// Sweep accumulator: k·m per insertion, a cell per W.
    acc: u64,
    inserted: u64,
}

/// The shape of a [`SlidingBloom`]: what [`SlidingBloom::new`] takes, each paper letter
/// by a word (see [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlidingBloomShape {
    /// The window, in insertions (`w`).
    pub window: u64,
    /// Arrays of cells; a key hashes to one cell of each (`k`).
    pub arrays: u32,
    /// Cells in each array (`m`).
    pub cells_per_array: u64,
}

impl SlidingBloom {
    /// k arrays of m cells over a window of W insertions.
    pub fn new(shape: SlidingBloomShape) -> Result<Self, ParamError> {
        let SlidingBloomShape {
            window: w,
            arrays: k,
            cells_per_array: m,
        } = shape;
        check_nonzero("window", w)?;
        crate::error::check_hashes(k)?;
        check_nonzero("m", m)?;
        let cells = check_bits((k as u64).checked_mul(m).and_then(|l| l.checked_mul(2)))? / 2;
        if cells.checked_mul(w).is_none() {
            return Err(ParamError::TooLarge {
                what: "cells times window",
                limit: "2^64".into(),
            });
        }
        Ok(SlidingBloom {
            k,
            m,
            w,
            future: BitArray::new(cells),
            now: BitArray::new(cells),
            hand: 0,
            acc: 0,
            inserted: 0,
        })
    }

    /// Sized for a window of `w` insertions at worst-phase FPR <= `fpr`:
    /// for each k up to 2⌈log2(1/ε)⌉ + 2, the fewest cells per array whose
    /// exact worst phase ([`theory::SlidingBloomTheory::fpr`]) meets it; the
    /// (k, m) of fewest cells. Windows above
    /// [`theory::MAX_EXACT_WINDOW`] are refused (the exact theory costs
    /// O(W) per moment).
    ///
    /// ```
    /// use bloomlab_filters::sliding_sketch::SlidingBloom;
    /// use bloomlab_filters::{Filter, SlidingFilter};
    /// let mut f = bloomlab_filters::Target::window(1000).fpr(1e-2).build::<SlidingBloom>().unwrap();
    /// f.insert(3);
    /// assert!(f.contains(3) && f.window() == 1000);
    /// assert!(f.theory().fpr() <= 1e-2);
    /// ```
    pub(crate) fn with_fpr(w: u64, fpr: f64) -> Result<Self, ParamError> {
        if w > theory::MAX_EXACT_WINDOW {
            return Err(ParamError::TooLarge {
                what: "window for the exact sizing",
                limit: "2^24 insertions; give k and m to new".into(),
            });
        }
        let (k, m) = theory::sizing(w, check_probability("fpr", fpr)?).ok_or_else(|| {
            ParamError::Unreachable {
                target: format!("sliding bloom fpr {fpr} at window {w}"),
            }
        })?;
        Self::new(SlidingBloomShape {
            window: w,
            arrays: k,
            cells_per_array: m,
        })
    }

    /// k: arrays (one cell of each per key).
    pub fn k(&self) -> u32 {
        self.k
    }

    /// m: cells per array.
    pub fn m(&self) -> u64 {
        self.m
    }

    /// The theory of this configuration.
    pub fn theory(&self) -> theory::SlidingBloomTheory {
        theory::SlidingBloomTheory {
            k: self.k,
            m: self.m,
            w: self.w,
        }
    }

    fn cells(&self) -> u64 {
        self.k as u64 * self.m
    }

    /// Moves the clock on by one insertion: ⌊t·k·m / W⌋ cells swept after t.
    fn tick(&mut self) {
        self.acc += self.cells();
        while self.acc >= self.w {
            self.acc -= self.w;
            let p = self.hand;
            cells::sweep(&mut self.future, &mut self.now, p);
            self.hand = if p + 1 == self.cells() { 0 } else { p + 1 };
        }
    }
}

impl Filter for SlidingBloom {
    fn insert(&mut self, key: u64) {
        self.inserted += 1;
        self.tick();
        cells::insert(&mut self.future, self.k, self.m, key);
    }

    fn contains(&self, key: u64) -> bool {
        cells::probe(&self.future, &self.now, self.k, self.m, key).0
    }

    /// Two bits per cell, plus 64 bits each for the hand, the sweep
    /// accumulator and the insertion count.
    fn memory_bits(&self) -> u64 {
        2 * self.cells() + 3 * 64
    }

    fn name(&self) -> &'static str {
        "sliding_bloom"
    }
}

impl crate::Instrumented for SlidingBloom {
    fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
        Some(Self::lines_read(self, key))
    }
    /// The answer and the cells read (Algorithm: stop at the first array
    /// whose cell has neither bit).
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        cells::probe(&self.future, &self.now, self.k, self.m, key)
    }
    /// The k future bits' lines.
    fn prefetch_insert(&self, key: u64) {
        for i in 0..self.k {
            self.future.prefetch(cells::cell(self.m, key, i));
        }
    }
    /// The first two cells' lines, both bits (a negative query reads
    /// about two cells).
    fn prefetch_query(&self, key: u64) {
        for i in 0..self.k.min(2) {
            let c = cells::cell(self.m, key, i);
            self.future.prefetch(c);
            self.now.prefetch(c);
        }
    }
}

impl SlidingFilter for SlidingBloom {
    fn window(&self) -> u64 {
        self.w
    }

    fn slack(&self) -> u64 {
        self.w
    }

    fn inserted(&self) -> u64 {
        self.inserted
    }
}

crate::persist::codec_struct!(SlidingBloom {
    k,
    m,
    w,
    future,
    now,
    hand,
    acc,
    inserted
});

impl crate::persist::sealed::Design for SlidingBloom {
    fn tag() -> String {
        "sliding_bloom".into()
    }
    fn check(&self) -> Result<(), String> {
        let cells = (self.k as u64).checked_mul(self.m);
        crate::persist::ensure(
            (1..=crate::MAX_HASHES).contains(&self.k)
                && self.m >= 1
                && self.w >= 1
                && cells == Some(self.future.len())
                && cells == Some(self.now.len())
                && self.hand < self.future.len()
                && self.acc < self.w
                && cells.and_then(|c| c.checked_mul(self.w)).is_some(),
            || {
                format!(
                    "{} cells for k = {}, m = {}",
                    self.future.len(),
                    self.k,
                    self.m
                )
            },
        )
    }
}

crate::persist::persists!(SlidingBloom);

#[cfg(test)]
mod tests;
