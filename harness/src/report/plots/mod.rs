//! Charts, as SVG and PNG: one module per chart kind.

mod convergence;
pub mod figure;
mod fpr;
mod profile;
mod render;
mod timeline;
mod xy;

use super::Staged;
use crate::metrics::columns::col;
use crate::metrics::Row;
use crate::spec::{PlotKind, PlotSpec, Spec};
use crate::sweep::Outcome;
use figure::Figure;
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
    for (i, p) in spec.plot.iter().enumerate() {
        let path = plot_path(spec, plots_dir, i, suffix);
        let fig = match figure_of(p, spec, out) {
            // e.g. a chart of the 2^20 windows in a --quick run that skips
            // them: expected there, so said only of a full run
            Err(e) if e.to_string().contains(NO_ROWS) => {
                if suffix.is_empty() {
                    eprintln!("warning: {e}; {} not written", path.display());
                }
                continue;
            }
            r => r?,
        };
        let size = (render::WIDTH, render::height(&fig));
        let mut svg = String::new();
        render::render(
            SVGBackend::with_string(&mut svg, size).into_drawing_area(),
            &fig,
        )?;
        staged.write(&path, svg.as_bytes())?;
        // PNG beside it, for viewers without SVG
        staged.write_with(&path.with_extension("png"), |tmp| {
            render::render(BitMapBackend::new(tmp, size).into_drawing_area(), &fig)
        })?;
    }
    Ok(())
}

/// What plot `p` of `spec` shows of `out`.
fn figure_of(p: &PlotSpec, spec: &Spec, out: &Outcome) -> anyhow::Result<Figure> {
    let mut fig = match p.kind {
        PlotKind::FprVsTheory => fpr::fpr_vs_theory(p, &out.rows)?,
        PlotKind::AgeProfile => profile::age_profile(p, &out.profile)?,
        PlotKind::Convergence => convergence::convergence(p, &out.convergence)?,
        PlotKind::Xy => xy::xy(p, &out.rows)?,
        PlotKind::Timeline => timeline::timeline(p, &out.timeline)?,
        PlotKind::AgeTime => timeline::age_time(p, &out.age_time)?,
    };
    fig.ci_level = spec.measure.ci_level;
    Ok(fig)
}

/// `fig` drawn as an SVG document, under the rules every chart follows.
pub fn svg_string(fig: &Figure) -> anyhow::Result<String> {
    register_font()?;
    let mut svg = String::new();
    render::render(
        SVGBackend::with_string(&mut svg, (render::WIDTH, render::height(fig))).into_drawing_area(),
        fig,
    )?;
    Ok(svg)
}

/// `fig` drawn as a PNG file at `path` (for charts written outside a
/// run's staged outputs, such as the calibration's).
pub fn write_png(fig: &Figure, path: &Path) -> anyhow::Result<()> {
    register_font()?;
    let size = (render::WIDTH, render::height(fig));
    render::render(BitMapBackend::new(path, size).into_drawing_area(), fig)
}

/// `fig` as SVG (tests).
#[cfg(test)]
fn svg_of(fig: &Figure) -> String {
    svg_string(fig).unwrap()
}

/// Marks a chart that has nothing to draw: skipped with a warning.
const NO_ROWS: &str = "no rows";

fn err(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow::anyhow!("plot: {e}")
}

/// A numeric cell, if it is a finite number: an infinite or NaN value never
/// reaches a chart (the plotting library loops on an infinite range).
fn finite(r: &Row, column: &str) -> Option<f64> {
    r.get_num(column).filter(|v| v.is_finite())
}

fn label(r: &Row) -> String {
    let mut s = r
        .get(col::DESIGN.name())
        .map(|v| v.to_string())
        .unwrap_or_default();
    for c in ["k", "l", "g", "m", "d", "p"] {
        if let Some(v) = finite(r, c) {
            s += &format!(" {c}={v}");
        }
    }
    if finite(r, col::ADJACENT.name()) == Some(1.0) {
        s += " adjacent";
    }
    s
}

/// The interval of `column` in a row (`<column>_ci_low`, `<column>_ci_high`),
/// if both ends are finite.
fn ci(r: &Row, column: &str) -> Option<(f64, f64)> {
    Some((
        finite(r, &format!("{column}_ci_low"))?,
        finite(r, &format!("{column}_ci_high"))?,
    ))
}

/// The rows a plot's filter keeps.
fn kept<'a>(p: &'a PlotSpec, rows: &'a [Row]) -> impl Iterator<Item = &'a Row> + 'a {
    rows.iter().filter(move |r| {
        p.filter
            .iter()
            .all(|(c, v)| finite(r, c).is_some_and(|x| (x - v).abs() <= 1e-9 * v.abs().max(1.0)))
            && p.without.iter().all(|c| r.get(c).is_none())
            && (p.designs.is_empty()
                || r.get(col::DESIGN.name())
                    .is_some_and(|d| p.designs.contains(&d.to_string())))
    })
}

/// The plot's own title, or `default`.
fn title(p: &PlotSpec, default: &str) -> String {
    p.title.clone().unwrap_or_else(|| default.to_string())
}

#[cfg(test)]
mod tests {
    /// Every axis of every committed chart has words and a unit here, not
    /// its column's name.
    #[test]
    fn every_committed_chart_axis_is_defined() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments");
        let mut checked = 0;
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_none_or(|x| x != "toml") {
                continue;
            }
            let spec = crate::spec::Spec::load(&path).unwrap();
            for p in &spec.plot {
                for c in [&p.x, &p.y, &p.reference].into_iter().flatten() {
                    assert!(
                        crate::metrics::columns::describe(c).is_some(),
                        "{}: column {c} has no description in metrics/columns.rs",
                        path.display()
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 100, "{checked}");
    }
}
