//! # Calibration: the measured coverage of bloomlab's intervals
//!
//! Every verdict bloomlab prints rests on an interval. For each kind of
//! interval this measures, over many independent seeds of a small point
//! whose true value is known exactly (or, at a real design, pooled over
//! further seeds), the share of seeds whose interval
//! holds the truth (the empirical coverage, with its own Clopper-Pearson
//! interval at 95%), how often an interval misses its own estimate, and
//! the mean width relative to the estimate. `bloomlab calibrate` runs it
//! (`results/calibration.csv`, `.md` and `plots/calibration.svg`);
//! `--check` fails when a kind covers clearly less than its level (by more
//! than three standard errors).
//!
//! The points are synthetic designs run through the real passes
//! ([`cases`] lists the kinds):
//! - [`Coin`]s under distinct random keys (the membership pass and the
//!   adversary): the FPR of every state is the coin's bias p, and a key of
//!   age a is reported surely when a <= `remember`, with probability p
//!   otherwise;
//! - [`Drift`]s under Poisson arrivals (the time pass): their FPR and loss
//!   at a moment are known exactly, while the moments of one window share
//!   their keys and move together, as a real design's do;
//! - a [`Blur`] (the summary pass): an exact window whose answers carry
//!   errors of a known law;
//! - a real design, a small Stable Bloom filter (the membership pass),
//!   whose truth is pooled over independent seeds ([`Truth::Pooled`]).
//!
//! A kind *covers* at level L over n seeds when its coverage is at least
//! L - 2·√(L(1-L)/n); it is *short* below that and *wide* when it covers
//! above 99.9% at L = 0.95. docs/metrics.md lists what is not calibrated
//! yet.

mod attack;
mod blur;
mod cases;
mod coin;
mod coverage;
mod drift;
mod stable;
mod time;

pub use attack::AttackPoint;
pub use blur::Blur;
pub use cases::cases;
pub use coin::Coin;
pub use coverage::{calibrate, coverage, row, Confirmation, Coverage, Verdict};
pub use drift::Drift;
pub use time::DriftPoint;

use crate::metrics::columns::{col, Col};
use crate::metrics::{Part, Row};
use crate::passes::membership::{self, PointResult};
use crate::passes::time::TimeResult;
use bloomlab_filters::hash::mix64;
use rayon::prelude::*;

/// A uniform in [0, 1) from a hash of `x`: the synthetic designs' coins
/// and shares.
fn unit(x: u64) -> f64 {
    mix64(x) as f64 / 18_446_744_073_709_551_616.0
}

/// A small point whose figures are known exactly.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Point {
    /// A [`Coin`] under the membership pass.
    Coin(CoinPoint),
    /// A [`Drift`] under the time pass.
    Drift(DriftPoint),
    /// A [`Coin`] under the replaying adversary.
    Attack(AttackPoint),
    /// A [`Blur`] under the summary pass, over this many rounds.
    Blur(u64),
    /// A Stable Bloom filter under the membership pass.
    Stable(StablePoint),
}

/// A Stable Bloom filter of `m` cells of `d` bits, `k` cells per key, `p`
/// decrements per insertion, its FNR over ages 1 ..= `window`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StablePoint {
    /// Cells.
    pub m: u64,
    /// Bits per cell.
    pub d: u32,
    /// Cells set per insertion.
    pub k: u32,
    /// Cells decremented per insertion.
    pub p: u64,
    /// The ages the FNR covers.
    pub window: u64,
}

/// A [`Coin`] over window `w`, remembering `remember` keys, of bias `p`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CoinPoint {
    /// The window, in insertions.
    pub w: u64,
    /// The slack the geometry declares, in insertions (NPWS is measured
    /// over ages w+1 ..= w+s).
    pub s: u64,
    /// Keys the coin remembers exactly.
    pub remember: usize,
    /// The coin's bias: P(yes) for a key it does not remember.
    pub p: f64,
    /// Whether the window is guaranteed (the FNR then also asks age w).
    pub guaranteed: bool,
    /// Whether its costs and zero fraction vary by key ([`Coin::varying`]).
    pub varying: bool,
    /// Never-inserted keys queried at each phase, over all the rounds.
    pub fpr_queries: u64,
}

