//! The measured candidates as a ranked table on stdout, and as
//! results/NAME.{csv,md,json} and plots/NAME_pareto.{svg,png}.

use super::super::args::{PlanArgs, PlanMeasureArgs};
use crate::metrics::columns::{col, Col};
use crate::metrics::Part;
use crate::metrics::{Row, Value};
use crate::report::{self, Staged};
use crate::spec::{PlotKind, PlotSpec, Spec};
use crate::sweep::Outcome;
use std::path::{Path, PathBuf};

/// The columns the table and the chart read: FPR, FNR and past-window
/// names differ between the count and the time passes.
pub(super) fn fpr_column(time: bool) -> (Col, Col) {
    if time {
        (col::FPR_TIME_AVG, col::FNR_TIME)
    } else {
        (col::FPR, col::FNR)
    }
}

/// Marks the rows on the Pareto front of memory and mean query time
/// (`pareto` = 1): no other row is at most as large in both and smaller
/// in one.
pub(super) fn mark_pareto(rows: &mut [Row], fpr: Col) {
    let key = |r: &Row| {
        (
            r.get_num(col::MEMORY_BITS).unwrap_or(f64::INFINITY),
            r.get_num(col::QUERY_NS).unwrap_or(f64::INFINITY),
        )
    };
    let keys: Vec<(f64, f64)> = rows.iter().map(key).collect();
    for (i, r) in rows.iter_mut().enumerate() {
        let (m, q) = keys[i];
        let dominated = keys
            .iter()
            .any(|&(m2, q2)| m2 <= m && q2 <= q && (m2 < m || q2 < q));
        r.num(col::PARETO, if dominated { 0.0 } else { 1.0 });
        let mark = if dominated { "" } else { " *" };
        let design = match r.get(col::CANDIDATE) {
            Some(Value::Text(t)) => {
                let fast = if t.ends_with("(fast)") { ", fast" } else { "" };
                format!("{}{fast}", t.split(' ').next().unwrap_or("?"))
            }
            _ => "?".into(),
        };
        let shown = r.get_num(fpr).map_or("-".into(), report::fmt_num);
        let label = format!("{design} (FPR {shown}){mark}");
        r.push(col::SERIES, Value::Text(label));
    }
    rows.sort_by(|a, b| key(a).0.total_cmp(&key(b).0));
}

/// A figure and its interval, or "-".
fn with_ci(r: &Row, name: Col) -> String {
    match (
        r.get_num(name),
        r.get_num(Part::CiLow.of(name)),
        r.get_num(Part::CiHigh.of(name)),
    ) {
        (Some(x), Some(lo), Some(hi)) => format!(
            "{} [{}, {}]",
            report::fmt_num(x),
            report::fmt_num(lo),
            report::fmt_num(hi)
        ),
        (Some(x), _, _) => report::fmt_num(x),
        _ => "-".into(),
    }
}

