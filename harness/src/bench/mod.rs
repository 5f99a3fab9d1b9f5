//! `bloomlab bench-report`: the criterion benchmarks of
//! `bench/benches/ops.rs` and `bench/benches/stable_crate.rs` as tables,
//! ratios and charts, with each operation set against the machine's
//! memory-access limit ([`probe`]).
//!
//! Criterion leaves one `new/benchmark.json` (group, function, parameter,
//! throughput) and `new/estimates.json` (mean time per iteration with its
//! interval) per benchmark under `target/criterion/`. This reads them all and
//! writes `results/bench_ops.csv` (one row per operation x design x size),
//! `results/bench_ops.md` (ns/op per operation, each design's ratio to
//! fastbloom at the same operation and size, the issue's targets as
//! met/missed, the Stable Bloom filter against the `stable-bloom-filter`
//! crate) and `plots/bench_<operation>.svg|png` (ns/op vs window, one line per
//! design). Only the latest run of each benchmark is read, so run the benches
//! once, then report: ratios are meaningful only within one run.

pub mod concurrent;
pub mod probe;
pub mod targets;

use crate::metrics::columns::col;
use crate::metrics::Part;
use crate::metrics::{Row, Value};
use crate::report;
use crate::spec::Spec;
use crate::sweep::Outcome;
use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Operations of `benches/ops.rs`, in report order.
pub const OPS: &[&str] = &[
    "insert",
    "query_positive",
    "query_negative",
    "query_negative_batched",
    "query_frequency",
    "query_distinct",
];

/// The design every ratio is taken against.
pub const BASELINE: &str = "fastbloom";

/// One criterion benchmark's result.
#[derive(Debug, Clone, PartialEq)]
pub struct Bench {
    /// Criterion group (the operation, or `stable_...`).
    pub group: String,
    /// Criterion function (the design, or `insert/...`).
    pub function: String,
    /// Criterion parameter (`w2^N`), if any.
    pub param: Option<String>,
    /// Mean ns per element, with its interval.
    pub ns: f64,
    /// Interval of `ns`.
    pub ci: (f64, f64),
}

fn read_json(path: &Path) -> anyhow::Result<Json> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

/// Every benchmark under `dir` (criterion's output directory).
pub fn collect(dir: &Path) -> anyhow::Result<Vec<Bench>> {
    if !dir.is_dir() {
        return Err(anyhow::anyhow!(
            "no criterion results in {} (run `cargo bench -p bloomlab-bench` first)",
            dir.display()
        ));
    }
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d)
            .map_err(|e| anyhow::anyhow!("cannot list {}: {e}", d.display()))?;
        for e in entries {
            let p = e
                .map_err(|e| anyhow::anyhow!("cannot list {}: {e}", d.display()))?
                .path();
            if p.is_dir() && p.file_name().is_some_and(|n| n != "report") {
                stack.push(p);
            } else if p.ends_with("new/benchmark.json") {
                out.push(parse_one(&p)?);
            }
        }
    }
    out.sort_by(|a, b| (&a.group, &a.function, &a.param).cmp(&(&b.group, &b.function, &b.param)));
    Ok(out)
}

fn parse_one(bench_json: &Path) -> anyhow::Result<Bench> {
    let b = read_json(bench_json)?;
    let est = read_json(&bench_json.with_file_name("estimates.json"))?;
    let bad = |what: &str| anyhow::anyhow!("{}: no {what}", bench_json.display());
    let text = |k: &str| b.get(k).and_then(Json::as_str).map(str::to_string);
    let elements = b
        .pointer("/throughput/Elements")
        .and_then(Json::as_f64)
        .unwrap_or(1.0);
    if !(elements.is_finite() && elements >= 1.0) {
        return Err(anyhow::anyhow!(
            "{}: throughput Elements = {elements} must be at least 1",
            bench_json.display()
        ));
    }
    let mean = |p: &str| {
        est.pointer(p)
            .and_then(Json::as_f64)
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| bad(p))
            .map(|v| v / elements)
    };
    Ok(Bench {
        group: text("group_id").ok_or_else(|| bad("group_id"))?,
        function: text("function_id").ok_or_else(|| bad("function_id"))?,
        param: text("value_str"),
        ns: mean("/mean/point_estimate")?,
        ci: (
            mean("/mean/confidence_interval/lower_bound")?,
            mean("/mean/confidence_interval/upper_bound")?,
        ),
    })
}

