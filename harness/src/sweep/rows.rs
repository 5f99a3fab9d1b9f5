//! The rows a point writes: its identifying columns, and the age-profile
//! and convergence rows built from the measurement passes' accumulators.

use crate::designs;
use crate::metrics::{self, ProfileRow, Row, Value};
use crate::spec::Point;

/// Identifying columns of a point.
pub(super) fn id_row(p: &Point, built: &designs::Built) -> Row {
    let mut row = Row::default();
    row.push("point", Value::Int(p.index as u64));
    row.push("repeat", Value::Int(p.repeat as u64));
    row.push("design", Value::Text(p.design.clone()));
    for (k, &v) in &p.params {
        // whole numbers as counts, so JSON keeps them integers (the CSV
        // prints both alike)
        row.push(format!("target_{k}"), Value::from_param(v));
    }
    for (k, v) in &built.resolved {
        row.push(*k, v.clone());
    }
    row.push("guaranteed", Value::Bool(built.geometry.guaranteed));
    row
}

/// A point's identifying columns without `repeat` (the extra tables keep
/// one row per point and key).
pub(super) fn id_without_repeat(id: &Row) -> Row {
    Row(id
        .0
        .iter()
        .filter(|(n, _)| n != "repeat")
        .cloned()
        .collect())
}

pub(super) fn profile_row(id: &Row, window: f64, pr: &ProfileRow, level: f64) -> Row {
    let mut row = id_without_repeat(id);
    // the wider of the binomial interval over all queries and the Student-t
    // interval over rounds: the queries of one round share a filter state,
    // so the binomial interval alone misses the spread between states (a
    // changed seed moved buckets by 15 of its standard errors), and the
    // rounds alone give a zero-width interval where every round said yes
    let (blo, bhi) = metrics::binomial_ci(pr.yes, pr.n, level);
    let (tlo, thi) = if pr.rounds.count() >= 2 {
        pr.rounds.ci_within(level, 0.0, 1.0)
    } else {
        (blo, bhi)
    };
    let (lo, hi) = (blo.min(tlo), bhi.max(thi));
    row.push("phase", Value::Text(pr.phase.to_string()));
    row.push("age_lo", Value::Int(pr.age_lo));
    row.push("age_hi", Value::Int(pr.age_hi));
    row.num("age_mid", (pr.age_lo + pr.age_hi) as f64 / 2.0);
    row.num(
        "age_mid_over_w",
        (pr.age_lo + pr.age_hi) as f64 / 2.0 / window,
    );
    row.push("queries", Value::Int(pr.n));
    row.num(
        "p_yes",
        if pr.n > 0 {
            pr.yes as f64 / pr.n as f64
        } else {
            f64::NAN
        },
    );
    row.num("p_yes_ci_low", lo);
    row.num("p_yes_ci_high", hi);
    row.num("p_yes_theory", pr.theory);
    row
}

pub(super) fn convergence_row(id: &Row, c: &metrics::ConvergenceRow, level: f64) -> Row {
    let mut row = id_without_repeat(id);
    metrics::TableKind::Convergence.tag(&mut row);
    row.push("t", Value::Int(c.t));
    row.push("runs", Value::Int(c.zeros.count()));
    let (lo, hi) = c.zeros.ci_within(level, 0.0, 1.0);
    row.num("zero_fraction", c.zeros.mean());
    row.num("zero_fraction_ci_low", lo);
    row.num("zero_fraction_ci_high", hi);
    row.num("zero_fraction_theory", c.zero_theory);
    let (lo, hi) = metrics::binomial_ci(c.fp, c.n, level);
    row.num(
        "fpr",
        if c.n == 0 {
            f64::NAN
        } else {
            c.fp as f64 / c.n as f64
        },
    );
    row.num("fpr_ci_low", lo);
    row.num("fpr_ci_high", hi);
    row.num("fpr_theory", c.fpr_theory);
    row
}

/// Checks every number of a point's row and side rows
/// ([`Row::check`]).
pub fn check_rows(row: &Row, extra: &[Row]) -> Result<(), String> {
    row.check()?;
    extra.iter().try_for_each(Row::check)
}

impl super::Outcome {
    /// The rows of `table`.
    pub fn side(&self, table: crate::metrics::TableKind) -> &Vec<Row> {
        use crate::metrics::TableKind as T;
        match table {
            T::Results => &self.rows,
            T::Profile => &self.profile,
            T::Convergence => &self.convergence,
            T::Timeline => &self.timeline,
            T::AgeTime => &self.age_time,
        }
    }

    pub(super) fn side_mut(&mut self, table: crate::metrics::TableKind) -> &mut Vec<Row> {
        use crate::metrics::TableKind as T;
        match table {
            T::Results => &mut self.rows,
            T::Profile => &mut self.profile,
            T::Convergence => &mut self.convergence,
            T::Timeline => &mut self.timeline,
            T::AgeTime => &mut self.age_time,
        }
    }
}
