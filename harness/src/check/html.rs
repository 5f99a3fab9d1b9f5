//! `check --report DIR`: the check as one HTML page, what CI attaches to a
//! failing run: the verdict, every figure that moved with its baseline and
//! its new value side by side, a chart per moved column (baseline and new
//! value of every row, with their intervals), and the power of the check.

use super::{Finding, Power, Table};
use crate::metrics::columns::col;
use crate::metrics::Part;
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
    let ci = get(&Part::CiLow.of(col)).zip(get(&Part::CiHigh.of(col)));
    Some((v, ci))
}

/// An inline SVG of `col` in every row (matched by `point`), drawn under
/// the rules of every chart: the baseline as circles, this run as squares,
/// intervals as bars, a log axis when every value is positive and they span
/// over 100x, and below, this run / baseline row by row. `None` when the
/// column has no number on either side.
pub fn chart(base: &Table, new: &Table, col: &str) -> Option<String> {
    use crate::report::figure::{Draw, Figure, Panel, Point, Series};
    let by_point = |t: &Table| -> BTreeMap<String, (f64, Option<(f64, f64)>)> {
        t.iter()
            .filter_map(|r| Some((r.get(col::POINT.name())?.clone(), value(r, col)?)))
            .collect()
    };
    let (b, n) = (by_point(base), by_point(new));
    let mut points: Vec<&String> = b.keys().chain(n.keys()).collect();
    points.sort_by_key(|p| (p.parse::<u64>().unwrap_or(u64::MAX), p.to_string()));
    points.dedup();
    if points.is_empty() {
        return None;
    }
    let (lo, hi) = b
        .values()
        .chain(n.values())
        .map(|v| v.0)
        .fold((f64::MAX, f64::MIN), |(a, z), v| (a.min(v), z.max(v)));
    let log = lo > 0.0 && hi / lo > 100.0;
    let mut panel = Panel::new(
        "row (point number)",
        crate::metrics::columns::axis_label(col),
        false,
        log,
    );
    panel.y_from_zero = !log;
    // this run's points carry the baseline of their row, for the ratio
    let mut over = panel.clone();
    for (name, side, dx) in [("baseline", &b, -0.12), ("this run", &n, 0.12)] {
        let pts: Vec<Point> = points
            .iter()
            .filter_map(|p| {
                let &(v, ci) = side.get(*p)?;
                let x = p.parse::<f64>().ok()? + dx;
                Some(Point {
                    y_ci: ci,
                    theory: b.get(*p).map(|v| v.0),
                    ..Point::at(x, v)
                })
            })
            .collect();
        let series = |points| Series {
            name: name.into(),
            points,
            draw: Draw::Marks,
        };
        if name == "this run" {
            over.series.push(series(pts.clone()));
        }
        // drawn without it: the baseline is the other series
        let plain = pts
            .into_iter()
            .map(|q| Point { theory: None, ..q })
            .collect();
        panel.series.push(series(plain));
    }
    // this run over the baseline, row by row
    let (mut ratio, _) = over.ratio("this run");
    ratio.y_label = "this run / baseline".into();
    let mut fig = Figure::new(
        format!("{col}: the baseline and this run, row by row"),
        panel,
    );
    if !ratio.series.is_empty() {
        fig.panels.push(ratio);
    }
    let svg = crate::report::svg_string(&fig).ok()?;
    Some(match svg.find("<svg") {
        Some(at) => svg[at..].to_string(),
        None => svg,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(rows: &[(u32, f64)]) -> Table {
        rows.iter()
            .map(|&(p, v)| {
                [
                    ("point".to_string(), p.to_string()),
                    ("fpr".to_string(), v.to_string()),
                    ("fpr_ci_low".to_string(), (v * 0.9).to_string()),
                    ("fpr_ci_high".to_string(), (v * 1.1).to_string()),
                ]
                .into_iter()
                .collect()
            })
            .collect()
    }

    /// The moved column's chart names its axis in words, both sides and
    /// the ratio of this run to the baseline.
    #[test]
    fn a_moved_columns_chart_shows_both_sides_and_their_ratio() {
        let base = table(&[(0, 1e-3), (1, 1e-2), (2, 1e-1)]);
        let new = table(&[(0, 1.5e-3), (1, 1e-2), (2, 1e-1)]);
        let svg = chart(&base, &new, "fpr").unwrap();
        assert!(svg.starts_with("<svg"));
        for words in [
            "false-positive rate (worst phase)",
            "baseline",
            "this run",
            "this run / baseline",
            "row (point number)",
        ] {
            assert!(svg.contains(words), "{words}");
        }
        assert!(chart(&base, &new, "missing_column").is_none());
    }
}
