//! How many rounds (window of insertions) or moments (window of time) each
//! candidate of `plan --measure` gets, so that the whole run takes about
//! its budget.
//!
//! Each candidate is built once and timed ([`price`]): its insertions and
//! queries at its own size, and for a window of time the time pass's own
//! loop (the clock, the arrival process, the history) and its theory at a
//! moment ([`crate::passes::time::calibrate`]). Its cost at a size is the
//! pass plan's work at that size ([`sweep::plan_built`]: the plan is the one
//! source of what a point does) priced at those figures, read over a grid
//! of sizes, since a time run's arrivals do not grow linearly with its
//! moments. The budget is then shared ([`shares`]): equally, except that a
//! candidate whose least work is above its share gets that least and one
//! whose largest size is below it gets that, the rest going to the others.
//! Wall-clock figures: they size the run; the output says what each
//! candidate was given and took.

use super::super::args::PlanMeasureArgs;
use crate::designs::{self, Params};
use crate::passes::PointPlan;
use crate::plan::Candidate;
use crate::spec::Spec;
use crate::sweep;
use bloomlab_filters::BloomShape;
use std::time::Instant;

/// Keys timed per kind by the count calibration.
const CALIBRATION_OPS: u64 = 50_000;

/// Seconds of the time pass's loop timed per candidate.
const TIME_CALIBRATION_S: f64 = 0.1;

/// Sizes in the grid between the fewest and the most.
const GRID: usize = 40;

/// One candidate, priced.
#[derive(Debug, Clone)]
pub(super) struct Priced {
    /// (size, estimated seconds), sizes ascending.
    pub grid: Vec<(u64, f64)>,
    /// The point's plan at each size of the grid (the run is prepared from
    /// it, without building the design again).
    pub plans: Vec<PointPlan>,
    /// How much slower than the design's usual ns its operations ran (the
    /// larger of insertion and query).
    pub slow: f64,
    /// What was timed, for the progress line.
    pub note: String,
}

impl Priced {
    /// The index in the grid of the largest size whose estimate is within
    /// `secs` (the fewest if none is).
    pub fn within(&self, secs: f64) -> usize {
        self.grid.iter().rposition(|g| g.1 <= secs).unwrap_or(0)
    }

    /// The estimate at the fewest and at the most sizes.
    pub fn range(&self) -> (f64, f64) {
        let first = self.grid.first().map_or(0.0, |g| g.1);
        let last = self.grid.last().map_or(first, |g| g.1);
        (first, last)
    }
}

/// Prices candidate `c` between `lo` and `hi` rounds or moments, for a
/// window of time or not and a window of `window` keys (at the peak rate);
/// `spec_at` gives its one-point spec at a size.
pub(super) fn price(
    c: &Candidate,
    params: &Params,
    m: &PlanMeasureArgs,
    (time, window): (bool, u64),
    (lo, hi): (u64, u64),
    spec_at: &dyn Fn(u64) -> anyhow::Result<Spec>,
) -> anyhow::Result<Priced> {
    let d = designs::lookup(c.design)?;
    let started = Instant::now();
    let mut built = d.build(params, m.seed)?;
    // the run builds it again (with the point's seed)
    let build_s = started.elapsed().as_secs_f64();
    let memory = built.filter.as_ref().map_or(0, |f| f.memory_bits());
    // the pass plans' work at each size, from the fresh build
    let mut work = Vec::new();
    let mut plans = Vec::new();
    for n in sizes(lo, hi) {
        let plan = sweep::plan_built(&spec_at(n)?, &built)?;
        let (ins, q) = plan
            .passes
            .iter()
            .fold((0.0, 0.0), |a, (_, w)| (a.0 + w.inserts, a.1 + w.queries));
        work.push((n, ins, q));
        plans.push(plan);
    }
    let (i0, q0) = d.op_ns();
    let timed = if time {
        let spec = spec_at(lo)?;
        crate::passes::time::calibrate::calibrate(
            &mut built,
            &spec.time,
            m.seed,
            TIME_CALIBRATION_S,
        )
        .ok()
    } else {
        None
    };
    // an operation at the design's own size costs at least its usual ns
    // (`OP_NS`, the steady state at small windows): a fresh filter can be
    // cheaper than a full one (the broom filter's insertions are 10x
    // cheaper empty than at its load)
    let (insert_ns, query_ns, moment_ns, note) = match timed {
        Some(t) => (
            t.arrival_ns.max(i0),
            t.query_ns.max(q0),
            t.moment_ns,
            format!(
                "priced at {:.0} ns an arrival ({:.0} timed), {:.0} ns a query, {:.2} ms a moment",
                t.arrival_ns.max(i0),
                t.arrival_ns,
                t.query_ns.max(q0),
                t.moment_ns * 1e-6
            ),
        ),
        None => {
            let (a, b) = calibration(d, &mut built, m.seed);
            let (i, q) = (i0 * a, q0 * b);
            (
                i,
                q,
                0.0,
                format!("priced at {i:.0} ns an insertion, {q:.0} ns a query"),
            )
        }
    };
    // the speed columns: a plain Bloom filter of the design's memory
    // filled with a window's keys, then the timed operations, each beside
    // the reference's
    let ops = super::SPEED_OPS as f64;
    let (reference, fill) = reference_ns(memory, window);
    let speed = (ops * (insert_ns + 2.0 * query_ns) + 3.0 * ops * reference + fill) * 1e-9;
    let grid = work
        .into_iter()
        .map(|(n, ins, q)| {
            let moments = if time { n as f64 } else { 0.0 };
            let ns = ins * insert_ns + q * query_ns + moments * moment_ns;
            (n, ns * 1e-9 + build_s + speed)
        })
        .collect();
    Ok(Priced {
        grid,
        plans,
        slow: (insert_ns / i0).max(query_ns / q0),
        note,
    })
}

