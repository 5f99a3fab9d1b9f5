//! `bloomlab run SPEC --shard I/N` and `bloomlab merge SPEC [DIR]`: one
//! shard of a spec's points into a part file, and the parts back into the
//! outputs `bloomlab run SPEC` writes.

use super::args::{output_dirs, MergeArgs, RunArgs};
use crate::engine::{default_parts_dir, load, run_command, write_outputs, Experiment};
use crate::report;
use crate::sweep::{self, part, Budget, RunOptions, Shard};
use std::io::IsTerminal;

/// `bloomlab run SPEC --shard I/N`.
pub(super) fn run_shard(a: RunArgs, shard: Shard) -> anyhow::Result<()> {
    let (spec, text) = load(&a.spec)?;
    let (results_dir, _) = output_dirs(a.quick, a.update_baselines, &a.results_dir, &a.plots_dir);
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| default_parts_dir(&results_dir, &spec, a.quick));
    let threads = crate::resources::check_threads(
        a.threads
            .map(usize::from)
            .or(spec.threads)
            .unwrap_or_else(rayon::current_num_threads),
    )?;
    let budget = Budget {
        memory: crate::resources::memory_limit(a.memory_limit)?,
        threads,
    };
    let prepared = sweep::prepare(&spec, a.quick, &budget)?;
    if a.dry_run {
        print!(
            "{}: {}",
            spec.name,
            sweep::shard::describe(&prepared.costs(), shard.count, Some(shard.index))
        );
        return Ok(());
    }
    let id = part::SpecId::new(&spec.name, &text, a.quick);
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
        progress: std::io::stderr().is_terminal(),
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

/// `bloomlab merge SPEC [DIR]`.
pub(super) fn merge(a: MergeArgs) -> anyhow::Result<()> {
    let (spec, text) = load(&a.spec)?;
    let (results_dir, plots_dir) =
        output_dirs(a.quick, a.update_baselines, &a.results_dir, &a.plots_dir);
    let dir = a
        .dir
        .clone()
        .unwrap_or_else(|| default_parts_dir(&results_dir, &spec, a.quick));
    let id = part::SpecId::new(&spec.name, &text, a.quick);
    let expected: Vec<usize> = spec.points(a.quick)?.iter().map(|p| p.index).collect();
    let merged = part::merge(&dir, &id, &expected)?;
    let out = sweep::outcome(merged.rows)
        .map_err(|e| anyhow::anyhow!("merge of {}: {e}", dir.display()))?;
    spec.check_columns(&out.rows)
        .map_err(|e| anyhow::anyhow!("spec {}: {e}", a.spec.display()))?;
    let suffix = if a.quick { "_quick" } else { "" };
    let _lock =
        report::OutputLock::take(&results_dir, &plots_dir, &format!("{}{suffix}", spec.name))?;
    let x = Experiment {
        spec: &a.spec,
        quick: a.quick,
        results_dir: &results_dir,
        plots_dir: &plots_dir,
        threads: None,
        fresh: false,
        memory_limit: None,
        trace: None,
    };
    let written = write_outputs(&spec, &out, &x, &run_command(&a.spec, a.quick))?;
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
