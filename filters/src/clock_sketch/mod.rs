//! Clock-sketch's Bloom filter (Clock-sketch, a SIGMOD 2021 submission;
//! code `Clock-sketch/clock-sketch2020`, `SingleThread/BloomFilter/`).
//!
//! One array of m cells, each an s-bit *clock*. An insertion sets its k
//! cells (the key's k indices into the one array) to the clock's largest
//! value 2^s - 1. A pointer sweeps the cells in order and decrements each
//! cell it passes (down to 0), going round the array 2^s - 2 times per
//! window of W insertions: (2^s - 2)·m decrements per W insertions (here
//! exactly: after t insertions it has made ⌊t·(2^s - 2)·m / W⌋). A query
//! answers yes when all k cells are non-zero.
//!
//! **What it remembers.** A cell set at insertion t reaches 0 at its
//! (2^s - 1)-th decrement after t, and the 2^s - 1 most recent decrements
//! of a cell span exactly W insertions. So a cell holds the keys of the
//! last W + 1 + u insertions, u the insertions since the pointer last
//! passed it: between W + 1 and W + ⌈W/(2^s - 2)⌉. Every key among the
//! last W insertions is reported (window W, no false negatives); none
//! older than W + ⌈W/(2^s - 2)⌉ but by a false positive (the slack). The
//! reference code's s = 2 gives the slack W/2 of its 1.5·W "true answer"
//! horizon.
//!
//! **Order within an insertion.** Here the pointer moves first and then
//! the key's cells are set, so no key is decremented by its own insertion;
//! the reference code sets the cells first and moves the pointer every ten
//! insertions, by an integer number of cells per insertion (a pointer that
//! never moves when (2^s - 2)·m < W), which this one spreads exactly.
//!
//! The theory ([`theory`]) follows the pointer's schedule exactly; the
//! FPR's only approximation is the Bloom filter's usual one, that a key's
//! k cells (in one shared array) are set independently (relative error of
//! order k/m).

pub mod lines;
pub mod theory;
pub mod timed;

pub use timed::{TimedClockBloom, TimedClockBloomShape};

use crate::bits::PackedInts;
use crate::error::{check_bits, check_nonzero, check_probability};
use crate::hash::index;
use crate::{Filter, ParamError, SlidingFilter};

/// The answer and the cells read of a query over m clocks with k cells a
/// key (both filters, over insertions and over time): stop at the first
/// zero clock.
fn probe(clocks: &PackedInts, k: u32, m: u64, key: u64) -> (bool, u32) {
    for i in 0..k {
        if clocks.get(index(key, i as u64, m)) == 0 {
            return (false, i + 1);
        }
    }
    (true, k)
}

/// The checks both Clock-sketch filters make of their clocks: a width s in
/// 2..=16 and m·s bits within the limit.
fn check_clocks(s: u32, m: u64) -> Result<(), ParamError> {
    if !(2..=MAX_CLOCK_BITS).contains(&s) {
        return Err(ParamError::OutOfRange {
            name: "clock_bits",
            value: s.to_string(),
            expected: "in 2..=16 (a 1-bit clock is never decremented)",
        });
    }
    check_bits(m.checked_mul(s as u64)).map(|_| ())
}

/// Largest clock width s, in bits.
pub const MAX_CLOCK_BITS: u32 = 16;

/// Clock-sketch's Bloom filter over the last W insertions: m s-bit clocks,
/// k set per insertion, a pointer decrementing (2^s - 2)·m of them per W
/// insertions.
#[derive(Debug, Clone)]
pub struct ClockBloom {
    w: u64,
    k: u32,
    s: u32,
    m: u64,
    clocks: PackedInts,
    /// Next cell the pointer decrements.
    hand: u64,
    /// Pointer accumulator: (2^s - 2)·m per insertion, a cell per W.
    acc: u64,
    inserted: u64,
}

/// The shape of a [`ClockBloom`]: what [`ClockBloom::new`] takes, each paper letter
/// by a word (see [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClockBloomShape {
    /// The window, in insertions (`w`).
    pub window: u64,
    /// Hash functions: the bits or cells a key sets and a query reads (`k`).
    pub hashes: u32,
    /// Bits per cell (`s`).
    pub cell_bits: u32,
    /// Cells, in all (`m`).
    pub cells: u64,
}

impl ClockBloom {
    /// m cells of `s`-bit clocks (2 <= s <= 16), k cells set per insertion,
    /// over a window of W insertions: the reference code's parameters
    /// (window, memory / s, hash count, clock size).
    pub fn new(shape: ClockBloomShape) -> Result<Self, ParamError> {
        let ClockBloomShape {
            window: w,
            hashes: k,
            cell_bits: s,
            cells: m,
        } = shape;
        check_nonzero("window", w)?;
        crate::error::check_hashes(k)?;
        check_nonzero("m", m)?;
        check_clocks(s, m)?;
        let rate = ((1u64 << s) - 2).checked_mul(m);
        if rate.and_then(|r| r.checked_add(w)).is_none() {
            return Err(ParamError::TooLarge {
                what: "decrements per window",
                limit: "2^64".into(),
            });
        }
        Ok(ClockBloom {
            w,
            k,
            s,
            m,
            clocks: PackedInts::new(m, s),
            hand: 0,
            acc: 0,
            inserted: 0,
        })
    }

