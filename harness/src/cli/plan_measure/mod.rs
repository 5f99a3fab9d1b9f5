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
//! The budget counts from the ranking's start. Each candidate is first
//! built and timed at its own size ([`sizing`]), then the rest of the
//! budget is shared among them: each one's rounds or moments are the most
//! its estimate fits in its share, and the costliest run first so that the
//! threads end together. The progress lines say what each was given, its
//! estimate and what it took; when even the fewest rounds or moments of
//! every candidate pass the budget, the run says so before it starts.

mod fixed;
mod output;
mod sizing;

use super::args::{MeasureFlags, PlanArgs, PlanMeasureArgs};
use crate::designs::{self, Params};
use crate::metrics::columns::col;
use crate::metrics::{Row, Value};
use crate::plan::Candidate;
use crate::spec::{ArrivalSpec, Metric, Spec};
use crate::sweep::{self, RunOptions};
pub(super) use output::replot;
use output::{fpr_column, mark_pareto, table, write, Claim};
use sizing::{Ledger, Priced};

/// Operations timed per candidate and kind.
pub(super) const SPEED_OPS: u64 = 200_000;

/// Fewest and most rounds (window of insertions) or moments (window of
/// time) a candidate is given.
const ROUNDS: (u64, u64) = (2, 200);
const MOMENTS: (u64, u64) = (20, 2000);

/// `bloomlab plan --measure`; `started` is when the ranking began, and the
/// budget counts from it; `words` are the flags given (which Slurm jobs
/// repeat).
pub(super) fn measure(
    a: &PlanArgs,
    window: u64,
    (least, fast): (&[Candidate], &[Candidate]),
    started: std::time::Instant,
    words: &[String],
) -> anyhow::Result<()> {
    let m = &a.measured;
    let ok = candidates(a, least, fast)?;
    let time = a.window_time.zip(a.peak_rate);
    if m.fixed.rounds.is_some() {
        return fixed::measure(a, window, &ok, time, started, words);
    }
    let claim = Claim::take(a, m, window)?;
    let threads = threads(m, ok.len());
    eprintln!(
        "plan --measure: {} candidates ranked by theory in {:.1} s; {} s in all, {threads} at a time; timing each at its size first",
        ok.len(),
        started.elapsed().as_secs_f64(),
        m.budget
    );
    let priced = on_threads(threads, ok.len(), |i| {
        let (c, sizing) = ok[i];
        price_one(a, c, time).map_err(|e| {
            eprintln!(
                "  {} {}{sizing}: not measured: {e}",
                c.design,
                c.params_text()
            );
        })
    });
    let sizes = allocate(
        &priced,
        m.budget,
        started.elapsed().as_secs_f64(),
        threads,
        time,
    );
    let run = Run {
        a,
        ok: &ok,
        priced: &priced,
        time,
        threads,
        started,
    };
    let measured = run.all(&sizes);
    let rows: Vec<Row> = measured.into_iter().flatten().collect();
    eprintln!(
        "plan --measure: {} s in all",
        format_args!("{:.0}", started.elapsed().as_secs_f64())
    );
    finish(a, &claim, rows, &format!("--budget {}s", m.budget))
}

/// Candidates measured at once: `--threads`, or the cores, at most `n`.
fn threads(m: &PlanMeasureArgs, n: usize) -> usize {
    m.threads
        .map(usize::from)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .min(n)
        .max(1)
}

/// The measured rows ranked, marked on the Pareto front, printed and
/// written under the claim; `how` is the flag that sized them.
fn finish(a: &PlanArgs, claim: &Claim, mut rows: Vec<Row>, how: &str) -> anyhow::Result<()> {
    if rows.is_empty() {
        return Err(anyhow::anyhow!("no candidate could be measured"));
    }
    let time = a.window_time.is_some();
    mark_pareto(&mut rows, fpr_column(time).0);
    let text = table(&rows, time);
    if a.json {
        println!("{}", serde_json::to_string(&rows)?);
    } else {
        print!("{text}");
    }
    write(claim, a, &a.measured, &rows, &text, how)
}

/// Every candidate with its sizing's label (" (fast)" or none), after
/// what would fail every one of them is said once, before any is built.
fn candidates<'a>(
    a: &PlanArgs,
    least: &'a [Candidate],
    fast: &'a [Candidate],
) -> anyhow::Result<Vec<(&'a Candidate, &'static str)>> {
    let m = &a.measured;
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
    Ok(ok)
}

