//! Regression checks: a fresh run of an experiment against its committed
//! baseline CSV, row by row (rows are matched by their `point` index).
//!
//! * **Statistical figures** — every column `x` that has `x_ci_low` and
//!   `x_ci_high` (FPR, FNR, NPWS, probes, zero fraction, ...): the standard
//!   error of each side is recovered from its interval (half-width / z at the
//!   interval's level), and the difference is tested with
//!   z = (new - base) / sqrt(se_new² + se_base²). The significance is
//!   `alpha` for the whole check, split over all comparisons (Bonferroni), so
//!   noise from a changed random stream does not fail CI while a real change
//!   of the figure does. Runs are deterministic: unchanged code reproduces
//!   the baseline exactly.
//! * **Exact figures** — `memory_bits` and the resolved parameters (`k`, `l`,
//!   `g`, `m`, `window`, `slack`, ...): must be equal; `*_theory` columns
//!   must agree to 1e-9 (a formula that drifts is caught even when the
//!   measurement still agrees with it).
//! * **Malformed** — a measured figure or bound that is not a finite
//!   number, a value blank on one side only, a column on one side only, a
//!   point twice or missing: failures, since they cannot be compared.
//! * **Speed** — `*_ns` columns as ratios to the run's median of the same
//!   column (machines differ; ratios within one run move much less), averaged
//!   per design (geometric mean over its rows): a regression when a design's
//!   ratio grows by more than `speed_tolerance` against the baseline's.

pub mod html;
mod pooled;
mod power;
mod table;

use crate::metrics::columns::{self, col, Col, Compare, Resolved};
use crate::metrics::Part;
pub use pooled::{pooled_shift, row_shift, PooledResult, MIN_ROWS as MIN_POOLED_ROWS};
pub use power::{count_pooled, power, Power};
use statrs::distribution::{ContinuousCDF, Normal};
use std::collections::BTreeMap;
use table::{bad_interval, blank_or_finite, by_point, duplicates, ByPoint};
pub use table::{key_columns, read_table};

/// One parsed CSV: rows of column -> text.
pub type Table = Vec<BTreeMap<String, String>>;

/// Thresholds of a check.
#[derive(Debug, Clone, Copy)]
pub struct Thresholds {
    /// Family-wise significance of the statistical comparisons.
    pub alpha: f64,
    /// Largest acceptable growth of a speed ratio.
    pub speed_tolerance: f64,
    /// Confidence level of the intervals in the CSVs.
    pub ci_level: f64,
    /// Per-row statistical comparisons in the whole check (they share half
    /// of `alpha`, Bonferroni).
    pub tests: usize,
    /// Pooled column tests in the whole check (they share the other half).
    pub pooled_tests: usize,
}

impl Thresholds {
    /// The |z| a row's difference must pass to fail.
    pub fn z_fail(&self) -> f64 {
        Normal::new(0.0, 1.0)
            .expect("standard normal")
            .inverse_cdf(1.0 - self.alpha / 2.0 / (2.0 * self.tests.max(1) as f64))
    }

    /// The significance of one pooled column test.
    pub fn pooled_alpha(&self) -> f64 {
        self.alpha / 2.0 / self.pooled_tests.max(1) as f64
    }
}

/// Something that moved between baseline and run.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// Experiment name.
    pub experiment: String,
    /// Point index.
    pub point: String,
    /// Column.
    pub column: String,
    /// Baseline value.
    pub base: String,
    /// New value.
    pub new: String,
    /// z score, ratio change or "exact".
    pub measure: String,
    /// Whether it fails the check.
    pub regression: bool,
}

/// Whether `check` compares a column exactly: a size or a parameter the
/// design resolved ([`Compare::Exact`] in the registry).
fn exact(col: &str) -> bool {
    columns::lookup(col).is_some_and(|c| c.compare == Compare::Exact)
}

