//! Reading a table and matching its rows: the CSV reader, the columns
//! that identify a row, and the checks on one row's cells and interval.

use super::{num, Table};
use crate::metrics::columns::Col;
use crate::metrics::Part;
use crate::metrics::TableKind;
use std::collections::BTreeMap;

/// Reads a CSV file into rows.
pub fn read_table(path: &std::path::Path) -> anyhow::Result<Table> {
    let mut r = csv::Reader::from_path(path)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    let headers = r
        .headers()
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?
        .clone();
    if headers.is_empty() {
        return Err(anyhow::anyhow!(
            "{} is empty: no header row",
            path.display()
        ));
    }
    let mut out = Vec::new();
    for rec in r.records() {
        let rec = rec.map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        out.push(
            headers
                .iter()
                .zip(rec.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect(),
        );
    }
    if out.is_empty() {
        return Err(anyhow::anyhow!(
            "{} has a header but no rows",
            path.display()
        ));
    }
    Ok(out)
}

/// Rows by their key (see [`key_columns`]).
pub(super) type ByPoint = BTreeMap<String, BTreeMap<String, String>>;

/// The columns that identify a row of the table whose file suffix is
/// `table` ([`TableKind::key_columns`]; `point` for an unknown one).
pub fn key_columns(table: &str) -> &'static [Col] {
    TableKind::ALL
        .into_iter()
        .find(|t| t.suffix() == table)
        .unwrap_or(TableKind::Results)
        .key_columns()
}

/// A row's key: its key columns' values joined by `/` (None if one is
/// missing).
fn row_key(r: &BTreeMap<String, String>, keys: &[Col]) -> Option<String> {
    let parts: Option<Vec<&str>> = keys
        .iter()
        .map(|k| r.get(k.name()).map(|v| v.as_str()))
        .collect();
    parts.map(|p| p.join("/"))
}

pub(super) fn by_point(tab: &Table, keys: &[Col]) -> ByPoint {
    tab.iter()
        .filter_map(|r| row_key(r, keys).map(|p| (p, r.clone())))
        .collect()
}

/// Points that stand in more than one row of a table.
pub(super) fn duplicates(tab: &Table, keys: &[Col]) -> Vec<String> {
    let mut seen = std::collections::BTreeSet::new();
    let mut dup = std::collections::BTreeSet::new();
    for p in tab.iter().filter_map(|r| row_key(r, keys)) {
        if !seen.insert(p.clone()) {
            dup.insert(p.clone());
        }
    }
    dup.into_iter().collect()
}

/// Whether a cell that should hold a number is blank (no value) or a
/// finite number.
pub(super) fn blank_or_finite(v: &str) -> bool {
    v.is_empty() || v.parse::<f64>().is_ok_and(f64::is_finite)
}

/// Why the interval of `col` in `r` cannot be one, if it cannot: a bound
/// its column cannot hold (a probability's outside [0, 1], a negative one
/// of a figure that is never negative), low above high, or a value outside
/// it. A baseline of [-1e308, 1e308] used to pass every run ("nothing
/// moved", hiding a 50x shift), and one of low > high too.
pub(super) fn bad_interval(col: &str, r: &BTreeMap<String, String>) -> Option<String> {
    let (lo_c, hi_c) = (Part::CiLow.of(col), Part::CiHigh.of(col));
    for c in [col, lo_c.as_str(), hi_c.as_str()] {
        if let Some(x) = num(r, c) {
            if let Err(e) = crate::metrics::row::check_cell(c, &crate::metrics::Value::Num(x)) {
                return Some(e);
            }
        }
    }
    let (x, lo, hi) = (num(r, col)?, num(r, &lo_c)?, num(r, &hi_c)?);
    if lo > hi {
        return Some(format!(
            "interval of {col} is inverted: low {lo} > high {hi}"
        ));
    }
    if x < lo || x > hi {
        return Some(format!(
            "{col} = {x} lies outside its interval [{lo}, {hi}]"
        ));
    }
    None
}
