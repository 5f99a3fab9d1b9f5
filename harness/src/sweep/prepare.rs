//! Preparing a run: every point's parameters checked, its design built,
//! the run's peak memory estimated against the budget, and the traces
//! loaded, all before any measurement starts.

use super::{budget, Prepared};
use crate::designs;
use crate::passes::{describe_point, PassKind, PointPlan};
use crate::resources::{gib, with_headroom};
use crate::spec::{ArrivalSpec, Metric, Point, Spec};
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
    let wanted = PassKind::wanted(&metrics);
    let mut plans: Vec<PointPlan> = Vec::with_capacity(points.len());
    // a repeat is planned as its first run is (and built once)
    let mut known: HashMap<String, usize> = HashMap::new();
    // which of the requested kinds some design answers: (filter, summary)
    let mut answered = (false, false);
    // a point over the work limit, refused after the memory check (a point
    // too large for the machine is the more urgent refusal)
    let mut too_long: Option<anyhow::Error> = None;
    for p in points {
        let same = format!("{} {:?} {:?}", p.design, p.params, p.rounds);
        if let Some(&first) = known.get(&same) {
            let plan = PointPlan {
                point: p,
                ..plans[first].clone()
            };
            plans.push(plan);
            continue;
        }
        let describe = describe_point(&p);
        let plan =
            plan_point(spec, &metrics, &wanted, p, quick).with_context(|| describe.clone())?;
        answered.0 |= plan.passes.iter().any(|(k, _)| on_filters(*k));
        answered.1 |= plan.runs(PassKind::Summary);
        if too_long.is_none() {
            too_long = budget::check_work(plan.cost)
                .map_err(|e| anyhow::anyhow!("{describe}: {e}"))
                .err();
        }
        known.insert(same, plans.len());
        plans.push(plan);
    }
    check_answered(spec, &plans, &wanted, answered)?;
    prepared(spec, plans, budget, too_long)
}

/// A one-point spec ready to run from its point's plan, made by
/// [`plan_built`] on a design already built: [`prepare`] without building
/// the design again (its traces loaded and the memory checked the same).
pub fn prepare_planned(spec: &Spec, plan: PointPlan, budget: &Budget) -> anyhow::Result<Prepared> {
    let too_long = budget::check_work(plan.cost).err();
    prepared(spec, vec![plan], budget, too_long)
}

/// The plans with the spec's traces, checked against the memory budget;
/// then `too_long`, a point over the work limit, refused (a point too large
/// for the machine is the more urgent refusal).
fn prepared(
    spec: &Spec,
    plans: Vec<PointPlan>,
    budget: &Budget,
    too_long: Option<anyhow::Error>,
) -> anyhow::Result<Prepared> {
    let metrics: BTreeSet<Metric> = spec.metrics.iter().copied().collect();
    let wanted = PassKind::wanted(&metrics);
    let trace = load_trace(spec, budget)?;
    if wanted.contains(&PassKind::Time) && spec.time.arrivals == Some(ArrivalSpec::Trace) {
        // refused before the run starts, not by its first point
        crate::passes::time::Process::new(&ArrivalSpec::Trace, trace.as_deref())?;
    }
    // the adversary's queries are read as the workload's keys are: one
    // key per line, within the run's memory budget
    let query_trace = match &spec.adversary.query_trace {
        Some(path) => Some(Arc::new(Trace::load_within(
            path,
            &crate::trace::TraceFormat::Lines,
            None,
            spec.seed,
            budget.memory,
        )?)),
        None => None,
    };
    if let Some(limit) = budget.memory {
        let traces = trace_bytes(&trace, &query_trace);
        check_memory(spec, &plans, traces, budget.threads, limit)?;
    }
    if let Some(e) = too_long {
        return Err(e);
    }
    Ok(Prepared {
        plans,
        trace,
        query_trace,
    })
}

