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
mod prepare;
mod rows;
mod schedule;
pub mod shard;

pub use checkpoint::clear_checkpoint;
pub use prepare::{prepare, Budget};
pub use rows::check_rows;
pub use shard::Shard;

use crate::adversary;
use crate::designs;
use crate::estimates;
use crate::metrics::{self, PointResult, Row, Value};
use crate::spec::{MeasureSpec, Metric, Point, Spec, WorkloadSpec};
use crate::workload::{KeyStream, Trace};
use bloomlab_filters::hash::mix64;
use indicatif::{ProgressBar, ProgressStyle};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use rows::{convergence_row, id_row, id_without_repeat, profile_row};
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
    /// Show a progress bar on stderr (if it is a terminal).
    pub progress: bool,
    /// Run only this shard's points (see [`shard`]); its checkpoint is the
    /// shard's own.
    pub shard: Option<Shard>,
}

/// The measured rows of a run.
#[derive(Debug, Clone, PartialEq)]
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

/// The seed of point `index`.
pub fn point_seed(spec_seed: u64, index: usize) -> u64 {
    mix64(spec_seed ^ mix64(index as u64 + 1))
}

/// A spec checked and ready to run: its points and, for a trace workload,
/// the loaded trace.
pub struct Prepared {
    /// The expanded points.
    pub points: Vec<Point>,
    /// Each point's estimated cost (index, key operations), for sharding and
    /// for the order a run measures its points in.
    pub costs: Vec<(usize, f64)>,
    trace: Option<Arc<Trace>>,
    query_trace: Option<Arc<Trace>>,
}

impl Prepared {
    /// The run's estimated wall time on `threads` threads, in seconds (the
    /// shard weights' estimate: this repository's machine).
    pub fn estimated_seconds(&self, threads: usize) -> f64 {
        let total: f64 = self.costs.iter().map(|c| c.1).sum();
        let longest = self.costs.iter().map(|c| c.1).fold(0.0, f64::max);
        (total / threads.max(1) as f64).max(longest) * 1e-9
    }