/// The ranked table (by memory; `*` on the Pareto front of memory and
/// query time) and its notes.
pub(super) fn table(rows: &[Row], time: bool) -> String {
    let (fpr, fnr) = fpr_column(time);
    let num = |r: &Row, c: &str, p: usize| r.get_num(c).map_or("-".into(), |x| format!("{x:.p$}"));
    let lines: Vec<[String; 11]> = rows
        .iter()
        .map(|r| {
            let name = match r.get(col::CANDIDATE) {
                Some(Value::Text(t)) => t.clone(),
                _ => "?".into(),
            };
            let star = if r.get_num(col::PARETO) == Some(1.0) {
                "*"
            } else {
                ""
            };
            [
                format!("{star}{name}"),
                r.get_num(col::MEMORY_BITS)
                    .map_or("-".into(), |x| format!("{x:.0}")),
                with_ci(r, fpr),
                with_ci(r, fnr),
                num(r, col::INSERT_NS.name(), 1),
                num(r, col::QUERY_POS_NS.name(), 1),
                num(r, col::QUERY_NEG_NS.name(), 1),
                num(r, col::QUERY_NEG_VS_BLOOM.name(), 2),
                neg_lines(r),
                precision(r, fpr),
                num(r, col::SECONDS.name(), 1),
            ]
        })
        .collect();
    let head = [
        "candidate",
        "memory bits",
        if time {
            "FPR (over moments)"
        } else {
            "FPR (worst phase)"
        },
        if time {
            "FNR (age < T)"
        } else {
            "FNR (in window)"
        },
        "insert ns",
        "pos ns",
        "neg ns",
        "neg/bloom",
        "neg lines",
        "FPR ±",
        "s",
    ];
    let width: Vec<usize> = (0..head.len())
        .map(|i| {
            lines
                .iter()
                .map(|l| l[i].chars().count())
                .chain([head[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let fmt = |cells: &[String]| -> String {
        let mut s = format!("{:<w$}", cells[0], w = width[0]);
        for (c, w) in cells.iter().zip(&width).skip(1) {
            s += &format!("  {c:>w$}");
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = fmt(&head.map(String::from));
    for l in &lines {
        out += &fmt(l);
    }
    out += "\n* on the Pareto front of memory and mean query time. Intervals are 99%. \
ns per operation timed on this machine, each candidate on one thread beside a plain Bloom \
filter of its memory (neg/bloom: its negative query's time over the Bloom filter's, timed \
in turns in the same run). FPR ±: the interval's half-width relative to the FPR, what the \
budget (or --rounds) bought. neg lines: the 64-byte lines a never-inserted key's query reads, counted on \
the filter (at the worst phase for a window of insertions, over the moments for a window of \
time), with the plan's theory in parentheses (at the worst phase, or the peak rate).\n";
    out
}

/// A negative query's lines, counted (theory), or the theory alone.
fn neg_lines(r: &Row) -> String {
    match (
        r.get_num(col::LINES_QUERY_NEGATIVE),
        r.get_num(col::LINES_QUERY_NEGATIVE_PLANNED),
    ) {
        (Some(x), Some(t)) => format!("{x:.2} ({t:.2})"),
        (Some(x), None) => format!("{x:.2}"),
        (None, Some(t)) => format!("({t:.2})"),
        (None, None) => "-".into(),
    }
}

/// The FPR interval's half-width relative to the FPR, or "-".
fn precision(r: &Row, fpr: Col) -> String {
    match (
        r.get_num(fpr),
        r.get_num(Part::CiLow.of(fpr)),
        r.get_num(Part::CiHigh.of(fpr)),
    ) {
        (Some(x), Some(lo), Some(hi)) if x > 0.0 => format!("{:.0}%", 50.0 * (hi - lo) / x),
        _ => "-".into(),
    }
}

/// The spec of a measured plan's chart: memory against mean query time,
/// one series per kind of candidate.
fn pareto_spec(name: &str, fpr: f64, seed: u64) -> Spec {
    let title = format!("memory vs mean query ns, FPR {fpr} target (* Pareto-optimal)");
    Spec {
        name: name.to_string(),
        plot: vec![PlotSpec {
            kind: PlotKind::Xy,
            file: Some(format!("{name}_pareto")),
            log_y: Some(false),
            x: Some(col::MEMORY_BITS.name().into()),
            y: Some(col::QUERY_NS.name().into()),
            series: Some(col::SERIES.name().into()),
            filter: Default::default(),
            designs: Vec::new(),
            label: Vec::new(),
            without: Vec::new(),
            log_x: true,
            bound: None,
            reference: None,
            x_range: None,
            title: Some(title),
        }],
        description: String::new(),
        seed,
        repeats: 1,
        metrics: Vec::new(),
        workload: crate::spec::WorkloadSpec::Distinct,
        measure: Default::default(),
        sweep: Vec::new(),
        table_columns: None,
        theory_columns: Vec::new(),
        threads: Some(1),
        adoption: None,
        compare_at: None,
        adversary: Default::default(),
        time: Default::default(),
    }
}

/// Draws the charts of the measured plans in `results` (each
/// `NAME.json` that `plan --measure` wrote, with its `NAME.csv`) again,
/// into `plots`; returns the files written.
pub(in crate::cli) fn replot(results: &Path, plots: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    let mut jsons: Vec<PathBuf> = std::fs::read_dir(results)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", results.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    jsons.sort();
    for json in jsons {
        let text = std::fs::read_to_string(&json)
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", json.display()))?;
        let v: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", json.display()))?;
        let (Some(fpr), Some(name)) = (
            v.get("fpr_target").and_then(|f| f.as_f64()),
            json.file_stem().and_then(|s| s.to_str()),
        ) else {
            continue; // not a measured plan's
        };
        let csv = json.with_extension("csv");
        let spec = pareto_spec(name, fpr, 0);
        let _lock = report::OutputLock::take(results, plots, name)?;
        let outcome = Outcome {
            rows: report::read_rows(&csv)?,
            ..Outcome::default()
        };
        let mut staged = Staged::new();
        report::render_plots(&spec, &outcome, plots, "", &mut staged)?;
        written.extend(staged.commit()?);
    }
    Ok(written)
}

/// The outputs of one measured plan: their name, held under a lock for the
/// whole run (taken before the first candidate is built, so a second run
/// of the name is refused at once rather than when it writes).
pub(super) struct Claim {
    /// The outputs' name: `--name`, else one made from the request.
    pub name: String,
    /// What was asked, every flag that shapes the figures but the budget:
    /// the request these outputs belong to.
    request: String,
    _lock: report::OutputLock,
}

/// The request's flags, in one order: the command without its budget.
fn request(a: &PlanArgs, m: &PlanMeasureArgs, window: u64) -> String {
    let mut r = String::from("bloomlab plan ");
    r += &match (a.window_time, a.peak_rate) {
        (Some(t), Some(rate)) => format!(
            "--window-time {t} --peak-rate {rate} --arrivals {}",
            m.arrivals
        ),
        _ => format!("--window {window}"),
    };
    r += &format!(" --fpr {}", a.fpr);
    if let Some(x) = a.max_npws {
        r += &format!(" --max-npws {x}");
    }
    if let Some(x) = a.max_bits_per_element {
        r += &format!(" --max-bits-per-element {x}");
    }
    if !a.designs.is_empty() {
        r += &format!(" --design {}", a.designs.join(","));
    }
    r += &format!(" --measure --seed {}", m.seed);
    r += &match (&m.trace.trace, m.zipf) {
        (Some(p), _) => format!(" --trace {}", p.display()),
        (None, Some(z)) => format!(" --zipf {z} --universe {}", m.universe),
        _ => String::new(),
    };
    r
}

/// The name of a request's outputs when `--name` is not given:
/// `plan_w<WINDOW>-<HASH>` or `plan_t<T>-r<RATE>-<HASH>`, the hash (8 hex
/// digits of XXH3) over the whole request, so two requests never share
/// outputs and none takes an experiment's or a baseline's name (those
/// have no `-`).
fn default_name(a: &PlanArgs, window: u64, request: &str) -> String {
    let hash = xxhash_rust::xxh3::xxh3_64(request.as_bytes()) as u32;
    let label = match (a.window_time, a.peak_rate) {
        (Some(t), Some(r)) => format!("t{t}-r{r}"),
        _ => format!("w{window}"),
    };
    let label: String = label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(60)
        .collect();
    format!("plan_{label}-{hash:08x}")
}

/// The outputs' name (`--name`, or the request's) and the request.
pub(super) fn name_and_request(a: &PlanArgs, m: &PlanMeasureArgs, window: u64) -> (String, String) {
    let request = request(a, m, window);
    let name = m
        .name
        .clone()
        .unwrap_or_else(|| default_name(a, window, &request));
    (name, request)
}

/// The request a measured plan's JSON says it was made for: its `command`
/// without its budget (or rounds) and name.
fn owner_request(json: &Path) -> Option<String> {
    let text = std::fs::read_to_string(json).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v.get("fpr_target")?.as_f64()?;
    let command = v.get("command")?.as_str()?;
    let mut words: Vec<&str> = Vec::new();
    let mut it = command.split(' ');
    while let Some(w) = it.next() {
        if w == "--budget" || w == "--rounds" || w == "--name" {
            it.next();
        } else {
            words.push(w);
        }
    }
    Some(words.join(" "))
}

impl Claim {
    /// Names the outputs, takes their lock for the whole run and refuses a
    /// name whose files are not this request's measured plan: an
    /// experiment's results or baseline, or another request's plan.
    pub(super) fn take(a: &PlanArgs, m: &PlanMeasureArgs, window: u64) -> anyhow::Result<Claim> {
        let (name, request) = name_and_request(a, m, window);
        let lock = report::OutputLock::take(&m.results_dir, &m.plots_dir, &name)?;
        let json = m.results_dir.join(format!("{name}.json"));
        let taken = ["csv", "md", "json"]
            .iter()
            .map(|x| m.results_dir.join(format!("{name}.{x}")))
            .chain(
                ["svg", "png"]
                    .iter()
                    .map(|x| m.plots_dir.join(format!("{name}_pareto.{x}"))),
            )
            .find(|p| p.exists());
        if let Some(p) = taken {
            match owner_request(&json) {
                Some(r) if r == request => {}
                Some(r) => {
                    return Err(anyhow::anyhow!(
                        "{} holds the measured plan of another request ({r}); give another --name, or leave it out to name the outputs by this request",
                        p.display()
                    ))
                }
                None => {
                    return Err(anyhow::anyhow!(
                        "{} exists and is not a measured plan's output (an experiment's results or baseline?); give another --name, or leave it out to name the outputs by this request",
                        p.display()
                    ))
                }
            }
        }
        Ok(Claim {
            name,
            request,
            _lock: lock,
        })
    }
}

/// Writes results/NAME.{csv,md,json} and plots/NAME_pareto.{svg,png}
/// together (nothing is replaced unless all are ready), under the claim's
/// lock; `how` is the flag that sized the candidates (`--budget 60s`,
/// `--rounds 3`), which the command written with them names.
pub(super) fn write(
    claim: &Claim,
    a: &PlanArgs,
    m: &PlanMeasureArgs,
    rows: &[Row],
    text: &str,
    how: &str,
) -> anyhow::Result<()> {
    let time = a.window_time.is_some();
    let (fpr, _) = fpr_column(time);
    let workload = match (&m.trace.trace, m.zipf) {
        (Some(p), _) => format!("trace {}", p.display()),
        (None, Some(z)) => format!("Zipf({z}) over {}", m.universe),
        (None, None) => "distinct keys".into(),
    };
    let name = &claim.name;
    let spec = pareto_spec(name, a.fpr, m.seed);
    let mut staged = Staged::new();
    let outcome = Outcome {
        rows: rows.to_vec(),
        ..Outcome::default()
    };
    report::render_plots(&spec, &outcome, &m.plots_dir, "", &mut staged)?;
    let named = if m.name.is_some() {
        format!(" --name {name}")
    } else {
        String::new()
    };
    let command = claim
        .request
        .replacen(" --measure", &format!(" --measure {how}"), 1)
        + &named;
    let md = format!(
        "# {name}\n\nProduced by `{command}` ({workload}; FPR column: `{fpr}`). Timing columns depend \
         on the machine.\n\n```\n{text}```\n"
    );
    let json = serde_json::json!({
        "command": command,
        "workload": workload,
        "fpr_target": a.fpr,
        "rows": rows,
    });
    staged.write(
        &m.results_dir.join(format!("{name}.csv")),
        report::csv_string(rows)?.as_bytes(),
    )?;
    staged.write(&m.results_dir.join(format!("{name}.md")), md.as_bytes())?;
    staged.write(
        &m.results_dir.join(format!("{name}.json")),
        serde_json::to_string_pretty(&json)?.as_bytes(),
    )?;
    for p in staged.commit()? {
        eprintln!("wrote {}", p.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The front: no marked row is dominated, every unmarked one is; ties
    /// in both are both on it; rows come back sorted by memory.
    #[test]
    fn the_pareto_front_is_the_undominated_rows() {
        let row = |name: &str, mem: f64, q: f64| {
            let mut r = Row::default();
            r.push("candidate", Value::Text(format!("{name} k=1")));
            r.num("memory_bits", mem);
            r.num("query_ns", q);
            r.num("fpr", 1e-3);
            r
        };
        let mut rows = vec![
            row("c", 300.0, 10.0),
            row("a", 100.0, 50.0),
            row("b", 200.0, 60.0),
            row("d", 300.0, 10.0),
            row("e", 400.0, 5.0),
        ];
        mark_pareto(&mut rows, crate::metrics::columns::col::FPR);
        let front: Vec<(String, f64)> = rows
            .iter()
            .map(|r| match r.get("series") {
                Some(Value::Text(t)) => (t.clone(), r.get_num("pareto").unwrap()),
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(
            front,
            vec![
                ("a (FPR 1.000e-3) *".to_string(), 1.0),
                ("b (FPR 1.000e-3)".to_string(), 0.0),
                ("c (FPR 1.000e-3) *".to_string(), 1.0),
                ("d (FPR 1.000e-3) *".to_string(), 1.0),
                ("e (FPR 1.000e-3) *".to_string(), 1.0),
            ]
        );
    }
}
