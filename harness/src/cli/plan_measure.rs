//! `bloomlab plan --measure`: every candidate of the plan, built with its
//! planned parameters and measured on the user's workload, as many at a
//! time as there are cores (each on one thread).
//!
//! Each candidate is the one-point spec `bloomlab measure` would run for it
//! ([`super::design::measure_spec`]), so its row is that of `bloomlab run`
//! on the same spec and seed:
//! - a window of insertions: the membership pass's `fpr`, `fnr`, `memory`
//!   and `speed` on the workload (distinct keys, `--zipf`, `--trace`), the
//!   speed beside a plain Bloom filter of the same memory
//!   (`[measure] speed_reference`);
//! - a window of time: every candidate, count designs too, under the arrival
//!   process through the time pass (`timeline`: FPR over the moments, FNR of
//!   keys younger than T, keys past T still reported), and its speed with
//!   the clock advancing (`[time] speed_ops`).
//!
//! The budget is shared equally. A candidate's rounds (or moments) are
//! sized from the run's own cost estimate, fitted at two sizes so that a
//! fixed warm-up is not scaled with them; the table says what each
//! candidate took and the relative width of its FPR interval.

use super::args::{MeasureFlags, PlanArgs, PlanMeasureArgs};
use crate::designs::{self, Params};
use crate::metrics::{Row, Value};
use crate::plan::Candidate;
use crate::report::{self, Staged};
use crate::spec::{ArrivalSpec, Metric, PlotKind, PlotSpec, Spec};
use crate::sweep::{self, Outcome, RunOptions};

/// Operations timed per candidate and kind.
const SPEED_OPS: u64 = 200_000;

/// Fewest and most rounds (window of insertions) or moments (window of
/// time) a candidate is given.
const ROUNDS: (u64, u64) = (2, 200);
const MOMENTS: (u64, u64) = (20, 2000);

/// `bloomlab plan --measure`.
pub(super) fn measure(
    a: &PlanArgs,
    window: u64,
    least: &[Candidate],
    fast: &[Candidate],
) -> anyhow::Result<()> {
    let m = &a.measured;
    // what would fail every candidate is said once, before any is built
    if a.window_time.is_some() && m.arrivals == "trace" && m.trace.trace.is_none() {
        return Err(anyhow::anyhow!(
            "--arrivals trace needs --trace FILE (the trace's own times)"
        ));
    }
    if let Some(p) = &m.trace.trace {
        std::fs::metadata(p).map_err(|e| anyhow::anyhow!("trace file {}: {e}", p.display()))?;
    }
    let ok: Vec<(&Candidate, &str)> = least
        .iter()
        .map(|c| (c, ""))
        .chain(fast.iter().map(|c| (c, " (fast)")))
        .collect();
    if ok.is_empty() {
        return Err(anyhow::anyhow!(
            "no candidate meets the request: nothing to measure"
        ));
    }
    let time = a.window_time.zip(a.peak_rate);
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(ok.len());
    let per = m.budget * threads as f64 / ok.len() as f64;
    eprintln!(
        "plan --measure: {} candidates, {} s in all, {threads} at a time (about {per:.1} s each)",
        ok.len(),
        m.budget
    );
    // plain threads taking the next candidate in turn: a rayon worker
    // waiting on the point's own one-thread pool would run other
    // candidates meanwhile, more at once than there are cores
    let next = std::sync::atomic::AtomicUsize::new(0);
    let measured = std::sync::Mutex::new(vec![None; ok.len()]);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&(c, sizing)) = ok.get(i) else { break };
                let started = std::time::Instant::now();
                let at = format!(
                    "  [{}/{}] {} {}{sizing}",
                    i + 1,
                    ok.len(),
                    c.design,
                    params_text(c)
                );
                let row = match measure_one(a, c, sizing, time, per) {
                    Ok((mut row, note)) => {
                        let took = started.elapsed().as_secs_f64();
                        eprintln!("{at}: {note}, {took:.1} s");
                        row.num("seconds", took);
                        Some(row)
                    }
                    Err(e) => {
                        eprintln!("{at}: not measured: {e}");
                        None
                    }
                };
                measured.lock().unwrap_or_else(|e| e.into_inner())[i] = row;
            });
        }
    });
    let measured = measured.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut rows: Vec<Row> = measured.into_iter().flatten().collect();
    if rows.is_empty() {
        return Err(anyhow::anyhow!("no candidate could be measured"));
    }
    mark_pareto(&mut rows, fpr_column(time.is_some()).0);
    let text = table(&rows, time.is_some());
    if a.json {
        println!("{}", serde_json::to_string(&rows)?);
    } else {
        print!("{text}");
    }
    write(a, m, window, &rows, &text)
}