/// Whether a column is a theory computed from the window a run actually
/// saw (SWAMP's expected errors given the window's frequencies,
/// [`Compare::StreamTheory`]): exact for an unchanged stream, but it moves
/// with it, so it is compared within [`STREAM_TOLERANCE`] rather than to
/// 1e-9.
pub fn stream_theory(col: &str) -> bool {
    matches!(columns::resolve(col), Some(Resolved::Part(c, Part::Theory))
        if c.compare == Compare::StreamTheory)
}

/// Relative tolerance of the figures that depend on the stream but carry no
/// interval: the final `memory_bits` of a filter whose memory is a
/// measurement ([`crate::designs::Capabilities::stream_memory`]: SWAMP's
/// table, the broom filter's adaptivity bits) and [`stream_theory`]. A
/// change of every spec's seed moved the final memory by at most 0.06% and
/// these theories by at most 0.92% (`count_rmse_theory`). (A summary's
/// memory is a mean over rounds and carries an interval: tested by z.)
pub const STREAM_TOLERANCE: f64 = 0.02;

/// Whether a row's design keeps memory that depends on the stream.
fn stream_memory(row: &BTreeMap<String, String>) -> bool {
    row.get(col::DESIGN.name())
        .and_then(|d| crate::designs::lookup(d).ok())
        .is_some_and(|d| d.capabilities().stream_memory)
}

/// Whether two cells agree within a relative tolerance.
fn within(a: &str, b: &str, tol: f64) -> bool {
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => (x - y).abs() <= tol * x.abs().max(y.abs()),
        _ => a == b,
    }
}

fn num(row: &BTreeMap<String, String>, c: &str) -> Option<f64> {
    row.get(c).and_then(|v| v.parse::<f64>().ok())
}

/// Number of statistical comparisons in a baseline (for the Bonferroni split).
pub fn count_tests(base: &Table) -> usize {
    base.iter()
        .map(|r| {
            r.keys()
                .filter(|c| {
                    r.contains_key(&Part::CiLow.of(c)) && num(r, &Part::CiLow.of(c)).is_some()
                })
                .count()
        })
        .sum()
}

/// Collects the findings of one experiment.
struct Checker<'a> {
    experiment: &'a str,
    /// z of the CSVs' intervals, and the z a difference must exceed to fail.
    z_ci: f64,
    z_fail: f64,
    speed_tolerance: f64,
    /// Each column's row z-scores, for the pooled tests (None: not pooled).
    pooled: Option<BTreeMap<String, Vec<f64>>>,
    out: Vec<Finding>,
}

