//! `check --report DIR`: the check as one HTML page, what CI attaches to a
//! failing run: the verdict, every figure that moved with its baseline and
//! its new value side by side, a chart per moved column (baseline and new
//! value of every row, with their intervals), and the power of the check.

use super::{Finding, Power, Table};
use crate::report::site::{esc, SORT, STYLE};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What the report shows.
pub struct CheckReport<'a> {
    /// Experiments rerun.
    pub experiments: usize,
    /// Row comparisons and pooled column tests.
    pub tests: (usize, usize),
    /// Family-wise significance.
    pub alpha: f64,
    /// Where the baselines are.
    pub baselines: &'a Path,
    /// What moved.
    pub findings: &'a [Finding],
    /// (experiment, power line).
    pub power: &'a [(String, Power)],
    /// Each compared table by the name its findings carry: (baseline, new).
    pub tables: BTreeMap<String, (&'a Table, &'a Table)>,
}

/// Writes `dir/index.html` (and its stylesheet and script); returns the
/// page's path.
pub fn write(dir: &Path, r: &CheckReport) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    crate::report::write_atomic(&dir.join("style.css"), STYLE.as_bytes())?;
    crate::report::write_atomic(&dir.join("sort.js"), SORT.as_bytes())?;
    let page = dir.join("index.html");
    crate::report::write_atomic(&page, page_html(r).as_bytes())?;
    Ok(page)
}

fn page_html(r: &CheckReport) -> String {
    let regressions = r.findings.iter().filter(|f| f.regression).count();
    let mut s = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>bloomlab check</title>\n<link rel=\"stylesheet\" href=\"style.css\">\n</head>\n\
         <body>\n<nav><a href=\"index.html\">bloomlab check</a></nav>\n<main>\n<h1>bloomlab check</h1>\n",
    );
    let verdict = match (r.findings.len(), regressions) {
        (0, _) => "nothing moved".to_string(),
        (n, 0) => format!("{n} figure(s) moved, all within noise"),
        (n, k) => {
            format!("<span class=\"miss\">{k} regression(s)</span> among {n} figure(s) that moved")
        }
    };
    let _ = writeln!(
        s,
        "<p>{} experiments rerun against the baselines in <code>{}</code>: {} row comparisons and {} \
         pooled column tests at family-wise significance {}. Verdict: {verdict}.</p>",
        r.experiments,
        esc(&r.baselines.to_string_lossy()),
        r.tests.0,
        r.tests.1,
        r.alpha
    );
    if !r.findings.is_empty() {
        s.push_str(
            "<h2>What moved</h2>\n<table class=\"sortable\" id=\"findings\">\n<thead><tr><th>experiment</th>\
             <th>point</th><th>column</th><th>baseline</th><th>now</th><th>change</th><th>verdict</th>\
             </tr></thead>\n<tbody>\n",
        );
        for f in r.findings {
            let (class, verdict) = if f.regression {
                (" class=\"miss\"", "regression")
            } else {
                ("", "moved (within noise)")
            };
            let _ = writeln!(
                s,
                "<tr{class}><td>{}</td><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td>\
                 <td class=\"num\">{}</td><td>{}</td><td{class}>{verdict}</td></tr>",
                esc(&f.experiment),
                esc(&f.point),
                esc(&f.column),
                esc(&f.base),
                esc(&f.new),
                esc(&f.measure)
            );
        }
        s.push_str("</tbody>\n</table>\n<h2>The moved columns, row by row</h2>\n");
        let mut seen = Vec::new();
        for f in r.findings {
            let key = (f.experiment.clone(), f.column.clone());
            if seen.contains(&key) {
                continue;
            }
            seen.push(key);
            if let Some(&(base, new)) = r.tables.get(&f.experiment) {
                if let Some(svg) = chart(base, new, &f.column) {
                    let _ = writeln!(
                        s,
                        "<figure class=\"chart\">\n{svg}\n<figcaption>{}: {} (baseline circles, \
                         now squares; bars are the 99% intervals where the column has them)</figcaption>\n</figure>",
                        esc(&f.experiment),
                        esc(&f.column)
                    );
                }
            }
        }
    }
    s.push_str(
        "<h2>Power</h2>\n<p>The smallest relative shift of every row of a column the check detects \
         with 90% power, pooled over the rows and in the best single row.</p>\n\
         <table class=\"sortable\" id=\"power\">\n<thead><tr><th>experiment</th><th>column</th>\
         <th>rows</th><th>pooled</th><th>best row</th></tr></thead>\n<tbody>\n",
    );
    let pct = |d: Option<f64>| d.map_or("-".into(), |d| format!("{:.1}%", 100.0 * d));
    for (exp, p) in r.power {
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td></tr>",
            esc(exp),
            esc(&p.column),
            p.rows,
            pct(p.pooled),
            pct(p.best_row)
        );
    }
    s.push_str(
        "</tbody>\n</table>\n</main>\n<script src=\"sort.js\"></script>\n</body>\n</html>\n",
    );
    s
}

