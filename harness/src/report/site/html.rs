//! The site's pages: plain HTML, one stylesheet, one small script.

use super::{relative, Experiment, SiteDirs, Table, MAX_ROWS};
use crate::metrics::Part;
use crate::report::fmt_num;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The stylesheet.
pub const STYLE: &str = "\
body { font-family: system-ui, sans-serif; margin: 0; color: #222; }
nav { background: #23395d; padding: 0.6em 1.5em; }
nav a { color: #fff; text-decoration: none; font-weight: 600; }
main { padding: 1em 1.5em 3em; max-width: 110em; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 1.6em; }
pre { background: #f4f4f4; padding: 0.6em; overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: left; }
th { background: #eef; position: sticky; top: 0; }
table.sortable th { cursor: pointer; }
th[aria-sort=ascending]::after { content: ' \\25B2'; }
th[aria-sort=descending]::after { content: ' \\25BC'; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.miss, span.miss { background: #f8d0d0; font-weight: 600; }
tr.miss td:first-child { border-left: 4px solid #c00; }
figure.chart { margin: 1em 0; }
figure.chart svg { max-width: 100%; height: auto; border: 1px solid #ddd; }
.wide { overflow-x: auto; }
";

/// Sorting: a click on a header sorts its table's rows by that column,
/// numerically where the cells read as numbers; a second click reverses.
pub const SORT: &str = r#""use strict";
document.querySelectorAll("table.sortable").forEach(function (table) {
  var heads = table.querySelectorAll("th");
  heads.forEach(function (th, col) {
    th.addEventListener("click", function () {
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      var asc = th.getAttribute("aria-sort") !== "ascending";
      heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", asc ? "ascending" : "descending");
      var key = function (r) {
        var t = r.cells[col] ? r.cells[col].textContent.trim() : "";
        var n = parseFloat(t);
        return isNaN(n) ? t : n;
      };
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        var c = (typeof x === "number" && typeof y === "number") ? x - y : String(x).localeCompare(String(y));
        return asc ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
"#;

/// HTML-escaped text.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

fn head(title: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<link rel=\"stylesheet\" href=\"style.css\">\n</head>\n<body>\n\
         <nav><a href=\"index.html\">bloomlab results</a></nav>\n<main>\n",
        esc(title)
    )
}

const FOOT: &str = "</main>\n<script src=\"sort.js\"></script>\n</body>\n</html>\n";

/// The command that reproduces an experiment.
fn command(x: &Experiment) -> String {
    let file = x
        .spec_path
        .file_name()
        .unwrap_or_default()
        .to_string_lossy();
    format!("cargo run --release -- run experiments/{file}")
}

/// The description's first sentence (up to a period, outside parentheses,
/// followed by a space and a capital letter, or the end), on one line.
fn first_sentence(text: &str) -> String {
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut depth = 0i32;
    for (i, c) in one.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            '.' if depth <= 0 => {
                let rest = &one[i + 1..];
                let next = rest.strip_prefix(' ').and_then(|r| r.chars().next());
                if next.is_some_and(char::is_uppercase) {
                    return one[..=i].to_string();
                }
            }
            _ => {}
        }
    }
    one
}

/// "holds of checked", highlighted when some check fails.
fn inside_text(t: &Table) -> String {
    match t.inside() {
        (_, 0) => "no theory checks".into(),
        (y, n) if y == n => format!("{y} of {n}"),
        (y, n) => format!("<span class=\"miss\">{y} of {n}</span>"),
    }
}

/// When the results were committed and where they ran, as far as known.
fn when_and_where(x: &Experiment) -> String {
    let committed = x.committed.as_deref().unwrap_or("not committed");
    match &x.ran {
        Some(r) => format!("{committed}; {r}"),
        None => format!("{committed}; machine not recorded"),
    }
}

/// The index page.
pub(super) fn index(exps: &[Experiment], others: &[PathBuf], out: &Path, d: &SiteDirs) -> String {
    let mut s = head("bloomlab results");
    s.push_str(
        "<h1>bloomlab results</h1>\n<p>Every experiment in <code>experiments/</code> with its \
         committed results: what it reproduces, the command that reruns it, and how many of its \
         theory-against-measurement checks (a theory inside the measured 99% interval) hold. \
         Click a column's header to sort.</p>\n",
    );
    s.push_str(
        "<table class=\"sortable\" id=\"experiments\">\n<thead><tr><th>experiment</th>\
         <th>what it reproduces</th><th>rows</th><th>theory inside</th><th>committed; ran on</th>\
         <th>command</th></tr></thead>\n<tbody>\n",
    );
    for x in exps {
        let (rows, inside) = match &x.table {
            Some(t) => (t.rows.len().to_string(), inside_text(t)),
            None => ("not run".into(), String::new()),
        };
        let _ = writeln!(
            s,
            "<tr><td><a href=\"{page}\">{n}</a></td><td>{}</td><td class=\"num\">{rows}</td>\
             <td>{inside}</td><td>{}</td><td><code>{}</code></td></tr>",
            esc(&first_sentence(&x.spec.description)),
            esc(&when_and_where(x)),
            esc(&command(x)),
            n = esc(&x.spec.name),
            page = esc(&super::page_file(&x.spec.name)),
        );
    }
    s.push_str("</tbody>\n</table>\n");
    if !others.is_empty() {
        s.push_str(
            "<h2>Other results</h2>\n<p>Benchmarks and measured plans, written by \
             <code>bench-report</code> and <code>plan --measure</code> (markdown):</p>\n<ul>\n",
        );
        for p in others {
            let shown = p.strip_prefix(d.results).unwrap_or(p).to_string_lossy();
            let _ = writeln!(
                s,
                "<li><a href=\"{}\">{}</a></li>",
                esc(&relative(out, p)),
                esc(&shown)
            );
        }
        s.push_str("</ul>\n");
    }
    s.push_str(FOOT);
    s
}

/// A cell: numbers in four significant digits (the CSV has them all),
/// theory-outside flags highlighted.
fn cell(col: &str, v: &str) -> (String, &'static str) {
    if col.ends_with(Part::TheoryInCi.suffix()) && v == "false" {
        return ("no".into(), " class=\"miss\"");
    }
    if col.ends_with("_in_ci") && v == "false" {
        return ("no".into(), "");
    }
    if col.ends_with("_in_ci") && v == "true" {
        return ("yes".into(), "");
    }
    match v.parse::<f64>() {
        Ok(x) if x.is_finite() => (fmt_num(x), " class=\"num\""),
        _ => (esc(v), ""),
    }
}

/// The table of an experiment's results: its spec's table columns (all
/// columns without them) and every `*_in_ci` column beside them.
fn table_html(x: &Experiment, t: &Table) -> String {
    let mut cols: Vec<usize> = match &x.spec.table_columns {
        Some(names) => names.iter().filter_map(|n| t.col(n)).collect(),
        None => (0..t.header.len()).collect(),
    };
    for (i, h) in t.header.iter().enumerate() {
        if h.ends_with("_in_ci") && !cols.contains(&i) {
            cols.push(i);
        }
    }
    let mut s = String::from("<div class=\"wide\"><table class=\"sortable results\">\n<thead><tr>");
    for &c in &cols {
        let _ = write!(s, "<th>{}</th>", esc(&t.header[c]));
    }
    s.push_str("</tr></thead>\n<tbody>\n");
    for r in t.rows.iter().take(MAX_ROWS) {
        let miss = cols.iter().any(|&c| {
            t.header[c].ends_with(Part::TheoryInCi.suffix())
                && r.get(c).is_some_and(|v| v == "false")
        });
        s.push_str(if miss { "<tr class=\"miss\">" } else { "<tr>" });
        for &c in &cols {
            let (text, class) = cell(&t.header[c], r.get(c).map(String::as_str).unwrap_or(""));
            let _ = write!(s, "<td{class}>{text}</td>");
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody>\n</table></div>\n");
    if t.rows.len() > MAX_ROWS {
        let _ = writeln!(s, "<p>The first {MAX_ROWS} of {} rows.</p>", t.rows.len());
    }
    s
}

/// An experiment's page.
pub(super) fn page(x: &Experiment, out: &Path, d: &SiteDirs) -> String {
    let name = &x.spec.name;
    let mut s = head(name);
    let _ = writeln!(s, "<h1>{}</h1>", esc(name));
    for para in x.spec.description.split("\n\n") {
        let _ = writeln!(s, "<p>{}</p>", esc(para.trim()));
    }
    let _ = writeln!(s, "<h2>Command</h2>\n<pre>{}</pre>", esc(&command(x)));
    if !x.docs.is_empty() {
        s.push_str("<p>Written up in: ");
        let links: Vec<String> = x
            .docs
            .iter()
            .map(|p| {
                let shown = p.file_name().unwrap_or_default().to_string_lossy();
                format!("<a href=\"{}\">{}</a>", esc(&relative(out, p)), esc(&shown))
            })
            .collect();
        let _ = writeln!(s, "{}.</p>", links.join(", "));
    }
    let csv = d.results.join(format!("{name}.csv"));
    match &x.table {
        None => {
            let _ = writeln!(
                s,
                "<h2>Results</h2>\n<p>Not run yet: no {}. The command above writes it.</p>",
                esc(&csv.to_string_lossy())
            );
        }
        Some(t) => {
            if !x.charts.is_empty() {
                s.push_str("<h2>Charts</h2>\n");
            }
            for (stem, title, svg) in &x.charts {
                match svg {
                    Some(svg) => {
                        let _ = writeln!(
                            s,
                            "<figure class=\"chart\" id=\"chart-{}\">\n{svg}\n<figcaption>{}</figcaption>\n</figure>",
                            esc(stem),
                            esc(title)
                        );
                    }
                    None => {
                        let _ = writeln!(
                            s,
                            "<p class=\"missing-chart\">Chart {}.svg is missing from the plots directory.</p>",
                            esc(stem)
                        );
                    }
                }
            }
            let when = format!(", committed {}", when_and_where(x));
            let _ = writeln!(
                s,
                "<h2>Results</h2>\n<p>{} rows, theory inside its interval: {}{}. Every column is in \
                 <a href=\"{}\">{}</a>.</p>",
                t.rows.len(),
                inside_text(t),
                esc(&when),
                esc(&relative(out, &csv)),
                esc(&format!("{name}.csv"))
            );
            s.push_str(&table_html(x, t));
        }
    }
    let _ = writeln!(
        s,
        "<h2>Spec</h2>\n<details><summary>{}</summary>\n<pre>{}</pre>\n</details>",
        esc(&x.spec_path.to_string_lossy()),
        esc(&x.spec_text)
    );
    s.push_str(FOOT);
    s
}
