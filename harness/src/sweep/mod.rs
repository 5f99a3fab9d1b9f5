//! Grid expansion, deterministic seeding, parallel execution, resumption.
//!
//! Every point's randomness comes from one PCG seeded by (spec seed, point
//! index), and a point runs on one thread, so the numbers are identical
//! whatever the thread count; only the `*_ns` columns differ. Finished points
//! are appended to a checkpoint (`results/.<name>.partial.jsonl`) as they
//! complete; an interrupted run started again with the same spec skips them.

pub mod budget;
mod checkpoint;
mod derived;
pub mod part;
mod point;
mod prepare;
mod rows;
mod schedule;
pub mod shard;

pub use checkpoint::clear_checkpoint;
pub use point::{measure_point, point_settings, point_workload};
pub use prepare::{plan_built, prepare, prepare_planned, Budget};
pub use rows::PointRows;
pub use shard::Shard;

use crate::metrics::Row;
use crate::passes::PointPlan;
use crate::spec::Spec;
use crate::workload::Trace;
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

/// How to run a spec.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Worker threads (None: rayon's default, one per core).
    pub threads: Option<usize>,
    /// Use the spec's quick precision and suffix outputs with `_quick`.
    pub quick: bool,
    /// Where the checkpoint lives (the results directory).
    pub checkpoint_dir: Option<PathBuf>,
    /// How a run reports its points on stderr.
    pub progress: Progress,
    /// Run only this shard's points (see [`shard`]); its checkpoint is the
    /// shard's own.
    pub shard: Option<Shard>,
}

/// How a run reports its points on stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// Nothing (a run inside another command, a test).
    Off,
    /// A bar (stderr is a terminal).
    Bar,
    /// A line at most every 30 seconds (stderr is a log).
    Lines,
}

impl Progress {
    /// A bar on a terminal, lines in a log.
    pub fn for_stderr() -> Progress {
        use std::io::IsTerminal;
        if std::io::stderr().is_terminal() {
            Progress::Bar
        } else {
            Progress::Lines
        }
    }
}

impl RunOptions {
    /// One thread, full precision, no checkpoint or progress bar: a run
    /// inside another command (`measure`) or a test.
    pub fn one_thread() -> RunOptions {
        RunOptions {
            threads: Some(1),
            quick: false,
            checkpoint_dir: None,
            progress: Progress::Off,
            shard: None,
        }
    }
}

/// The measured rows of a run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Outcome {
    /// One row per point (x repeat), in expansion order.
    pub rows: Vec<Row>,
    /// Age-profile rows, one per point x phase x bucket.
    pub profile: Vec<Row>,
    /// Convergence rows, one per point x checkpoint.
    pub convergence: Vec<Row>,
    /// Time-window rows, one per point x moment measured.
    pub timeline: Vec<Row>,
    /// P(yes | age in seconds), one per point x age bucket.
    pub age_time: Vec<Row>,
}

/// A spec checked and ready to run: each point's plan and, for a trace
/// workload, the loaded traces.
pub struct Prepared {
    /// Every point's plan, in expansion order.
    pub plans: Vec<PointPlan>,
    trace: Option<Arc<Trace>>,
    query_trace: Option<Arc<Trace>>,
}

impl Prepared {
    /// Each point's estimated cost (index, ns), for sharding and for the
    /// order a run measures its points in: [`PointPlan::cost`].
    pub fn costs(&self) -> Vec<(usize, f64)> {
        self.plans.iter().map(|p| (p.point.index, p.cost)).collect()
    }

    /// Several runs' points as one run's: point `i` is the first point of
    /// `parts[i]` (its index set to `i`), with the first run's traces. What
    /// a set of one-point runs (`plan --measure`'s candidates) costs and
    /// needs when one process, or one array task, measures them.
    pub fn combined(parts: &[&Prepared]) -> Prepared {
        let plans = parts
            .iter()
            .filter_map(|p| p.plans.first())
            .enumerate()
            .map(|(i, p)| {
                let mut p = p.clone();
                p.point.index = i;
                p
            })
            .collect();
        Prepared {
            plans,
            trace: parts.first().and_then(|p| p.trace.clone()),
            query_trace: parts.first().and_then(|p| p.query_trace.clone()),
        }
    }

    /// The memory a run of these points on `threads` threads needs, with
    /// the quarter of headroom every memory check keeps: what a run (or a
    /// Slurm array task, whose threads are its CPUs) checks against its
    /// limit, so a task given this much is not refused.
    pub fn peak_need(&self, threads: usize) -> u64 {
        let traces = prepare::trace_bytes(&self.trace, &self.query_trace);
        crate::resources::with_headroom(prepare::peak(&self.plans, traces, threads).0)
    }

    /// The points whose own need (one at a time, with the traces and the
    /// headroom) passes `limit` bytes, with that need, largest first.
    pub fn points_over(&self, limit: u64) -> Vec<(&PointPlan, u64)> {
        let traces = prepare::trace_bytes(&self.trace, &self.query_trace);
        let mut over: Vec<(&PointPlan, u64)> = self
            .plans
            .iter()
            .map(|p| {
                (
                    p,
                    crate::resources::with_headroom(p.bytes.total().saturating_add(traces)),
                )
            })
            .filter(|&(_, need)| need > limit)
            .collect();
        over.sort_by_key(|&(p, need)| (std::cmp::Reverse(need), p.point.index));
        over
    }

    /// The run's estimated wall time on `threads` threads, in seconds (the
    /// shard weights' estimate: this repository's machine).
    pub fn estimated_seconds(&self, threads: usize) -> f64 {
        let costs = self.costs();
        let total: f64 = costs.iter().map(|c| c.1).sum();
        let longest = costs.iter().map(|c| c.1).fold(0.0, f64::max);
        (total / threads.max(1) as f64).max(longest) * 1e-9
    }