/// Whether text column `col` of `r` is `v`.
pub(super) fn is(r: &Row, col: &str, v: &str) -> bool {
    matches!(r.get(col), Some(Value::Text(t)) if t == v)
}

/// Text column `col` of `r`.
pub(super) fn text_of(r: &Row, col: &str) -> Option<String> {
    match r.get(col) {
        Some(Value::Text(t)) => Some(t.clone()),
        _ => None,
    }
}

/// log2 of the window from a `w2^N` parameter.
fn log_window(param: &Option<String>) -> Option<u32> {
    param.as_deref()?.strip_prefix("w2^")?.parse().ok()
}

/// Rows of the operation x design x size table, with ratios to fastbloom.
pub fn rows(benches: &[Bench]) -> Vec<Row> {
    let base: BTreeMap<(String, u32), f64> = benches
        .iter()
        .filter(|b| b.function == BASELINE)
        .filter_map(|b| Some(((b.group.clone(), log_window(&b.param)?), b.ns)))
        .collect();
    let mut out = Vec::new();
    for op in OPS {
        for b in benches.iter().filter(|b| b.group == *op) {
            let Some(lw) = log_window(&b.param) else {
                continue;
            };
            let mut r = Row::default();
            r.push(col::OPERATION, Value::Text(op.to_string()));
            r.push(col::DESIGN, Value::Text(b.function.clone()));
            r.push(col::LOG2_WINDOW, Value::Int(lw as u64));
            r.num(col::WINDOW, (1u64 << lw) as f64);
            r.num(col::NS_PER_OP, b.ns);
            r.num(Part::CiLow.of(col::NS_PER_OP), b.ci.0);
            r.num(Part::CiHigh.of(col::NS_PER_OP), b.ci.1);
            r.num(col::MOPS_PER_S, 1e3 / b.ns);
            if let Some(f) = base.get(&(op.to_string(), lw)) {
                r.num(col::RATIO_TO_FASTBLOOM, b.ns / f);
            }
            out.push(r);
        }
    }
    out
}

fn fmt(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    }
}

/// The mean ns/op and ratio to fastbloom of `design` at `op` and 2^`lw`.
fn cell(rows: &[Row], op: &str, design: &str, lw: u32) -> Option<(f64, Option<f64>)> {
    rows.iter()
        .find(|r| {
            is(r, col::OPERATION.name(), op)
                && is(r, col::DESIGN.name(), design)
                && r.get_num(col::LOG2_WINDOW) == Some(lw as f64)
        })
        .map(|r| {
            (
                r.get_num(col::NS_PER_OP).unwrap_or(f64::NAN),
                r.get_num(col::RATIO_TO_FASTBLOOM),
            )
        })
}

/// A run's benchmarks and the rows made of them.
pub type Run<'a> = (&'a [Bench], &'a [Row]);

/// The markdown report of one run, with the two-run targets and spread
/// when an earlier run is given.
pub fn markdown(benches: &[Bench], rows: &[Row], first: Option<Run>) -> String {
    let mut md = String::from(
        "# Criterion benchmarks: ns per operation\n\n\
         Produced by `cargo bench -p bloomlab-bench` then \
         `cargo run --release -- bench-report` (designs and sizing in \
         `bench/benches/ops.rs`: k = 10 and about 1.5e-3 FPR for every design, \
         fastbloom and bloomfilter at the blocked APBF's bits and k = 10). Cells: \
         mean ns per operation, and in parentheses the ratio to fastbloom at the \
         same operation and size (below 1: faster than fastbloom). Measured on a \
         shared 2-core machine: compare ratios within this one run, not absolute \
         times across runs.\n\n",
    );
    let sizes: Vec<u32> = {
        let mut s: Vec<u32> = rows
            .iter()
            .filter_map(|r| r.get_num(col::LOG2_WINDOW).map(|x| x as u32))
            .collect();
        s.sort();
        s.dedup();
        s
    };
    md += &operation_tables(rows, &sizes);
    md += &probe::Probe::of(benches).markdown();
    md += &probe::reads_table(rows, &sizes);
    let checks = targets::checks(benches, rows);
    md += &targets::markdown(&checks);
    if let Some((b1, r1)) = first {
        md += &targets::markdown_two(&targets::checks(b1, r1), &checks);
        md += &targets::spread(r1, rows);
    }
    md += &growth(rows, &sizes);
    md += &stable_vs_crate(benches);
    md
}

