//! The time pass's rows: the result row's columns, the timeline's rows
//! and the age buckets', from the pass's tallies.

use super::{Scales, Tally};
use crate::metrics::columns::{col, Col};
use crate::metrics::stats::{binomial_ci, Welford};
use crate::metrics::{Figure, TheoryColumns};
use crate::metrics::{Row, Value};
use crate::spec::{TimeSpec, NS};

/// One row of the timeline table.
pub(super) fn timeline_row(
    t_s: f64,
    rate: f64,
    fp: u64,
    queries: u64,
    theory: f64,
    level: f64,
) -> Row {
    let mut r = Row::default();
    r.num(col::T, t_s);
    r.num(col::RATE, rate);
    r.push(col::QUERIES, Value::Int(queries));
    let ci = binomial_ci(fp, queries, level);
    r.figure(
        Figure::new(col::FPR, fp as f64 / queries as f64, ci)
            .theory(Some(theory), TheoryColumns::Value),
    );
    r
}

/// A measured column with its interval and, where known, its theory.
fn with_theory(row: &mut Row, name: Col, x: f64, ci: (f64, f64), theory: f64) {
    let theory = Some(theory).filter(|t| t.is_finite());
    row.figure(Figure::new(name, x, ci).theory(theory, TheoryColumns::Full));
}

/// The FPR over a set of moments of `queries` queries each: mean,
/// Student-t interval, mean theory. When every moment measured the same
/// rate (no false positive anywhere, say), the Student-t interval has zero
/// width and would decide a verdict from nothing, and over one moment it
/// has none: the interval is then Clopper-Pearson's over the pooled
/// queries, exact for that sample.
pub(super) fn over_moments(m: &[(f64, f64)], queries: u64, level: f64) -> (f64, (f64, f64), f64) {
    let mut w = Welford::default();
    for &(x, _) in m {
        w.add(x);
    }
    let theory = m.iter().map(|&(_, t)| t).sum::<f64>() / m.len() as f64;
    let mut ci = w.ci_within(level, 0.0, 1.0);
    let undefined = !(ci.0.is_finite() && ci.1.is_finite());
    if (ci.0 == ci.1 || undefined) && !m.is_empty() {
        let n = queries * m.len() as u64;
        let x = m
            .iter()
            .map(|&(r, _)| (r * queries as f64).round() as u64)
            .sum();
        ci = binomial_ci(x, n, level);
    }
    (w.mean(), ci, theory)
}

pub(super) fn summary(t: &Tally, sc: &Scales, level: f64) -> Row {
    let mut row = Row::default();
    row.num(col::TIME_WINDOW_S, sc.window / NS);
    row.num(col::ARRIVALS_MEAN_RATE, sc.arrivals.mean_rate());
    row.num(col::ARRIVALS_MAX_RATE, sc.arrivals.max_rate());
    row.push(col::MOMENTS, Value::Int(t.moments.len() as u64));
    let (x, ci, th) = over_moments(&t.moments, t.queries, level);
    with_theory(&mut row, col::FPR_TIME_AVG, x, ci, th);
    let top = t.moments.iter().map(|m| m.1).fold(f64::NAN, f64::max);
    if top.is_finite() {
        let worst: Vec<(f64, f64)> = t
            .moments
            .iter()
            .copied()
            .filter(|m| m.1 >= 0.9 * top)
            .collect();
        let (x, ci, th) = over_moments(&worst, t.queries, level);
        row.push(col::FPR_TIME_PEAK_MOMENTS, Value::Int(worst.len() as u64));
        with_theory(&mut row, col::FPR_TIME_PEAK, x, ci, th);
    }
    for (name, probes, b, th, n) in [
        (
            col::FNR_TIME,
            col::FNR_TIME_PROBES,
            t.fnr,
            t.fnr_theory,
            t.fnr.n,
        ),
        (
            col::P_YES_PAST_WINDOW,
            col::P_YES_PAST_WINDOW_PROBES,
            t.past,
            t.past_theory,
            t.past.n,
        ),
    ] {
        row.push(probes, Value::Int(n));
        if n == 0 {
            // no key of those ages was probed (a horizon of T leaves none
            // past it): no rate to report
            continue;
        }
        let mean = th / n as f64;
        with_theory(&mut row, name, b.rate(), binomial_ci(b.x, b.n, level), mean);
    }
    if t.lines.count() > 0 {
        // measured only: the designs' lines theories are at a steady rate
        let ci = t.lines.ci_within(level, 0.0, f64::INFINITY);
        row.figure(Figure::new(col::LINES_QUERY_NEGATIVE, t.lines.mean(), ci));
    }
    row
}

pub(super) fn age_rows(t: &Tally, sc: &Scales, spec: &TimeSpec, level: f64) -> Vec<Row> {
    let width = sc.horizon / spec.buckets as f64 / NS;
    t.buckets
        .iter()
        .enumerate()
        .filter(|(_, (b, _))| b.n > 0)
        .map(|(i, (b, th))| {
            let mut r = Row::default();
            let (lo, hi) = (i as f64 * width, (i + 1) as f64 * width);
            r.num(col::AGE_LO, lo);
            r.num(col::AGE_HI, hi);
            r.num(col::AGE_MID_OVER_T, (lo + hi) / 2.0 / (sc.window / NS));
            r.push(col::QUERIES, Value::Int(b.n));
            let ci = binomial_ci(b.x, b.n, level);
            let theory = Some(th / b.n as f64);
            r.figure(Figure::new(col::P_YES, b.rate(), ci).theory(theory, TheoryColumns::Value));
            r
        })
        .collect()
}
