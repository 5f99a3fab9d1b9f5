//! Any two result columns, one line per series.

use super::{err, finite, legend, NO_ROWS, PALETTE};
use crate::metrics::Row;
use crate::spec::PlotSpec;
use plotters::prelude::*;
use std::collections::BTreeMap;

/// The data of an xy chart: the series, the reference lines and the axes.
struct XyData<'a> {
    p: &'a PlotSpec,
    xc: &'a str,
    yc: &'a str,
    title: String,
    groups: BTreeMap<String, Vec<(f64, f64)>>,
    /// Series in the data with no point on these axes (named in the legend).
    absent: Vec<String>,
    /// The information-theoretic bound, if asked for.
    bound: Vec<(f64, f64)>,
    /// The reference column's mean at each x, if asked for.
    reference: Vec<(f64, f64)>,
    x: (f64, f64),
    y: (f64, f64),
}

impl<'a> XyData<'a> {
    fn collect(p: &'a PlotSpec, rows: &[Row]) -> anyhow::Result<XyData<'a>> {
        let (xc, yc) = (p.x.as_deref().unwrap_or(""), p.y.as_deref().unwrap_or(""));
        let log_y = p.log_y.unwrap_or(false);
        let (groups, reference, absent) = Self::series(p, rows, xc, yc);
        if groups.is_empty() {
            return Err(anyhow::anyhow!(
                "plot xy: {NO_ROWS} with {xc} and {yc} (after the filter)"
            ));
        }
        let all = || groups.values().flatten();
        let x = (
            all().map(|p| p.0).fold(f64::INFINITY, f64::min),
            all().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max),
        );
        let mut y = (
            all().map(|p| p.1).fold(f64::INFINITY, f64::min),
            all().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max),
        );
        let bound: Vec<(f64, f64)> = match p.bound.as_deref() {
            Some("info_bound") => (0..=50)
                .map(|i| {
                    let v = x.0 * (x.1 / x.0).powf(i as f64 / 50.0);
                    (v, (1.0 / v).log2())
                })
                .collect(),
            Some(other) => {
                return Err(anyhow::anyhow!(
                    "plot xy: unknown bound {other:?} (known: info_bound)"
                ))
            }
            None => Vec::new(),
        };
        let mut reference: Vec<(f64, f64)> = reference
            .into_values()
            .map(|(x, sum, k)| (x, sum / k as f64))
            .filter(|&(x, y)| !((p.log_x && x <= 0.0) || (log_y && y <= 0.0)))
            .collect();
        reference.sort_by(|a, b| a.0.total_cmp(&b.0));
        for b in bound.iter().chain(&reference) {
            y = (y.0.min(b.1), y.1.max(b.1));
        }
        Ok(XyData {
            p,
            xc,
            yc,
            title: p.title.clone().unwrap_or_else(|| format!("{yc} vs {xc}")),
            groups,
            absent,
            bound,
            reference,
            x: pad(x, p.log_x, 0.05, false),
            y: pad(y, log_y, 0.08, true),
        })
    }

    /// The rows kept by the filter, as points per series, the reference
    /// column's sum and count per x, and the series of the kept rows that
    /// have no point on these axes (never dropped silently: warned of, and
    /// named in the legend).
    #[allow(clippy::type_complexity)]
    fn series(
        p: &PlotSpec,
        rows: &[Row],
        xc: &str,
        yc: &str,
    ) -> (
        BTreeMap<String, Vec<(f64, f64)>>,
        BTreeMap<u64, (f64, f64, usize)>,
        Vec<String>,
    ) {
        let series_col = p.series.as_deref().unwrap_or("design");
        let keep = |r: &Row| {
            p.filter.iter().all(|(c, v)| {
                finite(r, c).is_some_and(|x| (x - v).abs() <= 1e-9 * v.abs().max(1.0))
            })
        };
        let mut groups: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
        let mut reference: BTreeMap<u64, (f64, f64, usize)> = BTreeMap::new();
        let mut dropped = 0usize;
        let mut seen = std::collections::BTreeSet::new();
        for r in rows.iter().filter(|r| keep(r)) {
            seen.insert(r.get(series_col).map(|v| v.to_string()).unwrap_or_default());
            if let (Some(rc), Some(x)) = (p.reference.as_deref(), finite(r, xc)) {
                if let Some(y) = finite(r, rc).filter(|y| y.is_finite()) {
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
            if (p.log_x && x <= 0.0) || (p.log_y.unwrap_or(false) && y <= 0.0) {
                continue;
            }
            let name = r.get(series_col).map(|v| v.to_string()).unwrap_or_default();
            groups.entry(name).or_default().push((x, y));
        }
        if dropped > 0 {
            eprintln!(
                "warning: plot xy: {dropped} row(s) with an infinite {xc} or {yc} left out of the chart"
            );
        }
        for pts in groups.values_mut() {
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
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
}

/// An axis range with room around the data: a factor 1.5 on a log axis,
/// `share` of the span on a linear one (from 0 when `from_zero` allows).
fn pad((lo, hi): (f64, f64), log: bool, share: f64, from_zero: bool) -> (f64, f64) {
    if log {
        return (lo / 1.5, hi * 1.5);
    }
    let pad = (hi - lo).abs().max(1e-12) * share;
    if from_zero {
        ((lo - pad).min(0.0f64.max(lo - pad)), hi + pad)
    } else {
        (lo - pad, hi + pad)
    }
}

/// Tick labels: scientific for large or small values, else at most 6 decimals
/// (ticks such as 1.9000000000000001).
fn tick(v: &f64) -> String {
    if v.abs() >= 1e4 || (v.abs() < 1e-2 && *v != 0.0) {
        format!("{v:.0e}")
    } else {
        let t = format!("{v:.6}");
        t.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Draws an [`XyData`] on `root` with the given axis ranges. A macro rather
/// than a function because each of the four log/linear combinations is a
/// different coordinate type.
macro_rules! draw_xy {
    ($root:expr, $d:expr, $xr:expr, $yr:expr) => {{
        let d: &XyData = $d;
        let mut chart = ChartBuilder::on($root)
            .caption(d.title.as_str(), ("sans-serif", 22))
            .margin(15)
            .x_label_area_size(50)
            .y_label_area_size(70)
            .build_cartesian_2d($xr, $yr)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc(d.xc)
            .y_desc(d.yc)
            .x_label_formatter(&tick)
            .y_label_formatter(&tick)
            .draw()
            .map_err(err)?;
        let black = |(x, y)| PathElement::new([(x, y), (x + 20, y)], BLACK.stroke_width(2));
        if !d.bound.is_empty() {
            chart
                .draw_series(LineSeries::new(
                    d.bound.iter().copied(),
                    BLACK.stroke_width(2),
                ))
                .map_err(err)?
                .label("log2(1/FPR): information-theoretic bound")
                .legend(black);
        }
        if !d.reference.is_empty() {
            let dashed = BLACK.stroke_width(2).into();
            chart
                .draw_series(DashedLineSeries::new(
                    d.reference.iter().copied(),
                    8,
                    5,
                    dashed,
                ))
                .map_err(err)?
                .label(d.p.reference.clone().unwrap_or_default())
                .legend(black);
        }
        for (i, (name, pts)) in d.groups.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            // past the palette's seven colours, lines are dashed with
            // hollow markers, so that no two series look alike
            if i < PALETTE.len() {
                chart
                    .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
                    .map_err(err)?
                    .label(name.clone())
                    .legend(move |(x, y)| {
                        PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2))
                    });
                chart
                    .draw_series(pts.iter().map(|&q| Circle::new(q, 4, color.filled())))
                    .map_err(err)?;
            } else {
                let dashed = color.stroke_width(2).into();
                chart
                    .draw_series(DashedLineSeries::new(pts.iter().copied(), 8, 5, dashed))
                    .map_err(err)?
                    .label(name.clone())
                    .legend(move |(x, y)| {
                        EmptyElement::at((x, y))
                            + PathElement::new([(0, 0), (7, 0)], color.stroke_width(2))
                            + PathElement::new([(12, 0), (20, 0)], color.stroke_width(2))
                    });
                chart
                    .draw_series(
                        pts.iter()
                            .map(|&q| Circle::new(q, 5, color.stroke_width(2))),
                    )
                    .map_err(err)?;
            }
        }
        for name in &d.absent {
            chart
                .draw_series(std::iter::empty::<Circle<(f64, f64), u32>>())
                .map_err(err)?
                .label(format!("{name}: no point on these axes"))
                .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLACK.mix(0.3)));
        }
        legend(&mut chart, SeriesLabelPosition::UpperRight)?;
    }};
}

/// Any two columns of the result rows, one line per series.
pub(super) fn xy<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    p: &PlotSpec,
    rows: &[Row],
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let d = XyData::collect(p, rows)?;
    let ((x0, x1), (y0, y1)) = (d.x, d.y);
    root.fill(&WHITE).map_err(err)?;
    match (p.log_x, p.log_y.unwrap_or(false)) {
        (true, true) => draw_xy!(&root, &d, (x0..x1).log_scale(), (y0..y1).log_scale()),
        (true, false) => draw_xy!(&root, &d, (x0..x1).log_scale(), y0..y1),
        (false, true) => draw_xy!(&root, &d, x0..x1, (y0..y1).log_scale()),
        (false, false) => draw_xy!(&root, &d, x0..x1, y0..y1),
    }
    root.present().map_err(err)
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
        super::super::register_font().unwrap();
        let mut svg = String::new();
        xy(
            SVGBackend::with_string(&mut svg, (900, 650)).into_drawing_area(),
            &p,
            &rows,
        )
        .unwrap();
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