impl Checker<'_> {
    fn finding(
        &mut self,
        point: &str,
        column: &str,
        base: String,
        new: String,
        measure: String,
        regression: bool,
    ) {
        self.out.push(Finding {
            experiment: self.experiment.into(),
            point: point.into(),
            column: column.into(),
            base,
            new,
            measure,
            regression,
        })
    }

    /// One column of one row: exactly, to 1e-9 (theory), or by a z test.
    fn column(
        &mut self,
        point: &str,
        col: &str,
        br: &BTreeMap<String, String>,
        nr: &BTreeMap<String, String>,
    ) {
        let bv = &br[col];
        let nv = nr.get(col).cloned().unwrap_or_default();
        let has_interval = br.contains_key(&Part::CiLow.of(col));
        let streamed = !has_interval
            && ((col == col::MEMORY_BITS.name() && stream_memory(br)) || stream_theory(col));
        if streamed {
            if !within(bv, &nv, STREAM_TOLERANCE) {
                let what = format!("beyond {}%", 100.0 * STREAM_TOLERANCE);
                self.finding(point, col, bv.clone(), nv, what, true);
            }
        } else if exact(col) && !has_interval {
            if *bv != nv {
                self.finding(point, col, bv.clone(), nv, "exact".into(), true);
            }
        } else if col.ends_with(Part::Theory.suffix()) {
            // a formula that changed is a finding in itself
            if !within(bv, &nv, 1e-9) {
                self.finding(point, col, bv.clone(), nv, "theory".into(), true);
            }
        } else if col.ends_with("_ns") {
            // compared per design, in speed()
        } else if let Some(bad) = self.malformed(col, br, nr) {
            self.finding(point, col, bv.clone(), nv, bad, true);
        } else if let Some(z) = self.z_score(col, br, nr) {
            if let Some(p) = self.pooled.as_mut().filter(|_| z.is_finite()) {
                p.entry(col.to_string()).or_default().push(z);
            }
            if z.abs() > 3.0 {
                let fails = z.abs() > self.z_fail;
                self.finding(point, col, bv.clone(), nv, format!("z {z:.1}"), fails);
            }
        }
    }

    /// For a column with an interval on either side: why its cells cannot
    /// be compared (a non-numeric or non-finite value or bound, or a value
    /// on one side only), if they cannot.
    fn malformed(
        &self,
        col: &str,
        br: &BTreeMap<String, String>,
        nr: &BTreeMap<String, String>,
    ) -> Option<String> {
        let (lo, hi) = (Part::CiLow.of(col), Part::CiHigh.of(col));
        if !(br.contains_key(&lo) || nr.contains_key(&lo)) {
            return None;
        }
        for (side, r) in [("baseline", br), ("run", nr)] {
            for c in [col, lo.as_str(), hi.as_str()] {
                let v = r.get(c).map_or("", String::as_str);
                if !blank_or_finite(v) {
                    return Some(format!("{side} {c} = {v:?} is not a finite number"));
                }
            }
        }
        for (side, r) in [("baseline", br), ("run", nr)] {
            if let Some(bad) = bad_interval(col, r) {
                return Some(format!("{side} {bad}"));
            }
        }
        let blank = |r: &BTreeMap<String, String>| r.get(col).is_none_or(|v| v.is_empty());
        match (blank(br), blank(nr)) {
            (true, false) => Some("blank in the baseline only".into()),
            (false, true) => Some("blank in the run only".into()),
            _ => None,
        }
    }

    /// The difference of a column with an interval, over the standard error
    /// recovered from both intervals; None for a column without one.
    fn z_score(
        &self,
        col: &str,
        br: &BTreeMap<String, String>,
        nr: &BTreeMap<String, String>,
    ) -> Option<f64> {
        let (lo, hi) = (
            num(br, &Part::CiLow.of(col))?,
            num(br, &Part::CiHigh.of(col))?,
        );
        let (x0, x1) = (num(br, col)?, num(nr, col)?);
        let (lo1, hi1) = (
            num(nr, &Part::CiLow.of(col)).unwrap_or(x1),
            num(nr, &Part::CiHigh.of(col)).unwrap_or(x1),
        );
        let z_ci = self.z_ci;
        let se = ((hi - lo) / (2.0 * z_ci)).powi(2) + ((hi1 - lo1) / (2.0 * z_ci)).powi(2);
        Some(if se > 0.0 {
            (x1 - x0) / se.sqrt()
        } else if x1 == x0 {
            0.0
        } else {
            f64::INFINITY
        })
    }

    /// Speed: each row's ns/op over the run's median for that column (robust
    /// to one noisy reference), then per design the geometric mean over its
    /// rows of (new ratio / baseline ratio): a design that got slower moves
    /// all its rows, noise moves single rows.
    fn speed(&mut self, b: &ByPoint, n: &ByPoint) {
        let median = |m: &ByPoint, col: &str| {
            let mut v: Vec<f64> = m.values().filter_map(|r| num(r, col)).collect();
            v.sort_by(f64::total_cmp);
            v.get(v.len() / 2).copied()
        };
        let ns_cols: std::collections::BTreeSet<String> = b
            .values()
            .flat_map(|r| r.keys())
            // tails (p99, p99.9, max of single timed operations) move with
            // whatever else the machine does: reported, not compared
            .filter(|c| c.ends_with("_ns") && !c.contains("_p99") && !c.contains("_max"))
            .cloned()
            .collect();
        for col in &ns_cols {
            let (Some(mb), Some(mn)) = (median(b, col), median(n, col)) else {
                continue;
            };
            let mut per_design: BTreeMap<String, (f64, usize, Vec<String>)> = BTreeMap::new();
            for (point, br) in b {
                let Some(nr) = n.get(point) else { continue };
                let (Some(x0), Some(x1)) = (num(br, col), num(nr, col)) else {
                    continue;
                };
                let change = (x1 / mn) / (x0 / mb);
                let d = br.get(col::DESIGN.name()).cloned().unwrap_or_default();
                let e = per_design.entry(d).or_insert((0.0, 0, Vec::new()));
                e.0 += change.ln();
                e.1 += 1;
                e.2.push(point.clone());
            }
            for (design, (sum, count, points)) in per_design {
                let change = (sum / count as f64).exp();
                let tol = self.speed_tolerance;
                if change > tol.sqrt() || change < 1.0 / tol.sqrt() {
                    let (rows, ratio) = (format!("{count} rows"), format!("ratio {change:.2}"));
                    self.finding(&points.join(" "), col, design, rows, ratio, change > tol);
                }
            }
        }
    }
}

