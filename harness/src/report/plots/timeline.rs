//! Time windows: the FPR over time under the run's traffic, and P(yes) by
//! age in seconds; theory lines and measured points.

use super::{err, finite, legend, NO_ROWS, PALETTE};
use crate::metrics::Row;
use crate::spec::PlotSpec;
use plotters::prelude::*;
use std::collections::BTreeMap;

/// A point's rows, in order: (legend label, [(x, measured, theory, extra)]).
type Series = (String, Vec<[f64; 4]>);

/// The rows a plot's filter keeps.
fn kept<'a>(p: &'a PlotSpec, rows: &'a [Row]) -> impl Iterator<Item = &'a Row> + 'a {
    rows.iter().filter(move |r| {
        p.filter
            .iter()
            .all(|(c, v)| finite(r, c).is_some_and(|x| (x - v).abs() <= 1e-9 * v.abs().max(1.0)))
    })
}

/// The design and the point's own arrival parameters, for the legend.
fn series_label(r: &Row) -> String {
    let mut s = r.get("design").map(|v| v.to_string()).unwrap_or_default();
    for (c, v) in &r.0 {
        if let Some(name) = c.strip_prefix("target_arrivals_") {
            s += &format!(" {name}={v}");
        }
    }
    s
}

/// The kept rows as series by point, and the labels of the points whose
/// rows have no finite point to draw (named in the legend, never dropped
/// silently).
fn groups(p: &PlotSpec, rows: &[Row], cols: [&str; 4]) -> (BTreeMap<u64, Series>, Vec<String>) {
    let mut out: BTreeMap<u64, Series> = BTreeMap::new();
    let mut seen: BTreeMap<u64, String> = BTreeMap::new();
    for r in kept(p, rows) {
        if let Some(point) = finite(r, "point") {
            seen.entry(point as u64).or_insert_with(|| series_label(r));
        }
        let (Some(point), Some(x), Some(y)) =
            (finite(r, "point"), finite(r, cols[0]), finite(r, cols[1]))
        else {
            continue;
        };
        let t = finite(r, cols[2]).unwrap_or(f64::NAN);
        let e = finite(r, cols[3]).unwrap_or(f64::NAN);
        out.entry(point as u64)
            .or_insert_with(|| (series_label(r), Vec::new()))
            .1
            .push([x, y, t, e]);
    }
    let absent = seen
        .into_iter()
        .filter(|(k, _)| !out.contains_key(k))
        .map(|(_, v)| v)
        .collect();
    (out, absent)
}

/// Names `absent` series in the legend (and warns of them).
fn name_absent<'a, DB: DrawingBackend + 'a>(
    chart: &mut LogChart<'a, DB>,
    absent: &[String],
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    if !absent.is_empty() {
        eprintln!(
            "warning: plot: no point to draw for {}: named in the legend only",
            absent.join(", ")
        );
    }
    for name in absent {
        chart
            .draw_series(std::iter::empty::<Circle<(f64, f64), u32>>())
            .map_err(err)?
            .label(format!("{name}: no point on these axes"))
            .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLACK.mix(0.3)));
    }
    Ok(())
}

/// The smallest value drawn on a log axis: half the smallest positive
/// measurement (a measured 0, and a theory below what the queries can
/// resolve, sit on it); the smallest theory where nothing was measured
/// positive.
fn floor_of(g: &BTreeMap<u64, Series>) -> f64 {
    let smallest = |i: usize| {
        g.values()
            .flat_map(|s| s.1.iter().map(move |p| p[i]))
            .filter(|&v| v > 0.0)
            .fold(f64::INFINITY, f64::min)
    };
    let min = match smallest(1) {
        m if m.is_finite() => m,
        _ => smallest(2),
    };
    if min.is_finite() {
        (min / 2.0).max(1e-9)
    } else {
        1e-9
    }
}

/// A chart with a linear x axis and a logarithmic y axis.
type LogChart<'a, DB> =
    ChartContext<'a, DB, Cartesian2d<plotters::coord::types::RangedCoordf64, LogCoord<f64>>>;

/// Each series' theory (a line, in x order) and measurements (dots of
/// `radius`), values below `floor` drawn on it.
fn draw_series<'a, DB: DrawingBackend + 'a>(
    chart: &mut LogChart<'a, DB>,
    g: &BTreeMap<u64, Series>,
    floor: f64,
    radius: u32,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    for (i, (_, (name, pts))) in g.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let mut pts = pts.clone();
        pts.sort_by(|a, b| a[0].total_cmp(&b[0]));
        chart
            .draw_series(LineSeries::new(
                pts.iter()
                    .filter(|p| p[2].is_finite())
                    .map(|p| (p[0], p[2].max(floor))),
                color.stroke_width(2),
            ))
            .map_err(err)?
            .label(name.clone())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2)));
        chart
            .draw_series(
                pts.iter()
                    .map(|p| Circle::new((p[0], p[1].max(floor)), radius, color.filled())),
            )
            .map_err(err)?;
    }
    Ok(())
}

