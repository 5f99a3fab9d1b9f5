//! Preparing a run: every point's parameters checked, its design built,
//! the run's peak memory estimated against the budget, and the traces
//! loaded, all before any measurement starts.

use super::{budget, point_parts, Passes, Prepared};
use crate::designs;
use crate::spec::{Metric, Point, Spec, WorkloadSpec};
use crate::workload::Trace;
use anyhow::Context;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// What a run may use: the memory it may take (None: unchecked) and the
/// worker threads that share it.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Bytes the run may use at its peak.
    pub memory: Option<u64>,
    /// Points measured at once.
    pub threads: usize,
}

impl Budget {
    /// No memory check, one thread: for tests and small known specs.
    pub fn unchecked() -> Budget {
        Budget {
            memory: None,
            threads: 1,
        }
    }
}

/// Checks every point's parameters, estimates the run's peak memory against
/// the budget, and loads the trace, all before anything runs, so that a
/// typo in the last block does not cost the first blocks' work and a point
/// too large for the machine is refused instead of aborting the process.
pub fn prepare(spec: &Spec, quick: bool, budget: &Budget) -> anyhow::Result<Prepared> {
    let points = spec.points(quick)?;
    if points.is_empty() {
        return Err(anyhow::anyhow!(
            "{} has no points{} (every block is quick = false?)",
            spec.name,
            if quick { " at --quick" } else { "" }
        ));
    }
    let metrics: BTreeSet<Metric> = spec.metrics.iter().copied().collect();
    let passes = Passes::of(&metrics);
    let measure = spec.measure.at(quick);
    let distinct = matches!(spec.workload, WorkloadSpec::Distinct);
    let mut peaks: Vec<(u64, usize, budget::PointBytes)> = Vec::new();
    // a repeat costs what its first run costs (and is built once)
    let mut known: HashMap<String, (f64, budget::PointBytes)> = HashMap::new();
    let mut costs = Vec::with_capacity(points.len());
    // which of the requested kinds some design answers: (filter, summary)
    let mut answered = (false, false);
    let mut first_design: Option<&str> = None;
    // a point over the work limit, refused after the memory check (a point
    // too large for the machine is the more urgent refusal)
    let mut too_long: Option<anyhow::Error> = None;
    for p in &points {
        let same = format!("{} {:?} {:?}", p.design, p.params, p.rounds);
        if let Some((c, bytes)) = known.get(&same) {
            costs.push((p.index, *c));
            peaks.push((bytes.total(), p.index, bytes.clone()));
            continue;
        }
        let describe = || describe_point(p);
        let (_, attack, time, params) = point_parts(spec, &p.params).with_context(describe)?;
        if passes.adversary {
            budget::check_attack(&attack).with_context(describe)?;
        }
        let built = designs::build(&p.design, &params, 0)
            .and_then(|b| check_kind(&b, &p.design, &passes).map(|_| b))
            .with_context(describe)?;
        let own = passes.for_design(built.filter.is_some(), built.summary.is_some());
        check_time(&built, &p.design, &own, &time).with_context(describe)?;
        answered.0 |= own.filter || own.adversary || own.time;
        answered.1 |= own.summary;
        first_design.get_or_insert(&p.design);
        let time = if quick { time.quick() } else { time };
        let bytes = budget::point_bytes(&built, &own, &measure, &attack, &metrics, &time, distinct);
        let m = super::shard::point_measure(&measure, p, quick);
        let cost = super::shard::point_cost(&p.design, &built, &own, &m, &attack, &metrics);
        if too_long.is_none() {
            too_long = budget::check_work(cost)
                .map_err(|e| anyhow::anyhow!("{}: {e}", describe()))
                .err();
        }
        known.insert(same, (cost, bytes.clone()));
        costs.push((p.index, cost));
        peaks.push((bytes.total(), p.index, bytes));
    }
    // metrics no design of the spec answers are a mistake, not blank columns
    let design = first_design.unwrap_or("this design");
    if (passes.filter || passes.adversary || passes.time) && !answered.0 {
        return Err(anyhow::anyhow!(
            "{design} is not a membership filter, nor is any design of {}: its membership metrics apply to none",
            spec.name
        ));
    }
    if passes.summary && !answered.1 {
        return Err(anyhow::anyhow!(
            "{design} is not a measurement summary, nor is any design of {}: the count, distinct and entropy metrics apply to none",
            spec.name
        ));
    }
    let trace = match &spec.workload {
        WorkloadSpec::Trace { .. } => {
            let (path, format) = spec.workload.trace_source().expect("a trace workload")?;
            let time_column = match &spec.workload {
                WorkloadSpec::Trace { time_column, .. } => time_column.as_deref(),
                _ => None,
            };
            Some(Arc::new(Trace::load_within(
                path,
                &format,
                time_column,
                spec.seed,
                budget.memory,
            )?))
        }
        _ => None,
    };
    if passes.time && spec.time.arrivals == Some(crate::timed::ArrivalSpec::Trace) {
        // refused before the run starts, not by its first point
        crate::timed::arrivals::Process::new(&crate::timed::ArrivalSpec::Trace, trace.as_deref())?;
    }
    let query_trace = match &spec.adversary.query_trace {
        Some(path) => Some(Arc::new(Trace::load(path, spec.seed)?)),
        None => None,
    };
    if let Some(limit) = budget.memory {
        let traces: u64 = [&trace, &query_trace]
            .iter()
            .filter_map(|t| t.as_ref())
            .map(|t| t.bytes())
            .sum();
        check_memory(spec, &points, peaks, traces, budget.threads, limit)?;
    }
    if let Some(e) = too_long {
        return Err(e);
    }
    Ok(Prepared {
        points,
        costs,
        trace,
        query_trace,
    })
}

