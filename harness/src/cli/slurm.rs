//! `bloomlab slurm SPEC --shards N` and `bloomlab reproduce --slurm`: a
//! Slurm job array whose task I runs `bloomlab run SPEC --shard I/N`, and a
//! merge job that runs `bloomlab merge` once every task has succeeded
//! (`--dependency=afterok`). bloomlab only writes the scripts and, with
//! `--submit`, hands them to `sbatch`; Slurm does the scheduling.

use super::args::{output_dirs, ReproduceArgs, SlurmArgs, SlurmOpts};
use crate::engine::{default_parts_dir, experiment_files};
use crate::passes::describe_point;
use crate::report;
use crate::resources::gib;
use crate::spec::Spec;
use crate::sweep::{self, Budget, Prepared};
use std::path::{Path, PathBuf};

/// The `run`/`merge` flags the jobs pass on.
struct Flags<'a> {
    quick: bool,
    update_baselines: bool,
    results_dir: &'a Option<PathBuf>,
    plots_dir: &'a Option<PathBuf>,
}

/// The scripts written for one spec.
struct Jobs {
    name: String,
    shards: u16,
    array: PathBuf,
    merge: PathBuf,
    out: PathBuf,
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

/// Prints where the scripts are, or submits them and prints the job ids
/// (one line on stdout: `<name> array=<id> merge=<id>`).
fn finish(jobs: &Jobs, submit: bool) -> anyhow::Result<()> {
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
fn sbatch_safe(what: &str, v: &str) -> anyhow::Result<()> {
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
fn no_control(what: &str, v: &str) -> anyhow::Result<()> {
    if v.chars().any(char::is_control) {
        return Err(anyhow::anyhow!(
            "{what} {v:?} has a control character (a newline?): it cannot go into a job script"
        ));
    }
    Ok(())
}

/// A word quoted for bash.
fn sh(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

fn absolute(p: &Path) -> anyhow::Result<PathBuf> {
    std::fs::canonicalize(p).map_err(|e| anyhow::anyhow!("cannot resolve {}: {e}", p.display()))
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
fn task_mem_mib(
    spec: &Spec,
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
            spec.name,
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
        spec.name,
        over.len(),
        named.join("; "),
        if over.len() > 5 { "; ..." } else { "" }
    ))
}

/// Writes the array and merge scripts of one spec; returns where they are.
fn write_jobs(spec_path: &Path, o: &SlurmOpts, f: &Flags) -> anyhow::Result<Jobs> {
    let shards = o
        .shards
        .ok_or_else(|| anyhow::anyhow!("--shards N is needed: how many array tasks"))?;
    let spec = Spec::load(spec_path)?;
    let prepared = sweep::prepare(&spec, f.quick, &Budget::unchecked())?;
    let mem_mib = task_mem_mib(&spec, &prepared, o.cpus_per_task as usize, o.mem_cap)?;
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
mod tests {
    use super::*;

    /// Two shards, one CPU each, written to `out`, not submitted.
    fn two_shards_into(out: &Path) -> SlurmOpts {
        SlurmOpts {
            shards: Some(2),
            partition: None,
            time: None,
            cpus_per_task: 1,
            submit: false,
            out: Some(out.to_path_buf()),
            mem_cap: None,
        }
    }

    #[test]
    fn words_are_quoted_for_bash() {
        assert_eq!(sh("a b"), "'a b'");
        assert_eq!(sh("it's"), r"'it'\''s'");
    }

    #[test]
    fn unsafe_sbatch_values_are_refused() {
        assert!(sbatch_safe("x", "debug").is_ok());
        assert!(sbatch_safe("x", "1-00:00:00").is_ok());
        for bad in ["", "a b", "a%j", "x\ny", "a#b", "q'"] {
            assert!(sbatch_safe("x", bad).is_err(), "{bad:?}");
        }
    }

    /// A spec named `x<newline>touch zz<newline>#.toml` made the array
    /// script run `touch`: it is refused before any script is written.
    #[test]
    fn a_spec_path_with_a_newline_writes_no_script() {
        let d = tempfile::tempdir().unwrap();
        let spec = d.path().join("x\ntouch zz\n#.toml");
        std::fs::write(
            &spec,
            "name = \"x\"\nmetrics = [\"fpr\"]\n[[sweep]]\ndesign = \"apbf\"\npoints = [{ k = 4, l = 3, g = 20 }]\n",
        )
        .unwrap();
        let out = d.path().join("out");
        let o = two_shards_into(&out);
        let f = Flags {
            quick: false,
            update_baselines: false,
            results_dir: &None,
            plots_dir: &None,
        };
        let e = write_jobs(&spec, &o, &f).err().unwrap().to_string();
        assert!(e.contains("control character"), "{e}");
        let scripts = std::fs::read_dir(&out).map(|r| r.count()).unwrap_or(0);
        assert_eq!(scripts, 0);
        // a directory flag with a carriage return, the same
        let cr = Some(PathBuf::from("res\rults"));
        let f = Flags {
            results_dir: &cr,
            ..f
        };
        let ok_spec = d.path().join("ok.toml");
        std::fs::copy(&spec, &ok_spec).unwrap();
        let e = write_jobs(&ok_spec, &o, &f).err().unwrap().to_string();
        assert!(e.contains("--results-dir"), "{e}");
    }

    /// The array requests its largest point's need (with the headroom and
    /// the process's share) and the merge its own; a cap below a point's
    /// need refuses the spec before any script is written, naming the point.
    #[test]
    fn tasks_request_the_plans_memory_and_a_cap_refuses_before_writing() {
        let d = tempfile::tempdir().unwrap();
        let spec = d.path().join("big.toml");
        // an APBF of 4 + 3 slices of about 2^27 bits each: about 112 MiB
        std::fs::write(
            &spec,
            "name = \"big\"\nmetrics = [\"fpr\"]\n[[sweep]]\ndesign = \"apbf\"\npoints = [{ k = 4, l = 3, g = 20 }, { k = 4, l = 3, g = 23000000 }]\n",
        )
        .unwrap();
        let out = d.path().join("out");
        let mut o = two_shards_into(&out);
        let f = Flags {
            quick: true,
            update_baselines: false,
            results_dir: &None,
            plots_dir: &None,
        };
        let jobs = write_jobs(&spec, &o, &f).unwrap();
        let array = std::fs::read_to_string(&jobs.array).unwrap();
        let mem: u64 = array
            .lines()
            .find_map(|l| l.strip_prefix("#SBATCH --mem="))
            .and_then(|v| v.strip_suffix('M'))
            .unwrap()
            .parse()
            .unwrap();
        let prepared =
            sweep::prepare(&Spec::load(&spec).unwrap(), true, &Budget::unchecked()).unwrap();
        assert_eq!(
            mem,
            (prepared.peak_need(1) + (TASK_BASE_MIB << 20)).div_ceil(1 << 20)
        );
        assert!(
            mem > TASK_BASE_MIB + 100,
            "{mem} MiB for a point of about 112 MiB"
        );
        let merge = std::fs::read_to_string(&jobs.merge).unwrap();
        assert!(merge.contains(&format!("#SBATCH --mem={MERGE_MEM_MIB}M")));
        std::fs::remove_dir_all(&out).unwrap();
        o.mem_cap = Some((mem - 1) as f64 / 1024.0);
        let e = write_jobs(&spec, &o, &f).err().unwrap().to_string();
        assert!(e.contains("1 point(s)") && e.contains("g=23000000"), "{e}");
        let scripts = std::fs::read_dir(&out).map(|r| r.count()).unwrap_or(0);
        assert_eq!(scripts, 0, "a refused spec writes no script");
        o.mem_cap = Some(f64::NAN);
        assert!(write_jobs(&spec, &o, &f).is_err());
    }
}
