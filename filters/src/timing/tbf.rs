//! The timing Bloom filter (TBF), the SWAMP paper's first membership baseline:
//! a Bloom filter whose cells hold the timestamp of the latest arrival that
//! set them instead of a bit.
//!
//! Insertion writes the current timestamp into the key's k cells; a query
//! answers yes when all k cells are live (written within the last W arrivals).
//! Timestamps wrap around modulo T and a sweep clears dead cells before their
//! codes come round again (the shared wraparound clock (`clock.rs`)).
//!
//! # Theory
//!
//! The cells live at any moment are exactly the cells a Bloom filter built
//! from the window's D distinct keys would have set, so the TBF's FPR is that
//! filter's. This one is partitioned (k slices of s cells, one hash each, like
//! [`PartitionedBloomFilter`](crate::PartitionedBloomFilter)): the slices are
//! filled independently, so FPR = (1 - (1 - 1/s)^D)^k exactly, and D = W for
//! a stream of distinct keys. Memory: k·s cells of b = ⌈log2 2W⌉ bits.

use crate::bits::PackedInts;
use crate::clock::Clock;
use crate::error::{check_bits, check_nonzero, check_probability};
use crate::hash::index;
use crate::{Filter, ParamError, SlidingFilter};

#[path = "tbf_lines.rs"]
pub mod lines;

/// FPR of a partitioned (timing) Bloom filter with k slices of s cells
/// holding D distinct keys: (1 - (1 - 1/s)^D)^k.
pub fn fpr(k: u32, s: u64, d: f64) -> f64 {
    crate::bloom::fill_ratio(d, s as f64).powi(k as i32)
}

/// A timing Bloom filter over the last W arrivals.
#[derive(Debug, Clone)]
pub struct TimingBloom {
    cells: PackedInts,
    k: u32,
    s: u64,
    clock: Clock,
    inserted: u64,
}

/// The shape of a [`TimingBloom`]: what [`TimingBloom::new`] takes, each paper letter
/// by a word (see [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimingBloomShape {
    /// The window, in insertions (`w`).
    pub window: u64,
    /// Hash functions: the bits or cells a key sets and a query reads (`k`).
    pub hashes: u32,
    /// Cells in each slice (`s`).
    pub cells_per_slice: u64,
}

impl TimingBloom {
    /// k slices of s timestamp cells for window `w`.
    pub fn new(shape: TimingBloomShape) -> Result<TimingBloom, ParamError> {
        let TimingBloomShape {
            window: w,
            hashes: k,
            cells_per_slice: s,
        } = shape;
        check_nonzero("window", w)?;
        crate::error::check_hashes(k)?;
        check_nonzero("s", s)?;
        let len = (k as u64).checked_mul(s);
        let clock = Clock::new(w, len.unwrap_or(1));
        check_bits(len.and_then(|l| l.checked_mul(clock.bits() as u64)))?;
        let len = k as u64 * s;
        Ok(TimingBloom {
            cells: PackedInts::new(len, clock.bits()),
            k,
            s,
            clock,
            inserted: 0,
        })
    }

    /// Sized for FPR ≤ `eps` over a window of `w` distinct keys, with the
    /// fewest cells: for each k from 1 to 2⌈log2(1/ε)⌉ + 2, the smallest s
    /// with (1 - (1 - 1/s)^w)^k ≤ ε, i.e. fill ε^(1/k); the (k, s) of least k·s.
    ///
    /// ```
    /// use bloomlab_filters::{Filter, TimingBloom};
    /// let mut f = bloomlab_filters::Target::window(1000).fpr(1e-2).build::<TimingBloom>().unwrap();
    /// f.insert(3);
    /// assert!(f.contains(3));
    /// ```
    pub(crate) fn with_fpr(w: u64, eps: f64) -> Result<TimingBloom, ParamError> {
        check_nonzero("window", w)?;
        check_probability("fpr", eps)?;
        let (k, s) = Self::sizing(w, eps)?;
        Self::new(TimingBloomShape {
            window: w,
            hashes: k,
            cells_per_slice: s,
        })
    }

