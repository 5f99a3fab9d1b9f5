//! P(yes | age), theory lines and measured points.

use super::{err, finite, label, legend, NO_ROWS, PALETTE};
use crate::metrics::{Row, Value};
use crate::spec::Spec;
use plotters::prelude::*;
use std::collections::BTreeMap;

/// Each point's measured profile at the worst phase: (legend label,
/// [(x, measured, theory)]), x in ages or in windows.
type Series = (String, Vec<(f64, f64, f64)>);

fn profile_groups(profile: &[Row], relative: bool) -> BTreeMap<u64, Series> {
    let x = if relative {
        "age_mid_over_w"
    } else {
        "age_mid"
    };
    let mut groups: BTreeMap<u64, Series> = BTreeMap::new();
    for r in profile {
        if r.get("phase").map(|v| v.to_string()).as_deref() != Some("worst") {
            continue;
        }
        let (Some(point), Some(x), Some(p), Some(t)) = (
            finite(r, "point"),
            finite(r, x),
            finite(r, "p_yes"),
            finite(r, "p_yes_theory"),
        ) else {
            continue;
        };
        groups
            .entry(point as u64)
            .or_insert_with(|| (label(r), Vec::new()))
            .1
            .push((x, p, t));
    }
    groups
}

/// Draws the profile lines and points on a chart built with the given y
/// range. A macro because the log and linear y axes are different
/// coordinate types.
macro_rules! draw_profile {
    ($builder:expr, $xmax:expr, $yr:expr, $yfmt:expr, $groups:expr, $relative:expr, $floor:expr, $x_desc:expr) => {{
        let (relative, floor) = ($relative, $floor);
        let mut chart = $builder.build_cartesian_2d(0.0..$xmax, $yr).map_err(err)?;
        chart
            .configure_mesh()
            .x_label_formatter(&|x: &f64| {
                if relative {
                    format!("{x:.1}")
                } else {
                    format!("{x:.0}")
                }
            })
            .x_desc($x_desc)
            .y_desc("P(reported present)")
            .y_label_formatter($yfmt)
            .draw()
            .map_err(err)?;
        if relative {
            chart
                .draw_series(LineSeries::new([(1.0, floor), (1.0, 1.05)], BLACK.mix(0.3)))
                .map_err(err)?;
        }
        for (i, (_, (name, pts))) in $groups.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            chart
                .draw_series(LineSeries::new(
                    pts.iter().map(|p| (p.0, p.2.max(floor))),
                    color.stroke_width(2),
                ))
                .map_err(err)?
                .label(format!("{name} (line: theory, dots: measured)"))
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2))
                });
            chart
                .draw_series(
                    pts.iter()
                        .filter(|p| p.1 > floor)
                        .map(|p| Circle::new((p.0, p.1), 2, color.filled())),
                )
                .map_err(err)?;
        }
        legend(&mut chart, SeriesLabelPosition::UpperRight)?;
    }};
}

/// P(yes | age), theory lines and measured points: against age / w when
/// every design guarantees a window, else against age.
pub(super) fn age_profile<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    spec: &Spec,
    profile: &[Row],
    log_y: bool,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    // Against age / w only when every design guarantees its window.
    let relative = profile
        .iter()
        .all(|r| matches!(r.get("guaranteed"), Some(Value::Bool(true))));
    let floor = if log_y {
        profile
            .iter()
            .filter_map(|r| finite(r, "p_yes_theory"))
            .filter(|&p| p > 0.0)
            .fold(1.0, f64::min)
            .clamp(1e-7, 1.0)
            / 3.0
    } else {
        0.0
    };
    let groups = profile_groups(profile, relative);
    if groups.is_empty() {
        return Err(anyhow::anyhow!(
            "plot age_profile: {NO_ROWS} of the profile (add \"profile\" to metrics)"
        ));
    }
    let xmax = groups
        .values()
        .flat_map(|g| g.1.iter().map(|p| p.0))
        .fold(0.0, f64::max)
        * 1.02;
    let x_desc = if relative {
        "age / window (w = l g)"
    } else {
        "age (insertions since the key arrived)"
    };
    let caption = format!(
        "{}: P(reported | age) (windowed designs: just before a shift)",
        spec.name
    );
    root.fill(&WHITE).map_err(err)?;
    let mut builder = ChartBuilder::on(&root);
    builder
        .caption(caption.as_str(), ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(50)
        .y_label_area_size(70);
    if log_y {
        let yr = (floor..1.05).log_scale();
        let fmt = &|y: &f64| format!("{y:.0e}");
        draw_profile!(builder, xmax, yr, fmt, groups, relative, floor, x_desc);
    } else {
        let fmt = &|y: &f64| format!("{y:.1}");
        draw_profile!(
            builder,
            xmax,
            0.0..1.05,
            fmt,
            groups,
            relative,
            floor,
            x_desc
        );
    }
    root.present().map_err(err)
}
