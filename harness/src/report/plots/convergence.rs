//! Zero fraction and FPR against insertions from empty.

use super::{err, finite, label, legend, PALETTE};
use crate::metrics::Row;
use crate::spec::Spec;
use plotters::prelude::*;
use std::collections::BTreeMap;

/// Zero fraction (top) and FPR (bottom) against insertions from empty.
pub(super) fn convergence<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    spec: &Spec,
    rows: &[Row],
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let groups = series(rows);
    if groups.is_empty() {
        return Err(anyhow::anyhow!(
            "plot convergence: no convergence rows (add \"convergence\" to metrics)"
        ));
    }
    let tmax = groups
        .values()
        .flat_map(|g| g.1.iter().map(|p| p[0]))
        .fold(1.0, f64::max)
        * 1.1;
    root.fill(&WHITE).map_err(err)?;
    let root = root
        .titled(
            &format!("{}: convergence from an empty filter", spec.name),
            ("sans-serif", 22),
        )
        .map_err(err)?;
    let panels = root.split_evenly((2, 1));
    for (panel, (zi, ti, what)) in panels
        .iter()
        .zip([(1, 2, "fraction of zero cells"), (3, 4, "FPR")])
    {
        let ymax = groups
            .values()
            .flat_map(|g| g.1.iter().map(|p| p[zi].max(p[ti])))
            .fold(0.0, f64::max)
            * 1.15;
        let mut chart = ChartBuilder::on(panel)
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d((1.0..tmax).log_scale(), 0.0..ymax)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("insertions since empty")
            .y_desc(what)
            .x_label_formatter(&|x| format!("{x:.0e}"))
            .draw()
            .map_err(err)?;
        for (i, (_, (name, pts))) in groups.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            chart
                .draw_series(LineSeries::new(
                    pts.iter().map(|p| (p[0], p[ti])),
                    color.stroke_width(2),
                ))
                .map_err(err)?
                .label(name.clone())
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2))
                });
            chart
                .draw_series(
                    pts.iter()
                        .map(|p| Circle::new((p[0], p[zi]), 3, color.filled())),
                )
                .map_err(err)?;
        }
        legend(&mut chart, SeriesLabelPosition::LowerLeft)?;
    }
    root.present().map_err(err)
}

/// A point's label and its rows: [t, zero, zero theory, fpr, fpr theory].
type Series = (String, Vec<[f64; 5]>);

/// The convergence rows by point.
fn series(rows: &[Row]) -> BTreeMap<u64, Series> {
    let mut groups: BTreeMap<u64, Series> = BTreeMap::new();
    for r in rows {
        let get = |c: &str| finite(r, c);
        let (Some(point), Some(t), Some(z), Some(zt), Some(f), Some(ft)) = (
            get("point"),
            get("t"),
            get("zero_fraction"),
            get("zero_fraction_theory"),
            get("fpr"),
            get("fpr_theory"),
        ) else {
            continue;
        };
        groups
            .entry(point as u64)
            .or_insert_with(|| (label(r), Vec::new()))
            .1
            .push([t.max(1.0), z, zt, f, ft]);
    }
    groups
}
