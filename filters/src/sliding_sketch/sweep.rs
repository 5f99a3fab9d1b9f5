//! A hand that sweeps cells on a schedule of *time*, and the theory of what
//! the cells hold at a moment: the clock of the Sl-BF over time
//! ([`super::TimedSlidingBloom`]), Clock-sketch's over time
//! ([`crate::clock_sketch::TimedClockBloom`]) and the HSS-BF's over time
//! ([`crate::half_sliding::TimedHalfSliding`]).
//!
//! # The schedule
//!
//! The hand makes `per` sweeps per T of time over `cells` cells in order:
//! by time τ it has made S(τ) = ⌊τ·per/T⌋, sweep n of cell n mod cells, at
//! time ⌈(n + 1)·T/per⌉. A filter advances the hand before it inserts, so a
//! sweep at time u comes before a key inserted at u. A cell holds the keys
//! inserted since its `depth`-th most recent sweep (the Sl-BF: 2, a future
//! and a now bit; Clock-sketch: 2^s - 1, a full clock; the HSS-BF: 1, a bit
//! cleared by the sweep), or since time 0 before it has been swept that
//! often.
//!
//! **The window.** When per = (depth - 1)·cells (Sl-BF, Clock-sketch), a
//! cell's depth-th most recent sweep has (depth - 1)·cells = per sweeps
//! after it, so it came at or before now - T: every key at most T old is
//! in every cell it set, **whatever the rate**. And it came after now -
//! depth·cells·T/per, so nothing older is held: [`Schedule::longest`].
//!
//! # Theory at a moment
//!
//! Over Poisson arrivals of cumulative mean Λ, a cell that holds the keys
//! since τ₀ is set with the probability `fill(Λ(t) - Λ(τ₀))` its design
//! gives (one hash per array: 1 - exp(-Δ/m); k hashes into one array:
//! 1 - exp(-k·Δ/m)). τ₀ is linear in the cell's position on each run of
//! consecutive cells that the hand does not split, so a mean over a range
//! of cells is a sum over at most two runs, each summed exactly up to
//! [`EXACT_CELLS`] cells and by the midpoint rule over that many equal
//! pieces above (the fill is smooth in the position: tested against the
//! exact sum in each design's tests).

use crate::ParamError;

/// W = ⌈rate·t⌉: the keys of a window of `t` time units at the peak rate,
/// the count window a swept filter over time is sized for (refused above
/// `max`, the count theory's largest exact window).
pub fn keys(t: u64, rate: f64, max: u64) -> Result<u64, ParamError> {
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
    if w > max as f64 {
        return Err(ParamError::TooLarge {
            what: "keys per window for the exact sizing",
            limit: format!("{max}; give the parameters to new"),
        });
    }
    Ok(w as u64)
}

/// Cells a run of the theory sums one by one; longer runs are summed over
/// this many equal pieces.
pub const EXACT_CELLS: u64 = 1024;

/// A hand sweeping `cells` cells in order, `per` sweeps per `t` time
/// units; a cell holds the keys since its `depth`-th most recent sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedule {
    /// Cells swept in turn.
    pub cells: u64,
    /// Sweeps per `t`.
    pub per: u64,
    /// The time `per` sweeps take.
    pub t: u64,
    /// Which most recent sweep bounds what a cell holds (1 = the last).
    pub depth: u64,
}

impl Schedule {
    /// Sweeps due by time `now`: ⌊now·per/T⌋.
    pub fn sweeps_by(&self, now: u64) -> u64 {
        ((now as u128 * self.per as u128) / self.t as u128).min(u64::MAX as u128) as u64
    }

    /// Sweeps made by (real) time `now`, as the theory counts them:
    /// ⌊now·per/T⌋, 0 before time 0.
    pub fn sweeps_at(&self, now: f64) -> f64 {
        (now / self.unit()).floor().max(0.0)
    }

    /// The cells swept from sweep `swept` up to sweep `target`, in order,
    /// as runs [a, b) of consecutive cells (one per pass of the hand);
    /// `None` when they number `depth` whole passes or more: every cell
    /// then holds nothing.
    pub fn due(&self, swept: u64, target: u64) -> Option<Due> {
        let left = target - swept;
        (left < self.depth.saturating_mul(self.cells)).then_some(Due {
            hand: swept % self.cells,
            left,
            cells: self.cells,
        })
    }

