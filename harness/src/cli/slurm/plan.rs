//! `bloomlab plan ... --measure --rounds N --slurm --shards K`: a Slurm job
//! array whose task I runs the same `plan` command with `--shard I/K
//! --parts DIR` (its candidates, measured and written as a part file), and
//! a merge job, after every task has succeeded, that runs it with `--merge
//! --parts DIR` and writes the outputs one process would.

use super::script::{
    absolute, finish, header, no_control, sbatch_safe, sh, task_mem_mib, Jobs, MERGE_MEM_MIB,
    TASK_BASE_MIB,
};
use crate::cli::args::SlurmOpts;
use crate::report;
use crate::sweep::{shard, Prepared};
use std::path::Path;

/// The flags a task and the merge do not repeat: the job settings, which
/// are this command's, and `--threads`, which each task sets to its CPUs.
const NOT_REPEATED: [(&str, bool); 9] = [
    ("--slurm", false),
    ("--submit", false),
    ("--shards", true),
    ("--partition", true),
    ("--time", true),
    ("--cpus-per-task", true),
    ("--out", true),
    ("--mem-cap", true),
    ("--threads", true),
];

/// `words` (the flags of a `plan` command line) without the job settings
/// and `--threads` (see [`NOT_REPEATED`]), in either form (`--flag value`
/// or `--flag=value`).
pub(crate) fn repeated_words(words: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = words.iter();
    while let Some(w) = it.next() {
        let (flag, inline) = match w.split_once('=') {
            Some((f, _)) => (f, true),
            None => (w.as_str(), false),
        };
        match NOT_REPEATED.iter().find(|(f, _)| *f == flag) {
            Some((_, true)) if !inline => {
                it.next();
            }
            Some(_) => {}
            None => out.push(w.clone()),
        }
    }
    out
}

/// Writes (with `--submit`, submits) the array and merge scripts of a
/// measured plan named `name`, whose candidates at their fixed size are
/// the points of `combined`; `words` are the flags of the command line.
pub(crate) fn plan_jobs(
    name: &str,
    combined: &Prepared,
    o: &SlurmOpts,
    results_dir: &Path,
    words: &[String],
) -> anyhow::Result<()> {
    let shards = o
        .shards
        .ok_or_else(|| anyhow::anyhow!("--shards N is needed: how many array tasks"))?;
    let cpus = o.cpus_per_task;
    let mem_mib = task_mem_mib(name, combined, cpus as usize, o.mem_cap)?;
    let words = repeated_words(words);
    for w in &words {
        no_control("a plan flag", w)?;
    }
    if let Some(p) = &o.partition {
        sbatch_safe("--partition", p)?;
    }
    if let Some(t) = &o.time {
        sbatch_safe("--time", t)?;
    }
    let out = o
        .out
        .clone()
        .unwrap_or_else(|| results_dir.join("shards").join(name));
    let cwd = std::env::current_dir().map_err(|e| anyhow::anyhow!("no working directory: {e}"))?;
    let exe = std::env::current_exe()
        .map_err(|e| anyhow::anyhow!("cannot find the bloomlab binary: {e}"))?;
    no_control("the bloomlab binary's path", &exe.display().to_string())?;
    no_control("the output directory", &out.display().to_string())?;
    std::fs::create_dir_all(&out)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", out.display()))?;
    let out = absolute(&out)?;
    for (what, v) in [
        ("the output directory", out.display().to_string()),
        ("the working directory", cwd.display().to_string()),
    ] {
        sbatch_safe(what, &v)?;
    }
    let command = format!(
        "{} plan {}",
        sh(&exe.display().to_string()),
        words.iter().map(|w| sh(w)).collect::<Vec<_>>().join(" ")
    );
    let parts = sh(&out.display().to_string());
    let job = format!("bloomlab-{name}");
    let mut array = header(&job, "slurm-%A_%a.out", &cwd, &out, o);
    array += &format!(
        "#SBATCH --array=0-{}\n#SBATCH --cpus-per-task={cpus}\n#SBATCH --mem={mem_mib}M\n# Written by `bloomlab plan --measure --slurm`: task I measures shard I of {shards}\n# of the candidates and writes its part file to {}. --mem is the plan's largest\n# need of a task ({cpus} candidate(s) at once, with a quarter of headroom, and\n# {TASK_BASE_MIB} MiB for the process).\nset -eu\nexec {command} --shard \"${{SLURM_ARRAY_TASK_ID}}/${{SLURM_ARRAY_TASK_COUNT:-{shards}}}\" --parts {parts} --threads \"${{SLURM_CPUS_PER_TASK:-{cpus}}}\"\n",
        shards - 1,
        out.display(),
    );
    let mut merge = header(&format!("{job}-merge"), "slurm-merge-%j.out", &cwd, &out, o);
    merge += &format!(
        "#SBATCH --cpus-per-task=1\n#SBATCH --mem={MERGE_MEM_MIB}M\n# Written by `bloomlab plan --measure --slurm`: merges the parts in {}\n# into the measured plan's outputs.\nset -eu\nexec {command} --merge --parts {parts}\n",
        out.display(),
    );
    let array_path = out.join(format!("{name}.array.sbatch"));
    let merge_path = out.join(format!("{name}.merge.sbatch"));
    let mut staged = report::Staged::new();
    staged.write(&array_path, array.as_bytes())?;
    staged.write(&merge_path, merge.as_bytes())?;
    staged.commit()?;
    eprintln!("{}", describe_deal(combined, shards as usize, mem_mib));
    finish(
        &Jobs {
            name: name.to_string(),
            shards,
            array: array_path,
            merge: merge_path,
            out,
        },
        o.submit,
    )
}

/// What the deal gives each task by estimate: its candidates and seconds
/// (the largest task's, the mean), and the memory each requests.
fn describe_deal(combined: &Prepared, shards: usize, mem_mib: u64) -> String {
    let costs = combined.costs();
    let dealt = shard::assign(&costs, shards);
    let secs: Vec<f64> = dealt
        .iter()
        .map(|s| s.iter().map(|&i| costs[i].1 * 1e-9).sum())
        .collect();
    let total: f64 = secs.iter().sum();
    let longest = secs.iter().cloned().fold(0.0, f64::max);
    format!(
        "plan --measure --slurm: {} candidates in {shards} tasks, about {} of work by estimate, the longest task about {} (the mean {}); each task requests {mem_mib} MiB",
        costs.len(),
        crate::resources::duration(total),
        crate::resources::duration(longest),
        crate::resources::duration(total / shards.max(1) as f64)
    )
}