/// Where a kind's interval is read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Source {
    /// A column of the point's row.
    Row(Col),
    /// The age profile's bucket (at the worst phase) holding this age.
    Profile(u64),
    /// The time pass's age bucket holding this age, in seconds.
    AgeTime(f64),
}

/// A figure's true value at its point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Truth {
    /// This value.
    Exact(f64),
    /// The row's own theory for the figure, exact at the point (the time
    /// pass's worst moments differ from seed to seed, and so does the
    /// mean of the exact theory over them).
    Theory,
    /// Where no theory is exact: the mean estimate over this many
    /// independent seeds ([`POOL_SEEDS`] on), the same for every seed
    /// calibrated. Over n seeds its standard error is one seed's over √n,
    /// so n >= 400 makes it at least 20 times as precise as the estimates
    /// it judges.
    Pooled(u64),
}

/// The first seed of a [`Truth::Pooled`] estimate, far past any seed the
/// calibration or its confirmations measure.
pub const POOL_SEEDS: u64 = 1 << 40;

/// One interval kind: the column whose interval is calibrated, at which
/// point, and the figure's true value there.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    /// The interval's words: the column and its construction.
    pub interval: &'static str,
    /// What it is the interval of (its column's name in the tables).
    pub column: Col,
    /// Where it is read.
    pub source: Source,
    /// Where it is measured.
    pub point: Point,
    /// The figure's exact value at the point.
    pub truth: Truth,
    /// Why the kind may cover above 99.9% at 95% (a *wide* verdict the
    /// docs explain), if it may.
    pub wide: Option<&'static str>,
}

/// What one seed measured at a point.
pub enum Out {
    /// The membership pass's figures (a [`Coin`]).
    Membership(PointResult),
    /// The time pass's figures (a [`Drift`]).
    Time(TimeResult),
    /// The row of a pass that gives only a row: the adversary's (a
    /// [`Coin`] attacked) or the summary pass's (a [`Blur`]).
    Row(Row),
}

impl Out {
    fn row(&self) -> &Row {
        match self {
            Out::Membership(o) => &o.row,
            Out::Time(o) => &o.row,
            Out::Row(row) => row,
        }
    }
}

/// `point`'s figures under `seed`, its intervals at `level`.
pub fn measure(point: Point, seed: u64, level: f64) -> anyhow::Result<Out> {
    match point {
        Point::Coin(p) => coin::measure(p, seed, level).map(Out::Membership),
        Point::Drift(p) => time::measure(p, seed, level).map(Out::Time),
        Point::Attack(p) => attack::measure(p, seed, level).map(Out::Row),
        Point::Blur(rounds) => blur::measure(rounds, seed, level).map(Out::Row),
        Point::Stable(p) => stable::measure(p, seed, level).map(Out::Membership),
    }
}

/// `case`'s estimate, interval and truth in one point's figures.
fn observed(case: &Case, out: &Out, level: f64) -> anyhow::Result<Observed> {
    let get = |row: &Row, name: String| {
        row.get_num(&name)
            .ok_or_else(|| anyhow::anyhow!("calibrate: no {name} in the row"))
    };
    let of = |row: &Row, name: &str| -> anyhow::Result<Observed> {
        Ok(Observed {
            estimate: get(row, name.to_string())?,
            low: get(row, Part::CiLow.of(name))?,
            high: get(row, Part::CiHigh.of(name))?,
            truth: match case.truth {
                Truth::Exact(x) => x,
                Truth::Theory => get(row, Part::Theory.of(name))?,
                Truth::Pooled(_) => f64::NAN,
            },
        })
    };
    match (case.source, out) {
        (Source::Row(column), out) => of(out.row(), column.name()),
        (Source::Profile(age), Out::Membership(out)) => {
            let b = out
                .profile
                .iter()
                .find(|b| b.phase == "worst" && b.age_lo <= age && age <= b.age_hi)
                .ok_or_else(|| anyhow::anyhow!("calibrate: no profile bucket holds age {age}"))?;
            let (low, high) = membership::profile_interval(b, level);
            let truth = match case.truth {
                Truth::Exact(x) => x,
                Truth::Pooled(_) => f64::NAN,
                Truth::Theory => anyhow::bail!("calibrate: a profile bucket's truth is a number"),
            };
            Ok(Observed {
                estimate: b.yes as f64 / b.n.max(1) as f64,
                low,
                high,
                truth,
            })
        }
        (Source::AgeTime(age), Out::Time(out)) => {
            let holds = |r: &&Row| {
                let (lo, hi) = (r.get_num(col::AGE_LO.name()), r.get_num(col::AGE_HI.name()));
                lo.zip(hi).is_some_and(|(lo, hi)| lo <= age && age < hi)
            };
            let r = out
                .ages
                .iter()
                .find(holds)
                .ok_or_else(|| anyhow::anyhow!("calibrate: no age bucket holds {age} s"))?;
            of(r, col::P_YES.name())
        }
        _ => anyhow::bail!("calibrate: {} is not read from that pass", case.interval),
    }
}

