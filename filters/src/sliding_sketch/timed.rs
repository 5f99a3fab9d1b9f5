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
//! At time t the cell at sweep position c holds the keys inserted since its
//! second-to-last sweep, at τ₀(c) (time 0 for a cell not yet swept twice).
//! Over Poisson arrivals of cumulative mean Λ, one array's cell is set with
//! probability 1 - exp(-(Λ(t) - Λ(τ₀(c)))/m) exactly; the FPR multiplies
//! the k arrays' mean fills (the arrays' hashes are independent; the
//! arrays share the arrival count, and the product takes its mean: the
//! approximation of every Bloom-family theory here). A key inserted at u is
//! in the cells with τ₀(c) <= u and in the others with their fill.
//!
//! τ₀ is linear in c on each run of consecutive cells that the hand does not
//! split, so a mean over an array is a sum over at most two runs, each
//! summed exactly up to [`EXACT_CELLS`] cells and by the midpoint rule over
//! that many equal pieces above (the fill is smooth in c: tested against
//! the exact sum).

use super::theory;
use crate::bits::BitArray;
use crate::error::{check_bits, check_nonzero, check_probability};
use crate::{Filter, ParamError, TimedFilter};

/// Cells a run of the theory sums one by one; longer runs are summed over
/// this many equal pieces.
pub const EXACT_CELLS: u64 = 1024;

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