/// The priced candidates, measured.
struct Run<'a> {
    a: &'a PlanArgs,
    /// The candidates, each with its sizing's label.
    ok: &'a [(&'a Candidate, &'a str)],
    priced: &'a [Result<Priced, ()>],
    time: Option<(f64, f64)>,
    threads: usize,
    /// When the ranking began: the budget counts from it.
    started: std::time::Instant,
}

impl Run<'_> {
    /// Every candidate with a size, the costliest first (so that the
    /// threads end together), each one's size chosen by the [`Ledger`] as
    /// it starts; a progress line for each. Rows in the candidates' order.
    fn all(&self, sizes: &[Option<(u64, f64)>]) -> Vec<Result<Row, ()>> {
        let mut order: Vec<usize> = (0..self.ok.len()).filter(|&i| sizes[i].is_some()).collect();
        order.sort_by(|&x, &y| {
            let e = |i: usize| sizes[i].map_or(0.0, |s| s.1);
            e(y).total_cmp(&e(x))
        });
        let ledger = std::sync::Mutex::new(Ledger::new(self.a.measured.budget, self.threads));
        on_threads(self.threads, order.len(), |j| self.one(&order, j, &ledger))
    }

    /// The `j`-th candidate of `order`, sized now and measured.
    fn one(&self, order: &[usize], j: usize, ledger: &std::sync::Mutex<Ledger>) -> Result<Row, ()> {
        let i = order[j];
        let (c, sizing) = self.ok[i];
        let p = self.priced[i].as_ref().map_err(|_| ())?;
        let pending: Vec<&Priced> = order[j..]
            .iter()
            .filter_map(|&x| self.priced[x].as_ref().ok())
            .collect();
        let lock = || ledger.lock().unwrap_or_else(|e| e.into_inner());
        let g = lock().start(i, &pending, self.started.elapsed().as_secs_f64());
        let (n, estimate) = p.grid[g];
        let at = format!(
            "  [{}/{}] {} {}{sizing}",
            j + 1,
            order.len(),
            c.design,
            c.params_text()
        );
        let t0 = std::time::Instant::now();
        let out = measure_one(self.a, c, sizing, self.time, (n, p.plans[g].clone()));
        let took = t0.elapsed().as_secs_f64();
        lock().finish(i, took);
        match out {
            Ok(mut row) => {
                let unit = if self.time.is_some() {
                    "moments"
                } else {
                    "rounds"
                };
                eprintln!(
                    "{at}: {n} {unit} ({}), about {estimate:.1} s by estimate, took {took:.1} s",
                    p.note
                );
                row.num(col::SECONDS, took);
                row.num(col::ESTIMATED_SECONDS, estimate);
                row.num(col::CALIBRATION, p.slow);
                Ok(row)
            }
            Err(e) => {
                eprintln!("{at}: not measured: {e}");
                Err(())
            }
        }
    }
}

/// `f` of 0..n on `threads` plain threads, each taking the next index in
/// turn (a rayon worker waiting on a point's own one-thread pool would run
/// other candidates meanwhile, more at once than there are cores); the
/// results in index order.
fn on_threads<T: Send>(
    threads: usize,
    n: usize,
    f: impl Fn(usize) -> Result<T, ()> + Sync,
) -> Vec<Result<T, ()>> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let out = std::sync::Mutex::new((0..n).map(|_| Err(())).collect::<Vec<_>>());
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let r = f(i);
                out.lock().unwrap_or_else(|e| e.into_inner())[i] = r;
            });
        }
    });
    out.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// Each priced candidate's size and estimated seconds: the budget left
