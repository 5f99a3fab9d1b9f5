//! `bloomlab slurm SPEC --shards N` and `bloomlab reproduce --slurm`: a
//! Slurm job array whose task I runs `bloomlab run SPEC --shard I/N`, and a
//! merge job that runs `bloomlab merge` once every task has succeeded
//! (`--dependency=afterok`). bloomlab only writes the scripts and, with
//! `--submit`, hands them to `sbatch`; Slurm does the scheduling.

mod plan;
mod script;

use super::args::{output_dirs, ReproduceArgs, SlurmArgs, SlurmOpts};
use crate::engine::{default_parts_dir, experiment_files};
use crate::report;
use crate::spec::Spec;
use crate::sweep::{self, Budget};
pub(super) use plan::plan_jobs;
use script::{
    absolute, finish, header, no_control, sbatch_safe, sh, task_mem_mib, Jobs, MERGE_MEM_MIB,
    TASK_BASE_MIB,
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

/// Refuses a user string that would break the scripts: a path sbatch
/// cannot take, a control character (a newline in a spec path ended a
/// comment line and ran the rest as a command).
fn check_strings(
    spec_path: &Path,
    exe: &Path,
    out: &Path,
    cwd: &Path,
    o: &SlurmOpts,
    f: &Flags,
) -> anyhow::Result<()> {
    for (what, v) in [
        ("the output directory", out.display().to_string()),
        ("the working directory", cwd.display().to_string()),
    ] {
        sbatch_safe(what, &v)?;
    }
    // every user string that reaches a script: a newline in a spec path
    // ended a comment line and ran the rest as a command
    let mut words = vec![
        ("the spec path", spec_path.display().to_string()),
        ("the bloomlab binary's path", exe.display().to_string()),
    ];
    for (what, d) in [
        ("--results-dir", f.results_dir),
        ("--plots-dir", f.plots_dir),
    ] {
        if let Some(d) = d {
            words.push((what, d.display().to_string()));
        }
    }
    for (what, v) in &words {
        no_control(what, v)?;
    }
    if let Some(p) = &o.partition {
        sbatch_safe("--partition", p)?;
    }
    if let Some(t) = &o.time {
        sbatch_safe("--time", t)?;
    }
    Ok(())
}

/// Writes the array and merge scripts of one spec; returns where they are.
fn write_jobs(spec_path: &Path, o: &SlurmOpts, f: &Flags) -> anyhow::Result<Jobs> {
    let shards = o
        .shards
        .ok_or_else(|| anyhow::anyhow!("--shards N is needed: how many array tasks"))?;
    let spec = Spec::load(spec_path)?;
    let prepared = sweep::prepare(&spec, f.quick, &Budget::unchecked())?;
    let mem_mib = task_mem_mib(&spec.name, &prepared, o.cpus_per_task as usize, o.mem_cap)?;
    let suffix = if f.quick { "_quick" } else { "" };
    let (results_dir, _) = output_dirs(f.quick, f.update_baselines, f.results_dir, f.plots_dir);
    let out = o
        .out
        .clone()
        .unwrap_or_else(|| default_parts_dir(&results_dir, &spec, f.quick));
    std::fs::create_dir_all(&out)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", out.display()))?;
    let out = absolute(&out)?;
    let cwd = std::env::current_dir().map_err(|e| anyhow::anyhow!("no working directory: {e}"))?;
    let exe = std::env::current_exe()
        .map_err(|e| anyhow::anyhow!("cannot find the bloomlab binary: {e}"))?;
    check_strings(spec_path, &exe, &out, &cwd, o, f)?;
    let header = |job: &str, log: &str| header(job, log, &cwd, &out, o);
    let job = format!("bloomlab-{}{suffix}", spec.name);
    let mut pass_on = String::new();
    if f.quick {
        pass_on += " --quick";
    }
    if f.update_baselines {
        pass_on += " --update-baselines";
    }
    let mut array = header(&job, "slurm-%A_%a.out");
    array += &format!(
        "#SBATCH --array=0-{}\n#SBATCH --cpus-per-task={}\n#SBATCH --mem={mem_mib}M\n# Written by `bloomlab slurm`: task I runs shard I of {} of {}\n# and writes its part file to {}. --mem is the plan's largest need of a task\n# ({} point(s) at once, with a quarter of headroom, and {TASK_BASE_MIB} MiB for the process).\nset -eu\nexec {} run {} --shard \"${{SLURM_ARRAY_TASK_ID}}/${{SLURM_ARRAY_TASK_COUNT:-{shards}}}\" --out {} --threads \"${{SLURM_CPUS_PER_TASK:-{}}}\"{pass_on}\n",
        shards - 1,
        o.cpus_per_task,
        shards,
        spec_path.display(),
        out.display(),
        o.cpus_per_task,
        sh(&exe.display().to_string()),
        sh(&spec_path.display().to_string()),
        sh(&out.display().to_string()),
        o.cpus_per_task
    );
    let mut merge_flags = pass_on.clone();
    for (flag, dir) in [
        ("--results-dir", f.results_dir),
        ("--plots-dir", f.plots_dir),
    ] {
        if let Some(d) = dir {
            merge_flags += &format!(" {flag} {}", sh(&d.display().to_string()));
        }
    }
    let mut merge = header(&format!("{job}-merge"), "slurm-merge-%j.out");
    merge += &format!(
        "#SBATCH --cpus-per-task=1\n#SBATCH --mem={MERGE_MEM_MIB}M\n# Written by `bloomlab slurm`: merges the parts in {} into the results of {}.\nset -eu\nexec {} merge {} {}{merge_flags}\n",
        out.display(),
        spec_path.display(),
        sh(&exe.display().to_string()),
        sh(&spec_path.display().to_string()),
        sh(&out.display().to_string()),
    );
    let array_path = out.join(format!("{}{suffix}.array.sbatch", spec.name));
    let merge_path = out.join(format!("{}{suffix}.merge.sbatch", spec.name));
    let mut staged = report::Staged::new();
    staged.write(&array_path, array.as_bytes())?;
    staged.write(&merge_path, merge.as_bytes())?;
    staged.commit()?;
    Ok(Jobs {
        name: format!("{}{suffix}", spec.name),
        shards,
        array: array_path,
        merge: merge_path,
        out,
    })
}

#[cfg(test)]
mod tests;