    /// "; about 3 min by estimate" for a run estimated above
    /// [`budget::ANNOUNCE_S`], else nothing.
    pub fn announce(&self, threads: usize) -> String {
        let s = self.estimated_seconds(threads);
        if s > budget::ANNOUNCE_S {
            format!("; about {} by estimate", budget::duration(s))
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
    /// The point's row and its profile and convergence rows.
    pub rows: PointResultRows,
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
    let measure = spec.measure.at(opts.quick);
    // Checkpoint: keyed by the spec text and the precision used.
    let key = spec_key(spec_text, opts.quick);
    let mut ck = match &opts.checkpoint_dir {
        Some(d) => Some(checkpoint::Open::new(
            &checkpoint::path(d, spec, opts.quick, opts.shard),
            key,
        )?),
        None => None,
    };
    let selected: Option<BTreeSet<usize>> = opts
        .shard
        .map(|s| shard::assign(&prepared.costs, s.count)[s.index].clone())
        .map(|v| v.into_iter().collect());
    let chosen = |i: &usize| selected.as_ref().is_none_or(|s| s.contains(i));
    let mut done: BTreeMap<usize, Finished> = ck
        .as_mut()
        .map(|c| std::mem::take(&mut c.done))
        .unwrap_or_default();
    done.retain(|i, _| chosen(i));
    // longest first, so that a long point does not start last (schedule)
    let by_index: BTreeMap<usize, &Point> = prepared.points.iter().map(|p| (p.index, p)).collect();
    let todo: Vec<&Point> = shard::costliest_first(&prepared.costs)
        .into_iter()
        .filter(|&(i, _)| chosen(&i) && !done.contains_key(&i))
        .filter_map(|(i, _)| by_index.get(&i).copied())
        .collect();
    let total = selected.as_ref().map_or(prepared.points.len(), |s| s.len());
    let bar = progress_bar(spec, total, done.len(), opts.progress);
    let work = || -> anyhow::Result<Vec<(usize, Finished)>> {
        schedule::in_order(&todo, |&p| {
            let started = std::time::Instant::now();
            let (row, extra) = measure_point(spec, prepared, &measure, p, opts.quick)?;
            let seconds = started.elapsed().as_secs_f64();
            if let Some(c) = &ck {
                c.append(p.index, &row, &extra, seconds)?;
            }
            bar.inc(1);
            Ok((
                p.index,
                Finished {
                    rows: (row, extra),
                    seconds,
                },
            ))
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
pub fn outcome(done: BTreeMap<usize, PointResultRows>) -> anyhow::Result<Outcome> {
    for (i, (row, extra)) in &done {
        check_rows(row, extra).map_err(|e| anyhow::anyhow!("point {i}: {e}"))?;
    }
    let mut out = Outcome {
        rows: Vec::new(),
        profile: Vec::new(),
        convergence: Vec::new(),
        timeline: Vec::new(),
        age_time: Vec::new(),
    };
    for (_, (row, extra)) in done {
        out.rows.push(row);
        for r in extra {
            let (table, r) = crate::metrics::TableKind::untag(r);
            out.side_mut(table).push(r);
        }
    }
    Ok(out)
}

/// Measures one point: its row (identifying columns, then each pass's
/// figures) and its profile and convergence rows. Used by `run` and, through
/// a one-point spec, by `measure`. Each pass draws from its own generator,
/// seeded by the spec seed and the point index, so a point's numbers do not
/// depend on the thread it runs on or on the other points.
pub fn measure_point(
    spec: &Spec,
    prepared: &Prepared,
    measure: &MeasureSpec,
    p: &Point,
    quick: bool,
) -> anyhow::Result<PointResultRows> {
    let metrics: BTreeSet<Metric> = spec.metrics.iter().copied().collect();
    let passes = Passes::of(&metrics);
    let trace = &prepared.trace;
    let mut rng = Pcg64::seed_from_u64(point_seed(spec.seed, p.index));
    let (workload, attack, time, params) = point_parts(spec, &p.params)?;
    let mut built = designs::build(&p.design, &params, rng.random())?;
    let passes = passes.for_design(built.filter.is_some(), built.summary.is_some());
    let stream = KeyStream::new(&workload, trace.clone(), &mut rng);
    let window = built.geometry.window as f64;
    let id = id_row(p, &built);
    let rebuild = |seed: u64| designs::build(&p.design, &params, seed);
    let measure = shard::point_measure(measure, p, quick);
    let in_point = |e: anyhow::Error| anyhow::anyhow!("point {}: {e:#}", p.index);
    let mut full = id.clone();
    let PointResult {
        row,
        profile,
        convergence,
    } = if passes.filter {
        metrics::measure(&mut built, stream, rng, &metrics, &measure, &rebuild).map_err(in_point)?
    } else {
        PointResult::default()
    };
    full.0.extend(row.0);
    for name in &spec.theory_columns {
        if full.get(name).is_none() {
            let v = built
                .theory
                .get(name)
                .or_else(|| derived::derived(name, &full, &built));
            full.num(name.clone(), v.unwrap_or(f64::NAN));
        }
    }
    if passes.summary && built.summary.is_some() {
        let mut rng = pass_rng(spec.seed, p.index, 0x5EED_E571_3A7E_0001);
        let stream = KeyStream::new(&workload, trace.clone(), &mut rng);
        let memory = passes.summary_memory();
        let row = estimates::measure(&built, stream, rng, &metrics, &measure, &rebuild, memory)
            .map_err(in_point)?;
        full.0.extend(row.0);
    }
    if passes.adversary {
        let attack = if quick { attack.quick() } else { attack };
        let mut rows = Vec::new();
        for run in 0..attack.runs {
            // a fresh copy of the design per run; run 0 keeps the seed a
            // single attack has always had
            let salt = 0xAD7E_5A11_0000_0001 ^ if run == 0 { 0 } else { mix64(run) };
            let mut rng = pass_rng(spec.seed, p.index, salt);
            let mut fresh = designs::build(&p.design, &params, rng.random())?;
            let stream = KeyStream::new(&workload, trace.clone(), &mut rng);
            let row = adversary::measure(
                &mut fresh,
                stream,
                rng,
                &attack,
                prepared.query_trace.as_deref(),
                measure.ci_level,
                passes.adversary_memory(),
            )
            .map_err(in_point)?;
            rows.push(row);
        }
        let row = adversary::combine(rows, measure.ci_level);
        full.0.extend(row.0);
    }
    let mut extra = Vec::new();
    if passes.time {
        let time = if quick { time.quick() } else { time };
        let rng = pass_rng(spec.seed, p.index, 0x71AE_11AE_0000_0001);
        let stream = KeyStream::new(&workload, trace.clone(), &mut rng.clone());
        let memory = passes.time_memory();
        let r = crate::timed::pass::measure(
            &mut built,
            stream,
            rng,
            &time,
            trace.as_deref(),
            measure.ci_level,
            memory,
        )
        .map_err(in_point)?;
        full.0.extend(r.row.0);
        let tagged = |x: Row| Row(id_without_repeat(&id).0.into_iter().chain(x.0).collect());
        extra.extend(r.timeline.into_iter().chain(r.ages).map(tagged));
    }
    warn_no_interval(&full, p.index);
    let level = measure.ci_level;
    extra.extend(profile.iter().map(|pr| profile_row(&id, window, pr, level)));
    extra.extend(convergence.iter().map(|c| convergence_row(&id, c, level)));
    // a number out of its range is a bug: it stops the run here, before a
    // checkpoint or a result holds it
    check_rows(&full, &extra).map_err(|e| {
        anyhow::anyhow!(
            "point {} ({}): {e}: refused rather than written (a bug; please report it)",
            p.index,
            p.design
        )
    })?;
    Ok((full, extra))
}

/// Says which of a row's figures have no interval (one round, no queries),
/// so that a blank interval column is explained where it is made.
fn warn_no_interval(row: &Row, index: usize) {
    let blank: Vec<&str> = row
        .0
        .iter()
        .filter_map(|(n, v)| {
            let name = n.strip_suffix("_ci_low")?;
            let value = row.get_num(name)?;
            (value.is_finite() && !matches!(v, Value::Num(x) if x.is_finite())).then_some(name)
        })
        .collect();
    if !blank.is_empty() {
        eprintln!(
            "warning: point {index}: no interval for {} (too few rounds or queries: an interval of a mean needs at least 2 rounds); their *_in_ci columns are left blank",
            blank.join(", ")
        );
    }
}

/// A point's row and its profile and convergence rows.
pub type PointResultRows = (Row, Vec<Row>);

/// Point parameters that shape the key stream rather than the design:
/// `zipf` (exponent) and `universe` turn the spec's workload into a Zipf law
/// for that point, so one spec can sweep skews. Returns the point's workload
/// and the design's own parameters.
pub fn point_workload(
    workload: &WorkloadSpec,
    params: &BTreeMap<String, f64>,
) -> anyhow::Result<(WorkloadSpec, BTreeMap<String, f64>)> {
    let (zipf, universe) = (params.get("zipf"), params.get("universe"));
    if zipf.is_none() && universe.is_none() {
        return Ok((workload.clone(), params.clone()));
    }
    let base_universe = match workload {
        WorkloadSpec::Zipf { universe, .. } => Some(*universe),
        WorkloadSpec::Distinct => None,
        WorkloadSpec::Trace { .. } => {
            return Err(anyhow::anyhow!(
                "zipf and universe parameters need a distinct or zipf workload, not a trace"
            ))
        }
    };
    let exponent = match (zipf, workload) {
        (Some(&z), _) => z,
        (None, WorkloadSpec::Zipf { exponent, .. }) => *exponent,
        _ => return Err(anyhow::anyhow!("universe given without zipf")),
    };
    let universe = match (universe, base_universe) {
        (Some(&u), _) if u >= 1.0 && u.fract() == 0.0 && u < 2f64.powi(53) => u as u64,
        (Some(&u), _) => {
            return Err(anyhow::anyhow!(
                "parameter universe = {u} must be a whole number >= 1"
            ))
        }
        (None, Some(u)) => u,
        (None, None) => {
            return Err(anyhow::anyhow!(
                "zipf needs a universe (parameter or zipf workload)"
            ))
        }
    };
    if !(exponent >= 0.0 && exponent.is_finite()) {
        return Err(anyhow::anyhow!(
            "parameter zipf = {exponent} must be a finite exponent >= 0"
        ));
    }
    let rest = params
        .iter()
        .filter(|(k, _)| *k != "zipf" && *k != "universe")
        .map(|(k, v)| (k.clone(), *v))
        .collect();
    Ok((WorkloadSpec::Zipf { universe, exponent }, rest))
}

/// Which measurement passes a metric set needs. The summary metrics
/// (`estimates.rs`) and the `adversary` metric (`adversary.rs`) run passes of
/// their own; `memory` is reported by the filter pass when it runs, else by
/// the summary pass, else by the adversary pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Passes {
    /// The membership metrics of [`crate::metrics`].
    pub filter: bool,
    /// count, distinct, entropy.
    pub summary: bool,
    /// The replaying adversary.
    pub adversary: bool,
    /// The time-window pass (`timeline`).
    pub time: bool,
    memory: bool,
}

impl Passes {
    /// The passes `metrics` needs.
    pub fn of(metrics: &BTreeSet<Metric>) -> Passes {
        let summary = estimates::wanted(metrics);
        let adversary = metrics.contains(&Metric::Adversary);
        let time = metrics.contains(&Metric::Timeline);
        let memory = metrics.contains(&Metric::Memory);
        let filter = metrics.iter().any(|m| {
            !matches!(
                m,
                Metric::Count
                    | Metric::Distinct
                    | Metric::Entropy
                    | Metric::Memory
                    | Metric::Adversary
                    | Metric::Timeline
            )
        }) || (memory && !summary && !adversary && !time);
        Passes {
            filter,
            summary,
            adversary,
            time,
            memory,
        }
    }

    /// The passes a design runs: those of the spec it answers (a summary
    /// gets no filter or adversary pass, a filter no summary pass).
    pub fn for_design(&self, filter: bool, summary: bool) -> Passes {
        Passes {
            filter: self.filter && filter,
            summary: self.summary && summary,
            adversary: self.adversary && filter,
            time: self.time && filter,
            memory: self.memory,
        }
    }

    /// Whether the time pass reports `memory`.
    pub fn time_memory(&self) -> bool {
        self.memory && !self.filter && !self.summary && !self.adversary
    }

    /// Whether the summary pass reports `memory`.
    pub fn summary_memory(&self) -> bool {
        self.memory && !self.filter
    }

    /// Whether the adversary pass reports `memory`.
    pub fn adversary_memory(&self) -> bool {
        self.memory && !self.filter && !self.summary
    }
}

/// The generator of a point's summary or adversary pass: its own, so that
/// adding those metrics to a spec leaves the other passes' numbers unchanged.
fn pass_rng(spec_seed: u64, index: usize, salt: u64) -> Pcg64 {
    Pcg64::seed_from_u64(mix64(point_seed(spec_seed, index) ^ salt))
}

/// A point's stream, attack and design parameters: `zipf` / `universe`
/// shape the stream, `replay_every` / `pool` / `inserts_per_query` the
/// attack; the rest go to the design.
pub fn point_parts(
    spec: &Spec,
    params: &BTreeMap<String, f64>,
) -> anyhow::Result<(
    WorkloadSpec,
    crate::spec::AdversarySpec,
    crate::timed::TimeSpec,
    BTreeMap<String, f64>,
)> {
    let (workload, params) = point_workload(&spec.workload, params)?;
    let (attack, params) = adversary::point_attack(&spec.adversary, &params)?;
    let (time, params) = crate::timed::point_time(&spec.time, &params)?;
    Ok((workload, attack, time, params))
}
