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
/// for that point, and `concurrent` (open flows) and `mean_run` (items per
/// batch) into item batches, so one spec can sweep workloads. Returns the
/// point's workload and the design's own parameters.
pub fn point_workload(
    workload: &WorkloadSpec,
    params: &BTreeMap<String, f64>,
) -> anyhow::Result<(WorkloadSpec, BTreeMap<String, f64>)> {
    let get = |c: columns::Col| params.get(c.name()).copied();
    let (zipf, universe) = (get(col::ZIPF), get(col::UNIVERSE));
    let (concurrent, mean_run) = (get(col::CONCURRENT), get(col::MEAN_RUN));
    let batch = concurrent.is_some() || mean_run.is_some();
    let zipf_given = zipf.is_some() || universe.is_some();
    if !batch && !zipf_given {
        return Ok((workload.clone(), params.clone()));
    }
    if batch && zipf_given {
        return Err(anyhow::anyhow!(
            "a point takes zipf/universe or concurrent/mean_run, not both"
        ));
    }
    let point = if batch {
        batch_workload(workload, concurrent, mean_run)?
    } else {
        zipf_workload(workload, zipf, universe)?
    };
    point.check()?;
    let workload_params = [col::ZIPF, col::UNIVERSE, col::CONCURRENT, col::MEAN_RUN];
    let rest = params
        .iter()
        .filter(|(k, _)| !workload_params.iter().any(|c| c.name() == k.as_str()))
        .map(|(k, v)| (k.clone(), *v))
        .collect();
    Ok((point, rest))
}

/// A point's item batches: `concurrent` and `mean_run` from the point, or
/// from the spec's batch workload where the point leaves one out.
fn batch_workload(
    workload: &WorkloadSpec,
    concurrent: Option<f64>,
    mean_run: Option<f64>,
) -> anyhow::Result<WorkloadSpec> {
    let (base_c, base_m) = match workload {
        WorkloadSpec::Batch {
            concurrent,
            mean_run,
        } => (Some(*concurrent), Some(*mean_run)),
        WorkloadSpec::Distinct => (None, None),
        WorkloadSpec::Zipf { .. } | WorkloadSpec::Trace(_) => {
            return Err(anyhow::anyhow!(
                "concurrent and mean_run parameters need a distinct or batch workload, not a zipf law or a trace"
            ))
        }
    };
    let concurrent = whole_param(
        "concurrent",
        concurrent,
        base_c,
        (1u64 << 24) as f64,
        "mean_run needs concurrent (parameter or batch workload)",
    )?;
    let mean_run = mean_run.or(base_m).ok_or_else(|| {
        anyhow::anyhow!("concurrent needs mean_run (parameter or batch workload)")
    })?;
    Ok(WorkloadSpec::Batch {
        concurrent,
        mean_run,
    })
}

/// A whole-number workload parameter from the point (1 ..= `max`), else
/// the spec's workload's, else the error `missing`.
fn whole_param(
    name: &str,
    given: Option<f64>,
    base: Option<u64>,
    max: f64,
    missing: &str,
) -> anyhow::Result<u64> {
    match (given, base) {
        (Some(v), _) if v >= 1.0 && v.fract() == 0.0 && v <= max => Ok(v as u64),
        (Some(v), _) => Err(anyhow::anyhow!(
            "parameter {name} = {v} must be a whole number between 1 and {max}"
        )),
        (None, Some(b)) => Ok(b),
        (None, None) => Err(anyhow::anyhow!("{missing}")),
    }
}

/// A point's Zipf law: `zipf` and `universe` from the point, or from the
/// spec's Zipf workload where the point leaves one out.
fn zipf_workload(
    workload: &WorkloadSpec,
    zipf: Option<f64>,
    universe: Option<f64>,
) -> anyhow::Result<WorkloadSpec> {
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
        (Some(z), _) => z,
        (None, WorkloadSpec::Zipf { exponent, .. }) => *exponent,
        _ => return Err(anyhow::anyhow!("universe given without zipf")),
    };
    let universe = whole_param(
        "universe",
        universe,
        base_universe,
        2f64.powi(53) - 1.0,
        "zipf needs a universe (parameter or zipf workload)",
    )?;
    // the exponent is checked with the rest by WorkloadSpec::check
    Ok(WorkloadSpec::Zipf { universe, exponent })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn batch_parameters_make_a_batch_workload_and_leave_the_design() {
        let (w, rest) = point_workload(
            &WorkloadSpec::Distinct,
            &params(&[("concurrent", 64.0), ("mean_run", 4.0), ("k", 3.0)]),
        )
        .unwrap();
        assert_eq!(
            w,
            WorkloadSpec::Batch {
                concurrent: 64,
                mean_run: 4.0
            }
        );
        assert_eq!(rest, params(&[("k", 3.0)]));
        // one of the two from the spec's batch workload
        let base = WorkloadSpec::Batch {
            concurrent: 8,
            mean_run: 2.0,
        };
        let (w, _) = point_workload(&base, &params(&[("mean_run", 16.0)])).unwrap();
        assert_eq!(
            w,
            WorkloadSpec::Batch {
                concurrent: 8,
                mean_run: 16.0
            }
        );
    }

    #[test]
    fn bad_workload_parameters_are_one_line_errors() {
        let zipf = WorkloadSpec::Zipf {
            universe: 10,
            exponent: 1.0,
        };
        let cases = [
            (
                WorkloadSpec::Distinct,
                params(&[("concurrent", 0.0), ("mean_run", 2.0)]),
                "concurrent",
            ),
            (
                WorkloadSpec::Distinct,
                params(&[("concurrent", 2.5), ("mean_run", 2.0)]),
                "concurrent",
            ),
            (
                WorkloadSpec::Distinct,
                params(&[("concurrent", 4.0), ("mean_run", 0.5)]),
                "mean_run",
            ),
            (
                WorkloadSpec::Distinct,
                params(&[("concurrent", 4.0), ("mean_run", f64::NAN)]),
                "mean_run",
            ),
            (
                WorkloadSpec::Distinct,
                params(&[("mean_run", 4.0)]),
                "needs concurrent",
            ),
            (
                WorkloadSpec::Distinct,
                params(&[("concurrent", 4.0), ("zipf", 1.0)]),
                "not both",
            ),
            (
                zipf,
                params(&[("concurrent", 4.0), ("mean_run", 2.0)]),
                "zipf law",
            ),
            (
                WorkloadSpec::Distinct,
                params(&[("universe", 10.0)]),
                "without zipf",
            ),
        ];
        for (w, p, needle) in cases {
            let e = point_workload(&w, &p).unwrap_err().to_string();
            assert!(
                !e.contains('\n') && e.contains(needle),
                "{e:?} should name {needle}"
            );
        }
    }
}
