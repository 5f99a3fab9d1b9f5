//! What every job script bloomlab writes shares: its `#SBATCH` header,
//! the checks that keep user strings from breaking it, the memory a task
//! requests, and the submission with `sbatch`.

use super::super::args::SlurmOpts;
use crate::passes::describe_point;
use crate::resources::gib;
use crate::sweep::Prepared;
use std::path::{Path, PathBuf};

/// The scripts written for one spec or one measured plan.
pub(super) struct Jobs {
    pub name: String,
    pub shards: u16,
    pub array: PathBuf,
    pub merge: PathBuf,
    pub out: PathBuf,
}
/// Prints where the scripts are, or submits them and prints the job ids
/// (one line on stdout: `<name> array=<id> merge=<id>`).
pub(super) fn finish(jobs: &Jobs, submit: bool) -> anyhow::Result<()> {
    if !submit {
        eprintln!(
            "{}: wrote {} ({} array tasks) and {}; submit the array with sbatch, then the merge with --dependency=afterok:<array job id> (or rerun with --submit)",
            jobs.name,
            jobs.array.display(),
            jobs.shards,
            jobs.merge.display()
        );
        return Ok(());
    }
    let array = sbatch(&[], &jobs.array)?;
    let merge = sbatch(&[format!("--dependency=afterok:{array}")], &jobs.merge)?;
    println!("{} array={array} merge={merge}", jobs.name);
    eprintln!(
        "{}: submitted array job {array} ({} tasks) and merge job {merge} after it; watch with `squeue`; parts and logs in {}",
        jobs.name,
        jobs.shards,
        jobs.out.display()
    );
    Ok(())
}

/// Submits a script; returns the job id.
fn sbatch(extra: &[String], script: &Path) -> anyhow::Result<String> {
    let out = std::process::Command::new("sbatch")
        .arg("--parsable")
        .args(extra)
        .arg(script)
        .output()
        .map_err(|e| {
            anyhow::anyhow!(
                "cannot run sbatch ({e}): is this a Slurm submit host? The script is {}",
                script.display()
            )
        })?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(anyhow::anyhow!(
            "sbatch {} failed: {}",
            script.display(),
            err.lines().next().unwrap_or("(no message)").trim()
        ));
    }
    // --parsable prints "id" or "id;cluster"
    let id = stdout.trim().split(';').next().unwrap_or("").to_string();
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_digit()) {
        return Err(anyhow::anyhow!(
            "sbatch {} printed no job id ({:?})",
            script.display(),
            stdout.trim()
        ));
    }
    Ok(id)
}

/// A value safe on an `#SBATCH` line (Slurm does not unquote them).
pub(super) fn sbatch_safe(what: &str, v: &str) -> anyhow::Result<()> {
    if v.is_empty()
        || v.chars()
            .any(|c| c.is_whitespace() || c.is_control() || "\"'\\%#".contains(c))
    {
        return Err(anyhow::anyhow!(
            "{what} {v:?} cannot go on an #SBATCH line (empty, or has spaces, quotes, '%' or '#')"
        ));
    }
    Ok(())
}

/// Refuses a string with a control character (newline, carriage return,
/// escape, ...): quoted or not, it has no business in a job script.
pub(super) fn no_control(what: &str, v: &str) -> anyhow::Result<()> {
    if v.chars().any(char::is_control) {
        return Err(anyhow::anyhow!(
            "{what} {v:?} has a control character (a newline?): it cannot go into a job script"
        ));
    }
    Ok(())
}

