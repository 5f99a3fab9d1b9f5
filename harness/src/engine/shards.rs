//! One shard of a spec's points into a part file (`bloomlab run SPEC
//! --shard I/N`), and the parts back into the outputs `bloomlab run SPEC`
//! writes (`bloomlab merge`).

use super::{default_parts_dir, load, run_command, write_outputs, Experiment};
use crate::report;
use crate::sweep::{self, part, RunOptions, Shard};
use std::path::{Path, PathBuf};

/// One shard's run.
#[derive(Debug, Clone)]
pub struct ShardJob<'a> {
    /// The spec file.
    pub spec: &'a Path,
    /// Which shard.
    pub shard: Shard,
    /// Quick precision.
    pub quick: bool,
    /// The results directory (the default parts directory is under it).
    pub results_dir: &'a Path,
    /// Where the part file goes (default: [`default_parts_dir`]).
    pub out: Option<PathBuf>,
    /// Worker threads (default: the spec's, else one per core).
    pub threads: Option<usize>,
    /// `--memory-limit`, GiB.
    pub memory_limit: Option<f64>,
    /// Print the shard's points and estimated work, run nothing.
    pub dry_run: bool,
    /// With `dry_run`: the part files of an earlier run of all the spec's
    /// points, whose measured seconds judge the deal's balance.
    pub measured: Option<PathBuf>,
    /// With `measured`: where the fitted cost factors go.
    pub fit: Option<PathBuf>,
    /// Ignore the shard's checkpoint.
    pub fresh: bool,
}

/// Runs one shard of a spec's points into its part file.
pub fn run_shard(a: &ShardJob) -> anyhow::Result<()> {
    let shard = a.shard;
    let (spec, text) = load(a.spec)?;
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| default_parts_dir(a.results_dir, &spec, a.quick));
    let budget = super::budget(&spec, a.threads, a.memory_limit)?;
    let threads = budget.threads;
    let prepared = sweep::prepare(&spec, a.quick, &budget)?;
    let id = part::SpecId::new(&spec.name, &text, a.quick);
    if a.dry_run {
        let costs = prepared.costs();
        print!(
            "{}: {}",
            spec.name,
            sweep::shard::describe(&costs, shard.count, Some(shard.index))
        );
        if let Some(dir) = &a.measured {
            let expected: Vec<usize> = costs.iter().map(|c| c.0).collect();
            let measured = part::merge(dir, &id, &expected)?.seconds;
            // the shard count asked for, and the counts docs/cluster.md reports
            let mut counts = vec![shard.count, 4, 16, 64];
            counts.sort_unstable();
            counts.dedup();
            for n in counts {
                let b = sweep::shard::balance(&costs, &measured, n)
                    .ok_or_else(|| anyhow::anyhow!("{} lacks a point's seconds", dir.display()))?;
                print!("{}", sweep::shard::describe_balance(&b));
            }
            if let Some(file) = &a.fit {
                let fits = fit_costs(&prepared.plans, &measured);
                report::write_atomic(file, crate::passes::fitted::write(&fits).as_bytes())?;
                eprintln!(
                    "{}: wrote the cost factors of {} design(s) to {}",
                    spec.name,
                    fits.len(),
                    file.display()
                );
            }
        }
        return Ok(());
    }
    let lock_name = format!(
        "{}{}.part-{}-of-{}",
        spec.name,
        if a.quick { "_quick" } else { "" },
        shard.index,
        shard.count
    );
    let _lock = report::Lock::take(&out, &lock_name)?;
    if a.fresh {
        sweep::clear_checkpoint(&out, &spec, a.quick, Some(shard));
    }
    let points = sweep::shard::assign(&prepared.costs(), shard.count)[shard.index].clone();
    eprintln!(
        "{}: shard {shard}: {} of {} point(s), {threads} thread(s){}",
        spec.name,
        points.len(),
        prepared.plans.len(),
        if a.quick { ", quick precision" } else { "" }
    );
    let started = std::time::Instant::now();
    let opts = RunOptions {
        threads: Some(threads),
        quick: a.quick,
        checkpoint_dir: Some(out.clone()),
        progress: sweep::Progress::for_stderr(),
        shard: Some(shard),
    };
    let done = sweep::run_points(&spec, &text, &prepared, &opts)?;
    let path = id.part_path(&out, shard);
    report::write_atomic(&path, &part::encode(&id, shard, &points, &done)?)?;
    sweep::clear_checkpoint(&out, &spec, a.quick, Some(shard));
    eprintln!(
        "{}: shard {shard} done in {:.1} s; wrote {}",
        spec.name,
        started.elapsed().as_secs_f64(),
        path.display()
    );
    Ok(())
}

/// Each design's measured seconds over its estimate (from `OP_NS`, before
/// any fitted factor), summed over its points.
fn fit_costs(
    plans: &[crate::passes::PointPlan],
    measured: &std::collections::BTreeMap<usize, f64>,
) -> Vec<crate::passes::fitted::Fit> {
    let mut by: std::collections::BTreeMap<&str, crate::passes::fitted::Fit> = Default::default();
    for p in plans {
        let f = by
            .entry(p.point.design.as_str())
            .or_insert_with(|| crate::passes::fitted::Fit {
                design: p.point.design.clone(),
                points: 0,
                estimated_s: 0.0,
                measured_s: 0.0,
            });
        f.points += 1;
        f.estimated_s += p.base_cost * 1e-9;
        f.measured_s += measured.get(&p.point.index).copied().unwrap_or(0.0);
    }
    by.into_values().collect()
}

/// Merges the part files in `dir` (default: [`default_parts_dir`]) into
/// the outputs of `x`.
pub fn merge(x: &Experiment, dir: Option<PathBuf>) -> anyhow::Result<()> {
    let (spec, text) = load(x.spec)?;
    let dir = dir.unwrap_or_else(|| default_parts_dir(x.results_dir, &spec, x.quick));
    let id = part::SpecId::new(&spec.name, &text, x.quick);
    let expected: Vec<usize> = spec.points(x.quick)?.iter().map(|p| p.index).collect();
    let merged = part::merge(&dir, &id, &expected)?;
    let out = sweep::outcome(merged.rows)
        .map_err(|e| anyhow::anyhow!("merge of {}: {e}", dir.display()))?;
    crate::report::check_columns(&spec, &out.rows)
        .map_err(|e| anyhow::anyhow!("spec {}: {e}", x.spec.display()))?;
    let _lock = x.lock(&spec)?;
    // the parts name no machine: only the merge's is known here
    let provenance = format!(
        "Merged on {}, {} UTC, from shard parts that ran on the cluster's nodes.",
        crate::resources::machine(),
        crate::resources::utc_now()
    );
    let written = write_outputs(&spec, &out, x, &run_command(x.spec, x.quick), &provenance)?;
    let secs: Vec<f64> = merged.shards.iter().map(|s| s.1).collect();
    let (lo, hi) = secs
        .iter()
        .fold((f64::INFINITY, 0f64), |(l, h), &s| (l.min(s), h.max(s)));
    eprintln!(
        "{}: merged {} part(s) of {} point(s) (measurement time per shard {:.1}..{:.1} s); wrote {}",
        spec.name,
        merged.shards.len(),
        expected.len(),
        lo,
        hi,
        written
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(())
}
