//! The HSS-BF over a window of time (`half_sliding_time`): the clock clears
//! (k - lo - 1)·m cells per T of time instead of (k - lo)·m per cycle of C
//! insertions.
//!
//! After time τ the clock has cleared ⌊τ·(k - lo - 1)·m / T⌋ cells, the
//! n-th clearing of cell n mod k·m ([`crate::sliding_sketch::sweep`]'s
//! schedule, depth 1: a cell holds the keys since it was last cleared). A
//! query reads the lo arrays after the one the clock is in, as the count
//! filter does. The newest of them, lo places on, was cleared at least
//! (k - lo - 1)·m clearings ago, a whole T: **whatever the rate**, a key is
//! reported while at most T old. Nothing is held past ⌈k·T/(k - lo - 1)⌉,
//! the time the clock takes to go round all k·m cells (slack
//! ⌈k·T/(k - lo - 1)⌉ - T). So k - lo is at least 2: with the reference
//! code's lo = k - 1 nothing is guaranteed. Sized for a peak rate R, it
//! takes the (k, lo, m) of the count filter sized for a guaranteed window
//! of W = ⌈R·T⌉ ([`super::theory::sizing`]), whose cycle is the time
//! filter's C = T·(k - lo)/(k - lo - 1) at rate R.
//!
//! # Theory at a moment
//!
//! Over Poisson arrivals of cumulative mean Λ, a cell last cleared at τ₀
//! is set with probability 1 - exp(-(Λ(t) - Λ(τ₀))/m) (one hash per
//! array); the FPR multiplies the queried arrays' mean fills, as the Sl-BF
//! over time's does.

use super::theory;
use crate::bits::BitArray;
use crate::error::{check_bits, check_nonzero, check_probability};
use crate::hash::index;
use crate::sliding_sketch::sweep::{self, Schedule, TimedMoment};
use crate::{Filter, ParamError, TimedFilter};

/// The HSS-BF on a clock of time: k one-bit arrays, lo of them queried,
/// (k - lo - 1)·m cells cleared per T.
#[derive(Debug, Clone)]
pub struct TimedHalfSliding {
    t: u64,
    k: u32,
    lo: u32,
    m: u64,
    bits: BitArray,
    /// Clearings made so far (the clock is at `swept mod k·m`).
    swept: u64,
    /// The latest time advanced to.
    clock: u64,
}

/// The shape of a [`TimedHalfSliding`]: what [`TimedHalfSliding::new`] takes, each paper letter
/// by a word (see [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimedHalfSlidingShape {
    /// The window, in clock ticks (`t`).
    pub window_ticks: u64,
    /// Arrays of cells; a key hashes to one cell of each (`k`).
    pub arrays: u32,
    /// Arrays a query reads (`lo`).
    pub queried_arrays: u32,
    /// Cells in each array (`m`).
    pub cells_per_array: u64,
}

impl TimedHalfSliding {
    /// k arrays of m cells, lo of them queried (1 <= lo <= k - 2), the
    /// clock clearing (k - lo - 1)·m cells per `t` time units.
    pub fn new(shape: TimedHalfSlidingShape) -> Result<Self, ParamError> {
        let TimedHalfSlidingShape {
            window_ticks: t,
            arrays: k,
            queried_arrays: lo,
            cells_per_array: m,
        } = shape;
        check_nonzero("window time", t)?;
        crate::error::check_hashes(k)?;
        check_nonzero("lo", lo as u64)?;
        check_nonzero("m", m)?;
        if lo as u64 + 2 > k as u64 {
            return Err(ParamError::OutOfRange {
                name: "lo",
                value: lo.to_string(),
                expected: "at most k - 2 (with lo = k - 1 no window is guaranteed)",
            });
        }
        let cells = check_bits((k as u64).checked_mul(m))?;
        Ok(TimedHalfSliding {
            t,
            k,
            lo,
            m,
            bits: BitArray::new(cells),
            swept: 0,
            clock: 0,
        })
    }

    /// Sized for a window of `t` time units at up to `rate` keys per time
    /// unit with worst-phase FPR <= `fpr`: the (k, lo, m) of the count
    /// filter guaranteeing W = ⌈rate·t⌉ (up to [`theory::MAX_EXACT_WINDOW`]).
    ///
    /// ```
    /// use bloomlab_filters::half_sliding::TimedHalfSliding;
    /// use bloomlab_filters::{Filter, TimedFilter};
    /// // ten minutes in ms, 5 keys per ms at most, 1% FPR
    /// let mut f = bloomlab_filters::Target::time(600_000.0, 5.0).fpr(0.01).build::<TimedHalfSliding>().unwrap();
    /// f.advance(1_000);
    /// f.insert(3);
    /// f.advance(601_000);
    /// assert!(f.contains(3));
    /// ```
    pub(crate) fn with_fpr(t: u64, rate: f64, fpr: f64) -> Result<Self, ParamError> {
        let fpr = check_probability("fpr", fpr)?;
        let w = Self::keys(t, rate)?;
        let s = theory::sizing(w, fpr).ok_or_else(|| ParamError::Unreachable {
            target: format!("half sliding fpr {fpr} at window {w}"),
        })?;
        Self::new(TimedHalfSlidingShape {
            window_ticks: t,
            arrays: s.k,
            queried_arrays: s.lo,
            cells_per_array: s.m,
        })
    }