/// Compares one table of an experiment's run with its baseline, rows
/// matched by `keys` ([`key_columns`]): row by row, and for a results table
/// (one row per point) each column pooled over its rows.
pub fn compare(
    experiment: &str,
    (base, new): (&Table, &Table),
    keys: &[Col],
    t: &Thresholds,
) -> Vec<Finding> {
    let normal = Normal::new(0.0, 1.0).expect("standard normal");
    let mut c = Checker {
        experiment,
        z_ci: normal.inverse_cdf(1.0 - (1.0 - t.ci_level) / 2.0),
        z_fail: t.z_fail(),
        speed_tolerance: t.speed_tolerance,
        pooled: (keys == key_columns("")).then(BTreeMap::new),
        out: Vec::new(),
    };
    for (side, tab) in [("baseline", base), ("run", new)] {
        for point in duplicates(tab, keys) {
            let what = format!("in the {side} twice");
            c.finding(&point, "(row)", side.into(), "duplicate".into(), what, true);
        }
    }
    let (b, n) = (by_point(base, keys), by_point(new, keys));
    for (point, br) in &b {
        let Some(nr) = n.get(point) else {
            let (p, m) = ("present".into(), "missing".into());
            c.finding(point, "(row)", p, m, "exact".into(), true);
            continue;
        };
        // a column on one side only cannot be compared: a failure
        for col in br.keys().filter(|k| !nr.contains_key(*k)) {
            let (p, m) = ("present".into(), "missing".into());
            c.finding(point, col, p, m, "column".into(), true);
        }
        for col in nr.keys().filter(|k| !br.contains_key(*k)) {
            let (m, p) = ("missing".into(), "present".into());
            c.finding(point, col, m, p, "column".into(), true);
        }
        for col in br.keys().filter(|k| nr.contains_key(*k)) {
            c.column(point, col, br, nr);
        }
    }
    c.speed(&b, &n);
    for (col, z) in c.pooled.take().unwrap_or_default() {
        if z.len() < pooled::MIN_ROWS {
            continue;
        }
        let r = PooledResult::of(&z);
        if r.moved() {
            c.finding(
                "(all rows)",
                &col,
                format!("{} rows", r.rows),
                format!("{}/{} up", r.up, r.moved),
                format!("pooled z {:.1}, sign p {:.1e}", r.z, r.p_sign),
                r.fails(t.pooled_alpha()),
            );
        }
    }
    for point in n.keys().filter(|p| !b.contains_key(*p)) {
        let (m, p) = ("missing".into(), "present".into());
        c.finding(point, "(row)", m, p, "exact".into(), true);
    }
    c.out
}

#[cfg(test)]
mod tests;