/// (value, interval) of `col` in a row, where it is a finite number.
fn value(row: &BTreeMap<String, String>, col: &str) -> Option<(f64, Option<(f64, f64)>)> {
    let get = |c: &str| {
        row.get(c)
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|v| v.is_finite())
    };
    let v = get(col)?;
    let ci = get(&format!("{col}_ci_low")).zip(get(&format!("{col}_ci_high")));
    Some((v, ci))
}

/// An inline SVG of `col` in every row (matched by `point`): the baseline
/// as circles, the new value as squares, intervals as bars; a log axis
/// when every value is positive and they span over 100x. `None` when the
/// column has no number on either side.
pub fn chart(base: &Table, new: &Table, col: &str) -> Option<String> {
    let by_point = |t: &Table| -> BTreeMap<String, (f64, Option<(f64, f64)>)> {
        t.iter()
            .filter_map(|r| Some((r.get("point")?.clone(), value(r, col)?)))
            .collect()
    };
    let (b, n) = (by_point(base), by_point(new));
    let mut points: Vec<&String> = b.keys().chain(n.keys()).collect();
    points.sort_by_key(|p| (p.parse::<u64>().unwrap_or(u64::MAX), p.to_string()));
    points.dedup();
    let all: Vec<f64> = b
        .values()
        .chain(n.values())
        .flat_map(|(v, ci)| [Some(*v), ci.map(|c| c.0), ci.map(|c| c.1)])
        .flatten()
        .collect();
    if all.is_empty() {
        return None;
    }
    let (lo, hi) = all
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, z), &v| (a.min(v), z.max(v)));
    let log = lo > 0.0 && hi / lo > 100.0;
    let tr = |v: f64| if log { v.log10() } else { v };
    let (ylo, yhi) = if tr(hi) > tr(lo) {
        (tr(lo), tr(hi))
    } else {
        (tr(lo) - 1.0, tr(hi) + 1.0)
    };
    let (w, h, left, top, bottom) = (760.0, 280.0, 80.0, 16.0, 36.0);
    let x = |i: usize| left + (w - left - 16.0) * (i as f64 + 0.5) / points.len() as f64;
    let y = |v: f64| top + (h - top - bottom) * (1.0 - (tr(v) - ylo) / (yhi - ylo));
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" \
         font-family=\"sans-serif\" font-size=\"11\">\n<rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n\
         <line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{}\" stroke=\"#444\"/>\n\
         <line x1=\"{left}\" y1=\"{0}\" x2=\"{}\" y2=\"{0}\" stroke=\"#444\"/>\n",
        h - bottom,
        w - 8.0
    );
    let label = |v: f64| crate::report::fmt_num(v);
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n\
         <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">row (point){}</text>",
        left - 4.0,
        top + 8.0,
        label(hi),
        left - 4.0,
        h - bottom,
        label(lo),
        (left + w) / 2.0,
        h - 8.0,
        if log { ", log scale" } else { "" }
    );
    for (i, p) in points.iter().enumerate() {
        for (side, (dx, color)) in [(&b, (-3.0, "#0072b2")), (&n, (3.0, "#d55e00"))] {
            let Some(&(v, ci)) = side.get(*p) else {
                continue;
            };
            let cx = x(i) + dx;
            if let Some((l, u)) = ci {
                let _ = writeln!(
                    s,
                    "<line x1=\"{cx:.1}\" y1=\"{:.1}\" x2=\"{cx:.1}\" y2=\"{:.1}\" stroke=\"{color}\"/>",
                    y(l),
                    y(u)
                );
            }
            let cy = y(v);
            if dx < 0.0 {
                let _ = writeln!(s, "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"3.5\" fill=\"{color}\"><title>point {p}: baseline {}</title></circle>", label(v));
            } else {
                let _ = writeln!(
                    s,
                    "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"7\" height=\"7\" fill=\"{color}\"><title>point {p}: now {}</title></rect>",
                    cx - 3.5,
                    cy - 3.5,
                    label(v)
                );
            }
        }
    }
    s.push_str("</svg>");
    Some(s)
}
