//! Any two result columns, one line per series.

use super::figure::{Draw, Figure, Panel, Point, Reference, Series};
use super::{ci, finite, kept, NO_ROWS};
use crate::metrics::columns::axis_label;
use crate::metrics::columns::col;
use crate::metrics::Part;
use crate::metrics::Row;
use crate::spec::PlotSpec;
use std::collections::BTreeMap;

/// Any two columns of the result rows, one series per value of the series
/// column. Intervals (`<y>_ci_low`, `<x>_ci_low`, ...) become bars; where
/// the rows carry `<y>_theory`, the theory is drawn as lines, the
/// measurements as markers, and a measured / theory panel follows.
pub(super) fn xy(p: &PlotSpec, rows: &[Row]) -> anyhow::Result<Figure> {
    let (xc, yc) = (p.x.as_deref().unwrap_or(""), p.y.as_deref().unwrap_or(""));
    let log_y = p.log_y.unwrap_or(false);
    let (groups, reference, absent) = series(p, rows, xc, yc);
    if groups.is_empty() {
        return Err(anyhow::anyhow!(
            "plot xy: {NO_ROWS} with {xc} and {yc} (after the filter)"
        ));
    }
    let (xl, yl) = (axis_label(xc), axis_label(yc));
    let mut panel = Panel::new(xl.clone(), yl.clone(), p.log_x, log_y);
    panel.y_from_zero = !log_y;
    panel.series = groups
        .into_iter()
        .map(|(name, points)| {
            let theory = points.iter().any(|q| q.theory.is_some());
            Series {
                name,
                points,
                draw: if theory { Draw::Marks } else { Draw::Joined },
            }
        })
        .collect();
    let (x0, x1) = panel.x_span();
    match p.bound.as_deref() {
        Some("info_bound") => panel.references.push(Reference {
            name: "log2(1/FPR): information-theoretic bound".into(),
            points: (0..=50)
                .map(|i| {
                    let v = x0 * (x1 / x0).powf(i as f64 / 50.0);
                    (v, (1.0 / v).log2())
                })
                .collect(),
            dashed: false,
        }),
        Some(other) => {
            return Err(anyhow::anyhow!(
                "plot xy: unknown bound {other:?} (known: info_bound)"
            ))
        }
        None => {}
    }
    if let Some(rc) = p.reference.as_deref() {
        let mut pts: Vec<(f64, f64)> = reference
            .into_values()
            .map(|(x, sum, k)| (x, sum / k as f64))
            .filter(|&(x, y)| !((p.log_x && x <= 0.0) || (log_y && y <= 0.0)))
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        panel.references.push(Reference {
            name: axis_label(rc),
            points: pts,
            dashed: true,
        });
    }
    let title = p
        .title
        .clone()
        .unwrap_or_else(|| format!("{yl} against {xl}"));
    let mut fig = Figure::new(title, panel);
    fig.absent = absent;
    Ok(fig.with_ratio(0, "measured"))
}

/// The rows kept by the filter, as points per series, the reference
/// column's sum and count per x, and the series of the kept rows that have
/// no point on these axes (never dropped silently: warned of, and named in
/// the legend).
#[allow(clippy::type_complexity)]
fn series(
    p: &PlotSpec,
    rows: &[Row],
    xc: &str,
    yc: &str,
) -> (
    BTreeMap<String, Vec<Point>>,
    BTreeMap<u64, (f64, f64, usize)>,
    Vec<String>,
) {
    let series_col = p.series.as_deref().unwrap_or(col::DESIGN.name());
    let theory_col = Part::Theory.of(yc);
    let mut groups: BTreeMap<String, Vec<Point>> = BTreeMap::new();
    let mut reference: BTreeMap<u64, (f64, f64, usize)> = BTreeMap::new();
    let mut dropped = 0usize;
    let mut seen = std::collections::BTreeSet::new();
    for r in kept(p, rows) {
        let value = r.get(series_col).map(|v| v.to_string()).unwrap_or_default();
        // a number says nothing alone: "fpr = 0.01", not "0.01"
        let name = match series_col {
            "design" | "series" => value,
            c => format!("{} = {value}", c.strip_prefix("target_").unwrap_or(c)),
        };
        seen.insert(name.clone());
        if let (Some(rc), Some(x)) = (p.reference.as_deref(), finite(r, xc)) {
            if let Some(y) = finite(r, rc) {
                let e = reference.entry(x.to_bits()).or_insert((x, 0.0, 0));
                e.1 += y;
                e.2 += 1;
            }
        }
        let (Some(x), Some(y)) = (finite(r, xc), finite(r, yc)) else {
            let infinite = |c: &str| r.get_num(c).is_some_and(|v| v.is_infinite());
            if infinite(xc) || infinite(yc) {
                dropped += 1;
            }
            continue;
        };
        if p.log_x && x <= 0.0 {
            continue;
        }
        groups.entry(name).or_default().push(Point {
            y_ci: ci(r, yc),
            x_ci: ci(r, xc),
            theory: finite(r, &theory_col),
            ..Point::at(x, y)
        });
    }
    if dropped > 0 {
        eprintln!(
            "warning: plot xy: {dropped} row(s) with an infinite {xc} or {yc} left out of the chart"
        );
    }
    // a series whose every y is 0 on a log axis has nothing to place
    if p.log_y.unwrap_or(false) {
        groups.retain(|_, pts| pts.iter().any(|q| q.y > 0.0));
    }
    let absent: Vec<String> = seen
        .into_iter()
        .filter(|s| !groups.contains_key(s))
        .collect();
    if !absent.is_empty() {
        eprintln!(
            "warning: plot xy: no finite {xc}, {yc} point{} for {}: named in the legend only",
            if p.log_x || p.log_y.unwrap_or(false) {
                " (positive on the log axes)"
            } else {
                ""
            },
            absent.join(", ")
        );
    }
    (groups, reference, absent)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Value;

    fn row(design: &str, x: f64, y: f64) -> Row {
        let mut r = Row::default();
        r.push("design", Value::Text(design.into()));
        r.num("x", x);
        r.num("y", y);
        r
    }

    /// Every series in the data is in the chart: drawn, or named in the
    /// legend when it has no point on the axes (a zero on a log axis, a
    /// NaN), never dropped silently.
    #[test]
    fn no_series_of_the_data_goes_missing() {
        let p: PlotSpec =
            toml::from_str("kind = \"xy\"\nx = \"x\"\ny = \"y\"\nlog_y = true").unwrap();
        let rows = vec![
            row("alpha_design", 1.0, 0.5),
            row("alpha_design", 2.0, 0.25),
            row("beta_design", 1.0, 0.0),
            row("gamma_design", 1.0, f64::NAN),
            row("delta_design", 3.0, 0.125),
        ];
        let svg = super::super::svg_of(&xy(&p, &rows).unwrap());
        for name in [
            "alpha_design",
            "beta_design",
            "gamma_design",
            "delta_design",
        ] {
            assert!(svg.contains(name), "{name} is missing from the chart");
        }
        assert!(svg.contains("beta_design: no point on these axes"));
    }
}