/// after the pricing, on every thread, shared by [`sizing::shares`]. Says
/// up front what the run will take, and why when that is over the budget.
fn allocate(
    priced: &[Result<Priced, ()>],
    budget: f64,
    spent: f64,
    threads: usize,
    time: Option<(f64, f64)>,
) -> Vec<Option<(u64, f64)>> {
    let range: Vec<(f64, f64)> = priced
        .iter()
        .map(|p| p.as_ref().map_or((0.0, 0.0), Priced::range))
        .collect();
    let pool = (budget - spent).max(0.0) * threads as f64;
    let share = sizing::shares(&range, pool);
    let sizes: Vec<Option<(u64, f64)>> = priced
        .iter()
        .zip(&share)
        .map(|(p, &s)| p.as_ref().ok().map(|p| p.grid[p.within(s)]))
        .collect();
    let est: Vec<f64> = sizes.iter().flatten().map(|s| s.1).collect();
    let wall =
        (est.iter().sum::<f64>() / threads as f64).max(est.iter().cloned().fold(0.0, f64::max));
    let least: f64 = range.iter().map(|r| r.0).sum::<f64>() / threads as f64;
    let unit = if time.is_some() { "moments" } else { "rounds" };
    eprintln!(
        "plan --measure: ranked and timed in {spent:.1} s; the measurements, about {wall:.0} s more by estimate{}",
        if least > (budget - spent).max(0.0) {
            format!(
                ": over the budget's {:.0} s left, since the candidates' least work (each at its fewest {unit}{}) takes about {least:.0} s on {threads} thread(s); --design narrows the candidates",
                (budget - spent).max(0.0),
                if time.is_some() { ", after a warm-up until the window and its slack have filled" } else { "" }
            )
        } else {
            String::new()
        }
    );
    sizes
}

/// Candidate `c` priced at every size it may be given.
fn price_one(a: &PlanArgs, c: &Candidate, time: Option<(f64, f64)>) -> anyhow::Result<Priced> {
    let d = designs::lookup(c.design)?;
    let params = c.point()?;
    let m = &a.measured;
    let bounds = if time.is_some() { MOMENTS } else { ROUNDS };
    let spec_at = |n: u64| candidate_spec(d, c, &params, m, time, n);
    let window = match time {
        Some((t, rate)) => (t * rate).ceil() as u64,
        None => c.window,
    };
    sizing::price(c, &params, m, (time.is_some(), window), bounds, &spec_at)
}

/// Measures candidate `c` at `n` rounds or moments, as planned: its row.
fn measure_one(
    a: &PlanArgs,
    c: &Candidate,
    sizing: &str,
    time: Option<(f64, f64)>,
    (n, plan): (u64, crate::passes::PointPlan),
) -> anyhow::Result<Row> {
    let d = designs::lookup(c.design)?;
    let params = c.point()?;
    let m = &a.measured;
    let budget = sweep::Budget {
        memory: crate::resources::memory_limit(m.memory_limit)?,
        threads: 1,
    };
    let spec = candidate_spec(d, c, &params, m, time, n)?;
    let prepared = sweep::prepare_planned(&spec, plan, &budget)
        .map_err(|e| anyhow::anyhow!("{}", e.root_cause()))?;
    let out = sweep::run(&spec, "", &prepared, &RunOptions::one_thread())?;
    let mut row = out
        .rows
        .into_iter()
        .next()
        .ok_or_else(|| anyhow::anyhow!("the point gave no row"))?;
    row.push(
        col::CANDIDATE,
        Value::Text(format!("{} {}{sizing}", c.design, c.params_text())),
    );
    row.num(col::FPR_PLANNED, c.fpr);
    if let Some(l) = c.query_lines {
        // the plan's theory of a negative query's 64-byte lines
        row.num(col::LINES_QUERY_NEGATIVE_PLANNED, l);
    }
    Ok(row)
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
            spec.metrics = vec![
                Metric::Fpr,
                Metric::Fnr,
                Metric::Accesses,
                Metric::Memory,
                Metric::Speed,
            ];
            spec.measure.speed_reference = true;
        }
        Some((t, rate)) => {
            spec.metrics = vec![Metric::Timeline, Metric::Memory];
            spec.time.lines = true;
            spec.time.window = Some(t);
            spec.time.arrivals = Some(arrivals(&m.arrivals, t, rate));
            spec.time.samples = n;
            // moments spread over up to 20 T (the time pass's default),
            // fewer windows when the budget buys fewer moments
            spec.time.duration = Some(t * (n as f64 / 20.0).clamp(1.0, 20.0));
            // a batch of moments costs a gap of T and its slack (the
            // intervals are over batches, docs/metrics.md): one batch per
            // ten moments, from 2 to the pass's 10
            spec.time.batches = (n / 10).clamp(2, 10);
            // the table reports the FNR inside T only: probe ages up to T,
            // not the pass's default of 2 T (which asks for 2 T of warm-up)
            spec.time.horizon = 1.0;
            // warm up until the count window and its slack have filled at
            // the mean rate (a design over time: T and its slack of time),
            // at least T: the filter then holds every key it can hold, so
            // its state is the steady one; not the pass's default of twice
            // the ages probed plus the fill, which at a large T costs more
            // than the budget (a trace's own times have their rate only
            // once it is read)
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
