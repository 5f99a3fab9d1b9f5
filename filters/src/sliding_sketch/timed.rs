//! The Sl-BF over a window of time (`sliding_bloom_time`): the clock sweeps
//! the k·m cells once per T of time instead of once per W insertions, as
//! the Sliding Sketches paper runs its framework on time-based windows.
//!
//! After time τ the clock has swept S(τ) = ⌊τ·k·m / T⌋ cells, cell
//! n mod k·m by its n-th sweep; so every cell is swept exactly every T. A
//! key inserted at u sets its cells' future bits; the next sweep of a cell
//! (after u) moves them to now, the one after (more than T after u) drops
//! them. **Whatever the rate**, a key is reported while it is at most T old
//! and never once it is 2T old: window T, slack T. The rate sets only the
//! FPR: sized for a peak rate R, the filter is the count Sl-BF of
//! W = ⌈R·T⌉ ([`super::theory::sizing`]), whose worst phase bounds the FPR
//! at any rate up to R; a burst above R raises it, nothing else.
//!
//! # Theory at a moment
//!
//! At time t a cell holds the keys inserted since its second-to-last sweep
//! (depth 2 of [`super::sweep`]'s schedule, per = k·m sweeps per T). Over
//! Poisson arrivals of cumulative mean Λ, one array's cell is set with
//! probability 1 - exp(-(Λ(t) - Λ(τ₀))/m) exactly; the FPR multiplies the k
//! arrays' mean fills (the arrays' hashes are independent; the arrays share
//! the arrival count, and the product takes its mean: the approximation of
//! every Bloom-family theory here).

use super::sweep::Schedule;
use super::theory;
use crate::bits::BitArray;
use crate::error::{check_bits, check_nonzero, check_probability};
use crate::{Filter, ParamError, TimedFilter};

pub use super::sweep::{TimedMoment, EXACT_CELLS};

/// The Sl-BF on a clock of time: k arrays of m two-bit cells swept once
/// per T.
#[derive(Debug, Clone)]
pub struct TimedSlidingBloom {
    k: u32,
    m: u64,
    t: u64,
    future: BitArray,
    now: BitArray,
    /// Sweeps done so far (the hand is at `swept mod k·m`).
    swept: u64,
    /// The latest time advanced to.
    clock: u64,
}

/// The shape of a [`TimedSlidingBloom`]: what [`TimedSlidingBloom::new`] takes, each paper letter
/// by a word (see [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimedSlidingBloomShape {
    /// The window, in clock ticks (`t`).
    pub window_ticks: u64,
    /// Arrays of cells; a key hashes to one cell of each (`k`).
    pub arrays: u32,
    /// Cells in each array (`m`).
    pub cells_per_array: u64,
}

impl TimedSlidingBloom {
    /// k arrays of m cells, swept once per `t` time units.
    pub fn new(shape: TimedSlidingBloomShape) -> Result<Self, ParamError> {
        let TimedSlidingBloomShape {
            window_ticks: t,
            arrays: k,
            cells_per_array: m,
        } = shape;
        check_nonzero("window time", t)?;
        crate::error::check_hashes(k)?;
        check_nonzero("m", m)?;
        let cells = check_bits((k as u64).checked_mul(m).and_then(|l| l.checked_mul(2)))? / 2;
        Ok(TimedSlidingBloom {
            k,
            m,
            t,
            future: BitArray::new(cells),
            now: BitArray::new(cells),
            swept: 0,
            clock: 0,
        })
    }

    /// Sized for a window of `t` time units at up to `rate` keys per time
    /// unit with worst-phase FPR <= `fpr`: the (k, m) of the count Sl-BF of
    /// W = ⌈rate·t⌉ (up to [`theory::MAX_EXACT_WINDOW`]).
    pub(crate) fn with_fpr(t: u64, rate: f64, fpr: f64) -> Result<Self, ParamError> {
        let fpr = check_probability("fpr", fpr)?;
        let w = Self::keys(t, rate)?;
        let (k, m) = theory::sizing(w, fpr).ok_or_else(|| ParamError::Unreachable {
            target: format!("sliding bloom fpr {fpr} at window {w}"),
        })?;
        Self::new(TimedSlidingBloomShape {
            window_ticks: t,
            arrays: k,
            cells_per_array: m,
        })
    }

    /// W = ⌈rate·t⌉: the keys of a window at the peak rate, the count
    /// window the sizing uses.
    pub fn keys(t: u64, rate: f64) -> Result<u64, ParamError> {
        super::sweep::keys(t, rate, theory::MAX_EXACT_WINDOW)
    }

    /// k: arrays.
    pub fn k(&self) -> u32 {
        self.k
    }