/// The speed columns' reference filter ([`crate::passes::speed::reference`])
/// of `bits` for a window of `w` keys: ns per insertion, timed over the
/// first 50,000 keys (at most `w`), and ns for its fill with the window's
/// keys ([`crate::passes::speed::fill`]), timed on at most 2^24 bits and
/// scaled to `bits`.
fn reference_ns(bits: u64, w: u64) -> (f64, f64) {
    use bloomlab_filters::Filter as _;
    let mut r = crate::passes::speed::reference(bits, w);
    let n = w.clamp(1, 50_000);
    let t0 = Instant::now();
    for i in 0..n {
        r.insert(bloomlab_filters::hash::mix64(i));
    }
    let insert = t0.elapsed().as_nanos() as f64 / n as f64;
    let small = bits.clamp(64, 1 << 24);
    let mut part = bloomlab_filters::bloom::BloomFilter::new(BloomShape {
        bits: small,
        hashes: r.k(),
    })
    .expect("m >= 64 and the reference's k");
    // at the whole reference's density: the window's keys in its share
    let keys = (w as f64 * small as f64 / bits.max(64) as f64) as u64;
    let t0 = Instant::now();
    crate::passes::speed::fill(&mut part, keys);
    let fill = t0.elapsed().as_nanos() as f64 * bits.max(64) as f64 / small as f64;
    (insert, fill)
}

/// `lo`, `hi` and sizes between, about evenly on a log scale.
fn sizes(lo: u64, hi: u64) -> Vec<u64> {
    let mut v: Vec<u64> = (0..=GRID)
        .map(|i| {
            let t = i as f64 / GRID as f64;
            (lo as f64 * (hi as f64 / lo as f64).powf(t)).round() as u64
        })
        .map(|n| n.clamp(lo, hi))
        .collect();
    v.dedup();
    v
}

/// How much slower than its usual ns (`OP_NS`, measured at small windows)
/// the candidate inserts and queries at its own size: `built`, fresh from
/// its build, timed over [`CALIBRATION_OPS`] insertions and as many
/// queries of new keys, each ratio in 1..=100.
fn calibration(
    d: &'static dyn designs::Design,
    built: &mut designs::Built,
    seed: u64,
) -> (f64, f64) {
    use bloomlab_filters::hash::mix64;
    let Some(f) = built.filter.as_mut() else {
        return (1.0, 1.0);
    };
    let keys: Vec<u64> = (0..CALIBRATION_OPS)
        .map(|i| mix64(i ^ seed.rotate_left(17)))
        .collect();
    let t0 = Instant::now();
    for &k in &keys {
        f.insert(k);
    }
    let insert = t0.elapsed().as_nanos() as f64 / keys.len() as f64;
    let t0 = Instant::now();
    let yes = keys.iter().filter(|&&k| f.contains(!k)).count();
    std::hint::black_box(yes);
    let query = t0.elapsed().as_nanos() as f64 / keys.len() as f64;
    let (i0, q0) = d.op_ns();
    (
        (insert / i0).clamp(1.0, 100.0),
        (query / q0).clamp(1.0, 100.0),
    )
}

/// Seconds of one thread for each candidate, given each one's (least,
/// most) and `pool` seconds in all: a common level, each share the level
/// raised to its least and lowered to its most, the level chosen so that
/// the shares fill the pool. When the least costs alone pass the pool, each
/// gets its least.
pub(super) fn shares(range: &[(f64, f64)], pool: f64) -> Vec<f64> {
    let at = |level: f64| -> Vec<f64> {
        range
            .iter()
            .map(|&(lo, hi)| level.min(hi).max(lo))
            .collect()
    };
    let total = |level: f64| at(level).iter().sum::<f64>();
    let top = range.iter().map(|r| r.1).fold(0.0, f64::max);
    if total(0.0) >= pool {
        return at(0.0);
    }
    if total(top) <= pool {
        return at(top);
    }
    let (mut a, mut b) = (0.0, top);
    for _ in 0..100 {
        let mid = 0.5 * (a + b);
        if total(mid) > pool {
            b = mid;
        } else {
            a = mid;
        }
    }
    at(a)
}