    /// The (k, s) the [`Target`](crate::build::Target) sizing chooses.
    pub fn sizing(w: u64, eps: f64) -> Result<(u32, u64), ParamError> {
        let kmax = 2 * (1.0 / eps).log2().ceil() as u32 + 2;
        let mut best: Option<(u32, u64)> = None;
        for k in 1..=kmax {
            let fill = eps.powf(1.0 / k as f64);
            // (1 - 1/s)^w = 1 - fill  <=>  s = 1 / (1 - (1 - fill)^(1/w))
            let s0 = 1.0 / -((-fill).ln_1p() / w as f64).exp_m1();
            if !s0.is_finite() || s0 * k as f64 > crate::MAX_BITS as f64 {
                continue;
            }
            let mut s = (s0.floor() as u64).max(1);
            while fpr(k, s, w as f64) > eps {
                s += 1;
            }
            if best.is_none_or(|(bk, bs)| k as u64 * s < bk as u64 * bs) {
                best = Some((k, s));
            }
        }
        best.ok_or(ParamError::Unreachable {
            target: format!("a timing Bloom filter with fpr {eps} at window {w}"),
        })
    }

    /// Hash functions (slices).
    pub fn k(&self) -> u32 {
        self.k
    }

    /// Cells per slice.
    pub fn slice_cells(&self) -> u64 {
        self.s
    }

    /// Bits per timestamp.
    pub fn stamp_bits(&self) -> u32 {
        self.clock.bits()
    }

    /// The theoretical FPR with D distinct keys in the window.
    pub fn fpr_theory(&self, d: f64) -> f64 {
        fpr(self.k, self.s, d)
    }

    /// Writes `key` with the current code, without ticking (the clock of
    /// [`super::TimedTbf`] ticks on time, not on arrivals).
    pub(crate) fn write(&mut self, key: u64) {
        let code = self.clock.current();
        for i in 0..self.k {
            let c = self.cell(key, i);
            self.cells.set(c, code);
        }
        self.inserted += 1;
    }

    /// Ticks the clock `n` times, sweeping after each tick; after a lull
    /// longer than the window and a whole sweep, clears every cell at once.
    pub(crate) fn tick_quanta(&mut self, n: u64) {
        if n == 0 {
            return;
        }
        if n > self.clock.window() + self.clock.sweep_period() {
            self.cells.clear();
            self.clock.skip(n);
            return;
        }
        for _ in 0..n {
            self.clock.tick();
            self.clock.clear_dead(&mut self.cells);
        }
    }

    #[inline]
    fn cell(&self, key: u64, i: u32) -> u64 {
        i as u64 * self.s + index(key, i as u64, self.s)
    }
}

impl Filter for TimingBloom {
    fn insert(&mut self, key: u64) {
        let code = self.clock.tick();
        for i in 0..self.k {
            let c = self.cell(key, i);
            self.cells.set(c, code);
        }
        self.clock.clear_dead(&mut self.cells);
        self.inserted += 1;
    }

    fn contains(&self, key: u64) -> bool {
        (0..self.k).all(|i| self.clock.live(self.cells.get(self.cell(key, i))))
    }

    /// k·s cells of b bits, plus the clock and sweep pointer (2 words).
    fn memory_bits(&self) -> u64 {
        self.cells.len() * self.clock.bits() as u64 + 128
    }

    fn name(&self) -> &'static str {
        "tbf"
    }
}

impl crate::Instrumented for TimingBloom {
    fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
        Some(Self::lines_read(self, key))
    }
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        for i in 0..self.k {
            if !self.clock.live(self.cells.get(self.cell(key, i))) {
                return (false, i + 1);
            }
        }
        (true, self.k)
    }
    /// The k cells' lines.
    fn prefetch_insert(&self, key: u64) {
        for i in 0..self.k {
            self.cells.prefetch(self.cell(key, i));
        }
    }
    /// The first two cells' lines (a negative query reads about two).
    fn prefetch_query(&self, key: u64) {
        for i in 0..self.k.min(2) {
            self.cells.prefetch(self.cell(key, i));
        }
    }
}