/// One table per operation: designs by window size.
fn operation_tables(rows: &[Row], sizes: &[u32]) -> String {
    let mut md = String::new();
    for op in OPS {
        let mut designs: Vec<String> = rows
            .iter()
            .filter(|r| is(r, col::OPERATION.name(), op))
            .filter_map(|r| text_of(r, col::DESIGN.name()))
            .collect();
        designs.dedup();
        if designs.is_empty() {
            continue;
        }
        md += &format!("## {op}\n\n| design |");
        for lw in sizes {
            md += &format!(" w = 2^{lw} |");
        }
        md += "\n|---|";
        md += &"---|".repeat(sizes.len());
        md += "\n";
        for d in &designs {
            md += &format!("| {d} |");
            for &lw in sizes {
                md += &match cell(rows, op, d, lw) {
                    Some((ns, Some(r))) => format!(" {} ({:.2}) |", fmt(ns), r),
                    Some((ns, None)) => format!(" {} |", fmt(ns)),
                    None => " |".into(),
                };
            }
            md += "\n";
        }
        md += "\n";
    }
    md
}

/// Each design's growth from the smallest size to the largest.
fn growth(rows: &[Row], sizes: &[u32]) -> String {
    let mut md = String::new();
    md += "## Growth with the window\n\nns/op at the largest size over ns/op at the smallest (1 = flat in the \
           window; above 1: cache and DRAM misses, or work that grows with the window):\n\n\
           | design | operation | growth |\n|---|---|---|\n";
    if let (Some(&lo), Some(&hi)) = (sizes.first(), sizes.last()) {
        let mut designs: Vec<String> = rows
            .iter()
            .filter_map(|r| text_of(r, col::DESIGN.name()))
            .collect();
        designs.sort();
        designs.dedup();
        for d in &designs {
            for op in OPS {
                if let (Some((a, _)), Some((b, _))) = (cell(rows, op, d, lo), cell(rows, op, d, hi))
                {
                    md += &format!("| {d} | {op} | {:.2} |\n", b / a);
                }
            }
        }
    }
    md
}

/// The Stable Bloom filter against the stable-bloom-filter crate.
fn stable_vs_crate(benches: &[Bench]) -> String {
    let stable: Vec<&Bench> = benches
        .iter()
        .filter(|b| b.group.starts_with("stable_"))
        .collect();
    if stable.is_empty() {
        return String::new();
    }
    let mut md = String::from(
        "\n## Stable Bloom filter vs the stable-bloom-filter crate\n\n\
         Equal (m, d, K, P), both hashing the same 8-byte items \
         (`cargo bench -p bloomlab-bench --bench stable_crate`). Speed-up = \
         crate ns / bloomlab ns (target: at least 2).\n\n\
         | parameters | operation | implementation | ns/op | speed-up over the crate |\n|---|---|---|---|---|\n",
    );
    let mut groups: Vec<&str> = stable.iter().map(|b| b.group.as_str()).collect();
    groups.dedup();
    for g in groups {
        let params = g.trim_start_matches("stable_");
        for op in ["insert", "query"] {
            let crate_ns = stable
                .iter()
                .find(|b| b.group == g && b.function == format!("{op}/stable-bloom-filter crate"))
                .map(|b| b.ns);
            for b in stable
                .iter()
                .filter(|b| b.group == g && b.function.starts_with(&format!("{op}/bloomlab")))
            {
                let up = crate_ns.map_or(String::new(), |c| format!("{:.2}", c / b.ns));
                let imp = b.function.trim_start_matches(&format!("{op}/"));
                md += &format!("| {params} | {op} | {imp} | {} | {up} |\n", fmt(b.ns));
            }
            if let Some(c) = crate_ns {
                md += &format!(
                    "| {params} | {op} | stable-bloom-filter crate | {} | 1 |\n",
                    fmt(c)
                );
            }
        }
    }
    md
}