    /// m: cells per array.
    pub fn m(&self) -> u64 {
        self.m
    }

    fn cells(&self) -> u64 {
        self.k as u64 * self.m
    }

    /// The hand: k·m sweeps per T; a cell holds the keys since its
    /// second-to-last sweep.
    fn schedule(&self) -> Schedule {
        Schedule {
            cells: self.cells(),
            per: self.cells(),
            t: self.t,
            depth: 2,
        }
    }

    fn sweeps_by(&self, now: u64) -> u64 {
        self.schedule().sweeps_by(now)
    }

    #[cfg(test)]
    fn cell(&self, key: u64, i: u32) -> u64 {
        super::cells::cell(self.m, key, i)
    }

    /// The theory at time `now` for arrivals of cumulative mean `cum` (keys
    /// by a time), both in the filter's time units; time 0 is the clock's
    /// origin (the first arrival comes after it).
    pub fn theory_at(&self, now: f64, cum: &dyn Fn(f64) -> f64) -> TimedMoment {
        let (schedule, m) = (self.schedule(), self.m);
        let fill = |d: f64| 1.0 - (-d / m as f64).exp();
        let arrays = (0..self.k as u64)
            .map(|i| schedule.range(now, (i * m, (i + 1) * m), cum, &fill))
            .collect();
        TimedMoment::new(arrays, 1)
    }
}

impl Filter for TimedSlidingBloom {
    fn insert(&mut self, key: u64) {
        super::cells::insert(&mut self.future, self.k, self.m, key);
    }

    fn contains(&self, key: u64) -> bool {
        super::cells::probe(&self.future, &self.now, self.k, self.m, key).0
    }

    /// Two bits per cell, plus 64 bits each for the sweep count and the
    /// clock.
    fn memory_bits(&self) -> u64 {
        2 * self.cells() + 2 * 64
    }

    fn name(&self) -> &'static str {
        "sliding_bloom_time"
    }
}

impl crate::Instrumented for TimedSlidingBloom {
    fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
        Some(Self::lines_read(self, key))
    }
    /// The answer and the cells read (stop at the first array whose cell
    /// has neither bit).
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        super::cells::probe(&self.future, &self.now, self.k, self.m, key)
    }

    fn as_timed(&mut self) -> Option<&mut dyn TimedFilter> {
        Some(self)
    }
}

impl TimedFilter for TimedSlidingBloom {
    /// Sweeps every cell due by `now`; after two whole passes every cell is
    /// empty, so a longer gap costs no more than two passes.
    fn advance(&mut self, now: u64) {
        if now <= self.clock {
            return;
        }
        self.clock = now;
        let target = self.sweeps_by(now);
        match self.schedule().due(self.swept, target) {
            None => {
                let n = self.future.len();
                self.future.clear_range(0, n);
                self.now.clear_range(0, n);
            }
            Some(runs) => {
                for p in runs.flat_map(|(a, b)| a..b) {
                    super::cells::sweep(&mut self.future, &mut self.now, p);
                }
            }
        }
        self.swept = target;
    }

    fn now(&self) -> u64 {
        self.clock
    }

    fn window_time(&self) -> u64 {
        self.t
    }

    fn slack_time(&self) -> u64 {
        self.t
    }
}

crate::persist::codec_struct!(TimedSlidingBloom {
    k,
    m,
    t,
    future,
    now,
    swept,
    clock
});

impl crate::persist::sealed::Design for TimedSlidingBloom {
    fn tag() -> String {
        "sliding_bloom_time".into()
    }
    fn check(&self) -> Result<(), String> {
        let cells = (self.k as u64).checked_mul(self.m);
        crate::persist::ensure(
            (1..=crate::MAX_HASHES).contains(&self.k)
                && self.m >= 1
                && self.t >= 1
                && cells == Some(self.future.len())
                && cells == Some(self.now.len())
                && self.swept == self.sweeps_by(self.clock),
            || {
                format!(
                    "{} cells for k = {}, m = {}, or {} sweeps at time {}",
                    self.future.len(),
                    self.k,
                    self.m,
                    self.swept,
                    self.clock
                )
            },
        )
    }
}

crate::persist::persists!(TimedSlidingBloom);

#[cfg(test)]
#[path = "timed_tests.rs"]
mod tests;

impl TimedSlidingBloom {
    /// The answer to a query for `key` and the distinct 64-byte lines
    /// [`contains`](crate::Filter::contains) reads for it (the cells are
    /// the count-based Sl-BF's).
    pub fn lines_read(&self, key: u64) -> (bool, u32) {
        super::lines::lines_read(&self.future, &self.now, self.k, self.m, key)
    }
}