/// "point 3 (apbf k=4 l=3)", for messages.
fn describe_point(p: &Point) -> String {
    format!(
        "point {} ({} {})",
        p.index,
        p.design,
        p.params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    )
}

/// Refuses a design that answers none of the spec's metrics. A spec may
/// mix membership filters and measurement summaries: each design gets the
/// passes it answers (SWAMP, both).
fn check_kind(b: &designs::Built, design: &str, passes: &Passes) -> anyhow::Result<()> {
    let as_filter = (passes.filter || passes.adversary || passes.time) && b.filter.is_some();
    let as_summary = passes.summary && b.summary.is_some();
    if as_filter || as_summary {
        Ok(())
    } else if b.filter.is_none() {
        Err(anyhow::anyhow!(
            "{design} is not a membership filter: only the count, distinct and entropy metrics apply"
        ))
    } else {
        Err(anyhow::anyhow!(
            "{design} is not a measurement summary: the count, distinct and entropy metrics do not apply"
        ))
    }
}

/// Refuses a run whose largest points, `threads` of them at once, plus the
/// traces, would pass `limit` bytes.
fn check_memory(
    spec: &Spec,
    points: &[Point],
    mut peaks: Vec<(u64, usize, budget::PointBytes)>,
    traces: u64,
    threads: usize,
    limit: u64,
) -> anyhow::Result<()> {
    peaks.sort_by_key(|p| std::cmp::Reverse(p.0));
    let at_once = threads.clamp(1, points.len().max(1));
    let run: u64 = peaks
        .iter()
        .take(at_once)
        .fold(traces, |acc, p| acc.saturating_add(p.0));
    if budget::with_headroom(run) <= limit {
        return Ok(());
    }
    let (bytes, index, parts) = &peaks[0];
    // by index, not position: a quick run leaves blocks out
    let p = points
        .iter()
        .find(|p| p.index == *index)
        .expect("every peak is a point's");
    let threads_note = if at_once > 1 {
        format!("; {at_once} points at once need about {}", budget::gib(run))
    } else {
        String::new()
    };
    Err(anyhow::anyhow!(
        "{}: {} needs about {} ({}){threads_note}, which with a quarter of headroom is above the {} this run may use (--memory-limit GiB to change it{})",
        spec.name,
        describe_point(p),
        budget::gib(*bytes),
        parts.describe(),
        budget::gib(limit),
        if at_once > 1 { "; or fewer --threads" } else { "" }
    ))
}

/// A design that forgets by time takes no count-based membership metric;
/// one that counts insertions needs the arrival process and T for the
/// timeline metric.
fn check_time(
    built: &designs::Built,
    design: &str,
    passes: &Passes,
    time: &crate::timed::TimeSpec,
) -> anyhow::Result<()> {
    let timed = built.geometry.time.is_some();
    if timed && passes.filter {
        return Err(anyhow::anyhow!(
            "{design} forgets by time: its metrics are timeline and memory, not the count-based membership metrics"
        ));
    }
    if passes.time && !timed && (time.arrivals.is_none() || time.window.is_none()) {
        return Err(anyhow::anyhow!(
            "{design} counts insertions: the timeline metric needs [time.arrivals] and time.window (T, seconds) in the spec"
        ));
    }
    if passes.time {
        crate::timed::pass::check(built, time)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The estimate must fit with a quarter on top: 22.4 GiB used to be
    /// accepted against 22.9 GiB available.
    #[test]
    fn the_memory_check_keeps_a_quarter_of_headroom() {
        let spec = Spec::parse(
            "name = \"h\"\nmetrics = [\"fpr\"]\n[[sweep]]\ndesign = \"apbf\"\npoints = [{ k = 4, l = 3, g = 20 }]\n",
        )
        .unwrap();
        let points = spec.points(false).unwrap();
        let gib = 1u64 << 30;
        let peak = |b: u64| {
            vec![(
                b,
                0,
                budget::PointBytes {
                    parts: vec![("filter", b)],
                },
            )]
        };
        let est = 224 * gib / 10;
        let e = check_memory(&spec, &points, peak(est), 0, 1, 229 * gib / 10)
            .unwrap_err()
            .to_string();
        assert!(e.contains("a quarter of headroom"), "{e}");
        assert!(check_memory(&spec, &points, peak(est), 0, 1, 28 * gib).is_ok());
        // the traces count too
        assert!(check_memory(&spec, &points, peak(est), 8 * gib, 1, 28 * gib).is_err());
    }
}