/// The planned parameters as `k=v` words.
fn params_text(c: &Candidate) -> String {
    c.params
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Measures one candidate within about `secs`: its row, and a note of the
/// rounds or moments it was given.
fn measure_one(
    a: &PlanArgs,
    c: &Candidate,
    sizing: &str,
    time: Option<(f64, f64)>,
    secs: f64,
) -> anyhow::Result<(Row, String)> {
    let d = designs::lookup(c.design)?;
    let params: Params = c
        .params
        .iter()
        .map(|(k, v)| {
            v.num()
                .map(|x| (k.to_string(), x))
                .ok_or_else(|| anyhow::anyhow!("parameter {k} is not a number"))
        })
        .collect::<anyhow::Result<_>>()?;
    let m = &a.measured;
    let budget = sweep::Budget {
        memory: crate::resources::memory_limit(m.memory_limit)?,
        threads: 1,
    };
    let spec_at = |n: u64| candidate_spec(d, c, &params, m, time, n);
    // preparing builds the filter (and its theory): kept for the run when
    // the size chosen is one of the two estimated
    let prepare = |n: u64| -> anyhow::Result<(Spec, sweep::Prepared)> {
        let spec = spec_at(n)?;
        let p = sweep::prepare(&spec, false, &budget)
            .map_err(|e| anyhow::anyhow!("{}", e.root_cause()))?;
        Ok((spec, p))
    };
    let (lo, hi) = if time.is_some() { MOMENTS } else { ROUNDS };
    // cost = fixed + n · each, fitted at two sizes
    let (at_lo, at_hi) = (prepare(lo)?, prepare(hi)?);
    let (e_lo, e_hi) = (at_lo.1.estimated_seconds(1), at_hi.1.estimated_seconds(1));
    // the estimate counts each operation at the design's small-window ns;
    // a quick calibration on the candidate itself corrects it
    let slow = calibration(d, &params, m.seed)?;
    let each = ((e_hi - e_lo) / (hi - lo) as f64).max(1e-9) * slow;
    let fixed = (e_lo * slow - lo as f64 * each).max(0.0);
    let n = (((secs - fixed) / each).floor() as u64).clamp(lo, hi);
    let (spec, prepared) = match n {
        _ if n == lo => at_lo,
        _ if n == hi => at_hi,
        _ => prepare(n)?,
    };
    let out = sweep::run(&spec, "", &prepared, &RunOptions::one_thread())?;
    let mut row = out
        .rows
        .into_iter()
        .next()
        .ok_or_else(|| anyhow::anyhow!("the point gave no row"))?;
    row.push(
        "candidate",
        Value::Text(format!("{} {}{sizing}", c.design, params_text(c))),
    );
    row.num("fpr_planned", c.fpr);
    let unit = if time.is_some() { "moments" } else { "rounds" };
    row.num("calibration", slow);
    Ok((
        row,
        format!(
            "{n} {unit} (about {:.1} s by estimate, operations {slow:.1}x the design's usual ns)",
            fixed + n as f64 * each
        ),
    ))
}

/// Keys timed by [`calibration`], each kind.
const CALIBRATION_OPS: u64 = 50_000;

/// How much slower than its usual ns (`OP_NS`, measured at small windows)
/// the candidate inserts and queries at its own size: a fresh build timed
/// over [`CALIBRATION_OPS`] insertions and as many queries of new keys, the
/// larger ratio, in 1..=100. Wall-clock timing: it sizes the rounds, never
/// a reported figure.
fn calibration(d: &'static dyn designs::Design, params: &Params, seed: u64) -> anyhow::Result<f64> {
    use bloomlab_filters::hash::mix64;
    let mut built = d.build(params, seed)?;
    let Some(f) = built.filter.as_mut() else {
        return Ok(1.0);
    };
    let keys: Vec<u64> = (0..CALIBRATION_OPS)
        .map(|i| mix64(i ^ seed.rotate_left(17)))
        .collect();
    let t0 = std::time::Instant::now();
    for &k in &keys {
        f.insert(k);
    }
    let insert = t0.elapsed().as_nanos() as f64 / keys.len() as f64;
    let t0 = std::time::Instant::now();
    let yes = keys.iter().filter(|&&k| f.contains(!k)).count();
    std::hint::black_box(yes);
    let query = t0.elapsed().as_nanos() as f64 / keys.len() as f64;
    let (i0, q0) = d.op_ns();
    Ok((insert / i0).max(query / q0).clamp(1.0, 100.0))
}

/// The one-point spec of a candidate: `measure`'s, with the metrics, the
/// speed reference and, for a window of time, the arrivals and T; `n`
/// rounds (count) or moments (time).
fn candidate_spec(
    d: &'static dyn designs::Design,
    c: &Candidate,
    params: &Params,
    m: &PlanMeasureArgs,
    time: Option<(f64, f64)>,
    n: u64,
) -> anyhow::Result<Spec> {
    let flags = MeasureFlags {
        seed: m.seed,
        rounds: n,
        queries: None,
        trace: super::args::TraceArgs {
            trace: m.trace.trace.clone(),
            trace_format: m.trace.trace_format.clone(),
            trace_key: m.trace.trace_key.clone(),
            trace_column: m.trace.trace_column.clone(),
        },
        zipf: m.zipf,
        universe: m.universe,
        workload: None,
        replay_every: 1,
        inserts_per_query: 0.0,
        attack_queries: 200_000,
        query_trace: None,
        memory_limit: m.memory_limit,
        json: false,
    };
    let mut spec = super::design::measure_spec(d, params, &flags)?;
    spec.name = format!("plan_{}", d.name());
    spec.description = format!("bloomlab plan --measure: {}", d.name());
    spec.measure.speed_ops = SPEED_OPS;
    match time {
        None => {
            spec.metrics = vec![Metric::Fpr, Metric::Fnr, Metric::Memory, Metric::Speed];
            spec.measure.speed_reference = true;
        }
        Some((t, rate)) => {
            spec.metrics = vec![Metric::Timeline, Metric::Memory];
            spec.time.window = Some(t);
            spec.time.arrivals = Some(arrivals(&m.arrivals, t, rate));
            spec.time.samples = n;
            // moments spread over up to 20 T (the time pass's default),
            // fewer windows when the budget buys fewer moments
            spec.time.duration = Some(t * (n as f64 / 20.0).clamp(1.0, 20.0));
            // warm up for the ages probed (2 T) or until the count window
            // and its slack have filled at the mean rate, whichever is
            // longer: not the pass's default of twice the ages probed plus
            // the fill, which at a large T costs more than the budget
            let process = spec
                .time
                .arrivals
                .as_ref()
                .map_or(rate, |a| mean_rate(a, rate));
            let fill = (c.window + c.slack) as f64 / process;
            spec.time.warmup = Some((spec.time.horizon * t).max(fill));
            spec.time.speed_ops = SPEED_OPS;
        }
    }
    Ok(spec)
}

/// The mean rate of a process built by [`arrivals`] (`rate` for a trace's
/// own times, whose rate is known only once it is read).
fn mean_rate(a: &ArrivalSpec, rate: f64) -> f64 {
    match *a {
        ArrivalSpec::Constant { rate } | ArrivalSpec::Poisson { rate } => rate,
        ArrivalSpec::OnOff {
            rate, ratio, duty, ..
        } => rate * (1.0 - duty + ratio * duty),
        ArrivalSpec::Diurnal { rate, .. } => rate,
        ArrivalSpec::Trace => rate,
    }
}

/// The arrival process `kind` for a window of `t` seconds and a peak rate.
fn arrivals(kind: &str, t: f64, rate: f64) -> ArrivalSpec {
    match kind {
        "constant" => ArrivalSpec::Constant { rate },
        "on_off" => ArrivalSpec::OnOff {
            rate: rate / 4.0,
            ratio: 4.0,
            period: t,
            duty: 0.25,
        },
        "diurnal" => ArrivalSpec::Diurnal {
            rate: rate / 1.8,
            amplitude: 0.8,
            period: 10.0 * t,
        },
        "trace" => ArrivalSpec::Trace,
        _ => ArrivalSpec::Poisson { rate },
    }
}

/// The columns the table and the chart read: FPR, FNR and past-window
/// names differ between the count and the time passes.
fn fpr_column(time: bool) -> (&'static str, &'static str) {
    if time {
        ("fpr_time_avg", "fnr_time")
    } else {
        ("fpr", "fnr")
    }
}

/// Marks the rows on the Pareto front of memory and mean query time
/// (`pareto` = 1): no other row is at most as large in both and smaller
/// in one.
fn mark_pareto(rows: &mut [Row], fpr: &str) {
    let key = |r: &Row| {
        (
            r.get_num("memory_bits").unwrap_or(f64::INFINITY),
            r.get_num("query_ns").unwrap_or(f64::INFINITY),
        )
    };
    let keys: Vec<(f64, f64)> = rows.iter().map(key).collect();
    for (i, r) in rows.iter_mut().enumerate() {
        let (m, q) = keys[i];
        let dominated = keys
            .iter()
            .any(|&(m2, q2)| m2 <= m && q2 <= q && (m2 < m || q2 < q));
        r.num("pareto", if dominated { 0.0 } else { 1.0 });
        let mark = if dominated { "" } else { " *" };
        let design = match r.get("candidate") {
            Some(Value::Text(t)) => {
                let fast = if t.ends_with("(fast)") { ", fast" } else { "" };
                format!("{}{fast}", t.split(' ').next().unwrap_or("?"))
            }
            _ => "?".into(),
        };
        let shown = r.get_num(fpr).map_or("-".into(), report::fmt_num);
        let label = format!("{design} (FPR {shown}){mark}");
        r.push("series", Value::Text(label));
    }
    rows.sort_by(|a, b| key(a).0.total_cmp(&key(b).0));
}

/// A figure and its interval, or "-".
fn with_ci(r: &Row, name: &str) -> String {
    match (
        r.get_num(name),
        r.get_num(&format!("{name}_ci_low")),
        r.get_num(&format!("{name}_ci_high")),
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
fn table(rows: &[Row], time: bool) -> String {
    let (fpr, fnr) = fpr_column(time);
    let num = |r: &Row, c: &str, p: usize| r.get_num(c).map_or("-".into(), |x| format!("{x:.p$}"));
    let lines: Vec<[String; 10]> = rows
        .iter()
        .map(|r| {
            let name = match r.get("candidate") {
                Some(Value::Text(t)) => t.clone(),
                _ => "?".into(),
            };
            let star = if r.get_num("pareto") == Some(1.0) {
                "*"
            } else {
                ""
            };
            [
                format!("{star}{name}"),
                r.get_num("memory_bits")
                    .map_or("-".into(), |x| format!("{x:.0}")),
                with_ci(r, fpr),
                with_ci(r, fnr),
                num(r, "insert_ns", 1),
                num(r, "query_pos_ns", 1),
                num(r, "query_neg_ns", 1),
                num(r, "query_neg_vs_bloom", 2),
                precision(r, fpr),
                num(r, "seconds", 1),
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
budget bought.\n";
    out
}

/// The FPR interval's half-width relative to the FPR, or "-".
fn precision(r: &Row, fpr: &str) -> String {
    match (
        r.get_num(fpr),
        r.get_num(&format!("{fpr}_ci_low")),
        r.get_num(&format!("{fpr}_ci_high")),
    ) {
        (Some(x), Some(lo), Some(hi)) if x > 0.0 => format!("{:.0}%", 50.0 * (hi - lo) / x),
        _ => "-".into(),
    }
}

/// Writes results/NAME.{csv,md,json} and plots/NAME_pareto.{svg,png}
/// together (nothing is replaced unless all are ready).
fn write(
    a: &PlanArgs,
    m: &PlanMeasureArgs,
    window: u64,
    rows: &[Row],
    text: &str,
) -> anyhow::Result<()> {
    let time = a.window_time.is_some();
    let (fpr, _) = fpr_column(time);
    let request = match (a.window_time, a.peak_rate) {
        (Some(t), Some(r)) => format!(
            "--window-time {t} --peak-rate {r} --arrivals {}",
            m.arrivals
        ),
        _ => format!("--window {window}"),
    };
    let workload = match (&m.trace.trace, m.zipf) {
        (Some(p), _) => format!("trace {}", p.display()),
        (None, Some(z)) => format!("Zipf({z}) over {}", m.universe),
        (None, None) => "distinct keys".into(),
    };
    let title = format!(
        "memory vs mean query ns, FPR {} target (* Pareto-optimal)",
        a.fpr
    );
    let spec = Spec {
        name: m.name.clone(),
        plot: vec![PlotSpec {
            kind: PlotKind::Xy,
            file: Some(format!("{}_pareto", m.name)),
            log_y: Some(false),
            x: Some("memory_bits".into()),
            y: Some("query_ns".into()),
            series: Some("series".into()),
            filter: Default::default(),
            log_x: true,
            bound: None,
            reference: None,
            x_range: None,
            title: Some(title),
        }],
        description: String::new(),
        seed: m.seed,
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
    };
    let _lock = report::OutputLock::take(&m.results_dir, &m.plots_dir, &m.name)?;
    let mut staged = Staged::new();
    let outcome = Outcome {
        rows: rows.to_vec(),
        profile: Vec::new(),
        convergence: Vec::new(),
        timeline: Vec::new(),
        age_time: Vec::new(),
    };
    report::render_plots(&spec, &outcome, &m.plots_dir, "", &mut staged)?;
    let command = format!(
        "bloomlab plan {request} --fpr {} --measure --budget {}s --seed {}{}",
        a.fpr,
        m.budget,
        m.seed,
        match (&m.trace.trace, m.zipf) {
            (Some(p), _) => format!(" --trace {}", p.display()),
            (None, Some(z)) => format!(" --zipf {z} --universe {}", m.universe),
            _ => String::new(),
        }
    );
    let md = format!(
        "# {}\n\nProduced by `{command}` ({workload}; FPR column: `{fpr}`). Timing columns depend \
         on the machine.\n\n```\n{text}```\n",
        m.name
    );
    let json = serde_json::json!({
        "command": command,
        "workload": workload,
        "fpr_target": a.fpr,
        "rows": rows,
    });
    staged.write(
        &m.results_dir.join(format!("{}.csv", m.name)),
        report::csv_string(rows)?.as_bytes(),
    )?;
    staged.write(&m.results_dir.join(format!("{}.md", m.name)), md.as_bytes())?;
    staged.write(
        &m.results_dir.join(format!("{}.json", m.name)),
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
        mark_pareto(&mut rows, "fpr");
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
