//! The markdown report of a run: the result table (paper formula, theory and
//! measurement side by side), adoption tables and comparisons at equal
//! measured values.

use super::{columns, fmt_num};
use crate::metrics::columns::{col, Name};
use crate::metrics::Part;
use crate::metrics::{Row, Value};
use crate::spec::Spec;
use std::collections::BTreeMap;

/// Default markdown columns (those present are shown; `x` with `x_ci_low` and
/// `x_ci_high` is rendered as `x [lo, hi]`).
const DEFAULT_TABLE: &[Name] = &[
    Name::Of(col::DESIGN),
    Name::Of(col::K),
    Name::Of(col::L),
    Name::Of(col::G),
    Name::Target(col::FPR),
    Name::Of(col::FPR_PAPER_FORMULA),
    Name::Part(col::FPR, Part::Theory),
    Name::Of(col::FPR),
    Name::Part(col::FPR, Part::TheoryInCi),
    Name::Part(col::FPR_AVG, Part::Theory),
    Name::Of(col::FPR_AVG),
    Name::Of(col::FNR),
    Name::Of(col::BITS_PER_ELEMENT),
    Name::Of(col::EFFICIENCY_VS_BLOOM),
    Name::Part(col::PROBES_NEGATIVE, Part::Theory),
    Name::Of(col::PROBES_NEGATIVE),
    Name::Of(col::NPWS_PEAK_PAPER_FORMULA),
    Name::Part(col::NPWS_PEAK, Part::Theory),
    Name::Of(col::NPWS_PEAK),
    Name::Part(col::NPWS_AVG, Part::Theory),
    Name::Of(col::NPWS_AVG),
    Name::Of(col::INSERT_NS),
    Name::Of(col::QUERY_NS),
];

fn cell(row: &Row, col: &str) -> String {
    let v = match row.get(col) {
        None => return String::new(),
        Some(v) => v,
    };
    let s = match v {
        Value::Num(x) => fmt_num(*x),
        Value::Bool(b) => if *b { "yes" } else { "**no**" }.to_string(),
        other => other.to_string(),
    };
    match (
        row.get_num(Part::CiLow.of(col)),
        row.get_num(Part::CiHigh.of(col)),
    ) {
        (Some(lo), Some(hi)) if !lo.is_nan() => format!("{s} [{}, {}]", fmt_num(lo), fmt_num(hi)),
        _ => s,
    }
}

/// The markdown report of a run; `provenance` (where and when it ran) is a
/// paragraph of its own after the command.
pub fn markdown(spec: &Spec, rows: &[Row], command: &str, level: f64, provenance: &str) -> String {
    let present = columns(rows);
    let wanted: Vec<String> = match &spec.table_columns {
        Some(c) => c.clone(),
        None => DEFAULT_TABLE.iter().map(|n| n.render()).collect(),
    };
    let cols: Vec<&String> = wanted.iter().filter(|c| present.contains(c)).collect();
    let mut md = format!("# {}\n\n", spec.name);
    if !spec.description.is_empty() {
        md += &format!("{}\n\n", spec.description.trim());
    }
    md += &format!(
        "Produced by `{command}` (seed {}). Intervals are {}% (Clopper-Pearson for rates, \
         Student-t for means over rounds). `*_theory` is this repository's derivation (exact fill model); \
         `*_paper_formula` is the paper's own approximation (linear fill gradient, \
         geometric NPWS). Timing columns depend on the machine.\n\n",
        spec.seed,
        level * 100.0
    );
    if !provenance.is_empty() {
        md += &format!("{provenance}\n\n");
    }
    let mut flags: Vec<String> = [
        col::FPR,
        col::PROBES_NEGATIVE,
        col::NPWS_PEAK,
        col::COUNT_RMSE,
        col::DISTINCT_REL_RMSE,
        col::DISTINCT_LB,
        col::ENTROPY_ERROR,
        col::SUSTAINED_FPR,
    ]
    .map(|f| Part::TheoryInCi.of(f))
    .into();
    // the paper's formula, scored against the worst-phase FPR's interval
    flags.insert(1, col::FPR_PAPER_FORMULA_IN_CI.name().into());
    for flag in flags.iter().map(String::as_str) {
        let vals: Vec<bool> = rows
            .iter()
            .filter_map(|r| match r.get(flag) {
                Some(Value::Bool(b)) => Some(*b),
                _ => None,
            })
            .collect();
        if !vals.is_empty() {
            md += &format!(
                "- `{flag}`: {} of {} rows\n",
                vals.iter().filter(|&&b| b).count(),
                vals.len()
            );
        }
    }
    match &spec.adoption {
        None => md += &table(rows, &cols, &[]),
        Some(a) => {
            // one table per group, best (lowest) value of each listed column in bold
            for (key, g) in group_rows(rows, &a.group_by) {
                let g: Vec<Row> = g.into_iter().cloned().collect();
                md += &format!("\n### {key}\n");
                md += &table(&g, &cols, &a.lower_is_better);
            }
        }
    }
    if let Some(e) = &spec.compare_at {
        md += &equal_table(e, rows);
    }
    md
}

