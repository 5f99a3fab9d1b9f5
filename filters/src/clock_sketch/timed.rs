//! Clock-sketch's Bloom filter over a window of time (`clock_bloom_time`):
//! the pointer decrements (2^s - 2)·m clocks per T of time instead of per
//! W insertions, as Clock-sketch runs on time-based windows.
//!
//! After time τ the pointer has made ⌊τ·(2^s - 2)·m / T⌋ decrements, the
//! n-th of cell n mod m ([`crate::sliding_sketch::sweep`]'s schedule). An
//! insertion sets its k cells to D = 2^s - 1; a cell is non-zero while
//! fewer than D decrements came after its latest setting, so it holds the
//! keys since its D-th most recent decrement (depth D). That decrement has
//! (D - 1)·m decrements after it, a whole T: **whatever the rate**, a key
//! is reported while at most T old; and nothing is held past
//! ⌈D·T/(D - 1)⌉: slack ⌈T/(2^s - 2)⌉, T/2 at the reference code's s = 2.
//! Sized for a peak rate
//! R, it takes the (k, s, m) of the count filter of W = ⌈R·T⌉
//! ([`super::theory::sizing`]).
//!
//! # Theory at a moment
//!
//! Over Poisson arrivals of cumulative mean Λ, a cell holding the keys
//! since τ₀ is set with probability 1 - exp(-k·(Λ(t) - Λ(τ₀))/m) (each key
//! sets k cells of the one array); a never-inserted key's k cells are
//! uniform over the array, so the FPR is the mean fill to the k-th power:
//! the Bloom filter's usual approximation, as in the count theory.

use super::theory;
use super::MAX_CLOCK_BITS;
use crate::bits::PackedInts;
use crate::error::{check_nonzero, check_probability};
use crate::hash::index;
use crate::sliding_sketch::sweep::{self, Schedule, TimedMoment};
use crate::{Filter, ParamError, TimedFilter};

/// Clock-sketch's Bloom filter on a clock of time: m s-bit clocks, k set
/// per insertion, (2^s - 2)·m decrements per T.
#[derive(Debug, Clone)]
pub struct TimedClockBloom {
    t: u64,
    k: u32,
    s: u32,
    m: u64,
    clocks: PackedInts,
    /// Decrements made so far (the pointer is at `swept mod m`).
    swept: u64,
    /// The latest time advanced to.
    clock: u64,
}

/// The shape of a [`TimedClockBloom`]: what [`TimedClockBloom::new`] takes, each paper letter
/// by a word (see [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimedClockBloomShape {
    /// The window, in clock ticks (`t`).
    pub window_ticks: u64,
    /// Hash functions: the bits or cells a key sets and a query reads (`k`).
    pub hashes: u32,
    /// Bits per cell (`s`).
    pub cell_bits: u32,
    /// Cells, in all (`m`).
    pub cells: u64,
}

impl TimedClockBloom {
    /// m clocks of `s` bits (2 <= s <= 16), k set per insertion, the
    /// pointer going round the array 2^s - 2 times per `t` time units.
    pub fn new(shape: TimedClockBloomShape) -> Result<Self, ParamError> {
        let TimedClockBloomShape {
            window_ticks: t,
            hashes: k,
            cell_bits: s,
            cells: m,
        } = shape;
        check_nonzero("window time", t)?;
        crate::error::check_hashes(k)?;
        check_nonzero("m", m)?;
        super::check_clocks(s, m)?;
        if ((1u64 << s) - 1).checked_mul(m).is_none() {
            return Err(ParamError::TooLarge {
                what: "decrements per window",
                limit: "2^64".into(),
            });
        }
        Ok(TimedClockBloom {
            t,
            k,
            s,
            m,
            clocks: PackedInts::new(m, s),
            swept: 0,
            clock: 0,
        })
    }

    /// Sized for a window of `t` time units at up to `rate` keys per time
    /// unit with worst-phase FPR <= `fpr`: the (k, s, m) of the count
    /// filter of W = ⌈rate·t⌉ (up to [`theory::MAX_EXACT_WINDOW`]).
    ///
    /// ```
    /// use bloomlab_filters::clock_sketch::TimedClockBloom;
    /// use bloomlab_filters::{Filter, TimedFilter};
    /// // ten minutes in ms, 5 keys per ms at most, 1% FPR
    /// let mut f = bloomlab_filters::Target::time(600_000.0, 5.0).fpr(0.01).build::<TimedClockBloom>().unwrap();
    /// f.advance(1_000);
    /// f.insert(3);
    /// f.advance(601_000);
    /// assert!(f.contains(3));
    /// ```
    pub(crate) fn with_fpr(t: u64, rate: f64, fpr: f64) -> Result<Self, ParamError> {
        let fpr = check_probability("fpr", fpr)?;
        let w = Self::keys(t, rate)?;
        let s = theory::sizing(w, fpr).ok_or_else(|| ParamError::Unreachable {
            target: format!("clock bloom fpr {fpr} at window {w}"),
        })?;
        Self::new(TimedClockBloomShape {
            window_ticks: t,
            hashes: s.k,
            cell_bits: s.s,
            cells: s.m,
        })
    }

