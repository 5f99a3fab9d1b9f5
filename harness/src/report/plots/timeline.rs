//! Time windows: the FPR over time under the run's traffic, and P(yes) by
//! age in seconds; theory lines, measured points and their ratio.

use super::figure::{Draw, Figure, Panel, Point, Series};
use super::{ci, finite, kept, title, NO_ROWS};
use crate::metrics::columns::col;
use crate::metrics::Part;
use crate::metrics::Row;
use crate::spec::PlotSpec;
use std::collections::BTreeMap;

/// The design and the point's own arrival parameters, for the legend, and
/// the columns the plot's `label` names.
fn series_label(p: &PlotSpec, r: &Row) -> String {
    let mut s = r
        .get(col::DESIGN.name())
        .map(|v| v.to_string())
        .unwrap_or_default();
    for (c, v) in &r.0 {
        if let Some(name) = c.strip_prefix("target_arrivals_") {
            s += &format!(" {name}={v}");
        }
    }
    for c in &p.label {
        if let Some(v) = r.get(c) {
            s += &format!(" {}={v}", c.strip_prefix("target_").unwrap_or(c));
        }
    }
    s
}

/// The kept rows as one series per point: `x` against `y` (its interval
/// and `y_theory`), and the labels of the points with no finite point to
/// draw (named in the legend, never dropped silently).
fn groups(p: &PlotSpec, rows: &[Row], x: &str, y: &str) -> (BTreeMap<u64, Series>, Vec<String>) {
    let mut out: BTreeMap<u64, Series> = BTreeMap::new();
    let mut seen: BTreeMap<u64, String> = BTreeMap::new();
    for r in kept(p, rows) {
        let Some(point) = finite(r, col::POINT.name()) else {
            continue;
        };
        seen.entry(point as u64)
            .or_insert_with(|| series_label(p, r));
        let (Some(xv), Some(yv)) = (finite(r, x), finite(r, y)) else {
            continue;
        };
        if p.x_range.is_some_and(|[lo, hi]| xv < lo || xv > hi) {
            continue;
        }
        out.entry(point as u64)
            .or_insert_with(|| Series {
                name: series_label(p, r),
                points: Vec::new(),
                draw: Draw::Marks,
            })
            .points
            .push(Point {
                y_ci: ci(r, y),
                theory: finite(r, &Part::Theory.of(y)),
                ..Point::at(xv, yv)
            });
    }
    let absent = seen
        .into_iter()
        .filter(|(k, _)| !out.contains_key(k))
        .map(|(_, v)| v)
        .collect();
    if let Some(a) = Some(&absent).filter(|a: &&Vec<String>| !a.is_empty()) {
        eprintln!(
            "warning: plot: no point to draw for {}: named in the legend only",
            a.join(", ")
        );
    }
    (out, absent)
}

/// The arrival rate (top), the FPR against time, and its ratio to theory;
/// or, with `y = "memory_bits"`, the filter's size against time.
pub(super) fn timeline(p: &PlotSpec, rows: &[Row]) -> anyhow::Result<Figure> {
    let memory = p.y.as_deref() == Some(col::MEMORY_BITS.name());
    let y = if memory { col::MEMORY_BITS } else { col::FPR };
    let (g, absent) = groups(p, rows, "t", y.name());
    if g.is_empty() {
        return Err(anyhow::anyhow!(
            "plot timeline: {NO_ROWS} (add \"timeline\" to metrics{}; check the filter)",
            if memory {
                " and [time] memory_over_time = true"
            } else {
                ""
            }
        ));
    }
    let mut rate = Panel::new("time (s)", "arrivals (keys/s)", false, false);
    rate.y_from_zero = true;
    rate.weight = 0.45;
    let mut fpr = if memory {
        let mut m = Panel::new("time (s)", "memory (bits)", false, false);
        m.y_from_zero = true;
        m
    } else {
        Panel::new("time (s)", "false-positive rate", false, true)
    };
    for (point, s) in g {
        let rates: Vec<Point> = rates_of(p, rows, point);
        rate.series.push(Series {
            name: s.name.clone(),
            points: rates,
            draw: Draw::Line,
        });
        fpr.series.push(s);
    }
    let mut fig = Figure::new(
        title(
            p,
            if memory {
                "Memory over time"
            } else {
                "False-positive rate over time"
            },
        ),
        rate,
    );
    fig.panels.push(fpr);
    fig.absent = absent;
    Ok(if memory {
        fig
    } else {
        fig.with_ratio(1, "FPR")
    })
}

/// The arrival rate at each moment of point `point`.
fn rates_of(p: &PlotSpec, rows: &[Row], point: u64) -> Vec<Point> {
    kept(p, rows)
        .filter(|r| finite(r, col::POINT.name()) == Some(point as f64))
        .filter_map(|r| Some(Point::at(finite(r, "t")?, finite(r, col::RATE.name())?)))
        .filter(|q| !p.x_range.is_some_and(|[lo, hi]| q.x < lo || q.x > hi))
        .collect()
}

/// P(yes) against age / T, the window's end marked, and the ratio to
/// theory.
pub(super) fn age_time(p: &PlotSpec, rows: &[Row]) -> anyhow::Result<Figure> {
    let (g, absent) = groups(p, rows, col::AGE_MID_OVER_T.name(), col::P_YES.name());
    if g.is_empty() {
        return Err(anyhow::anyhow!(
            "plot age_time: {NO_ROWS} (add \"timeline\" to metrics; check the filter)"
        ));
    }
    let mut main = Panel::new(
        "age / T (the window ends at 1)",
        "P(reported present)",
        false,
        true,
    );
    main.series = g.into_values().collect();
    main.vlines.push(1.0);
    let mut fig = Figure::new(
        title(p, "Probability a key is reported present, by age in time"),
        main,
    );
    fig.absent = absent;
    Ok(fig.with_ratio(0, "P(yes)"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Value;

    fn row(point: u64, design: &str, t: f64, fpr: f64) -> Row {
        let mut r = Row::default();
        r.push("point", Value::Int(point));
        r.push("design", Value::Text(design.into()));
        for (c, v) in [
            ("t", t),
            ("fpr", fpr),
            ("fpr_theory", 0.01),
            ("rate", 100.0),
        ] {
            r.num(c, v);
        }
        r
    }

    /// A design whose moments all fall outside the chart's time range, or
    /// whose FPR is not a number, is named in the legend, not dropped.
    #[test]
    fn no_design_of_the_data_goes_missing() {
        let p: PlotSpec = toml::from_str("kind = \"timeline\"\nx_range = [0.0, 10.0]").unwrap();
        let rows = vec![
            row(0, "first_design", 1.0, 0.01),
            row(0, "first_design", 2.0, 0.02),
            row(1, "late_design", 50.0, 0.01),
            row(2, "nan_design", 3.0, f64::NAN),
            row(3, "fourth_design", 4.0, 0.03),
        ];
        let svg = super::super::svg_of(&timeline(&p, &rows).unwrap());
        for name in ["first_design", "late_design", "nan_design", "fourth_design"] {
            assert!(svg.contains(name), "{name} is missing from the chart");
        }
        assert!(svg.contains("late_design: no point on these axes"));
    }
}