    /// "; about 3 min by estimate" for a run estimated above
    /// [`budget::ANNOUNCE_S`], else nothing.
    pub fn announce(&self, threads: usize) -> String {
        let s = self.estimated_seconds(threads);
        if s > budget::ANNOUNCE_S {
            format!("; about {} by estimate", crate::resources::duration(s))
        } else {
            String::new()
        }
    }
}

/// Runs every point of `spec` and returns the rows in expansion order.
pub fn run(
    spec: &Spec,
    spec_text: &str,
    prepared: &Prepared,
    opts: &RunOptions,
) -> anyhow::Result<Outcome> {
    let done = run_points(spec, spec_text, prepared, opts)?;
    outcome(done.into_iter().map(|(i, f)| (i, f.rows)).collect())
}

/// One finished point: its rows and how long it took to measure.
#[derive(Debug, Clone)]
pub struct Finished {
    /// The point's row and its side rows.
    pub rows: PointRows,
    /// Wall time of the point's measurement in seconds (0 if unknown).
    pub seconds: f64,
}

/// Runs the points of `spec` that `opts` selects (all, or one shard's),
/// resuming from the checkpoint; returns the finished points by index.
pub fn run_points(
    spec: &Spec,
    spec_text: &str,
    prepared: &Prepared,
    opts: &RunOptions,
) -> anyhow::Result<BTreeMap<usize, Finished>> {
    // Checkpoint: keyed by the spec text and the precision used.
    let key = spec_key(spec_text, opts.quick);
    let mut ck = match &opts.checkpoint_dir {
        Some(d) => Some(checkpoint::Open::new(
            &checkpoint::path(d, spec, opts.quick, opts.shard),
            key,
        )?),
        None => None,
    };
    let costs = prepared.costs();
    let selected: Option<BTreeSet<usize>> = opts
        .shard
        .map(|s| shard::assign(&costs, s.count)[s.index].clone())
        .map(|v| v.into_iter().collect());
    let chosen = |i: &usize| selected.as_ref().is_none_or(|s| s.contains(i));
    let mut done: BTreeMap<usize, Finished> = ck
        .as_mut()
        .map(|c| std::mem::take(&mut c.done))
        .unwrap_or_default();
    done.retain(|i, _| chosen(i));
    // longest first, so that a long point does not start last (schedule)
    let by_index: BTreeMap<usize, &PointPlan> =
        prepared.plans.iter().map(|p| (p.point.index, p)).collect();
    let todo: Vec<&PointPlan> = shard::costliest_first(&costs)
        .into_iter()
        .filter(|&(i, _)| chosen(&i) && !done.contains_key(&i))
        .filter_map(|(i, _)| by_index.get(&i).copied())
        .collect();
    let total = selected.as_ref().map_or(prepared.plans.len(), |s| s.len());
    let bar = progress_bar(spec, total, done.len(), opts.progress == Progress::Bar);
    let lines = (opts.progress == Progress::Lines).then(|| {
        let todo_cost: f64 = todo.iter().map(|p| p.cost).sum();
        std::sync::Mutex::new(crate::metrics::progress::Points::new(
            &spec.name,
            total,
            done.len(),
            todo_cost,
        ))
    });
    let work = || -> anyhow::Result<Vec<(usize, Finished)>> {
        schedule::in_order(&todo, |&p| {
            let started = std::time::Instant::now();
            let rows = measure_point(spec, prepared, p)?;
            let seconds = started.elapsed().as_secs_f64();
            if let Some(c) = &ck {
                c.append(p.point.index, &rows, seconds)?;
            }
            bar.inc(1);
            if let Some(l) = &lines {
                l.lock().unwrap_or_else(|e| e.into_inner()).point(p.cost);
            }
            Ok((p.point.index, Finished { rows, seconds }))
        })
    };
    let fresh = match opts.threads {
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| anyhow::anyhow!("cannot start {n} threads: {e}"))?
            .install(work),
        None => work(),
    }?;
    bar.finish_and_clear();
    done.extend(fresh);
    Ok(done)
}

/// The key of a run's checkpoint and of its shards' part files: the spec
/// text and the precision.
pub fn spec_key(spec_text: &str, quick: bool) -> u64 {
    xxhash_rust::xxh3::xxh3_64(format!("{spec_text}\0{quick}").as_bytes())
}

/// The progress bar of a run (hidden unless asked for).
fn progress_bar(spec: &Spec, points: usize, done: usize, show: bool) -> ProgressBar {
    let bar = if show {
        ProgressBar::new(points as u64)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{prefix} [{bar:30}] {pos}/{len} points, {elapsed} elapsed, eta {eta}",
        )
        .unwrap()
        .progress_chars("=> "),
    );
    bar.set_prefix(spec.name.clone());
    bar.set_position(done as u64);
    bar
}

/// The finished points' rows, split into the result, profile and
/// convergence tables.
///
/// Every row is checked ([`Row::check`]) whatever it came from (a run, a
/// checkpoint, part files): a number no measurement can give is an error
/// naming the point, never a result.
pub fn outcome(done: BTreeMap<usize, PointRows>) -> anyhow::Result<Outcome> {
    for (i, rows) in &done {
        rows.check()
            .map_err(|e| anyhow::anyhow!("point {i}: {e}"))?;
    }
    let mut out = Outcome::default();
    for (_, rows) in done {
        out.rows.push(rows.row);
        for (table, r) in rows.tables {
            out.side_mut(table).push(r);
        }
    }
    Ok(out)
}
