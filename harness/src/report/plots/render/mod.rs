//! Draws a [`Figure`] under one set of rules, whatever the chart kind:
//! - axis ranges from the data (measurements, intervals, theory, bounds), so
//!   no point is clipped; a measured 0 on a log axis sits hollow on the
//!   bottom edge and a note says so;
//! - log axes ticked 10ⁿ;
//! - every series its own colour (ten, colour-blind safe), marker
//!   shape and, past ten series, line pattern, so that series stay apart
//!   in greyscale too;
//! - interval bars wherever a figure has an interval;
//! - the legend and the notes below the panels, never over the data.
//!
//! plotters draws the axes; the data are drawn in pixels through the chart's
//! own coordinate mapping, one code path for every combination of axes.

use super::err;
use super::figure::{padded, Draw, Figure, Panel, Point};
use plotters::coord::combinators::BindKeyPoints;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;

mod marks;
mod ticks;

use marks::{marker, polyline, style, Style};
use ticks::{log_ticks, powers, ticker};

/// Width of every chart, in pixels.
pub const WIDTH: u32 = 1000;
const TITLE_H: u32 = 46;
/// Height of a panel of weight 1.
const PANEL_H: f64 = 470.0;
const ROW_H: u32 = 24;
const NOTE_H: u32 = 20;
const FONT: &str = "sans-serif";

/// The chart's height in pixels for this figure.
pub fn height(f: &Figure) -> u32 {
    let f = &resolved(f);
    let panels: f64 = f.panels.iter().map(|p| (PANEL_H * p.weight).round()).sum();
    TITLE_H + panels as u32 + legend_rows(f) * ROW_H + 12 + notes(f).len() as u32 * NOTE_H + 10
}

/// `f` with a log axis made linear where its data span less than a decade
/// (swamp_distinct_lb's memory, 1.2-4.1 Mbit): over so short a span the two
/// scales differ little and the linear one reads more easily. (It was added
/// when plotters gave such an axis no tick at all; [`log_ticks`] ticks it
/// now.)
fn resolved(f: &Figure) -> Figure {
    let mut f = f.clone();
    for p in &mut f.panels {
        let (x0, x1) = p.x_span();
        if p.log_x && x1 / x0 < 10.0 {
            p.log_x = false;
        }
        let (y0, y1) = p.y_span();
        if p.log_y && y1 / y0 < 10.0 {
            p.log_y = false;
        }
    }
    f
}

/// A legend entry: (words, style number or none for a reference line,
/// dashed reference).
enum Entry {
    Series(String, usize),
    Reference(String, bool),
    Absent(String),
}

fn entries(f: &Figure) -> Vec<Entry> {
    let mut out: Vec<Entry> = f
        .names()
        .into_iter()
        .enumerate()
        .map(|(i, n)| Entry::Series(n, i))
        .collect();
    let mut refs: Vec<(String, bool)> = Vec::new();
    for r in f.panels.iter().flat_map(|p| &p.references) {
        if !r.name.is_empty() && !refs.iter().any(|x| x.0 == r.name) {
            refs.push((r.name.clone(), r.dashed));
        }
    }
    out.extend(refs.into_iter().map(|(n, d)| Entry::Reference(n, d)));
    out.extend(
        f.absent
            .iter()
            .map(|n| Entry::Absent(format!("{n}: no point on these axes"))),
    );
    out
}

fn entry_text(e: &Entry) -> &str {
    match e {
        Entry::Series(s, _) | Entry::Reference(s, _) | Entry::Absent(s) => s,
    }
}

/// Two columns when every entry fits in half the width.
fn legend_columns(f: &Figure) -> u32 {
    let longest = entries(f)
        .iter()
        .map(|e| entry_text(e).chars().count())
        .max()
        .unwrap_or(0);
    if longest <= 52 {
        2
    } else {
        1
    }
}

fn legend_rows(f: &Figure) -> u32 {
    let n = entries(f).len() as u32;
    n.div_ceil(legend_columns(f))
}