/// One seed's interval of one case, and the truth it should hold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Observed {
    /// The point estimate.
    pub estimate: f64,
    /// The interval's low end.
    pub low: f64,
    /// The interval's high end.
    pub high: f64,
    /// The figure's true value for this seed.
    pub truth: f64,
}

/// The distinct points of `cases`, in order: what one seed measures.
pub fn points(cases: &[Case]) -> Vec<Point> {
    let mut points: Vec<Point> = Vec::new();
    for c in cases {
        if !points.contains(&c.point) {
            points.push(c.point);
        }
    }
    points
}

/// Every case's intervals over `seeds` seeds at `level`, measuring each
/// distinct point once per seed (in parallel; the same numbers whatever
/// the thread count).
pub fn observe(cases: &[Case], seeds: u64, level: f64) -> anyhow::Result<Vec<Vec<Observed>>> {
    observe_seeds(cases, 1..=seeds, level)
}

/// [`observe`] over the seeds of `seeds`.
pub fn observe_seeds(
    cases: &[Case],
    seeds: std::ops::RangeInclusive<u64>,
    level: f64,
) -> anyhow::Result<Vec<Vec<Observed>>> {
    let points = points(cases);
    let outs: Vec<Vec<Out>> = points
        .iter()
        .map(|&p| {
            seeds
                .clone()
                .into_par_iter()
                .map(|s| measure(p, s, level))
                .collect::<anyhow::Result<Vec<Out>>>()
        })
        .collect::<anyhow::Result<_>>()?;
    // the pooled truths' seeds, measured once per point
    let pools: Vec<Vec<Out>> = points
        .iter()
        .map(|&p| {
            let n = cases
                .iter()
                .filter(|c| c.point == p)
                .map(|c| match c.truth {
                    Truth::Pooled(n) => n,
                    _ => 0,
                })
                .max()
                .unwrap_or(0);
            (POOL_SEEDS..POOL_SEEDS + n)
                .into_par_iter()
                .map(|s| measure(p, s, level))
                .collect::<anyhow::Result<Vec<Out>>>()
        })
        .collect::<anyhow::Result<_>>()?;
    cases
        .iter()
        .map(|c| {
            let at = points.iter().position(|p| *p == c.point).expect("a point");
            let mut seen: Vec<Observed> = outs[at]
                .iter()
                .map(|o| observed(c, o, level))
                .collect::<anyhow::Result<_>>()?;
            if let Truth::Pooled(n) = c.truth {
                let truth = pooled(c, &pools[at][..n as usize], level)?;
                seen.iter_mut().for_each(|o| o.truth = truth);
            }
            Ok(seen)
        })
        .collect()
}

/// `case`'s [`Truth::Pooled`]: its mean estimate over `pool`, the
/// point's figures at seeds [`POOL_SEEDS`] on.
fn pooled(case: &Case, pool: &[Out], level: f64) -> anyhow::Result<f64> {
    let mut sum = 0.0;
    for o in pool {
        sum += observed(case, o, level)?.estimate;
    }
    Ok(sum / pool.len().max(1) as f64)
}

#[cfg(test)]
mod tests;
