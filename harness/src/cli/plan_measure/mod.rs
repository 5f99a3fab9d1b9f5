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

mod output;

use super::args::{MeasureFlags, PlanArgs, PlanMeasureArgs};
use crate::designs::{self, Params};
use crate::metrics::{Row, Value};
use crate::plan::Candidate;
use crate::spec::{ArrivalSpec, Metric, Spec};
use crate::sweep::{self, RunOptions};
pub(super) use output::replot;
use output::{fpr_column, mark_pareto, table, write};

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
                    c.params_text()
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
    let params = c.point()?;
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
        Value::Text(format!("{} {}{sizing}", c.design, c.params_text())),
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
        trace: m.trace.clone(),
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
            // (a trace's own times have their rate only once it is read)
            let process = spec
                .time
                .arrivals
                .as_ref()
                .and_then(|a| crate::passes::time::Process::new(a, None).ok())
                .map_or(rate, |p| p.mean_rate());
            let fill = (c.window + c.slack) as f64 / process;
            spec.time.warmup = Some((spec.time.horizon * t).max(fill));
            spec.time.speed_ops = SPEED_OPS;
        }
    }
    Ok(spec)
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
