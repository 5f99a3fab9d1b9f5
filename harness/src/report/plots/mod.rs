//! Charts, as SVG and PNG: one module per chart kind.

mod convergence;
mod fpr;
mod profile;
mod timeline;
mod xy;

use super::Staged;
use crate::metrics::Row;
use crate::spec::{PlotKind, PlotSpec, Spec};
use crate::sweep::Outcome;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// Output file of plot number `i` of `spec`.
pub fn plot_path(spec: &Spec, plots_dir: &Path, i: usize, suffix: &str) -> PathBuf {
    let p = &spec.plot[i];
    let stem = match &p.file {
        Some(f) => f.clone(),
        None if spec.plot.len() == 1 => spec.name.clone(),
        None => format!("{}_{}", spec.name, i + 1),
    };
    plots_dir.join(format!("{stem}{suffix}.svg"))
}

/// DejaVu Sans (Bitstream Vera licence, `harness/assets/DejaVuSans-LICENSE.txt`),
/// embedded so that charts need no system fonts or fontconfig.
static FONT: &[u8] = include_bytes!("../../../assets/DejaVuSans.ttf");

fn register_font() -> anyhow::Result<()> {
    static ONCE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let ok = *ONCE.get_or_init(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, FONT).is_ok()
    });
    ok.then_some(())
        .ok_or_else(|| anyhow::anyhow!("plot: cannot load the embedded font"))
}

/// Renders every plot of `spec`, as SVG and PNG, into `staged`.
pub fn render_plots(
    spec: &Spec,
    out: &Outcome,
    plots_dir: &Path,
    suffix: &str,
    staged: &mut Staged,
) -> anyhow::Result<()> {
    if !spec.plot.is_empty() {
        register_font()?;
    }
    let size = (900, 650);
    for (i, p) in spec.plot.iter().enumerate() {
        let path = plot_path(spec, plots_dir, i, suffix);
        let mut svg = String::new();
        match draw_plot(
            SVGBackend::with_string(&mut svg, size).into_drawing_area(),
            p,
            spec,
            out,
        ) {
            // e.g. a chart of the 2^20 windows in a --quick run that skips
            // them: expected there, so said only of a full run
            Err(e) if e.to_string().contains(NO_ROWS) => {
                if suffix.is_empty() {
                    eprintln!("warning: {e}; {} not written", path.display());
                }
                continue;
            }
            r => r?,
        }
        staged.write(&path, svg.as_bytes())?;
        // PNG beside it, for viewers without SVG
        staged.write_with(&path.with_extension("png"), |tmp| {
            draw_plot(
                BitMapBackend::new(tmp, size).into_drawing_area(),
                p,
                spec,
                out,
            )
        })?;
    }
    Ok(())
}

fn draw_plot<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    p: &PlotSpec,
    spec: &Spec,
    out: &Outcome,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    match p.kind {
        PlotKind::FprVsTheory => fpr::fpr_vs_theory(root, spec, &out.rows),
        PlotKind::AgeProfile => {
            profile::age_profile(root, spec, &out.profile, p.log_y.unwrap_or(true))
        }
        PlotKind::Convergence => convergence::convergence(root, spec, &out.convergence),
        PlotKind::Xy => xy::xy(root, p, &out.rows),
        PlotKind::Timeline => {
            let title = p
                .title
                .clone()
                .unwrap_or_else(|| format!("{}: FPR over time", spec.name));
            timeline::timeline(root, p, &title, &out.timeline)
        }
        PlotKind::AgeTime => {
            let title = p
                .title
                .clone()
                .unwrap_or_else(|| format!("{}: P(yes) by age in time", spec.name));
            timeline::age_time(root, p, &title, &out.age_time)
        }
    }
}

/// Draws the series legend of `chart` in a framed box at `pos`.
fn legend<'a, DB, CT>(
    chart: &mut ChartContext<'a, DB, CT>,
    pos: SeriesLabelPosition,
) -> anyhow::Result<()>
where
    DB: DrawingBackend + 'a,
    DB::ErrorType: 'static,
    CT: plotters::coord::CoordTranslate,
{
    chart
        .configure_series_labels()
        .position(pos)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()
        .map_err(err)
}

/// Marks a chart that has nothing to draw: skipped with a warning.
const NO_ROWS: &str = "no rows";

/// Distinguishable line colours (Okabe-Ito).
const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(230, 159, 0),
    RGBColor(0, 0, 0),
];

fn err(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow::anyhow!("plot: {e}")
}

/// A numeric cell, if it is a finite number: an infinite or NaN value never
/// reaches a chart (the plotting library loops on an infinite range).
fn finite(r: &Row, column: &str) -> Option<f64> {
    r.get_num(column).filter(|v| v.is_finite())
}

fn label(r: &Row) -> String {
    let mut s = r.get("design").map(|v| v.to_string()).unwrap_or_default();
    for c in ["k", "l", "g", "m", "d", "p"] {
        if let Some(v) = finite(r, c) {
            s += &format!(" {c}={v}");
        }
    }
    if finite(r, "adjacent") == Some(1.0) {
        s += " adjacent";
    }
    s
}