/// Where `bench-report` reads and writes.
pub struct Paths<'a> {
    /// Criterion's output directory.
    pub criterion: &'a Path,
    /// CSV and markdown directory.
    pub results: &'a Path,
    /// Chart directory.
    pub plots: &'a Path,
    /// Criterion's output of an earlier run of the same benchmarks, for
    /// the two-run targets and the spread.
    pub first_run: Option<&'a Path>,
}

/// Reads the criterion results and writes the CSV, markdown and charts;
/// returns the files written.
pub fn run(p: &Paths) -> anyhow::Result<Vec<PathBuf>> {
    let benches = collect(p.criterion)?;
    let mut rows = rows(&benches);
    let threaded = concurrent::rows(&benches);
    if rows.is_empty() && threaded.is_empty() {
        return Err(anyhow::anyhow!(
            "no results of benches/ops.rs or benches/concurrent.rs in {} (run `cargo bench -p bloomlab-bench --bench ops`)",
            p.criterion.display()
        ));
    }
    let mut staged = report::Staged::new();
    if !threaded.is_empty() {
        staged.write(
            &p.results.join("bench_concurrent.csv"),
            report::csv_string(&threaded)?.as_bytes(),
        )?;
        staged.write(
            &p.results.join("bench_concurrent.md"),
            concurrent::markdown(&threaded).as_bytes(),
        )?;
        concurrent_charts(&threaded, p.plots, &mut staged)?;
    }
    if rows.is_empty() {
        return staged.commit();
    }
    let probe = probe::Probe::of(&benches);
    let limits = probe::Limits {
        memory: probe::memory(p.criterion),
        lines: probe::lines(p.criterion),
    };
    probe::annotate(&mut rows, &probe, &limits);
    staged.write(
        &p.results.join("bench_ops.csv"),
        report::csv_string(&rows)?.as_bytes(),
    )?;
    let first = match p.first_run {
        Some(dir) => {
            let b = collect(dir)?;
            let r = self::rows(&b);
            Some((b, r))
        }
        None => None,
    };
    let first = first.as_ref().map(|(b, r)| (b.as_slice(), r.as_slice()));
    staged.write(
        &p.results.join("bench_ops.md"),
        markdown(&benches, &rows, first).as_bytes(),
    )?;
    ops_charts(&rows, p.plots, &mut staged)?;
    staged.commit()
}

/// The charts of the single-thread benchmarks, one per operation.
fn ops_charts(rows: &[Row], plots: &Path, staged: &mut report::Staged) -> anyhow::Result<()> {
    for op in OPS {
        let title = format!("{op}: time per operation against window (criterion)");
        chart(
            rows,
            "operation",
            op,
            (col::WINDOW.name(), col::NS_PER_OP.name(), true),
            &title,
            plots,
            staged,
        )?;
    }
    Ok(())
}

/// The charts of the concurrent benchmarks, one per group.
fn concurrent_charts(
    rows: &[Row],
    plots: &Path,
    staged: &mut report::Staged,
) -> anyhow::Result<()> {
    for group in concurrent::GROUPS {
        let title = format!("{group}: throughput against threads (criterion)");
        chart(
            rows,
            "operation",
            group,
            (col::THREADS.name(), col::MOPS_PER_S.name(), false),
            &title,
            plots,
            staged,
        )?;
    }
    Ok(())
}