/// A word quoted for bash.
pub(super) fn sh(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

fn absolute(p: &Path) -> anyhow::Result<PathBuf> {
    std::fs::canonicalize(p).map_err(|e| anyhow::anyhow!("cannot resolve {}: {e}", p.display()))
}
/// Where a job array and its merge job go, and what they start from: the
/// directory of the scripts, parts and logs (made, and absolute), the
/// directory the jobs run in, and the bloomlab binary, each checked for an
/// `#SBATCH` line or a script, with the job settings.
pub(super) struct Place {
    pub out: PathBuf,
    pub cwd: PathBuf,
    pub exe: PathBuf,
}

impl Place {
    /// The place of jobs writing to `out` under the settings `o`.
    pub(super) fn new(out: &Path, o: &SlurmOpts) -> anyhow::Result<Place> {
        let cwd =
            std::env::current_dir().map_err(|e| anyhow::anyhow!("no working directory: {e}"))?;
        let exe = std::env::current_exe()
            .map_err(|e| anyhow::anyhow!("cannot find the bloomlab binary: {e}"))?;
        no_control("the bloomlab binary's path", &exe.display().to_string())?;
        no_control("the output directory", &out.display().to_string())?;
        std::fs::create_dir_all(out)
            .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", out.display()))?;
        let out = absolute(out)?;
        for (what, v) in [
            ("the output directory", out.display().to_string()),
            ("the working directory", cwd.display().to_string()),
        ] {
            sbatch_safe(what, &v)?;
        }
        if let Some(p) = &o.partition {
            sbatch_safe("--partition", p)?;
        }
        if let Some(t) = &o.time {
            sbatch_safe("--time", t)?;
        }
        Ok(Place { out, cwd, exe })
    }

    /// The binary, quoted for bash.
    pub(super) fn exe(&self) -> String {
        sh(&self.exe.display().to_string())
    }

    /// The output directory, quoted for bash.
    pub(super) fn out(&self) -> String {
        sh(&self.out.display().to_string())
    }

    /// Writes `<name>.array.sbatch` (`shards` tasks of `o.cpus_per_task`
    /// CPUs and `mem_mib` MiB, each running `task` after `note`'s comment
    /// lines) and `<name>.merge.sbatch` (running `merge` after its own
    /// note) together; returns where they are.
    pub(super) fn write(
        &self,
        o: &SlurmOpts,
        (name, shards, mem_mib): (&str, u16, u64),
        (note, task): (&str, &str),
        (merge_note, merge): (&str, &str),
    ) -> anyhow::Result<Jobs> {
        let job = format!("bloomlab-{name}");
        let mut array = header(&job, "slurm-%A_%a.out", &self.cwd, &self.out, o);
        array += &format!(
            "#SBATCH --array=0-{}\n#SBATCH --cpus-per-task={}\n#SBATCH --mem={mem_mib}M\n{note}set -eu\nexec {task}\n",
            shards - 1,
            o.cpus_per_task,
        );
        let mut merge_script = header(
            &format!("{job}-merge"),
            "slurm-merge-%j.out",
            &self.cwd,
            &self.out,
            o,
        );
        merge_script += &format!(
            "#SBATCH --cpus-per-task=1\n#SBATCH --mem={MERGE_MEM_MIB}M\n{merge_note}set -eu\nexec {merge}\n"
        );
        let array_path = self.out.join(format!("{name}.array.sbatch"));
        let merge_path = self.out.join(format!("{name}.merge.sbatch"));
        let mut staged = crate::report::Staged::new();
        staged.write(&array_path, array.as_bytes())?;
        staged.write(&merge_path, merge_script.as_bytes())?;
        staged.commit()?;
        Ok(Jobs {
            name: name.to_string(),
            shards,
            array: array_path,
            merge: merge_path,
            out: self.out.clone(),
        })
    }
}

/// `--shards N`, which every job array needs.
pub(super) fn shards(o: &SlurmOpts) -> anyhow::Result<u16> {
    o.shards
        .ok_or_else(|| anyhow::anyhow!("--shards N is needed: how many array tasks"))
}

/// An array task's flags naming its shard and its threads, from Slurm's
/// variables (`shards` and `cpus` where a variable is unset).
pub(super) fn task_flags(shards: u16, cpus: u16) -> (String, String) {
    (
        format!("--shard \"${{SLURM_ARRAY_TASK_ID}}/${{SLURM_ARRAY_TASK_COUNT:-{shards}}}\""),
        format!("--threads \"${{SLURM_CPUS_PER_TASK:-{cpus}}}\""),
    )
}

/// The `#SBATCH` header of a job script.
fn header(job: &str, log: &str, cwd: &Path, out: &Path, o: &SlurmOpts) -> String {
    let mut h = format!(
        "#!/bin/bash\n#SBATCH --job-name={job}\n#SBATCH --chdir={}\n#SBATCH --output={}/{log}\n",
        cwd.display(),
        out.display()
    );
    if let Some(p) = &o.partition {
        h += &format!("#SBATCH --partition={p}\n");
    }
    if let Some(t) = &o.time {
        h += &format!("#SBATCH --time={t}\n");
    }
    h
}

/// What the merge job requests: it holds the parts' rows and draws the
/// charts, never a filter.
pub const MERGE_MEM_MIB: u64 = 1024;

/// What an array task requests beyond its points' estimate: the process's
/// own memory, which no point's estimate holds (code, thread stacks, the
/// allocator's retained pages, theory tables). Shard 0 of 4 of
/// `compare.toml --quick` peaks at 45 MB resident where its plan's largest
/// point is 10 MiB (`/usr/bin/time -v`, docs/cluster.md).
pub const TASK_BASE_MIB: u64 = 256;

/// The memory (MiB) each array task requests: what its run checks against
/// its allocation ([`Prepared::peak_need`]: its `cpus` largest points at
/// once, the traces, a quarter of headroom) and [`TASK_BASE_MIB`] for the
/// process, so that no task is refused or killed. One array has one request, so every task asks for the spec's
/// largest need. Refused above `cap` GiB, before any script is written, with
/// the points over it and their estimates.
pub(super) fn task_mem_mib(
    name: &str,
    prepared: &Prepared,
    cpus: usize,
    cap: Option<f64>,
) -> anyhow::Result<u64> {
    let need = prepared.peak_need(cpus) + (TASK_BASE_MIB << 20);
    let Some(cap_gib) = cap else {
        return Ok(need.div_ceil(1 << 20));
    };
    let cap = crate::resources::gib_flag("--mem-cap", cap_gib)?;
    if need <= cap {
        return Ok(need.div_ceil(1 << 20));
    }
    let over = prepared.points_over(cap.saturating_sub(TASK_BASE_MIB << 20));
    if over.is_empty() {
        return Err(anyhow::anyhow!(
            "{}: {cpus} points at once need about {} (with a quarter of headroom and {TASK_BASE_MIB} MiB for the process), above --mem-cap {cap_gib} GiB: use fewer --cpus-per-task",
            name,
            gib(need)
        ));
    }
    let named: Vec<String> = over
        .iter()
        .take(5)
        .map(|(p, need)| {
            format!(
                "{} needs {}",
                describe_point(&p.point),
                gib(*need + (TASK_BASE_MIB << 20))
            )
        })
        .collect();
    Err(anyhow::anyhow!(
        "{}: {} point(s) need more than --mem-cap {cap_gib} GiB (the estimate with a quarter of headroom, and {TASK_BASE_MIB} MiB for the process), so no task could run them; nothing written: {}{}",
        name,
        over.len(),
        named.join("; "),
        if over.len() > 5 { "; ..." } else { "" }
    ))
}