/// The plan of a one-point spec's point on its design already built (with
/// the point's parameters): what [`prepare`] plans, without building the
/// design again. `plan --measure` reads it at many sizes of one candidate.
pub fn plan_built(spec: &Spec, built: &designs::Built) -> anyhow::Result<PointPlan> {
    let p = spec
        .points(false)?
        .into_iter()
        .next()
        .ok_or_else(|| anyhow::anyhow!("{} has no points", spec.name))?;
    let metrics: BTreeSet<Metric> = spec.metrics.iter().copied().collect();
    let wanted = PassKind::wanted(&metrics);
    let (settings, params) = super::point_settings(spec, &metrics, &p, false)?;
    let design = designs::configure(&p.design, &params)?;
    PointPlan::new(p, params, design, Arc::new(settings), built, &wanted)
}

/// The plan of one point: its settings split from its parameters, its
/// design built (seed 0: for its geometry and size) and checked against the
/// passes the spec asks for.
fn plan_point(
    spec: &Spec,
    metrics: &BTreeSet<Metric>,
    wanted: &[PassKind],
    p: Point,
    quick: bool,
) -> anyhow::Result<PointPlan> {
    let (settings, params) = super::point_settings(spec, metrics, &p, quick)?;
    let design = designs::configure(&p.design, &params)?;
    let built = design.build(0)?;
    check_kind(&built, &p.design, wanted)?;
    PointPlan::new(p, params, design, Arc::new(settings), &built, wanted)
}

/// Whether pass `k` measures membership filters (every pass but the
/// summary pass, which measures summaries).
fn on_filters(k: PassKind) -> bool {
    k != PassKind::Summary
}

/// Metrics no design of the spec answers are a mistake, not blank columns.
fn check_answered(
    spec: &Spec,
    plans: &[PointPlan],
    wanted: &[PassKind],
    (filter, summary): (bool, bool),
) -> anyhow::Result<()> {
    let design = plans
        .first()
        .map_or("this design", |p| p.point.design.as_str());
    if wanted.iter().any(|&k| on_filters(k)) && !filter {
        return Err(anyhow::anyhow!(
            "{design} is not a membership filter, nor is any design of {}: its membership metrics apply to none",
            spec.name
        ));
    }
    if wanted.contains(&PassKind::Summary) && !summary {
        return Err(anyhow::anyhow!(
            "{design} is not a measurement summary, nor is any design of {}: the count, distinct and entropy metrics apply to none",
            spec.name
        ));
    }
    Ok(())
}

/// The trace of a trace workload, read within the memory the run may use.
fn load_trace(spec: &Spec, budget: &Budget) -> anyhow::Result<Option<Arc<Trace>>> {
    let Some(source) = spec.workload.trace_source() else {
        return Ok(None);
    };
    Ok(Some(Arc::new(Trace::load_within(
        &source.path,
        &source.format,
        source.time_column.as_deref(),
        spec.seed,
        budget.memory,
    )?)))
}