    /// Sized for a window of `w` insertions at worst-phase FPR <= `fpr`: the
    /// (k, s, m) of fewest bits ([`theory::sizing`]). Windows above
    /// [`theory::MAX_EXACT_WINDOW`] are refused (the exact theory costs
    /// O(W) per moment).
    ///
    /// ```
    /// use bloomlab_filters::clock_sketch::ClockBloom;
    /// use bloomlab_filters::{Filter, SlidingFilter};
    /// let mut f = bloomlab_filters::Target::window(1000).fpr(1e-2).build::<ClockBloom>().unwrap();
    /// f.insert(3);
    /// assert!(f.contains(3) && f.window() == 1000);
    /// assert!(f.theory().fpr() <= 1e-2);
    /// ```
    pub(crate) fn with_fpr(w: u64, fpr: f64) -> Result<Self, ParamError> {
        check_nonzero("window", w)?;
        if w > theory::MAX_EXACT_WINDOW {
            return Err(ParamError::TooLarge {
                what: "window for the exact sizing",
                limit: "2^24 insertions; give k, clock bits and m to new".into(),
            });
        }
        let s = theory::sizing(w, check_probability("fpr", fpr)?).ok_or_else(|| {
            ParamError::Unreachable {
                target: format!("clock bloom fpr {fpr} at window {w}"),
            }
        })?;
        Self::new(ClockBloomShape {
            window: w,
            hashes: s.k,
            cell_bits: s.s,
            cells: s.m,
        })
    }

    /// k: cells set and read per key.
    pub fn k(&self) -> u32 {
        self.k
    }

    /// s: bits per clock.
    pub fn clock_bits(&self) -> u32 {
        self.s
    }

    /// m: cells.
    pub fn m(&self) -> u64 {
        self.m
    }

    /// The theory of this configuration.
    pub fn theory(&self) -> theory::ClockBloomTheory {
        theory::ClockBloomTheory {
            w: self.w,
            k: self.k,
            s: self.s,
            m: self.m,
        }
    }

    fn rate(&self) -> u64 {
        ((1u64 << self.s) - 2) * self.m
    }

    /// Moves the pointer on by one insertion: decrements the next
    /// ⌊(acc + R)/W⌋ cells.
    fn tick(&mut self) {
        let total = self.acc + self.rate();
        let (mut n, rest) = (total / self.w, total % self.w);
        self.acc = rest;
        while n > 0 {
            let run = n.min(self.m - self.hand);
            self.clocks.saturating_decrement(self.hand, self.hand + run);
            self.hand = (self.hand + run) % self.m;
            n -= run;
        }
    }

    #[inline]
    fn cell(&self, key: u64, i: u32) -> u64 {
        index(key, i as u64, self.m)
    }
}

impl Filter for ClockBloom {
    fn insert(&mut self, key: u64) {
        self.inserted += 1;
        self.tick();
        let full = (1u64 << self.s) - 1;
        for i in 0..self.k {
            let c = self.cell(key, i);
            self.clocks.set(c, full);
        }
    }

    fn contains(&self, key: u64) -> bool {
        probe(&self.clocks, self.k, self.m, key).0
    }

    /// s bits per cell, plus 64 bits each for the hand, the pointer
    /// accumulator and the insertion count.
    fn memory_bits(&self) -> u64 {
        self.s as u64 * self.m + 3 * 64
    }

    fn name(&self) -> &'static str {
        "clock_bloom"
    }
}

impl crate::Instrumented for ClockBloom {
    fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
        Some(Self::lines_read(self, key))
    }
    /// The answer and the cells read (stopping at the first zero clock).
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        probe(&self.clocks, self.k, self.m, key)
    }
    /// The k clocks' lines.
    fn prefetch_insert(&self, key: u64) {
        for i in 0..self.k {
            self.clocks.prefetch(self.cell(key, i));
        }
    }
    /// The first two clocks' lines (a negative query reads about two).
    fn prefetch_query(&self, key: u64) {
        for i in 0..self.k.min(2) {
            self.clocks.prefetch(self.cell(key, i));
        }
    }
}

impl SlidingFilter for ClockBloom {
    /// W: every key among the last W insertions is reported.
    fn window(&self) -> u64 {
        self.w
    }

    /// ⌈W/(2^s - 2)⌉: a cell holds at most that many insertions past W.
    fn slack(&self) -> u64 {
        self.theory().longest() - self.w
    }

    /// W / gcd(W, (2^s - 2)·m): the state repeats, cells rotated.
    fn period(&self) -> u64 {
        self.theory().period()
    }

    fn inserted(&self) -> u64 {
        self.inserted
    }
}

crate::persist::codec_struct!(ClockBloom {
    w,
    k,
    s,
    m,
    clocks,
    hand,
    acc,
    inserted
});

impl crate::persist::sealed::Design for ClockBloom {
    fn tag() -> String {
        "clock_bloom".into()
    }
    fn check(&self) -> Result<(), String> {
        crate::persist::ensure(
            self.w >= 1
                && (1..=crate::MAX_HASHES).contains(&self.k)
                && (2..=MAX_CLOCK_BITS).contains(&self.s)
                && self.m >= 1
                && self.clocks.len() == self.m
                && self.clocks.width() == self.s
                && self.hand < self.m
                && self.acc < self.w
                && ((1u64 << self.s) - 2)
                    .checked_mul(self.m)
                    .and_then(|r| r.checked_add(self.w))
                    .is_some(),
            || {
                format!(
                    "{} clocks of {} bits for m = {}, s = {}, window {}",
                    self.clocks.len(),
                    self.clocks.width(),
                    self.m,
                    self.s,
                    self.w
                )
            },
        )
    }
}

crate::persist::persists!(ClockBloom);

#[cfg(test)]
mod tests;
