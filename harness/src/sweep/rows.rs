//! The rows a point writes: its identifying columns, its row and typed side
//! rows ([`PointRows`]), and the run's tables by kind.

use crate::designs;
use crate::metrics::columns::{self, col};
use crate::metrics::{Row, TableKind, Value};
use crate::spec::Point;

/// Identifying columns of a point.
pub(super) fn id_row(p: &Point, built: &designs::Built) -> Row {
    let mut row = Row::default();
    row.push(col::POINT, Value::Int(p.index as u64));
    row.push(col::REPEAT, Value::Int(p.repeat as u64));
    row.push(col::DESIGN, Value::Text(p.design.clone()));
    for (k, &v) in &p.params {
        // whole numbers as counts, so JSON keeps them integers (the CSV
        // prints both alike)
        row.push(format!("target_{k}"), Value::from_param(v));
    }
    for (k, v) in &built.resolved {
        row.push(*k, v.clone());
    }
    row.push(col::GUARANTEED, Value::Bool(built.geometry.guaranteed));
    row
}

/// A measured point: its row and its side tables' rows.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PointRows {
    /// The point's row of the results table.
    pub row: Row,
    /// Its rows of the side tables, each with its table.
    pub tables: Vec<(TableKind, Row)>,
}

impl PointRows {
    /// Checks every number of the row and the side rows ([`Row::check`]),
    /// and that every column is in the registry
    /// ([`crate::metrics::columns`]): a name made at run time that does
    /// not resolve is a misspelling, which would otherwise file the column
    /// in no group and give it no range.
    pub fn check(&self) -> Result<(), String> {
        let rows = std::iter::once(&self.row).chain(self.tables.iter().map(|(_, r)| r));
        for r in rows {
            if let Some((n, _)) = r.0.iter().find(|(n, _)| columns::resolve(n).is_none()) {
                return Err(format!(
                    "column {n} is not in the registry (harness/src/metrics/columns/col.rs)"
                ));
            }
        }
        self.row.check()?;
        self.tables.iter().try_for_each(|(_, r)| r.check())
    }

    /// The side rows as checkpoints and part files store them: each marked
    /// with its table ([`TableKind::tag`]).
    pub fn stored_tables(&self) -> Vec<Row> {
        self.tables
            .iter()
            .map(|(kind, r)| {
                let mut r = r.clone();
                kind.tag(&mut r);
                r
            })
            .collect()
    }

    /// A point read back from its stored form.
    pub fn from_stored(row: Row, stored: Vec<Row>) -> PointRows {
        PointRows {
            row,
            tables: stored.into_iter().map(TableKind::untag).collect(),
        }
    }
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

    /// The rows of `table`, to fill.
    pub fn side_mut(&mut self, table: crate::metrics::TableKind) -> &mut Vec<Row> {
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
