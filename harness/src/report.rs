//! Outputs: tidy CSV, a markdown table (paper formula vs theory vs measured),
//! and SVG charts. Every file is written to a temporary name and renamed, so an
//! interrupted run never leaves a half-written result in place of a good one.

use crate::metrics::{Row, Value};
use crate::spec::{PlotKind, PlotSpec, Spec};
use crate::sweep::Outcome;
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically (temporary file + rename).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let tmp = path.with_extension(format!(
        "{}.tmp",
        path.extension().and_then(|e| e.to_str()).unwrap_or("")
    ));
    std::fs::write(&tmp, bytes).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Column names in order of first appearance.
fn columns(rows: &[Row]) -> Vec<String> {
    let mut cols: Vec<String> = Vec::new();
    for r in rows {
        for (n, _) in &r.0 {
            if !cols.contains(n) {
                cols.push(n.clone());
            }
        }
    }
    cols
}

/// Renders rows as CSV, one column per name seen, blanks where a row lacks it.
pub fn csv_string(rows: &[Row]) -> Result<String, String> {
    let cols = columns(rows);
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(&cols).map_err(|e| e.to_string())?;
    for r in rows {
        let rec: Vec<String> = cols
            .iter()
            .map(|c| r.get(c).map(|v| v.to_string()).unwrap_or_default())
            .collect();
        w.write_record(&rec).map_err(|e| e.to_string())?;
    }
    String::from_utf8(w.into_inner().map_err(|e| e.to_string())?).map_err(|e| e.to_string())
}

/// Four significant digits; scientific notation for small or large values.
pub fn fmt_num(x: f64) -> String {
    if x.is_nan() {
        "".into()
    } else if x == 0.0 {
        "0".into()
    } else if x.abs() < 1e-2 || x.abs() >= 1e5 {
        format!("{x:.3e}")
    } else if x.fract() == 0.0 {
        format!("{x}")
    } else {
        let digits = (3 - x.abs().log10().floor() as i32).max(0) as usize;
        format!("{x:.digits$}")
    }
}

/// Default markdown columns (those present are shown; `x` with `x_ci_low` and
/// `x_ci_high` is rendered as `x [lo, hi]`).
const DEFAULT_TABLE: &[&str] = &[
    "design",
    "k",
    "l",
    "g",
    "target_fpr",
    "fpr_paper_formula",
    "fpr_theory",
    "fpr",
    "fpr_theory_in_ci",
    "fpr_avg_theory",
    "fpr_avg",
    "fnr",
    "bits_per_element",
    "efficiency_vs_bloom",
    "probes_negative_theory",
    "probes_negative",
    "npws_peak_paper_formula",
    "npws_peak_theory",
    "npws_peak",
    "npws_avg_theory",
    "npws_avg",
    "insert_ns",
    "query_ns",
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
        row.get_num(&format!("{col}_ci_low")),
        row.get_num(&format!("{col}_ci_high")),
    ) {
        (Some(lo), Some(hi)) if !lo.is_nan() => format!("{s} [{}, {}]", fmt_num(lo), fmt_num(hi)),
        _ => s,
    }
}

/// The markdown report of a run.
pub fn markdown(spec: &Spec, rows: &[Row], command: &str, level: f64) -> String {
    let present = columns(rows);
    let wanted: Vec<String> = match &spec.table_columns {
        Some(c) => c.clone(),
        None => DEFAULT_TABLE.iter().map(|s| s.to_string()).collect(),
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
    for flag in [
        "fpr_theory_in_ci",
        "fpr_paper_formula_in_ci",
        "probes_negative_theory_in_ci",
        "npws_peak_theory_in_ci",
        "count_rmse_theory_in_ci",
        "distinct_rel_rmse_theory_in_ci",
        "distinct_lb_theory_in_ci",
        "entropy_error_theory_in_ci",
        "sustained_fpr_theory_in_ci",
    ] {
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
    let design = |r: &Row| match r.get("design") {
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
static FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");

fn register_font() -> Result<(), String> {
    static ONCE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let ok = *ONCE.get_or_init(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, FONT).is_ok()
    });
    ok.then_some(())
        .ok_or_else(|| "plot: cannot load the embedded font".to_string())
}

/// Renders every plot of `spec`, as SVG and PNG; returns the files written.
pub fn render_plots(
    spec: &Spec,
    out: &Outcome,
    plots_dir: &Path,
    suffix: &str,
) -> Result<Vec<PathBuf>, String> {
    let mut written = Vec::new();
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
            // e.g. a chart of the 2^20 windows in a --quick run that skips them
            Err(e) if e.contains(NO_ROWS) => {
                eprintln!("warning: {e}; {} not written", path.display());
                continue;
            }
            r => r?,
        }
        write_atomic(&path, svg.as_bytes())?;
        written.push(path.clone());
        // PNG beside it, for viewers without SVG; written under a temporary name.
        let png = path.with_extension("png");
        let tmp = path.with_extension("tmp.png");
        draw_plot(
            BitMapBackend::new(&tmp, size).into_drawing_area(),
            p,
            spec,
            out,
        )?;
        std::fs::rename(&tmp, &png).map_err(|e| format!("cannot write {}: {e}", png.display()))?;
        written.push(png);
    }
    Ok(written)
}