    /// W = ⌈rate·t⌉: the keys of a window at the peak rate, the count
    /// window the sizing uses.
    pub fn keys(t: u64, rate: f64) -> Result<u64, ParamError> {
        sweep::keys(t, rate, theory::MAX_EXACT_WINDOW)
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

    fn cells(&self) -> u64 {
        self.k as u64 * self.m
    }

    /// The clock: (k - lo - 1)·m clearings per T; a cell holds the keys
    /// since its last clearing.
    pub fn schedule(&self) -> Schedule {
        Schedule {
            cells: self.cells(),
            per: (self.k - self.lo - 1) as u64 * self.m,
            t: self.t,
            depth: 1,
        }
    }

    /// The arrays a query reads at a clock position, in the order it reads
    /// them: the lo after the clock's.
    fn queried_at(&self, swept: u64) -> impl Iterator<Item = u32> + '_ {
        let c = ((swept % self.cells()) / self.m) as u32;
        (1..=self.lo).map(move |j| (c + j) % self.k)
    }

    #[inline]
    fn cell(&self, key: u64, i: u32) -> u64 {
        i as u64 * self.m + index(key, i as u64, self.m)
    }

    /// The theory at time `now` for arrivals of cumulative mean `cum` (keys
    /// by a time), both in the filter's time units; time 0 is the clock's
    /// origin.
    pub fn theory_at(&self, now: f64, cum: &dyn Fn(f64) -> f64) -> TimedMoment {
        let (schedule, m) = (self.schedule(), self.m);
        let fill = |d: f64| 1.0 - (-d / m as f64).exp();
        let arrays = self
            .queried_at(schedule.sweeps_at(now) as u64)
            .map(|i| {
                let i = i as u64;
                schedule.range(now, (i * m, (i + 1) * m), cum, &fill)
            })
            .collect();
        TimedMoment::new(arrays, 1)
    }
}

impl Filter for TimedHalfSliding {
    fn insert(&mut self, key: u64) {
        for i in 0..self.k {
            let c = self.cell(key, i);
            self.bits.set(c);
        }
    }

    fn contains(&self, key: u64) -> bool {
        self.queried_at(self.swept)
            .all(|i| self.bits.get(self.cell(key, i)))
    }

    /// One bit per cell, plus 64 bits each for the clearing count and the
    /// clock.
    fn memory_bits(&self) -> u64 {
        self.cells() + 2 * 64
    }

    fn name(&self) -> &'static str {
        "half_sliding_time"
    }
}

impl crate::Instrumented for TimedHalfSliding {
    fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
        Some(Self::lines_read(self, key))
    }
    /// The answer and the cells read (stopping at the first unset one).
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        for (n, i) in self.queried_at(self.swept).enumerate() {
            if !self.bits.get(self.cell(key, i)) {
                return (false, n as u32 + 1);
            }
        }
        (true, self.lo)
    }

    fn as_timed(&mut self) -> Option<&mut dyn TimedFilter> {
        Some(self)
    }
}

impl TimedFilter for TimedHalfSliding {
    /// Clears every cell due by `now`; after a whole round every cell is
    /// empty, so a longer gap costs no more than one round.
    fn advance(&mut self, now: u64) {
        if now <= self.clock {
            return;
        }
        self.clock = now;
        let schedule = self.schedule();
        let target = schedule.sweeps_by(now);
        match schedule.due(self.swept, target) {
            None => self.bits.clear_range(0, self.cells()),
            Some(runs) => {
                for (a, b) in runs {
                    self.bits.clear_range(a, b);
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

    /// ⌈k·T/(k - lo - 1)⌉ - T: no cell goes uncleared longer than the
    /// clock's round.
    fn slack_time(&self) -> u64 {
        self.schedule().longest() - self.t
    }
}

crate::persist::codec_struct!(TimedHalfSliding {
    t,
    k,
    lo,
    m,
    bits,
    swept,
    clock
});

impl crate::persist::sealed::Design for TimedHalfSliding {
    fn tag() -> String {
        "half_sliding_time".into()
    }
    fn check(&self) -> Result<(), String> {
        let cells = (self.k as u64).checked_mul(self.m);
        crate::persist::ensure(
            self.t >= 1
                && self.lo >= 1
                && self.lo as u64 + 2 <= self.k as u64
                && self.m >= 1
                && cells == Some(self.bits.len())
                && self.swept == self.schedule().sweeps_by(self.clock),
            || {
                format!(
                    "{} cells for k = {}, lo = {}, m = {}, or {} clearings at time {}",
                    self.bits.len(),
                    self.k,
                    self.lo,
                    self.m,
                    self.swept,
                    self.clock
                )
            },
        )
    }
}

crate::persist::persists!(TimedHalfSliding);

#[cfg(test)]
#[path = "timed_tests.rs"]
mod tests;

impl TimedHalfSliding {
    /// The answer to a query for `key` and the distinct 64-byte lines
    /// [`contains`](crate::Filter::contains) reads for it.
    pub fn lines_read(&self, key: u64) -> (bool, u32) {
        let mut lines = crate::lines::LineSet::default();
        for i in self.queried_at(self.swept) {
            let c = self.cell(key, i);
            lines.touch(0, c);
            if !self.bits.get(c) {
                return (false, lines.count());
            }
        }
        (true, lines.count())
    }
}