/// The arrival rate (top) and the FPR against time (bottom).
pub(super) fn timeline<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    p: &PlotSpec,
    title: &str,
    rows: &[Row],
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let (mut g, mut absent) = groups(p, rows, ["t", "fpr", "fpr_theory", "rate"]);
    if let Some([lo, hi]) = p.x_range {
        for s in g.values_mut() {
            s.1.retain(|p| p[0] >= lo && p[0] <= hi);
        }
        absent.extend(g.values().filter(|s| s.1.is_empty()).map(|s| s.0.clone()));
        g.retain(|_, s| !s.1.is_empty());
    }
    if g.is_empty() {
        return Err(anyhow::anyhow!(
            "plot timeline: {NO_ROWS} (add \"timeline\" to metrics; check the filter)"
        ));
    }
    let (t0, t1) = g
        .values()
        .flat_map(|s| s.1.iter().map(|p| p[0]))
        .fold((f64::INFINITY, 0.0f64), |(a, b), x| (a.min(x), b.max(x)));
    let rmax = g
        .values()
        .flat_map(|s| s.1.iter().map(|p| p[3]))
        .fold(0.0, f64::max)
        * 1.15;
    let floor = floor_of(&g);
    let ymax = g
        .values()
        .flat_map(|s| s.1.iter().flat_map(|p| [p[1], p[2]]))
        .filter(|v| v.is_finite())
        .fold(floor * 10.0, f64::max)
        * 2.0;
    root.fill(&WHITE).map_err(err)?;
    let root = root.titled(title, ("sans-serif", 20)).map_err(err)?;
    let (top, bottom) = root.split_vertically(180);
    let mut chart = ChartBuilder::on(&top)
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(70)
        .build_cartesian_2d(t0..t1, 0.0..rmax.max(1.0))
        .map_err(err)?;
    chart
        .configure_mesh()
        .y_desc("keys per second")
        .draw()
        .map_err(err)?;
    for (i, (_, (_, pts))) in g.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let mut pts = pts.clone();
        pts.sort_by(|a, b| a[0].total_cmp(&b[0]));
        chart
            .draw_series(LineSeries::new(pts.iter().map(|p| (p[0], p[3])), color))
            .map_err(err)?;
    }
    let mut chart = ChartBuilder::on(&bottom)
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(t0..t1, (floor..ymax).log_scale())
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("time (s): lines theory, dots measured at each moment")
        .y_desc("FPR")
        .y_label_formatter(&|y| format!("{y:.0e}"))
        .draw()
        .map_err(err)?;
    draw_series(&mut chart, &g, floor, 2)?;
    name_absent(&mut chart, &absent)?;
    legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
    root.present().map_err(err)
}

/// P(yes) against age / T: theory lines, measured points, the window's end
/// marked.
pub(super) fn age_time<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    p: &PlotSpec,
    title: &str,
    rows: &[Row],
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let (g, absent) = groups(
        p,
        rows,
        ["age_mid_over_t", "p_yes", "p_yes_theory", "queries"],
    );
    if g.is_empty() {
        return Err(anyhow::anyhow!(
            "plot age_time: {NO_ROWS} (add \"timeline\" to metrics; check the filter)"
        ));
    }
    let xmax = g
        .values()
        .flat_map(|s| s.1.iter().map(|p| p[0]))
        .fold(1.0, f64::max)
        * 1.05;
    let floor = floor_of(&g);
    root.fill(&WHITE).map_err(err)?;
    let root = root.titled(title, ("sans-serif", 20)).map_err(err)?;
    let mut chart = ChartBuilder::on(&root)
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..xmax, (floor..1.5).log_scale())
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("age / T (the window ends at 1): lines theory, dots measured")
        .y_desc("P(reported present)")
        .y_label_formatter(&|y| format!("{y:.0e}"))
        .draw()
        .map_err(err)?;
    chart
        .draw_series(LineSeries::new([(1.0, floor), (1.0, 1.5)], BLACK.mix(0.5)))
        .map_err(err)?;
    draw_series(&mut chart, &g, floor, 3)?;
    name_absent(&mut chart, &absent)?;
    legend(&mut chart, SeriesLabelPosition::LowerLeft)?;
    root.present().map_err(err)
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
        super::super::register_font().unwrap();
        let mut svg = String::new();
        timeline(
            SVGBackend::with_string(&mut svg, (900, 650)).into_drawing_area(),
            &p,
            "t",
            &rows,
        )
        .unwrap();
        for name in ["first_design", "late_design", "nan_design", "fourth_design"] {
            assert!(svg.contains(name), "{name} is missing from the chart");
        }
        assert!(svg.contains("late_design: no point on these axes"));
    }
}