    /// Time units per sweep, T/per.
    fn unit(&self) -> f64 {
        self.t as f64 / self.per as f64
    }

    /// ⌈depth·cells·T/per⌉: no key this old or older is held (its cells'
    /// depth-th most recent sweeps all came after it).
    pub fn longest(&self) -> u64 {
        let x = self.depth as u128 * self.cells as u128 * self.t as u128;
        x.div_ceil(self.per as u128).min(u64::MAX as u128) as u64
    }

    /// The cells [a, b) at time `now` for arrivals of cumulative mean `cum`
    /// (time 0 is the clock's origin), a cell holding Δ expected keys set
    /// with probability `fill(Δ)`.
    pub fn range(
        &self,
        now: f64,
        (a, b): (u64, u64),
        cum: &dyn Fn(f64) -> f64,
        fill: &dyn Fn(f64) -> f64,
    ) -> Cells {
        let cells = self.cells as f64;
        let unit = self.unit();
        let s = self.sweeps_at(now);
        let hand = s % cells;
        // sweep number of cell 0's latest sweep in the hand's current pass
        let pass = s - hand;
        let depth = self.depth as f64;
        let at_now = cum(now);
        let (a, b) = (a as f64, b as f64);
        let mut runs = Vec::with_capacity(2);
        // cells before the hand were swept in this pass
        let split = hand.clamp(a, b);
        let span = |lo, hi, base| Run::new(lo, hi, base, unit, at_now, cum, fill);
        if split > a {
            runs.push(span(a, split, pass - (depth - 1.0) * cells));
        }
        if b > split {
            runs.push(span(split, b, pass - depth * cells));
        }
        Cells {
            runs,
            len: b - a,
            unit,
        }
    }
}

/// The runs of cells a hand sweeps, from [`Schedule::due`].
#[derive(Debug, Clone)]
pub struct Due {
    hand: u64,
    left: u64,
    cells: u64,
}

impl Iterator for Due {
    type Item = (u64, u64);

    fn next(&mut self) -> Option<(u64, u64)> {
        if self.left == 0 {
            return None;
        }
        let run = self.left.min(self.cells - self.hand);
        let a = self.hand;
        self.hand = (a + run) % self.cells;
        self.left -= run;
        Some((a, a + run))
    }
}

