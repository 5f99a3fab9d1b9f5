//! `bloomlab slurm SPEC --shards N` and `bloomlab reproduce --slurm`: a
//! Slurm job array whose task I runs `bloomlab run SPEC --shard I/N`, and a
//! merge job that runs `bloomlab merge` once every task has succeeded
//! (`--dependency=afterok`). bloomlab only writes the scripts and, with
//! `--submit`, hands them to `sbatch`; Slurm does the scheduling.

mod plan;
mod script;

use super::args::{output_dirs, ReproduceArgs, SlurmArgs, SlurmOpts};
use crate::engine::{default_parts_dir, experiment_files};
use crate::spec::Spec;
use crate::sweep::{self, Budget};
pub(super) use plan::plan_jobs;
use script::{
    finish, no_control, sh, shards, task_flags, task_mem_mib, Jobs, Place, TASK_BASE_MIB,
};
use std::path::{Path, PathBuf};

/// The `run`/`merge` flags the jobs pass on.
struct Flags<'a> {
    quick: bool,
    update_baselines: bool,
    results_dir: &'a Option<PathBuf>,
    plots_dir: &'a Option<PathBuf>,
}

/// `bloomlab slurm`.
pub(super) fn slurm(a: SlurmArgs) -> anyhow::Result<()> {
    let flags = Flags {
        quick: a.output.quick,
        update_baselines: a.output.update_baselines,
        results_dir: &a.output.results_dir,
        plots_dir: &a.output.plots_dir,
    };
    let jobs = write_jobs(&a.spec, &a.slurm, &flags)?;
    finish(&jobs, a.slurm.submit)
}

/// `bloomlab reproduce --slurm`: the jobs of every experiment.
pub(super) fn reproduce(r: &ReproduceArgs) -> anyhow::Result<()> {
    let a = &r.suite;
    if a.threads.is_some() {
        return Err(anyhow::anyhow!(
            "--threads does not apply with --slurm: each task runs --cpus-per-task threads"
        ));
    }
    let flags = Flags {
        quick: a.output.quick,
        update_baselines: a.output.update_baselines,
        results_dir: &a.output.results_dir,
        plots_dir: &a.output.plots_dir,
    };
    // every script is written before any is submitted, so a bad spec
    // submits nothing
    let all = experiment_files(&a.experiments)?
        .iter()
        .map(|p| write_jobs(p, &r.jobs, &flags))
        .collect::<anyhow::Result<Vec<_>>>()?;
    for jobs in &all {
        finish(jobs, r.jobs.submit)?;
    }
    if r.jobs.submit {
        eprintln!(
            "submitted {} experiment(s); results/REPORT.md is not rewritten by --slurm (run `bloomlab reproduce` for it)",
            all.len()
        );
    }
    Ok(())
}

/// Refuses Slurm settings given to `reproduce` without `--slurm`.
pub(super) fn refuse_without_slurm(o: &SlurmOpts) -> anyhow::Result<()> {
    if o.shards.is_some()
        || o.partition.is_some()
        || o.time.is_some()
        || o.submit
        || o.out.is_some()
        || o.mem_cap.is_some()
    {
        return Err(anyhow::anyhow!(
            "--shards, --partition, --time, --submit, --out and --mem-cap are Slurm settings: add --slurm"
        ));
    }
    Ok(())
}

/// Refuses a spec path or output directory that would break the scripts
/// (a newline in a spec path ended a comment line and ran the rest as a
/// command); [`Place::new`] checks the rest.
fn check_strings(spec_path: &Path, f: &Flags) -> anyhow::Result<()> {
    no_control("the spec path", &spec_path.display().to_string())?;
    for (what, d) in [
        ("--results-dir", f.results_dir),
        ("--plots-dir", f.plots_dir),
    ] {
        if let Some(d) = d {
            no_control(what, &d.display().to_string())?;
        }
    }
    Ok(())
}

/// Writes the array and merge scripts of one spec; returns where they are.
fn write_jobs(spec_path: &Path, o: &SlurmOpts, f: &Flags) -> anyhow::Result<Jobs> {
    let shards = shards(o)?;
    let spec = Spec::load(spec_path)?;
    let prepared = sweep::prepare(&spec, f.quick, &Budget::unchecked())?;
    let cpus = o.cpus_per_task;
    let mem_mib = task_mem_mib(&spec.name, &prepared, cpus as usize, o.mem_cap)?;
    let suffix = if f.quick { "_quick" } else { "" };
    let (results_dir, _) = output_dirs(f.quick, f.update_baselines, f.results_dir, f.plots_dir);
    let out = o
        .out
        .clone()
        .unwrap_or_else(|| default_parts_dir(&results_dir, &spec, f.quick));
    check_strings(spec_path, f)?;
    let place = Place::new(&out, o)?;
    let (exe, spec_word) = (place.exe(), sh(&spec_path.display().to_string()));
    let mut pass_on = String::new();
    if f.quick {
        pass_on += " --quick";
    }
    if f.update_baselines {
        pass_on += " --update-baselines";
    }
    let mut merge_flags = pass_on.clone();
    for (flag, dir) in [
        ("--results-dir", f.results_dir),
        ("--plots-dir", f.plots_dir),
    ] {
        if let Some(d) = dir {
            merge_flags += &format!(" {flag} {}", sh(&d.display().to_string()));
        }
    }
    let (shard, threads) = task_flags(shards, cpus);
    place.write(
        o,
        (&format!("{}{suffix}", spec.name), shards, mem_mib),
        (
            &format!(
                "# Written by `bloomlab slurm`: task I runs shard I of {shards} of {}\n# and writes its part file to {}. --mem is the plan's largest need of a task\n# ({cpus} point(s) at once, with a quarter of headroom, and {TASK_BASE_MIB} MiB for the process).\n",
                spec_path.display(),
                place.out.display(),
            ),
            &format!(
                "{exe} run {spec_word} {shard} --out {} {threads}{pass_on}",
                place.out()
            ),
        ),
        (
            &format!(
                "# Written by `bloomlab slurm`: merges the parts in {} into the results of {}.\n",
                place.out.display(),
                spec_path.display(),
            ),
            &format!("{exe} merge {spec_word} {}{merge_flags}", place.out()),
        ),
    )
}

#[cfg(test)]
mod tests;