fn draw_plot<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    p: &PlotSpec,
    spec: &Spec,
    out: &Outcome,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    match p.kind {
        PlotKind::FprVsTheory => fpr_vs_theory(root, spec, &out.rows),
        PlotKind::AgeProfile => age_profile(root, spec, &out.profile, p.log_y.unwrap_or(true)),
        PlotKind::Convergence => convergence(root, spec, &out.convergence),
        PlotKind::Xy => xy(root, p, &out.rows),
    }
}

/// Draws the series legend of `chart` in a framed box at `pos`.
fn legend<'a, DB, CT>(
    chart: &mut ChartContext<'a, DB, CT>,
    pos: SeriesLabelPosition,
) -> Result<(), String>
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

fn err(e: impl std::fmt::Display) -> String {
    format!("plot: {e}")
}

fn label(r: &Row) -> String {
    let mut s = r.get("design").map(|v| v.to_string()).unwrap_or_default();
    for c in ["k", "l", "g", "m", "d", "p"] {
        if let Some(v) = r.get_num(c) {
            s += &format!(" {c}={v}");
        }
    }
    if r.get_num("adjacent") == Some(1.0) {
        s += " adjacent";
    }
    s
}

/// Measured worst-phase FPR against theory (and against the paper's formula).
fn fpr_vs_theory<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    spec: &Spec,
    rows: &[Row],
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let pts: Vec<(f64, f64, f64, f64, Option<f64>)> = rows
        .iter()
        .filter_map(|r| {
            Some((
                r.get_num("fpr_theory")?,
                r.get_num("fpr")?,
                r.get_num("fpr_ci_low")?,
                r.get_num("fpr_ci_high")?,
                r.get_num("fpr_paper_formula"),
            ))
        })
        .filter(|p| p.0 > 0.0 && p.1 > 0.0)
        .collect();
    if pts.is_empty() {
        return Err(
            "plot fpr_vs_theory: no row has fpr and fpr_theory (add \"fpr\" to metrics)".into(),
        );
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

/// P(yes | age) at the worst phase, theory lines and measured points.
fn age_profile<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    spec: &Spec,
    profile: &[Row],
    log_y: bool,
) -> Result<(), String>
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
            .filter_map(|r| r.get_num("p_yes_theory"))
            .filter(|&p| p > 0.0)
            .fold(1.0, f64::min)
            .clamp(1e-7, 1.0)
            / 3.0
    } else {
        0.0
    };
    // point -> (legend label, [(x, measured, theory)])
    type Series = (String, Vec<(f64, f64, f64)>);
    let mut groups: BTreeMap<u64, Series> = BTreeMap::new();
    for r in profile {
        if r.get("phase").map(|v| v.to_string()).as_deref() != Some("worst") {
            continue;
        }
        let x = if relative {
            "age_mid_over_w"
        } else {
            "age_mid"
        };
        let (Some(point), Some(x), Some(p), Some(t)) = (
            r.get_num("point"),
            r.get_num(x),
            r.get_num("p_yes"),
            r.get_num("p_yes_theory"),
        ) else {
            continue;
        };
        groups
            .entry(point as u64)
            .or_insert_with(|| (label(r), Vec::new()))
            .1
            .push((x, p, t));
    }
    if groups.is_empty() {
        return Err(format!(
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
    let builder = |root| {
        let mut b = ChartBuilder::on(root);
        b.caption(caption.as_str(), ("sans-serif", 22))
            .margin(15)
            .x_label_area_size(50)
            .y_label_area_size(70);
        b
    };
    // The two y scales have different coordinate types; the drawing is the same.
    macro_rules! draw {
        ($chart:expr, $yfmt:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .x_label_formatter(&|x: &f64| {
                    if relative {
                        format!("{x:.1}")
                    } else {
                        format!("{x:.0}")
                    }
                })
                .x_desc(x_desc)
                .y_desc("P(reported present)")
                .y_label_formatter($yfmt)
                .draw()
                .map_err(err)?;
            if relative {
                chart
                    .draw_series(LineSeries::new([(1.0, floor), (1.0, 1.05)], BLACK.mix(0.3)))
                    .map_err(err)?;
            }
            for (i, (_, (name, pts))) in groups.iter().enumerate() {
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
    if log_y {
        draw!(
            builder(&root)
                .build_cartesian_2d(0.0..xmax, (floor..1.05).log_scale())
                .map_err(err)?,
            &|y: &f64| format!("{y:.0e}")
        );
    } else {
        draw!(
            builder(&root)
                .build_cartesian_2d(0.0..xmax, 0.0..1.05)
                .map_err(err)?,
            &|y: &f64| format!("{y:.1}")
        );
    }
    root.present().map_err(err)
}

/// Any two columns of the result rows, one line per series.
fn xy<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    p: &PlotSpec,
    rows: &[Row],
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let (xc, yc) = (p.x.as_deref().unwrap_or(""), p.y.as_deref().unwrap_or(""));
    let series_col = p.series.as_deref().unwrap_or("design");
    let keep = |r: &Row| {
        p.filter.iter().all(|(c, v)| {
            r.get_num(c)
                .is_some_and(|x| (x - v).abs() <= 1e-9 * v.abs().max(1.0))
        })
    };
    let mut groups: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    // reference column: x -> its values (averaged per x)
    let mut reference: BTreeMap<u64, (f64, f64, usize)> = BTreeMap::new();
    for r in rows.iter().filter(|r| keep(r)) {
        if let (Some(rc), Some(x)) = (p.reference.as_deref(), r.get_num(xc)) {
            if let Some(y) = r.get_num(rc).filter(|y| y.is_finite()) {
                let e = reference.entry(x.to_bits()).or_insert((x, 0.0, 0));
                e.1 += y;
                e.2 += 1;
            }
        }
        let (Some(x), Some(y)) = (r.get_num(xc), r.get_num(yc)) else {
            continue;
        };
        if (p.log_x && x <= 0.0) || (p.log_y.unwrap_or(false) && y <= 0.0) {
            continue;
        }
        let name = r.get(series_col).map(|v| v.to_string()).unwrap_or_default();
        groups.entry(name).or_default().push((x, y));
    }
    if groups.is_empty() {
        return Err(format!(
            "plot xy: {NO_ROWS} with {xc} and {yc} (after the filter)"
        ));
    }
    for pts in groups.values_mut() {
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    let all = || groups.values().flatten();
    let (mut x0, mut x1) = (
        all().map(|p| p.0).fold(f64::INFINITY, f64::min),
        all().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max),
    );
    let (mut y0, mut y1) = (
        all().map(|p| p.1).fold(f64::INFINITY, f64::min),
        all().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max),
    );
    let bound: Vec<(f64, f64)> = match p.bound.as_deref() {
        Some("info_bound") => (0..=50)
            .map(|i| {
                let x = x0 * (x1 / x0).powf(i as f64 / 50.0);
                (x, (1.0 / x).log2())
            })
            .collect(),
        Some(other) => {
            return Err(format!(
                "plot xy: unknown bound {other:?} (known: info_bound)"
            ))
        }
        None => Vec::new(),
    };
    let mut reference: Vec<(f64, f64)> = reference
        .into_values()
        .map(|(x, sum, k)| (x, sum / k as f64))
        .filter(|&(x, y)| !((p.log_x && x <= 0.0) || (p.log_y.unwrap_or(false) && y <= 0.0)))
        .collect();
    reference.sort_by(|a, b| a.0.total_cmp(&b.0));
    for b in bound.iter().chain(&reference) {
        y0 = y0.min(b.1);
        y1 = y1.max(b.1);
    }
    if p.log_x {
        (x0, x1) = (x0 / 1.5, x1 * 1.5);
    } else {
        let pad = (x1 - x0).abs().max(1e-12) * 0.05;
        (x0, x1) = (x0 - pad, x1 + pad);
    }
    if p.log_y.unwrap_or(false) {
        (y0, y1) = (y0 / 1.5, y1 * 1.5);
    } else {
        let pad = (y1 - y0).abs().max(1e-12) * 0.08;
        (y0, y1) = ((y0 - pad).min(0.0f64.max(y0 - pad)), y1 + pad);
    }
    let title = p.title.clone().unwrap_or_else(|| format!("{yc} vs {xc}"));
    root.fill(&WHITE).map_err(err)?;
    let fmt = |v: &f64| {
        if v.abs() >= 1e4 || (v.abs() < 1e-2 && *v != 0.0) {
            format!("{v:.0e}")
        } else {
            // tick values such as 1.9000000000000001: at most 6 decimals
            let t = format!("{v:.6}");
            t.trim_end_matches('0').trim_end_matches('.').to_string()
        }
    };
    macro_rules! draw {
        ($xr:expr, $yr:expr) => {{
            let mut chart = ChartBuilder::on(&root)
                .caption(title.as_str(), ("sans-serif", 22))
                .margin(15)
                .x_label_area_size(50)
                .y_label_area_size(70)
                .build_cartesian_2d($xr, $yr)
                .map_err(err)?;
            chart
                .configure_mesh()
                .x_desc(xc)
                .y_desc(yc)
                .x_label_formatter(&fmt)
                .y_label_formatter(&fmt)
                .draw()
                .map_err(err)?;
            if !bound.is_empty() {
                chart
                    .draw_series(LineSeries::new(
                        bound.iter().copied(),
                        BLACK.stroke_width(2),
                    ))
                    .map_err(err)?
                    .label("log2(1/FPR): information-theoretic bound")
                    .legend(|(x, y)| {
                        PathElement::new([(x, y), (x + 20, y)], BLACK.stroke_width(2))
                    });
            }
            if !reference.is_empty() {
                let label = p.reference.clone().unwrap_or_default();
                chart
                    .draw_series(DashedLineSeries::new(
                        reference.iter().copied(),
                        8,
                        5,
                        BLACK.stroke_width(2).into(),
                    ))
                    .map_err(err)?
                    .label(label)
                    .legend(|(x, y)| {
                        PathElement::new([(x, y), (x + 20, y)], BLACK.stroke_width(2))
                    });
            }
            for (i, (name, pts)) in groups.iter().enumerate() {
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
                    chart
                        .draw_series(DashedLineSeries::new(
                            pts.iter().copied(),
                            8,
                            5,
                            color.stroke_width(2).into(),
                        ))
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
            legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        }};
    }
    match (p.log_x, p.log_y.unwrap_or(false)) {
        (true, true) => draw!((x0..x1).log_scale(), (y0..y1).log_scale()),
        (true, false) => draw!((x0..x1).log_scale(), y0..y1),
        (false, true) => draw!(x0..x1, (y0..y1).log_scale()),
        (false, false) => draw!(x0..x1, y0..y1),
    }
    root.present().map_err(err)
}

/// Zero fraction (top) and FPR (bottom) against insertions from empty.
fn convergence<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    spec: &Spec,
    rows: &[Row],
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    // point -> (label, [(t, zero, zero theory, fpr, fpr theory)])
    type Series = (String, Vec<[f64; 5]>);
    let mut groups: BTreeMap<u64, Series> = BTreeMap::new();
    for r in rows {
        let get = |c: &str| r.get_num(c);
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
    if groups.is_empty() {
        return Err(
            "plot convergence: no convergence rows (add \"convergence\" to metrics)".into(),
        );
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fills_missing_columns() {
        let mut a = Row::default();
        a.num("x", 1.0);
        let mut b = Row::default();
        b.num("y", 2.5);
        b.push("x", Value::Int(3));
        assert_eq!(csv_string(&[a, b]).unwrap(), "x,y\n1,\n3,2.5\n");
    }

    #[test]
    fn numbers_are_formatted_readably() {
        assert_eq!(fmt_num(0.000123456), "1.235e-4");
        assert_eq!(fmt_num(12.3456), "12.35");
        assert_eq!(fmt_num(14.0), "14");
        assert_eq!(fmt_num(0.4567), "0.4567");
    }

    #[test]
    fn atomic_write_replaces() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("sub/x.csv");
        write_atomic(&p, b"a").unwrap();
        write_atomic(&p, b"b").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"b");
        assert_eq!(std::fs::read_dir(p.parent().unwrap()).unwrap().count(), 1);
    }
}