impl TimedSlidingBloom {
    /// k arrays of m cells, swept once per `t` time units.
    pub fn new(t: u64, k: u32, m: u64) -> Result<Self, ParamError> {
        check_nonzero("window time", t)?;
        check_nonzero("k", k as u64)?;
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
    pub fn with_fpr(t: u64, rate: f64, fpr: f64) -> Result<Self, ParamError> {
        let fpr = check_probability("fpr", fpr)?;
        let w = Self::keys(t, rate)?;
        let (k, m) = theory::sizing(w, fpr).ok_or_else(|| ParamError::Unreachable {
            target: format!("sliding bloom fpr {fpr} at window {w}"),
        })?;
        Self::new(t, k, m)
    }

    /// W = ⌈rate·t⌉: the keys of a window at the peak rate, the count
    /// window the sizing uses.
    pub fn keys(t: u64, rate: f64) -> Result<u64, ParamError> {
        // a product that lands a rounding error above a whole number is it
        let x = rate * t as f64;
        let w = if (x - x.round()).abs() <= 1e-9 * x {
            x.round()
        } else {
            x.ceil()
        };
        if !(rate > 0.0 && w.is_finite()) || w < 1.0 {
            return Err(ParamError::Unreachable {
                target: format!("a window of {t} time units at rate {rate}"),
            });
        }
        if w > theory::MAX_EXACT_WINDOW as f64 {
            return Err(ParamError::TooLarge {
                what: "keys per window for the exact sizing",
                limit: "2^24; give k and m to new".into(),
            });
        }
        Ok(w as u64)
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

    /// Sweeps due by time `now`: ⌊now·k·m / T⌋.
    fn sweeps_by(&self, now: u64) -> u64 {
        ((now as u128 * self.cells() as u128) / self.t as u128).min(u64::MAX as u128) as u64
    }

    #[cfg(test)]
    fn cell(&self, key: u64, i: u32) -> u64 {
        super::cells::cell(self.m, key, i)
    }

    /// The theory at time `now` for arrivals of cumulative mean `cum` (keys
    /// by a time), both in the filter's time units; time 0 is the clock's
    /// origin (the first arrival comes after it).
    pub fn theory_at(&self, now: f64, cum: &dyn Fn(f64) -> f64) -> TimedMoment {
        let cells = self.cells() as f64;
        let t = self.t as f64;
        let s = (now * cells / t).floor().max(0.0);
        let hand = s % cells;
        // start of the current pass: sweep number of cell 0's last sweep
        let pass = s - hand;
        let at_now = cum(now);
        let mut arrays = Vec::with_capacity(self.k as usize);
        for i in 0..self.k as u64 {
            let (a, b) = ((i * self.m) as f64, ((i + 1) * self.m) as f64);
            let mut runs = Vec::new();
            // cells before the hand were swept in this pass: n0 = pass - cells + c
            let split = hand.clamp(a, b);
            if split > a {
                runs.push(Run::new(a, split, pass - cells, self, at_now, cum));
            }
            if b > split {
                runs.push(Run::new(split, b, pass - 2.0 * cells, self, at_now, cum));
            }
            arrays.push(runs);
        }
        let fpr = arrays
            .iter()
            .map(|runs| runs.iter().map(|r| r.fill_sum(r.b)).sum::<f64>() / self.m as f64)
            .product();
        TimedMoment {
            arrays,
            fpr,
            m: self.m as f64,
            unit: t / cells,
        }
    }
}

/// A run of consecutive cells [a, b) whose second-to-last sweep is sweep
/// number base + c, with the prefix sums of their fills.
#[derive(Debug, Clone)]
struct Run {
    a: f64,
    b: f64,
    base: f64,
    /// (cell boundary, sum of the fills of the cells from a to it).
    prefix: Vec<(f64, f64)>,
}

impl Run {
    fn new(
        a: f64,
        b: f64,
        base: f64,
        f: &TimedSlidingBloom,
        at_now: f64,
        cum: &dyn Fn(f64) -> f64,
    ) -> Run {
        let unit = f.t as f64 / f.cells() as f64;
        let m = f.m as f64;
        // the fill of the cell at (possibly fractional) position c
        let fill = |c: f64| {
            let n0 = base + c;
            // a cell not yet swept twice holds every key since time 0
            let since = if n0 < 0.0 { 0.0 } else { (n0 + 1.0) * unit };
            1.0 - (-(at_now - cum(since)).max(0.0) / m).exp()
        };
        let len = b - a;
        let pieces = (len as u64).clamp(1, EXACT_CELLS);
        let step = len / pieces as f64;
        let mut prefix = Vec::with_capacity(pieces as usize + 1);
        let mut sum = 0.0;
        prefix.push((a, 0.0));
        for j in 0..pieces {
            let lo = a + j as f64 * step;
            // one cell: its own fill; a piece of several: its midpoint's
            let mid = if step == 1.0 {
                lo
            } else {
                lo + step / 2.0 - 0.5
            };
            sum += fill(mid) * step;
            prefix.push((lo + step, sum));
        }
        Run { a, b, base, prefix }
    }

    /// The sum of the fills of the cells from a to `c` (a cell boundary in
    /// [a, b]), interpolated inside a piece.
    fn fill_sum(&self, c: f64) -> f64 {
        let c = c.clamp(self.a, self.b);
        let i = self.prefix.partition_point(|p| p.0 < c);
        if i == 0 {
            return 0.0;
        }
        let (x1, y1) = self.prefix[i.min(self.prefix.len() - 1)];
        let (x0, y0) = self.prefix[i - 1];
        if x1 <= x0 {
            return y1;
        }
        y0 + (y1 - y0) * (c - x0) / (x1 - x0)
    }
}

/// The theory of a [`TimedSlidingBloom`] at one moment.
#[derive(Debug, Clone)]
pub struct TimedMoment {
    arrays: Vec<Vec<Run>>,
    fpr: f64,
    m: f64,
    /// Time units per sweep.
    unit: f64,
}

impl TimedMoment {
    /// The FPR at this moment.
    pub fn fpr(&self) -> f64 {
        self.fpr
    }

    /// P(yes) for a key inserted at time `u`: per array, the share of cells
    /// whose second-to-last sweep came at or before u (they still hold the
    /// key), plus the others' fills.
    pub fn presence(&self, u: f64) -> f64 {
        self.arrays
            .iter()
            .map(|runs| {
                let mut p = 0.0;
                for r in runs {
                    // cells with (base + c + 1)·unit <= u hold the key
                    // (base + c < 0: swept less than twice, they hold it too)
                    let edge = (u / self.unit - 1.0 - r.base).floor() + 1.0;
                    let held = edge.max(-r.base).clamp(r.a, r.b);
                    p += (held - r.a) + (r.fill_sum(r.b) - r.fill_sum(held));
                }
                (p / self.m).min(1.0)
            })
            .product()
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
        let cells = self.cells();
        let due = target - self.swept;
        if due >= 2 * cells {
            let n = self.future.len();
            self.future.clear_range(0, n);
            self.now.clear_range(0, n);
        } else {
            for n in self.swept..target {
                super::cells::sweep(&mut self.future, &mut self.now, n % cells);
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
            self.k >= 1
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

impl crate::persist::Persist for TimedSlidingBloom {}

#[cfg(test)]
#[path = "timed_tests.rs"]
mod tests;