/// Rows grouped by their values of `by` ("col = value, ..."), groups in
/// order of first appearance.
fn group_rows<'a>(rows: &'a [Row], by: &[String]) -> Vec<(String, Vec<&'a Row>)> {
    let mut groups: Vec<(String, Vec<&Row>)> = Vec::new();
    for r in rows {
        let key = by
            .iter()
            .map(|c| format!("{c} = {}", cell(r, c)))
            .collect::<Vec<_>>()
            .join(", ");
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(r),
            None => groups.push((key, vec![r])),
        }
    }
    groups
}

/// `y` of a design at `x`, log-linear in `x` between the two points whose `x`
/// bracket it (None outside the design's measured range).
fn interpolate(points: &[(f64, f64)], x: f64) -> Option<f64> {
    let lx = x.ln();
    points.windows(2).find_map(|w| {
        let ((x0, y0), (x1, y1)) = (w[0], w[1]);
        if x0 <= x && x <= x1 {
            let t = if x1 > x0 {
                (lx - x0.ln()) / (x1.ln() - x0.ln())
            } else {
                0.0
            };
            Some(y0 + t * (y1 - y0))
        } else {
            None
        }
    })
}

/// The equal-`x` comparison of [`EqualAt`].
fn equal_table(e: &crate::spec::EqualAt, rows: &[Row]) -> String {
    let mut md = format!(
        "\n## {y} at equal measured {x}\n\nFor each {r} row, every other design's {y} \
         interpolated at the same measured {x} (log-linear between its two bracketing rows; \
         blank outside its measured range). `saving` = 1 - {r} / best other.\n",
        x = e.x,
        y = e.y,
        r = e.reference
    );
    let groups = group_rows(rows, &e.group_by);
    let design = |r: &Row| match r.get(col::DESIGN) {
        Some(Value::Text(t)) => t.clone(),
        _ => String::new(),
    };
    for (key, g) in groups {
        let mut by_design: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
        for r in &g {
            if let (Some(x), Some(y)) = (r.get_num(&e.x), r.get_num(&e.y)) {
                if x > 0.0 && x.is_finite() && y.is_finite() {
                    by_design.entry(design(r)).or_default().push((x, y));
                }
            }
        }
        let Some(mut refs) = by_design.remove(&e.reference) else {
            continue;
        };
        if by_design.is_empty() {
            continue;
        }
        for v in by_design.values_mut() {
            v.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        refs.sort_by(|a, b| a.0.total_cmp(&b.0));
        refs.dedup();
        // groups where no other design brackets any reference row say nothing
        if !refs
            .iter()
            .any(|&(x, _)| by_design.values().any(|p| interpolate(p, x).is_some()))
        {
            continue;
        }
        md += &format!("\n### {key}\n\n| {} | {} |", e.x, e.reference);
        for d in by_design.keys() {
            md += &format!(" {d} |");
        }
        md += " saving |\n|---|---|";
        md += &"---|".repeat(by_design.len() + 1);
        md += "\n";
        for (x, y) in refs {
            md += &format!("| {} | {} |", fmt_num(x), fmt_num(y));
            let mut best = f64::INFINITY;
            for pts in by_design.values() {
                match interpolate(pts, x) {
                    Some(v) => {
                        best = best.min(v);
                        md += &format!(" {} |", fmt_num(v));
                    }
                    None => md += " |",
                }
            }
            if best.is_finite() {
                md += &format!(" {:.1}% |\n", 100.0 * (1.0 - y / best));
            } else {
                md += " |\n";
            }
        }
    }
    md
}

/// A markdown table of `rows`; in each of the `best` columns, the smallest
/// value is set in bold.
fn table(rows: &[Row], cols: &[&String], best: &[String]) -> String {
    let mins: BTreeMap<&str, f64> = best
        .iter()
        .filter_map(|c| {
            let m = rows
                .iter()
                .filter_map(|r| r.get_num(c))
                .filter(|x| !x.is_nan())
                .fold(f64::INFINITY, f64::min);
            m.is_finite().then_some((c.as_str(), m))
        })
        .collect();
    let mut md = String::from("\n| ");
    md += &cols
        .iter()
        .map(|c| c.as_str())
        .collect::<Vec<_>>()
        .join(" | ");
    md += " |\n|";
    md += &"---|".repeat(cols.len());
    md += "\n";
    for r in rows {
        md += "| ";
        md += &cols
            .iter()
            .map(|c| {
                let text = cell(r, c);
                match (mins.get(c.as_str()), r.get_num(c)) {
                    (Some(&m), Some(x)) if x == m => format!("**{text}**"),
                    _ => text,
                }
            })
            .collect::<Vec<_>>()
            .join(" | ");
        md += " |\n";
    }
    md
}