/// The figure's notes, with the key to its marks and what could not be
/// placed on a log axis.
fn notes(f: &Figure) -> Vec<String> {
    let mut out = Vec::new();
    let all = || f.panels.iter().flat_map(|p| &p.series);
    let theory =
        all().any(|s| s.draw == Draw::Marks && s.points.iter().any(|p| p.theory.is_some()));
    let bars = all().any(|s| {
        s.points
            .iter()
            .any(|p| p.y_ci.is_some() || p.x_ci.is_some())
    });
    let mut key = Vec::new();
    if theory {
        key.push("lines: theory; markers: measured".to_string());
    }
    if bars {
        key.push(format!(
            "bars: {}% intervals",
            crate::report::fmt_num(f.ci_level * 100.0)
        ));
    }
    if !key.is_empty() {
        out.push(key.join("; "));
    }
    let zeros: usize = f
        .panels
        .iter()
        .filter(|p| p.log_y)
        .flat_map(|p| &p.series)
        .flat_map(|s| &s.points)
        .filter(|p| p.y <= 0.0 && p.x.is_finite())
        .count();
    if zeros > 0 {
        out.push(format!(
            "{zeros} measured value(s) of 0 drawn hollow on the bottom edge (a log axis has no 0)"
        ));
    }
    let off: usize = f
        .panels
        .iter()
        .filter(|p| p.log_x)
        .flat_map(|p| &p.series)
        .flat_map(|s| &s.points)
        .filter(|p| p.x <= 0.0)
        .count();
    if off > 0 {
        out.push(format!(
            "{off} point(s) at x <= 0 left out (a log axis has no place for them)"
        ));
    }
    out.extend(f.notes.iter().cloned());
    out
}

/// Draws `f` on `root`, which must be [`WIDTH`] by [`height`] pixels.
pub fn render<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, f: &Figure) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let f = &resolved(f);
    root.fill(&WHITE).map_err(err)?;
    let names = f.names();
    let (title, rest) = root.split_vertically(TITLE_H);
    title
        .draw(&Text::new(
            powers(&f.title),
            (20, 12),
            (FONT, 22).into_font().style(FontStyle::Normal),
        ))
        .map_err(err)?;
    let mut area = rest;
    for p in &f.panels {
        let (panel, below) = area.split_vertically((PANEL_H * p.weight).round() as u32);
        // panels over the same x share its range, so that they line up
        let x = f
            .panels
            .iter()
            .filter(|q| q.x_label == p.x_label && q.log_x == p.log_x)
            .map(Panel::x_span)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |a, b| {
                (a.0.min(b.0), a.1.max(b.1))
            });
        draw_panel(&root, &panel, p, padded(x, p.log_x), &names)?;
        area = below;
    }
    draw_legend(&area, f)?;
    root.present().map_err(err)
}

/// One panel: its axes by plotters, for each of the four log/linear
/// combinations, then its data in pixels.
fn draw_panel<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    area: &DrawingArea<DB, Shift>,
    p: &Panel,
    (x0, x1): (f64, f64),
    names: &[String],
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let (y0, y1) = padded(p.y_span(), p.log_y);
    match (p.log_x, p.log_y) {
        (true, true) => axes(
            root,
            area,
            p,
            names,
            (x0..x1).log_scale().with_key_points(log_ticks(x0, x1)),
            (y0..y1).log_scale().with_key_points(log_ticks(y0, y1)),
            (y0, y1),
        ),
        (true, false) => {
            let xr = (x0..x1).log_scale().with_key_points(log_ticks(x0, x1));
            axes(root, area, p, names, xr, y0..y1, (y0, y1))
        }
        (false, true) => {
            let yr = (y0..y1).log_scale().with_key_points(log_ticks(y0, y1));
            axes(root, area, p, names, x0..x1, yr, (y0, y1))
        }
        (false, false) => axes(root, area, p, names, x0..x1, y0..y1, (y0, y1)),
    }
}

