//! `bloomlab plan ... --measure --rounds N --slurm --shards K`: a Slurm job
//! array whose task I runs the same `plan` command with `--shard I/K
//! --parts DIR` (its candidates, measured and written as a part file), and
//! a merge job, after every task has succeeded, that runs it with `--merge
//! --parts DIR` and writes the outputs one process would.

use super::script::{
    finish, no_control, sh, shards, task_flags, task_mem_mib, Place, TASK_BASE_MIB,
};
use crate::cli::args::SlurmOpts;
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

/// `words` (the flags of a `plan` command line, as `given_words` writes
/// them: each switch alone, each value after its flag) without the job
/// settings and `--threads` (see [`NOT_REPEATED`]).
fn repeated_words(words: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = words.iter();
    while let Some(w) = it.next() {
        match NOT_REPEATED.iter().find(|(f, _)| f == w) {
            Some((_, valued)) => {
                if *valued {
                    it.next();
                }
            }
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
    let shards = shards(o)?;
    let cpus = o.cpus_per_task;
    let mem_mib = task_mem_mib(name, combined, cpus as usize, o.mem_cap)?;
    let words = repeated_words(words);
    for w in &words {
        no_control("a plan flag", w)?;
    }
    let out = o
        .out
        .clone()
        .unwrap_or_else(|| results_dir.join("shards").join(name));
    let place = Place::new(&out, o)?;
    let command = format!(
        "{} plan {}",
        place.exe(),
        words.iter().map(|w| sh(w)).collect::<Vec<_>>().join(" ")
    );
    let (shard, threads) = task_flags(shards, cpus);
    let jobs = place.write(
        o,
        (name, shards, mem_mib),
        (
            &format!(
                "# Written by `bloomlab plan --measure --slurm`: task I measures shard I of {shards}\n# of the candidates and writes its part file to {}. --mem is the plan's largest\n# need of a task ({cpus} candidate(s) at once, with a quarter of headroom, and\n# {TASK_BASE_MIB} MiB for the process).\n",
                place.out.display()
            ),
            &format!("{command} {shard} --parts {} {threads}", place.out()),
        ),
        (
            &format!(
                "# Written by `bloomlab plan --measure --slurm`: merges the parts in {}\n# into the measured plan's outputs.\n",
                place.out.display()
            ),
            &format!("{command} --merge --parts {}", place.out()),
        ),
    )?;
    eprintln!("{}", describe_deal(combined, shards as usize, mem_mib));
    finish(&jobs, o.submit)
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
