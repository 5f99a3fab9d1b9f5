//! One point: its settings split from its parameters (when the run is
//! prepared), and its measurement: the design built once with the point's
//! seed, then each pass of its plan run in order ([`crate::passes`]).

use super::derived;
use super::rows::id_row;
use super::{PointRows, Prepared};
use crate::designs;
use crate::metrics::columns::{self, col};
use crate::metrics::Part;
use crate::metrics::{Row, Value};
use crate::passes::{self, PassKind, PointPlan, PointRun, Settings};
use crate::spec::{Metric, Point, Spec, WorkloadSpec};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::collections::{BTreeMap, BTreeSet};

/// A point's settings and the design's own parameters: `zipf` /
/// `universe` shape the stream, `replay_every` / `pool` /
/// `inserts_per_query` the attack, `arrivals_*` the arrival process; the
/// rest go to the design. The block's rounds (a fifth of them, at least 2,
/// at quick precision) and the quick variants of the attack and of the
/// `[time]` section are applied here, once.
pub fn point_settings(
    spec: &Spec,
    metrics: &BTreeSet<Metric>,
    p: &Point,
    quick: bool,
) -> anyhow::Result<(Settings, BTreeMap<String, f64>)> {
    let (workload, params) = point_workload(&spec.workload, &p.params)?;
    let (attack, params) = passes::adversary::point_attack(&spec.adversary, &params)?;
    let (time, params) = crate::spec::point_time(&spec.time, &params)?;
    let mut measure = spec.measure.at(quick);
    if let Some(r) = p.rounds {
        measure.rounds = if quick { (r / 5).max(2) } else { r };
    }
    let settings = Settings {
        metrics: metrics.clone(),
        measure,
        attack: if quick { attack.quick() } else { attack },
        time: if quick { time.quick() } else { time },
        workload,
    };
    Ok((settings, params))
}

/// Measures one point: its row (identifying columns, then each pass's
/// figures, the spec's theory columns after the membership pass's) and its
/// side rows. Used by `run` and, through a one-point spec, by `measure`.
/// The design is built once, with a seed drawn from the point's generator;
/// each pass other than the membership pass draws from its own, so a
/// point's numbers do not depend on the thread it runs on, on the other
/// points, or on which other passes the spec asks for.
pub fn measure_point(
    spec: &Spec,
    prepared: &Prepared,
    plan: &PointPlan,
) -> anyhow::Result<PointRows> {
    let p = &plan.point;
    let seed = passes::point_seed(spec.seed, p.index);
    let mut rng = Pcg64::seed_from_u64(seed);
    let built = plan.design.build(rng.random())?;
    let id = id_row(p, &built);
    let mut run = PointRun {
        plan,
        seed,
        built,
        rng: Some(rng),
        trace: prepared.trace.as_ref(),
        query_trace: prepared.query_trace.as_deref(),
        id: id.clone(),
        reports_memory: false,
    };
    let in_point = |e: anyhow::Error| anyhow::anyhow!("point {}: {e:#}", p.index);
    let memory = plan.settings.metrics.contains(&Metric::Memory);
    let mut out = PointRows {
        row: id,
        tables: Vec::new(),
    };
    // the theory columns follow the membership pass's (first when it runs)
    let theory_at = usize::from(plan.runs(PassKind::Membership));
    for (i, (kind, _)) in plan.passes.iter().enumerate() {
        if i == theory_at {
            theory_columns(spec, &mut out.row, &run.built);
        }
        run.reports_memory = memory && i == 0;
        let o = kind.pass().run(&mut run).map_err(in_point)?;
        out.row.0.extend(o.row.0);
        out.tables.extend(o.tables);
    }
    if theory_at == plan.passes.len() {
        theory_columns(spec, &mut out.row, &run.built);
    }
    warn_no_interval(&out.row, p.index);
    // a number out of its range is a bug: it stops the run here, before a
    // checkpoint or a result holds it
    out.check().map_err(|e| {
        anyhow::anyhow!(
            "point {} ({}): {e}: refused rather than written (a bug; please report it)",
            p.index,
            p.design
        )
    })?;
    Ok(out)
}

/// The spec's `theory_columns` the passes did not write: the design's
/// theory, or a figure derived from the row.
fn theory_columns(spec: &Spec, row: &mut Row, built: &designs::Built) {
    for name in &spec.theory_columns {
        if row.get(name).is_none() {
            // a spec's theory columns are registered columns (checked when
            // the spec is read)
            let v = columns::lookup(name)
                .and_then(|c| built.theory.get(c.col))
                .or_else(|| derived::derived(name, row, built));
            row.num(name.clone(), v.unwrap_or(f64::NAN));
        }
    }
}

/// Says which of a row's figures have no interval (one round, no queries),
/// so that a blank interval column is explained where it is made.
fn warn_no_interval(row: &Row, index: usize) {
    let blank: Vec<&str> = row
        .0
        .iter()
        .filter_map(|(n, v)| {
            let name = n.strip_suffix(Part::CiLow.suffix())?;
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

/// Point parameters that shape the key stream rather than the design:
/// `zipf` (exponent) and `universe` turn the spec's workload into a Zipf law
/// for that point, so one spec can sweep skews. Returns the point's workload
/// and the design's own parameters.
pub fn point_workload(
    workload: &WorkloadSpec,
    params: &BTreeMap<String, f64>,
) -> anyhow::Result<(WorkloadSpec, BTreeMap<String, f64>)> {
    let (zipf, universe) = (
        params.get(col::ZIPF.name()),
        params.get(col::UNIVERSE.name()),
    );
    if zipf.is_none() && universe.is_none() {
        return Ok((workload.clone(), params.clone()));
    }
    let base_universe = match workload {
        WorkloadSpec::Zipf { universe, .. } => Some(*universe),
        WorkloadSpec::Distinct => None,
        WorkloadSpec::Trace(_) | WorkloadSpec::Batch { .. } => {
            return Err(anyhow::anyhow!(
            "zipf and universe parameters need a distinct or zipf workload, not a trace or batches"
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
        .filter(|(k, _)| *k != col::ZIPF.name() && *k != col::UNIVERSE.name())
        .map(|(k, v)| (k.clone(), *v))
        .collect();
    Ok((WorkloadSpec::Zipf { universe, exponent }, rest))
}
