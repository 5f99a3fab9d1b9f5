//! Measured worst-phase FPR against theory.

use super::{err, finite, legend};
use crate::metrics::Row;
use crate::spec::Spec;
use plotters::prelude::*;

/// Measured worst-phase FPR against theory (and against the paper's formula).
pub(super) fn fpr_vs_theory<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    spec: &Spec,
    rows: &[Row],
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let pts: Vec<(f64, f64, f64, f64, Option<f64>)> = rows
        .iter()
        .filter_map(|r| {
            Some((
                finite(r, "fpr_theory")?,
                finite(r, "fpr")?,
                finite(r, "fpr_ci_low")?,
                finite(r, "fpr_ci_high")?,
                finite(r, "fpr_paper_formula"),
            ))
        })
        .filter(|p| p.0 > 0.0 && p.1 > 0.0)
        .collect();
    if pts.is_empty() {
        return Err(anyhow::anyhow!(
            "plot fpr_vs_theory: no row has fpr and fpr_theory (add \"fpr\" to metrics)"
        ));
    }
    let lo = pts
        .iter()
        .map(|p| p.0.min(p.2.max(p.1 / 10.0)))
        .fold(f64::INFINITY, f64::min)
        / 2.0;
    let hi = pts.iter().map(|p| p.0.max(p.3)).fold(0.0, f64::max) * 2.0;
    {
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("{}: measured vs theoretical FPR", spec.name),
                ("sans-serif", 22),
            )
            .margin(15)
            .x_label_area_size(50)
            .y_label_area_size(70)
            .build_cartesian_2d((lo..hi).log_scale(), (lo..hi).log_scale())
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("predicted FPR (worst phase)")
            .y_desc("measured FPR (worst phase)")
            .x_label_formatter(&|x| format!("{x:.0e}"))
            .y_label_formatter(&|y| format!("{y:.0e}"))
            .draw()
            .map_err(err)?;
        chart
            .draw_series(LineSeries::new([(lo, lo), (hi, hi)], BLACK.mix(0.5)))
            .map_err(err)?
            .label("measured = predicted")
            .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLACK.mix(0.5)));
        chart
            .draw_series(
                pts.iter().map(|p| {
                    PathElement::new([(p.0, p.2.max(lo)), (p.0, p.3)], BLUE.stroke_width(2))
                }),
            )
            .map_err(err)?;
        chart
            .draw_series(
                pts.iter()
                    .map(|p| Circle::new((p.0, p.1), 4, BLUE.filled())),
            )
            .map_err(err)?
            .label("vs this repo's theory (99% CI bars)")
            .legend(|(x, y)| Circle::new((x + 10, y), 4, BLUE.filled()));
        let paper: Vec<_> = pts.iter().filter_map(|p| Some((p.4?, p.1))).collect();
        if !paper.is_empty() {
            chart
                .draw_series(
                    paper
                        .iter()
                        .map(|&(x, y)| Cross::new((x, y), 5, RED.stroke_width(2))),
                )
                .map_err(err)?
                .label("vs the paper's formula (linear fill)")
                .legend(|(x, y)| Cross::new((x + 10, y), 5, RED.stroke_width(2)));
        }
        legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
        root.present().map_err(err)?;
    }
    Ok(())
}