/// A run of consecutive cells [a, b) whose depth-th most recent sweep is
/// sweep number base + c, with the prefix sums of their fills.
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
        unit: f64,
        at_now: f64,
        cum: &dyn Fn(f64) -> f64,
        fill: &dyn Fn(f64) -> f64,
    ) -> Run {
        // the fill of the cell at (possibly fractional) position c
        let cell = |c: f64| {
            let n0 = base + c;
            // a cell not yet swept `depth` times holds every key since 0
            let since = if n0 < 0.0 { 0.0 } else { (n0 + 1.0) * unit };
            fill((at_now - cum(since)).max(0.0))
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
            sum += cell(mid) * step;
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

/// A range of cells at one moment ([`Schedule::range`]).
#[derive(Debug, Clone)]
pub struct Cells {
    runs: Vec<Run>,
    len: f64,
    /// Time units per sweep.
    unit: f64,
}

impl Cells {
    /// The cells' mean fill: P(a uniform cell of the range is set).
    pub fn mean_fill(&self) -> f64 {
        self.runs.iter().map(|r| r.fill_sum(r.b)).sum::<f64>() / self.len
    }

    /// P(a uniform cell of the range is set) for a key inserted at time
    /// `u` that set it: the share of cells whose depth-th most recent sweep
    /// came at or before u (they still hold the key), plus the others'
    /// fills.
    pub fn presence(&self, u: f64) -> f64 {
        let mut p = 0.0;
        for r in &self.runs {
            // cells with (base + c + 1)·unit <= u hold the key (base + c <
            // 0: swept fewer than depth times, they hold it too)
            let edge = (u / self.unit - 1.0 - r.base).floor() + 1.0;
            let held = edge.max(-r.base).clamp(r.a, r.b);
            p += (held - r.a) + (r.fill_sum(r.b) - r.fill_sum(held));
        }
        (p / self.len).min(1.0)
    }
}

/// The theory of a swept filter at one moment: a query reads a uniform cell
/// of each range `power` times (independently), and answers yes when all
/// are set.
#[derive(Debug, Clone)]
pub struct TimedMoment {
    ranges: Vec<Cells>,
    power: i32,
}

impl TimedMoment {
    /// A query reading a uniform cell of each range, `power` times each.
    pub fn new(ranges: Vec<Cells>, power: u32) -> TimedMoment {
        TimedMoment {
            ranges,
            power: power as i32,
        }
    }

    /// The FPR at this moment.
    pub fn fpr(&self) -> f64 {
        self.ranges
            .iter()
            .map(|c| c.mean_fill().powi(self.power))
            .product()
    }

    /// P(yes) for a key inserted at time `u`.
    pub fn presence(&self, u: f64) -> f64 {
        self.ranges
            .iter()
            .map(|c| c.presence(u).powi(self.power))
            .product()
    }
}

/// The simulation the swept filters over time are tested by.
#[cfg(test)]
pub(crate) mod testing {
    use crate::hash::mix64;
    use crate::{Filter, TimedFilter};

    /// The time before the i-th arrival of the bursty clocks the swept
    /// filters' definition tests use: none one time in `every` (a burst),
    /// up to `lull` one time in `every`, else up to `step`.
    pub fn gap(i: u64, every: u64, lull: u64, step: u64) -> u64 {
        match mix64(i) % every {
            0 => 0,
            1 => mix64(i + 7) % lull,
            _ => mix64(i + 9) % step,
        }
    }

    /// Arrivals at 1 key per 100 time units, doubled in a wave of period
    /// 150 000: their cumulative mean.
    pub fn wave(x: f64) -> f64 {
        let x = x.max(0.0);
        let tau = std::f64::consts::TAU;
        0.01 * x + 0.005 * (x - 150_000.0 * (x / 150_000.0 * tau).sin() / tau)
    }

    /// Arrivals of 1 key per 100 time units, 3 per 100 from time 250 000:
    /// their cumulative mean.
    pub fn cum(x: f64) -> f64 {
        let x = x.max(0.0);
        0.01 * x.min(250_000.0) + 0.03 * (x - 250_000.0).max(0.0)
    }

    /// Measured against the theory: 400 filters from `make` under Poisson
    /// arrivals of mean [`cum`], each queried at one moment in [200 000,
    /// 400 000) with 2000 never-inserted keys, `fpr` giving the theory at
    /// that moment. Asserts the measured FPR within four of the binomial's
    /// standard errors plus 3% (for the spread between moments) of the
    /// theory's mean, and returns (measured, theory).
    pub fn changing_rate<F: Filter + TimedFilter>(
        make: impl Fn() -> F,
        fpr: impl Fn(&F, f64, &dyn Fn(f64) -> f64) -> f64,
    ) -> (f64, f64) {
        let rate = |x: f64| if x < 250_000.0 { 0.01 } else { 0.03 };
        let (mut fp, mut queries, mut predicted) = (0u64, 0u64, 0.0);
        for run in 0..400u64 {
            let mut f = make();
            let end = 200_000.0 + (mix64(run) % 200_000) as f64;
            let mut now = 0.0f64;
            let mut i = 0u64;
            loop {
                // exponential gaps at the current rate
                let u = ((mix64(run << 32 | i) >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
                now += -u.ln() / rate(now);
                if now > end {
                    break;
                }
                f.advance(now as u64);
                f.insert(mix64(i ^ run << 40));
                i += 1;
            }
            f.advance(end as u64);
            predicted += fpr(&f, end, &cum);
            for q in 0..2000u64 {
                fp += f.contains(mix64(q | 1 << 62 | run << 45)) as u64;
                queries += 1;
            }
        }
        let p = predicted / 400.0;
        let measured = fp as f64 / queries as f64;
        let se = (p * (1.0 - p) / queries as f64).sqrt();
        eprintln!("measured {measured}, theory {p}, {queries} queries");
        assert!(
            (measured - p).abs() < 4.0 * se + 0.03 * p,
            "measured {measured}, theory {p}"
        );
        (measured, p)
    }
}