/// Refuses a design that answers none of the spec's metrics. A spec may
/// mix membership filters and measurement summaries: each design gets the
/// passes it answers (SWAMP, both).
fn check_kind(b: &designs::Built, design: &str, wanted: &[PassKind]) -> anyhow::Result<()> {
    if wanted.iter().any(|k| k.pass().takes(b)) {
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

/// The bytes of the loaded traces.
pub(super) fn trace_bytes(trace: &Option<Arc<Trace>>, query_trace: &Option<Arc<Trace>>) -> u64 {
    [trace, query_trace]
        .iter()
        .filter_map(|t| t.as_ref())
        .map(|t| t.bytes())
        .sum()
}

/// A run's peak estimate: its `threads` largest points at once plus the
/// traces (without headroom), the points measured at once, and the largest
/// point. What [`check_memory`] holds against a limit and what a Slurm
/// array task requests ([`Prepared::peak_need`](super::Prepared::peak_need)).
pub(super) fn peak(
    plans: &[PointPlan],
    traces: u64,
    threads: usize,
) -> (u64, usize, Option<&PointPlan>) {
    let mut peaks: Vec<&PointPlan> = plans.iter().collect();
    peaks.sort_by_key(|p| std::cmp::Reverse(p.bytes.total()));
    let at_once = threads.clamp(1, plans.len().max(1));
    let run: u64 = peaks
        .iter()
        .take(at_once)
        .fold(traces, |acc, p| acc.saturating_add(p.bytes.total()));
    (run, at_once, peaks.first().copied())
}

/// Refuses a run whose largest points, `threads` of them at once, plus the
/// traces, would pass `limit` bytes.
fn check_memory(
    spec: &Spec,
    plans: &[PointPlan],
    traces: u64,
    threads: usize,
    limit: u64,
) -> anyhow::Result<()> {
    let (run, at_once, largest) = peak(plans, traces, threads);
    let Some(p) = largest.filter(|_| with_headroom(run) > limit) else {
        return Ok(());
    };
    let threads_note = if at_once > 1 {
        format!("; {at_once} points at once need about {}", gib(run))
    } else {
        String::new()
    };
    Err(anyhow::anyhow!(
        "{}: {} needs about {} ({}){threads_note}, which with a quarter of headroom is above the {} this run may use (--memory-limit GiB to change it{})",
        spec.name,
        describe_point(&p.point),
        gib(p.bytes.total()),
        p.bytes.describe(),
        gib(limit),
        if at_once > 1 { "; or fewer --threads" } else { "" }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::PointBytes;

    /// The estimate must fit with a quarter on top: 22.4 GiB used to be
    /// accepted against 22.9 GiB available.
    #[test]
    fn the_memory_check_keeps_a_quarter_of_headroom() {
        let spec = Spec::parse(
            "name = \"h\"\nmetrics = [\"fpr\"]\n[[sweep]]\ndesign = \"apbf\"\npoints = [{ k = 4, l = 3, g = 20 }]\n",
        )
        .unwrap();
        let mut plans = prepare(&spec, false, &Budget::unchecked()).unwrap().plans;
        let gib = 1u64 << 30;
        let est = 224 * gib / 10;
        plans[0].bytes = PointBytes {
            parts: vec![("filter", est)],
        };
        let e = check_memory(&spec, &plans, 0, 1, 229 * gib / 10)
            .unwrap_err()
            .to_string();
        assert!(e.contains("a quarter of headroom"), "{e}");
        assert!(check_memory(&spec, &plans, 0, 1, 28 * gib).is_ok());
        // the traces count too
        assert!(check_memory(&spec, &plans, 8 * gib, 1, 28 * gib).is_err());
    }

    /// The shard weight and the memory estimate are read from the plan
    /// the pass runs: a longer warm-up (a wider margin: the horizon, hence
    /// the warm-up and the history of ages, grow) moves both, by the pass's
    /// own figures.
    #[test]
    fn the_cost_and_the_memory_estimate_move_with_the_warm_up() {
        let plan = |margin: f64| {
            let spec = Spec::parse(&format!(
                "name = \"h\"\nmetrics = [\"fpr\", \"fnr\"]\n[measure]\nrounds = 4\nmargin = {margin}\n\
                 [[sweep]]\ndesign = \"apbf\"\npoints = [{{ k = 4, l = 3, g = 1000 }}]\n"
            ))
            .unwrap();
            prepare(&spec, false, &Budget::unchecked())
                .unwrap()
                .plans
                .remove(0)
        };
        let (short, long) = (plan(0.5), plan(4.0));
        assert!(long.cost > short.cost, "{} vs {}", long.cost, short.cost);
        assert!(long.bytes.total() > short.bytes.total());
        for p in [&short, &long] {
            let built = designs::build("apbf", &p.params, 0).unwrap();
            let s = &p.settings;
            let pass = crate::passes::membership::plan::MembershipPlan::new(
                &built, &s.metrics, &s.measure,
            );
            let (inserts, queries) = pass.operations();
            assert_eq!(p.passes.len(), 1);
            assert_eq!(
                (p.passes[0].1.inserts, p.passes[0].1.queries),
                (inserts, queries)
            );
            let (ins_ns, query_ns) = designs::lookup("apbf").unwrap().op_ns();
            assert_eq!(p.base_cost, inserts * ins_ns + queries * query_ns);
            assert_eq!(p.cost, p.base_cost * crate::passes::fitted::factor("apbf"));
            let history = pass
                .peak_bytes(s.distinct())
                .into_iter()
                .find(|b| b.0 == "age history")
                .unwrap();
            assert!(p.bytes.parts.contains(&history));
        }
    }
}