    /// W = ⌈rate·t⌉: the keys of a window at the peak rate, the count
    /// window the sizing uses.
    pub fn keys(t: u64, rate: f64) -> Result<u64, ParamError> {
        sweep::keys(t, rate, theory::MAX_EXACT_WINDOW)
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

    /// D = 2^s - 1: a full clock.
    fn full(&self) -> u64 {
        (1u64 << self.s) - 1
    }

    /// The pointer: (D - 1)·m decrements per T; a cell holds the keys since
    /// its D-th most recent decrement.
    pub fn schedule(&self) -> Schedule {
        Schedule {
            cells: self.m,
            per: (self.full() - 1) * self.m,
            t: self.t,
            depth: self.full(),
        }
    }

    #[inline]
    fn cell(&self, key: u64, i: u32) -> u64 {
        index(key, i as u64, self.m)
    }

    /// The theory at time `now` for arrivals of cumulative mean `cum` (keys
    /// by a time), both in the filter's time units; time 0 is the clock's
    /// origin.
    pub fn theory_at(&self, now: f64, cum: &dyn Fn(f64) -> f64) -> TimedMoment {
        let (k, m) = (self.k as f64, self.m as f64);
        let fill = |d: f64| 1.0 - (-k * d / m).exp();
        let all = self.schedule().range(now, (0, self.m), cum, &fill);
        TimedMoment::new(vec![all], self.k)
    }
}

impl Filter for TimedClockBloom {
    fn insert(&mut self, key: u64) {
        let full = self.full();
        for i in 0..self.k {
            let c = self.cell(key, i);
            self.clocks.set(c, full);
        }
    }

    fn contains(&self, key: u64) -> bool {
        super::probe(&self.clocks, self.k, self.m, key).0
    }

    /// s bits per cell, plus 64 bits each for the decrement count and the
    /// clock.
    fn memory_bits(&self) -> u64 {
        self.s as u64 * self.m + 2 * 64
    }

    fn name(&self) -> &'static str {
        "clock_bloom_time"
    }
}

impl crate::Instrumented for TimedClockBloom {
    fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
        Some(Self::lines_read(self, key))
    }
    /// The answer and the cells read (stopping at the first zero clock).
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        super::probe(&self.clocks, self.k, self.m, key)
    }

    fn as_timed(&mut self) -> Option<&mut dyn TimedFilter> {
        Some(self)
    }
}

impl TimedFilter for TimedClockBloom {
    /// Makes every decrement due by `now`; after D whole passes every clock
    /// is 0, so a longer gap costs no more than D passes.
    fn advance(&mut self, now: u64) {
        if now <= self.clock {
            return;
        }
        self.clock = now;
        let schedule = self.schedule();
        let target = schedule.sweeps_by(now);
        match schedule.due(self.swept, target) {
            None => self.clocks = PackedInts::new(self.m, self.s),
            Some(runs) => {
                for (a, b) in runs {
                    self.clocks.saturating_decrement(a, b);
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

    /// ⌈D·T/(D - 1)⌉ - T: nothing is held that long past the window.
    fn slack_time(&self) -> u64 {
        self.schedule().longest() - self.t
    }
}

crate::persist::codec_struct!(TimedClockBloom {
    t,
    k,
    s,
    m,
    clocks,
    swept,
    clock
});

impl crate::persist::sealed::Design for TimedClockBloom {
    fn tag() -> String {
        "clock_bloom_time".into()
    }
    fn check(&self) -> Result<(), String> {
        crate::persist::ensure(
            self.t >= 1
                && (1..=crate::MAX_HASHES).contains(&self.k)
                && (2..=MAX_CLOCK_BITS).contains(&self.s)
                && self.m >= 1
                && self.clocks.len() == self.m
                && self.clocks.width() == self.s
                && ((1u64 << self.s) - 1).checked_mul(self.m).is_some()
                && self.swept == self.schedule().sweeps_by(self.clock),
            || {
                format!(
                    "{} clocks of {} bits for m = {}, s = {}, or {} decrements at time {}",
                    self.clocks.len(),
                    self.clocks.width(),
                    self.m,
                    self.s,
                    self.swept,
                    self.clock
                )
            },
        )
    }
}

crate::persist::persists!(TimedClockBloom);

#[cfg(test)]
#[path = "timed_tests.rs"]
mod tests;

impl TimedClockBloom {
    /// The answer to a query for `key` and the distinct 64-byte lines
    /// [`contains`](crate::Filter::contains) reads for it (the clocks are
    /// the count-based filter's).
    pub fn lines_read(&self, key: u64) -> (bool, u32) {
        super::lines::lines_read(&self.clocks, self.k, self.m, key)
    }
}
