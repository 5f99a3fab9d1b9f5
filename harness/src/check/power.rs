//! How many pooled tests a check makes, and what it can see: the power
//! table `check` prints.

use super::{num, pooled, pooled_shift, row_shift, Table, Thresholds};
use crate::metrics::columns::Col;
use crate::metrics::Part;
use statrs::distribution::{ContinuousCDF, Normal};
use std::collections::BTreeMap;

/// Columns with an interval in a row, and whether it is numeric.
fn interval_columns(r: &BTreeMap<String, String>) -> impl Iterator<Item = &String> {
    r.keys()
        .filter(|c| num(r, &Part::CiLow.of(c)).is_some() && num(r, &Part::CiHigh.of(c)).is_some())
}

/// Number of pooled column tests a results baseline gives: its columns with
/// an interval in at least [`super::MIN_POOLED_ROWS`] rows.
pub fn count_pooled(base: &Table) -> usize {
    let mut rows: BTreeMap<&String, usize> = BTreeMap::new();
    for r in base {
        for c in interval_columns(r) {
            *rows.entry(c).or_default() += 1;
        }
    }
    rows.values().filter(|&&n| n >= pooled::MIN_ROWS).count()
}

/// One line of the power table: for a column of an experiment's results,
/// the smallest relative shift of every row the check detects with 90%
/// power, pooled and in its best single row.
#[derive(Debug, Clone, PartialEq)]
pub struct Power {
    /// Column.
    pub column: String,
    /// Rows with a value and an interval.
    pub rows: usize,
    /// Pooled (Stouffer) detectable shift.
    pub pooled: Option<f64>,
    /// Best single row's detectable shift.
    pub best_row: Option<f64>,
}

/// The power table of a results baseline (the run is assumed to have the
/// baseline's intervals), for the columns in `columns` it has.
pub fn power(base: &Table, t: &Thresholds, columns: &[Col]) -> Vec<Power> {
    let z_ci = Normal::new(0.0, 1.0)
        .expect("standard normal")
        .inverse_cdf(1.0 - (1.0 - t.ci_level) / 2.0);
    columns
        .iter()
        .filter_map(|c| {
            let col = c.name();
            let signal: Vec<f64> = base
                .iter()
                .filter_map(|r| {
                    let x = num(r, col)?;
                    let (lo, hi) = (
                        num(r, &Part::CiLow.of(col))?,
                        num(r, &Part::CiHigh.of(col))?,
                    );
                    // both sides' standard errors, each the baseline's
                    let se = (hi - lo) / (2.0 * z_ci) * std::f64::consts::SQRT_2;
                    Some(if se > 0.0 { x.abs() / se } else { 0.0 })
                })
                .collect();
            (!signal.is_empty()).then(|| Power {
                column: col.to_string(),
                rows: signal.len(),
                pooled: pooled_shift(&signal, t.pooled_alpha(), 0.9),
                best_row: row_shift(&signal, t.z_fail(), 0.9),
            })
        })
        .collect()
}