/// The axes of panel `p` over the ranges `xr` and `yr` (whose values are
/// `y`), then its data.
#[allow(clippy::too_many_arguments)]
fn axes<DB, X, Y>(
    root: &DrawingArea<DB, Shift>,
    area: &DrawingArea<DB, Shift>,
    p: &Panel,
    names: &[String],
    xr: X,
    yr: Y,
    y: (f64, f64),
) -> anyhow::Result<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let mut chart = ChartBuilder::on(area)
        .margin_top(8)
        .margin_right(30)
        .margin_left(10)
        .x_label_area_size(52)
        .y_label_area_size(100)
        .build_cartesian_2d(xr, yr)
        .map_err(err)?;
    let xr = chart.x_range();
    let fx = ticker((xr.start, xr.end), p.log_x);
    let fy = ticker(y, p.log_y);
    chart
        .configure_mesh()
        .x_desc(p.x_label.as_str())
        .y_desc(p.y_label.as_str())
        .x_label_formatter(&fx)
        .y_label_formatter(&fy)
        .x_labels(7)
        .y_labels(((PANEL_H * p.weight) / 40.0).max(3.0) as usize)
        .label_style((FONT, 15))
        .axis_desc_style((FONT, 17))
        .light_line_style(TRANSPARENT)
        .bold_line_style(BLACK.mix(0.12))
        .draw()
        .map_err(err)?;
    let px = |x: f64, y: f64| chart.backend_coord(&(x, y));
    draw_data(root, p, names, &px, y)
}

/// The panel's data, in pixels: reference lines, window marks, then each
/// series' theory line, measured line, bars and markers.
fn draw_data<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    p: &Panel,
    names: &[String],
    px: &dyn Fn(f64, f64) -> (i32, i32),
    (ylo, yhi): (f64, f64),
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    for r in &p.references {
        let pts: Vec<(i32, i32)> = r
            .points
            .iter()
            .filter(|q| placeable(p, q.0, q.1))
            .map(|q| px(q.0, q.1))
            .collect();
        let dash = if r.dashed { Some((8.0, 5.0)) } else { None };
        polyline(root, &pts, dash, BLACK.mix(0.75).stroke_width(2))?;
    }
    for &x in &p.vlines {
        polyline(
            root,
            &[px(x, ylo), px(x, yhi)],
            Some((4.0, 4.0)),
            BLACK.mix(0.5).stroke_width(1),
        )?;
    }
    for s in &p.series {
        let i = names.iter().position(|n| *n == s.name).unwrap_or(0);
        let st = style(i);
        let mut pts = s.points.clone();
        pts.sort_by(|a, b| a.x.total_cmp(&b.x));
        let y_of = |y: f64| if p.log_y && y <= 0.0 { ylo } else { y };
        let theory: Vec<(i32, i32)> = pts
            .iter()
            .filter_map(|q| Some((q.x, q.theory?)))
            .filter(|q| placeable(p, q.0, q.1))
            .map(|q| px(q.0, q.1))
            .collect();
        polyline(root, &theory, st.dash, st.color.stroke_width(2))?;
        if s.draw != Draw::Marks {
            let line: Vec<(i32, i32)> = pts
                .iter()
                .filter(|q| !(p.log_x && q.x <= 0.0))
                .map(|q| px(q.x, y_of(q.y)))
                .collect();
            let width = if s.draw == Draw::Line { 1 } else { 2 };
            polyline(root, &line, st.dash, st.color.stroke_width(width))?;
        }
        if s.draw == Draw::Line {
            continue;
        }
        for q in pts.iter().filter(|q| !(p.log_x && q.x <= 0.0)) {
            bars(root, p, q, px, &y_of, (ylo, yhi), st.color)?;
        }
        let radius = if pts.len() > 60 { 3 } else { 5 };
        for q in pts.iter().filter(|q| !(p.log_x && q.x <= 0.0)) {
            let zero = p.log_y && q.y <= 0.0;
            let st = Style {
                filled: st.filled && !zero,
                ..st
            };
            marker(root, px(q.x, y_of(q.y)), st, radius)?;
        }
    }
    Ok(())
}

/// Whether (x, y) has a place on the panel's axes.
fn placeable(p: &Panel, x: f64, y: f64) -> bool {
    x.is_finite() && y.is_finite() && !(p.log_x && x <= 0.0) && !(p.log_y && y <= 0.0)
}

