//! The time pass's rows: the result row's columns, the timeline's rows
//! and the age buckets', from the pass's tallies.

use super::batches::Batched;
use super::{MomentFpr, Scales, Tally};
use crate::metrics::columns::{col, Col};
use crate::metrics::stats::binomial_ci;
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

/// The FPR over a set of moments of `queries` queries each, of `batches`
/// batches: the pooled rate (the mean over the moments), its interval
/// over the batches widened to the pooled queries' Clopper-Pearson one
/// ([`Batched::rate_interval`]), and the mean theory.
pub(super) fn over_moments(
    m: &[MomentFpr],
    queries: u64,
    batches: usize,
    level: f64,
) -> (f64, (f64, f64), f64) {
    let mut b = Batched::new(batches);
    for x in m {
        b.add(x.batch, x.fp as f64, queries as f64);
    }
    let theory = m.iter().map(|x| x.theory).sum::<f64>() / m.len() as f64;
    (b.ratio(), b.rate_interval(level), theory)
}

pub(super) fn summary(t: &Tally, sc: &Scales, level: f64) -> Row {
    let mut row = Row::default();
    row.num(col::TIME_WINDOW_S, sc.window / NS);
    row.num(col::ARRIVALS_MEAN_RATE, sc.arrivals.mean_rate());
    row.num(col::ARRIVALS_MAX_RATE, sc.arrivals.max_rate());
    row.push(col::MOMENTS, Value::Int(t.moments.len() as u64));
    row.push(col::BATCHES, Value::Int(sc.batches as u64));
    let (x, ci, th) = over_moments(&t.moments, t.queries, sc.batches, level);
    with_theory(&mut row, col::FPR_TIME_AVG, x, ci, th);
    let top = t.moments.iter().map(|m| m.theory).fold(f64::NAN, f64::max);
    if top.is_finite() {
        let worst: Vec<MomentFpr> = t
            .moments
            .iter()
            .copied()
            .filter(|m| m.theory >= 0.9 * top)
            .collect();
        let (x, ci, th) = over_moments(&worst, t.queries, sc.batches, level);
        row.push(col::FPR_TIME_PEAK_MOMENTS, Value::Int(worst.len() as u64));
        with_theory(&mut row, col::FPR_TIME_PEAK, x, ci, th);
    }
    for (name, probes, b, th) in [
        (col::FNR_TIME, col::FNR_TIME_PROBES, &t.fnr, t.fnr_theory),
        (
            col::P_YES_PAST_WINDOW,
            col::P_YES_PAST_WINDOW_PROBES,
            &t.past,
            t.past_theory,
        ),
    ] {
        let n = b.n();
        row.push(probes, Value::Int(n as u64));
        if n == 0.0 {
            // no key of those ages was probed (a horizon of T leaves none
            // past it): no rate to report
            continue;
        }
        with_theory(&mut row, name, b.ratio(), b.rate_interval(level), th / n);
    }
    if t.lines.n() > 0.0 {
        // measured only: the designs' lines theories are at a steady rate.
        // Batches that all read the same lines give a zero-width interval
        // (no verdict); one batch gives none.
        let x = t.lines.ratio();
        let ci = t
            .lines
            .over_batches(level, 0.0, f64::INFINITY)
            .unwrap_or(if sc.batches > 1 {
                (x, x)
            } else {
                (f64::NAN, f64::NAN)
            });
        row.figure(Figure::new(col::LINES_QUERY_NEGATIVE, x, ci));
    }
    row
}

pub(super) fn age_rows(t: &Tally, sc: &Scales, spec: &TimeSpec, level: f64) -> Vec<Row> {
    let width = sc.horizon / spec.buckets as f64 / NS;
    t.buckets
        .iter()
        .enumerate()
        .filter(|(_, (b, _))| b.n() > 0.0)
        .map(|(i, (b, th))| {
            let mut r = Row::default();
            let (lo, hi) = (i as f64 * width, (i + 1) as f64 * width);
            r.num(col::AGE_LO, lo);
            r.num(col::AGE_HI, hi);
            r.num(col::AGE_MID_OVER_T, (lo + hi) / 2.0 / (sc.window / NS));
            r.push(col::QUERIES, Value::Int(b.n() as u64));
            let ci = b.rate_interval(level);
            let theory = Some(th / b.n());
            r.figure(Figure::new(col::P_YES, b.ratio(), ci).theory(theory, TheoryColumns::Value));
            r
        })
        .collect()
}
