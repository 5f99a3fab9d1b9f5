//! A measured figure and the columns it travels in: the one place that
//! spells the suffix protocol of the CSVs.
//!
//! A figure `x` is written as `x`, `x_ci_low`, `x_ci_high` (its interval),
//! then, where its design has a theory for it, `x_theory`, `x_ratio`
//! (measured over theory, for a theory that is not 0) and `x_theory_in_ci`
//! (whether the interval holds the theory, where it can decide). Passes
//! write figures through [`Row::figure`]; readers (`check`, the report,
//! `measure`'s output) take a column's parts apart with [`Part`].

use super::columns::Col;
use super::row::{Row, Value};
use super::stats::in_interval;

/// The parts of a figure's columns, by their suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// `_ci_low`: the interval's low end.
    CiLow,
    /// `_ci_high`: the interval's high end.
    CiHigh,
    /// `_theory`: the design's theory for the figure.
    Theory,
    /// `_ratio`: measured over theory.
    Ratio,
    /// `_theory_in_ci`: whether the interval holds the theory.
    TheoryInCi,
}

impl Part {
    /// Every part, in the order a figure writes them.
    pub const ALL: [Part; 5] = [
        Part::CiLow,
        Part::CiHigh,
        Part::Theory,
        Part::Ratio,
        Part::TheoryInCi,
    ];

    /// The suffix the part's column ends in.
    pub const fn suffix(self) -> &'static str {
        match self {
            Part::CiLow => "_ci_low",
            Part::CiHigh => "_ci_high",
            Part::Theory => "_theory",
            Part::Ratio => "_ratio",
            Part::TheoryInCi => "_theory_in_ci",
        }
    }

    /// The column of this part of the figure `name`.
    pub fn of(self, name: impl AsRef<str>) -> String {
        format!("{}{}", name.as_ref(), self.suffix())
    }

    /// The figure whose part `column` is, if it is this part's column.
    pub fn base(self, column: &str) -> Option<&str> {
        column.strip_suffix(self.suffix())
    }
}

/// Which of a theory's columns a figure writes beside its interval (the
/// tables differ, and their columns stay as they were).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TheoryColumns {
    /// `_theory`, `_ratio` and `_theory_in_ci`: the result rows of the
    /// membership and time passes.
    Full,
    /// `_theory` and `_theory_in_ci`: the summaries' errors.
    Verdict,
    /// `_theory` alone: the side tables (profile buckets, checkpoints).
    Value,
}

/// A measured figure: its value, its interval and, where known, its theory.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figure {
    /// The figure's column.
    pub name: Col,
    /// The measured value.
    pub value: f64,
    /// Its interval at the run's level.
    pub ci: (f64, f64),
    /// The design's theory for it, if it has one, and which of its columns
    /// to write.
    pub theory: Option<(f64, TheoryColumns)>,
}

impl Figure {
    /// A figure without a theory.
    pub fn new(name: Col, value: f64, ci: (f64, f64)) -> Figure {
        Figure {
            name,
            value,
            ci,
            theory: None,
        }
    }

    /// The same figure with a theory (none when `theory` is `None`).
    pub fn theory(self, theory: Option<f64>, columns: TheoryColumns) -> Figure {
        Figure {
            theory: theory.map(|t| (t, columns)),
            ..self
        }
    }
}

impl Row {
    /// Writes `f` as its columns, in the order of [`Part::ALL`] (see the
    /// module docs); `_ratio` only for a theory that is not 0,
    /// `_theory_in_ci` only where the interval decides.
    pub fn figure(&mut self, f: Figure) {
        self.num(f.name, f.value);
        self.num(Part::CiLow.of(f.name), f.ci.0);
        self.num(Part::CiHigh.of(f.name), f.ci.1);
        let Some((t, columns)) = f.theory else {
            return;
        };
        self.num(Part::Theory.of(f.name), t);
        if columns == TheoryColumns::Full && t != 0.0 {
            self.num(Part::Ratio.of(f.name), f.value / t);
        }
        if columns != TheoryColumns::Value {
            if let Some(inside) = in_interval(t, f.ci) {
                self.push(Part::TheoryInCi.of(f.name), Value::Bool(inside));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::columns::col;

    #[test]
    fn a_figure_writes_its_columns_in_order() {
        let mut r = Row::default();
        r.figure(
            Figure::new(col::FPR, 0.01, (0.008, 0.012)).theory(Some(0.011), TheoryColumns::Full),
        );
        let names: Vec<&str> = r.0.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "fpr",
                "fpr_ci_low",
                "fpr_ci_high",
                "fpr_theory",
                "fpr_ratio",
                "fpr_theory_in_ci"
            ]
        );
        assert_eq!(r.get("fpr_theory_in_ci"), Some(&Value::Bool(true)));
        let mut r = Row::default();
        r.figure(Figure::new(col::X, 1.0, (0.5, 2.0)).theory(Some(0.0), TheoryColumns::Verdict));
        assert!(r.get("x_ratio").is_none() && r.get("x_theory_in_ci").is_some());
        for p in Part::ALL {
            assert_eq!(p.base(&p.of("fnr_time")), Some("fnr_time"));
        }
    }
}