/// The run's account, kept as it goes: each candidate's size is chosen
/// when it starts, from the time left and the candidates not yet started,
/// their estimates scaled by how far off those of the finished ones were
/// (their time taken over their estimate, in 0.5..=3), so that an estimate
/// that was short for the first candidates shrinks the later ones.
#[derive(Debug)]
pub(super) struct Ledger {
    /// Seconds from the start at which the budget ends.
    end: f64,
    threads: f64,
    /// Started and not finished: (id, estimated seconds, started at).
    running: Vec<(usize, f64, f64)>,
    /// Estimated and taken seconds of the finished ones.
    done: (f64, f64),
}

impl Ledger {
    /// A budget ending `end` seconds from the start, on `threads`.
    pub fn new(end: f64, threads: usize) -> Ledger {
        Ledger {
            end,
            threads: threads.max(1) as f64,
            running: Vec::new(),
            done: (0.0, 0.0),
        }
    }

    /// Time taken over estimated, so far.
    pub fn ratio(&self) -> f64 {
        if self.done.0 > 0.0 {
            (self.done.1 / self.done.0).clamp(0.5, 3.0)
        } else {
            1.0
        }
    }

    /// The grid index of the first of `pending` (the candidates not yet
    /// started, in the order they will run), started now (`now` seconds
    /// from the start) as `id`.
    pub fn start(&mut self, id: usize, pending: &[&Priced], now: f64) -> usize {
        let r = self.ratio();
        let busy: f64 = self
            .running
            .iter()
            .map(|&(_, est, at)| (est * r - (now - at)).max(0.0))
            .sum();
        let pool = ((self.end - now) * self.threads - busy).max(0.0);
        let range: Vec<(f64, f64)> = pending
            .iter()
            .map(|p| {
                let (lo, hi) = p.range();
                (lo * r, hi * r)
            })
            .collect();
        let share = shares(&range, pool).first().copied().unwrap_or(0.0);
        let first = pending.first().expect("a candidate to start");
        let i = first.within(share / r);
        self.running.push((id, first.grid[i].1, now));
        i
    }

    /// Candidate `id` finished, `took` seconds after it started.
    pub fn finish(&mut self, id: usize, took: f64) {
        if let Some(k) = self.running.iter().position(|r| r.0 == id) {
            let (_, est, _) = self.running.swap_remove(k);
            self.done.0 += est;
            self.done.1 += took;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_fill_the_pool_within_each_range() {
        let range = [(1.0, 100.0), (10.0, 20.0), (50.0, 60.0), (0.5, 2.0)];
        let s = shares(&range, 80.0);
        assert!((s.iter().sum::<f64>() - 80.0).abs() < 1e-6, "{s:?}");
        for (x, r) in s.iter().zip(&range) {
            assert!(*x >= r.0 - 1e-9 && *x <= r.1 + 1e-9);
        }
        // the two that are not at an end share one level
        assert!((s[0] - s[1]).abs() < 1e-6 || s[1] == 20.0);
        assert_eq!(s[2], 50.0);
        assert_eq!(s[3], 2.0);
    }

    #[test]
    fn shares_give_the_least_when_the_pool_is_short_and_the_most_when_long() {
        let range = [(10.0, 20.0), (30.0, 40.0)];
        assert_eq!(shares(&range, 5.0), vec![10.0, 30.0]);
        assert_eq!(shares(&range, 500.0), vec![20.0, 40.0]);
    }

    fn priced(grid: Vec<(u64, f64)>) -> Priced {
        Priced {
            grid,
            plans: vec![],
            slow: 1.0,
            note: String::new(),
        }
    }

    /// A candidate that took twice its estimate halves the next one's
    /// share; one that ran to plan leaves it.
    #[test]
    fn the_ledger_shrinks_later_sizes_when_estimates_were_short() {
        let p = priced((1..=10).map(|n| (n, n as f64)).collect());
        let pending = [&p, &p];
        let mut on_plan = Ledger::new(12.0, 1);
        let i = on_plan.start(0, &pending, 0.0);
        assert_eq!(p.grid[i].0, 6);
        on_plan.finish(0, 6.0);
        assert_eq!(p.grid[on_plan.start(1, &pending[1..], 6.0)].0, 6);
        let mut short = Ledger::new(12.0, 1);
        short.start(0, &pending, 0.0);
        short.finish(0, 9.0);
        // 3 s left at 1.5x: 2 s of estimate
        assert_eq!(short.ratio(), 1.5);
        assert_eq!(p.grid[short.start(1, &pending[1..], 9.0)].0, 2);
    }

    #[test]
    fn sizes_run_from_the_fewest_to_the_most() {
        let v = sizes(20, 2000);
        assert_eq!((v[0], *v.last().unwrap()), (20, 2000));
        assert!(v.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(sizes(2, 2), vec![2]);
    }

    #[test]
    fn within_picks_the_largest_size_that_fits() {
        let p = priced(vec![(2, 1.0), (4, 2.0), (8, 4.0)]);
        assert_eq!(p.within(3.0), 1);
        assert_eq!(p.within(0.5), 0);
        assert_eq!(p.within(10.0), 2);
        assert_eq!(p.range(), (1.0, 4.0));
    }
}