/// Draws the benchmark charts again from the `bench_ops.csv` and
/// `bench_concurrent.csv` that `bench-report` wrote in `results`, into
/// `plots`, without criterion's files; returns the charts written.
pub fn replot(results: &Path, plots: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut staged = report::Staged::new();
    let ops = results.join("bench_ops.csv");
    if ops.exists() {
        ops_charts(&report::read_rows(&ops)?, plots, &mut staged)?;
    }
    let threaded = results.join("bench_concurrent.csv");
    if threaded.exists() {
        concurrent_charts(&report::read_rows(&threaded)?, plots, &mut staged)?;
    }
    staged.commit()
}

/// The chart `plots/bench_<value>` of the rows whose `col` is `value`,
/// through the experiment machinery (a spec with one xy plot, one line per
/// design): `axes` are x, y and whether both are logarithmic.
fn chart(
    rows: &[Row],
    col: &str,
    value: &str,
    axes: (&str, &str, bool),
    title: &str,
    plots: &Path,
    staged: &mut report::Staged,
) -> anyhow::Result<()> {
    let rows: Vec<Row> = rows.iter().filter(|r| is(r, col, value)).cloned().collect();
    if rows.is_empty() {
        return Ok(());
    }
    let (x, y, log) = axes;
    let file = value;
    let spec = Spec::parse(&format!(
        "name = \"bench\"\nmetrics = [\"speed\"]\n[measure]\nci_level = 0.95\n[[sweep]]\ndesign = \"apbf\"\ngrid = {{ k = [1], l = [1], g = [1] }}\n\
         [[plot]]\nkind = \"xy\"\nfile = \"bench_{file}\"\nx = \"{x}\"\ny = \"{y}\"\nlog_x = {log}\nlog_y = {log}\n\
         title = \"{title}\"\n"
    ))?;
    let out = Outcome {
        rows,
        ..Outcome::default()
    };
    report::render_plots(&spec, &out, plots, "", staged)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, group: &str, function: &str, param: &str, ns_per_iter: f64) {
        let d = dir.join(group).join(function).join(param).join("new");
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join("benchmark.json"),
            format!(
                r#"{{"group_id":"{group}","function_id":"{function}","value_str":"{param}","throughput":{{"Elements":4096}}}}"#
            ),
        )
        .unwrap();
        std::fs::write(
            d.join("estimates.json"),
            format!(
                r#"{{"mean":{{"point_estimate":{ns_per_iter},"confidence_interval":{{"lower_bound":{},"upper_bound":{}}}}}}}"#,
                ns_per_iter * 0.9,
                ns_per_iter * 1.1
            ),
        )
        .unwrap();
    }

    #[test]
    fn ratios_and_targets_from_criterion_files() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "insert", "fastbloom", "w2^12", 4096.0 * 10.0);
        write(dir.path(), "insert", "blocked_apbf", "w2^12", 4096.0 * 12.0);
        write(dir.path(), "insert", "fastbloom", "w2^16", 4096.0 * 10.0);
        write(dir.path(), "insert", "blocked_apbf", "w2^16", 4096.0 * 20.0);
        let b = collect(dir.path()).unwrap();
        assert_eq!(b.len(), 4);
        let r = rows(&b);
        let ratio = |lw: f64| {
            r.iter()
                .find(|r| {
                    r.get("design").map(|v| v.to_string()).as_deref() == Some("blocked_apbf")
                        && r.get_num("log2_window") == Some(lw)
                })
                .and_then(|r| r.get_num("ratio_to_fastbloom"))
                .unwrap()
        };
        assert!((ratio(12.0) - 1.2).abs() < 1e-12);
        assert!((ratio(16.0) - 2.0).abs() < 1e-12);
        let md = markdown(&b, &r, None);
        assert!(md.contains("| 2^12 | 1.20 | 1.50 | met |"), "{md}");
        assert!(md.contains("**missed by 1.33x**"), "{md}");
        let two = markdown(&b, &r, Some((&b, &r)));
        assert!(
            two.contains("| 2^12 | 1.20 | 1.20 | 1.50 | met in both |"),
            "{two}"
        );
    }

    #[test]
    fn missing_directory_is_a_clear_error() {
        let e = collect(Path::new("/nonexistent/criterion"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("cargo bench"), "{e}");
    }
}