/// A point's interval bars, with caps.
fn bars<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    p: &Panel,
    q: &Point,
    px: &dyn Fn(f64, f64) -> (i32, i32),
    y_of: &dyn Fn(f64) -> f64,
    yr: (f64, f64),
    color: RGBColor,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let st = color.mix(0.6).stroke_width(1);
    if let Some((lo, hi)) = q
        .y_ci
        .filter(|c| c.0.is_finite() && c.1.is_finite() && c.1 > c.0)
    {
        // an interval past the panel's range ends at its edge
        let (ylo, yhi) = yr;
        let (lo, hi) = (y_of(lo).clamp(ylo, yhi), y_of(hi).clamp(ylo, yhi));
        let (a, b) = (px(q.x, lo), px(q.x, hi));
        for seg in [
            [a, b],
            [(a.0 - 4, a.1), (a.0 + 4, a.1)],
            [(b.0 - 4, b.1), (b.0 + 4, b.1)],
        ] {
            root.draw(&PathElement::new(seg, st)).map_err(err)?;
        }
    }
    if let Some((lo, hi)) = q
        .x_ci
        .filter(|c| c.0.is_finite() && c.1.is_finite() && c.1 > c.0)
    {
        let lo = if p.log_x && lo <= 0.0 { q.x / 1e3 } else { lo };
        let (a, b) = (px(lo, y_of(q.y)), px(hi, y_of(q.y)));
        for seg in [
            [a, b],
            [(a.0, a.1 - 4), (a.0, a.1 + 4)],
            [(b.0, b.1 - 4), (b.0, b.1 + 4)],
        ] {
            root.draw(&PathElement::new(seg, st)).map_err(err)?;
        }
    }
    Ok(())
}

/// The legend in columns, then the notes, below the panels.
fn draw_legend<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, f: &Figure) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let cols = legend_columns(f);
    let col_w = (WIDTH - 40) / cols;
    let entries = entries(f);
    let rows = legend_rows(f);
    let font = (FONT, 15).into_font();
    for (n, e) in entries.iter().enumerate() {
        let (row, col) = (n as u32 % rows.max(1), n as u32 / rows.max(1));
        let x = 30 + (col * col_w) as i32;
        let y = 6 + (row * ROW_H) as i32 + ROW_H as i32 / 2;
        match e {
            Entry::Series(_, i) => {
                let st = style(*i);
                polyline(
                    area,
                    &[(x, y), (x + 36, y)],
                    st.dash,
                    st.color.stroke_width(2),
                )?;
                marker(area, (x + 18, y), st, 5)?;
            }
            Entry::Reference(_, dashed) => {
                let dash = if *dashed { Some((8.0, 5.0)) } else { None };
                polyline(
                    area,
                    &[(x, y), (x + 36, y)],
                    dash,
                    BLACK.mix(0.75).stroke_width(2),
                )?;
            }
            Entry::Absent(_) => {
                polyline(
                    area,
                    &[(x, y), (x + 36, y)],
                    None,
                    BLACK.mix(0.25).stroke_width(2),
                )?;
            }
        }
        let color = if matches!(e, Entry::Absent(_)) {
            RGBColor(110, 110, 110)
        } else {
            BLACK
        };
        area.draw(&Text::new(
            entry_text(e).to_string(),
            (x + 46, y - 8),
            font.clone().color(&color),
        ))
        .map_err(err)?;
    }
    let top = 12 + (rows * ROW_H) as i32;
    for (i, n) in notes(f).iter().enumerate() {
        area.draw(&Text::new(
            n.clone(),
            (30, top + (i as u32 * NOTE_H) as i32),
            (FONT, 14).into_font().color(&RGBColor(70, 70, 70)),
        ))
        .map_err(err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::figure::{Draw, Point, Series};
    use super::*;

    /// A log axis over less than a decade has no power of ten to tick: it
    /// is drawn linear; one over a decade or more stays logarithmic.
    #[test]
    fn a_log_axis_under_a_decade_is_drawn_linear() {
        let mut p = Panel::new("x", "y", true, true);
        p.series.push(Series {
            name: "a".into(),
            points: vec![Point::at(1.2e6, 1e-1), Point::at(4.1e6, 2e-5)],
            draw: Draw::Joined,
        });
        let r = resolved(&Figure::new("t", p));
        assert!(!r.panels[0].log_x && r.panels[0].log_y);
    }
}