impl SlidingFilter for TimingBloom {
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

crate::persist::codec_struct!(TimingBloom {
    cells,
    k,
    s,
    clock,
    inserted
});

impl crate::persist::sealed::Design for TimingBloom {
    fn tag() -> String {
        "tbf".into()
    }
    fn check(&self) -> Result<(), String> {
        let cells = (self.k as u64).checked_mul(self.s);
        crate::persist::ensure(
            (1..=crate::MAX_HASHES).contains(&self.k)
                && self.s >= 1
                && cells == Some(self.cells.len())
                && cells == Some(self.clock.len())
                && self.cells.width() == self.clock.bits(),
            || {
                format!(
                    "{} cells for k = {}, s = {}",
                    self.cells.len(),
                    self.k,
                    self.s
                )
            },
        )
    }
}

crate::persist::persists!(TimingBloom);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Instrumented;

    #[test]
    fn sizing_meets_target_and_rejects_bad_input() {
        for &(w, eps) in &[(1000u64, 0.1), (1 << 16, 1e-3), (7, 0.5)] {
            let f = TimingBloom::with_fpr(w, eps).unwrap();
            assert!(f.fpr_theory(w as f64) <= eps);
            // one cell fewer per slice misses the target
            assert!(fpr(f.k(), f.slice_cells() - 1, w as f64) > eps || f.slice_cells() == 1);
        }
        assert!(TimingBloom::with_fpr(0, 0.1).is_err());
        assert!(TimingBloom::with_fpr(10, 1.0).is_err());
        assert!(TimingBloom::new(crate::TimingBloomShape {
            window: 10,
            hashes: 0,
            cells_per_slice: 5
        })
        .is_err());
    }

    /// The sizing is the fewest cells over every k, by brute force (cargo
    /// mutants found the search unchecked: only its target was tested).
    #[test]
    fn sizing_is_the_fewest_cells_over_every_k() {
        for &(w, eps) in &[
            (1000u64, 0.1f64),
            (4096, 1e-2),
            (1 << 16, 1e-3),
            (7, 0.5),
            (300, 1e-5),
        ] {
            let kmax = 2 * (1.0 / eps).log2().ceil() as u32 + 2;
            let best = (1..=kmax)
                .map(|k| {
                    // the smallest s with fpr <= eps, by bisection
                    let (mut lo, mut hi) = (1u64, 1u64 << 40);
                    while lo < hi {
                        let mid = (lo + hi) / 2;
                        if fpr(k, mid, w as f64) <= eps {
                            hi = mid;
                        } else {
                            lo = mid + 1;
                        }
                    }
                    (k as u64 * lo, k, lo)
                })
                .min()
                .unwrap();
            // fewest cells, and among those the fewest hash functions
            let (k, s) = TimingBloom::sizing(w, eps).unwrap();
            assert_eq!((k, s), (best.1, best.2), "{w} {eps}: against {best:?}");
        }
    }

    /// A query reads cells until the first dead one; the name and the slack
    /// are the exact window's.
    #[test]
    fn probes_name_and_slack() {
        let mut f = TimingBloom::new(crate::TimingBloomShape {
            window: 50,
            hashes: 6,
            cells_per_slice: 40,
        })
        .unwrap();
        for t in 0..200u64 {
            f.insert(crate::hash::mix64(t));
        }
        let (mut yes, mut no) = (0, 0);
        for q in 0..2000u64 {
            let key = crate::hash::mix64(q ^ 0xABCD);
            let first_dead = (0..f.k).position(|i| !f.clock.live(f.cells.get(f.cell(key, i))));
            let want = match first_dead {
                Some(i) => (false, i as u32 + 1),
                None => (true, f.k),
            };
            assert_eq!(f.contains_probes(key), want);
            assert_eq!(f.contains(key), want.0);
            if want.0 {
                yes += 1
            } else {
                no += 1
            }
        }
        assert!(yes > 0 && no > 0);
        assert_eq!(f.name(), "tbf");
        assert_eq!((f.window(), f.slack()), (50, 0));
    }
}
