//! The experiment commands: `run`, `reproduce` and `check`.

use super::args::{CheckArgs, RunArgs, SuiteArgs};
use crate::report;
use crate::spec::Spec;
use crate::sweep::{self, RunOptions};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// `bloomlab run`.
pub(super) fn run(a: RunArgs) -> anyhow::Result<()> {
    run_experiment(&Experiment {
        spec: &a.spec,
        quick: a.quick,
        results_dir: &a.results_dir,
        plots_dir: &a.plots_dir,
        threads: a.threads.map(usize::from),
        fresh: a.fresh,
    })
    .map(|_| ())
}

/// One experiment run and where its outputs go.
pub struct Experiment<'a> {
    /// The spec file.
    pub spec: &'a Path,
    /// Quick precision, `_quick` suffix.
    pub quick: bool,
    /// CSV and markdown directory.
    pub results_dir: &'a Path,
    /// Chart directory.
    pub plots_dir: &'a Path,
    /// Worker threads.
    pub threads: Option<usize>,
    /// Discard a checkpoint first.
    pub fresh: bool,
}

/// Runs a spec and writes its outputs; returns the spec and the files written.
pub fn run_experiment(x: &Experiment) -> anyhow::Result<(Spec, Vec<PathBuf>)> {
    let text = std::fs::read_to_string(x.spec)
        .map_err(|e| anyhow::anyhow!("cannot read spec {}: {e}", x.spec.display()))?;
    let spec = Spec::parse(&text).map_err(|e| anyhow::anyhow!("spec {}: {e}", x.spec.display()))?;
    if x.fresh {
        sweep::clear_checkpoint(x.results_dir, &spec, x.quick);
    }
    let suffix = if x.quick { "_quick" } else { "" };
    let opts = RunOptions {
        threads: x.threads.or(spec.threads),
        quick: x.quick,
        checkpoint_dir: Some(x.results_dir.to_path_buf()),
        progress: std::io::stderr().is_terminal(),
    };
    let started = std::time::Instant::now();
    let prepared = sweep::prepare(&spec, x.quick)?;
    eprintln!(
        "{}: {} point(s), {} thread(s){}",
        spec.name,
        prepared.points.len(),
        opts.threads.unwrap_or_else(rayon::current_num_threads),
        if x.quick { ", quick precision" } else { "" }
    );
    let out = sweep::run(&spec, &text, &prepared, &opts)?;
    let level = spec.measure.ci_level;
    let command = format!(
        "cargo run --release -- run {}{}",
        x.spec.display(),
        if x.quick { " --quick" } else { "" }
    );
    let base = x.results_dir.join(format!("{}{suffix}", spec.name));
    let mut written = Vec::new();
    let csv = base.with_extension("csv");
    report::write_atomic(&csv, report::csv_string(&out.rows)?.as_bytes())?;
    written.push(csv);
    let md = base.with_extension("md");
    report::write_atomic(
        &md,
        report::markdown(&spec, &out.rows, &command, level).as_bytes(),
    )?;
    written.push(md);
    for (table, rows) in [("profile", &out.profile), ("convergence", &out.convergence)] {
        if !rows.is_empty() {
            let p = x
                .results_dir
                .join(format!("{}_{table}{suffix}.csv", spec.name));
            report::write_atomic(&p, report::csv_string(rows)?.as_bytes())?;
            written.push(p);
        }
    }
    written.extend(report::render_plots(&spec, &out, x.plots_dir, suffix)?);
    sweep::clear_checkpoint(x.results_dir, &spec, x.quick);
    eprintln!(
        "{}: done in {:.1} s; wrote {}",
        spec.name,
        started.elapsed().as_secs_f64(),
        written
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok((spec, written))
}

/// The experiment specs in a directory, by name.
fn experiment_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(anyhow::anyhow!(
            "no experiment specs (*.toml) in {}",
            dir.display()
        ));
    }
    // two specs of one name would write (and check) the same results
    let mut names: BTreeMap<String, PathBuf> = BTreeMap::new();
    for f in &files {
        let name = Spec::load(f)?.name;
        if let Some(other) = names.insert(name.clone(), f.clone()) {
            return Err(anyhow::anyhow!(
                "{} and {} are both named {name:?}: their results would overwrite each other",
                other.display(),
                f.display()
            ));
        }
    }
    Ok(files)
}

/// `bloomlab reproduce`.
pub(super) fn reproduce(a: SuiteArgs) -> anyhow::Result<()> {
    let suffix = if a.quick { "_quick" } else { "" };
    let mut report = format!(
        "# bloomlab reproduction report\n\nProduced by `cargo run --release -- reproduce{}`: every \
         experiment in `{}`, each table with the paper's formula (where the paper has one), this \
         repository's theory and the measurement side by side, and links to the charts.\n",
        if a.quick { " --quick" } else { "" },
        a.experiments.display()
    );
    for path in experiment_files(&a.experiments)? {
        let (spec, written) = run_experiment(&Experiment {
            spec: &path,
            quick: a.quick,
            results_dir: &a.results_dir,
            plots_dir: &a.plots_dir,
            // the quick baselines are timed as `check` times them: one point
            // at a time
            threads: a.threads.map(usize::from).or(a.quick.then_some(1)),
            fresh: false,
        })?;
        let md_path = a.results_dir.join(format!("{}{suffix}.md", spec.name));
        let md = std::fs::read_to_string(&md_path)
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", md_path.display()))?;
        // demote the experiment's headings one level under the report
        let body: String = md
            .lines()
            .map(|l| {
                if l.starts_with('#') {
                    format!("#{l}\n")
                } else {
                    format!("{l}\n")
                }
            })
            .collect();
        report += &format!("\n{body}\nFiles: ");
        let rel = |p: &PathBuf| {
            let shown = p.strip_prefix(&a.results_dir).map_or_else(
                |_| format!("../{}", p.display()),
                |r| r.display().to_string(),
            );
            format!(
                "[{}]({shown})",
                p.file_name().and_then(|f| f.to_str()).unwrap_or("")
            )
        };
        report += &written.iter().map(rel).collect::<Vec<_>>().join(", ");
        report += "\n";
        for svg in written
            .iter()
            .filter(|p| p.extension().is_some_and(|x| x == "svg"))
        {
            report += &format!("\n![{}](../{})\n", spec.name, svg.display());
        }
    }
    let out = a.results_dir.join(format!("REPORT{suffix}.md"));
    report::write_atomic(&out, report.as_bytes())?;
    eprintln!("wrote {}", out.display());
    Ok(())
}

/// An experiment's spec with its baseline and its rerun.
type Run = (Spec, crate::check::Table, crate::check::Table);

/// `bloomlab check`.
pub(super) fn check(a: CheckArgs) -> anyhow::Result<()> {
    if !(a.alpha > 0.0 && a.alpha < 1.0) || a.speed_tolerance.is_nan() || a.speed_tolerance <= 1.0 {
        return Err(anyhow::anyhow!(
            "--alpha must be in (0, 1) and --speed-tolerance above 1"
        ));
    }
    let s = &a.suite;
    let runs = rerun_all(s)?;
    let tests: usize = runs
        .iter()
        .map(|(_, b, _)| crate::check::count_tests(b))
        .sum();
    let mut findings = Vec::new();
    for (spec, base, new) in &runs {
        let t = crate::check::Thresholds {
            alpha: a.alpha,
            speed_tolerance: a.speed_tolerance,
            ci_level: spec.measure.ci_level,
        };
        findings.extend(crate::check::compare(&spec.name, base, new, &t, tests));
    }
    let regressions = findings.iter().filter(|f| f.regression).count();
    if findings.is_empty() {
        println!(
            "check: {} experiments, {tests} statistical comparisons: nothing moved",
            runs.len()
        );
    } else {
        print_findings(&findings);
        println!(
            "check: {} experiments, {tests} statistical comparisons (alpha {} overall), {} moved, {regressions} regression(s)",
            runs.len(),
            a.alpha,
            findings.len()
        );
    }
    if regressions > 0 {
        Err(anyhow::anyhow!(
            "{regressions} regression(s) against the baselines in {}",
            s.results_dir.display()
        ))
    } else {
        Ok(())
    }
}

/// Reruns every experiment into a scratch directory, after checking that
/// each has a baseline (a missing one is an error before anything runs).
fn rerun_all(s: &SuiteArgs) -> anyhow::Result<Vec<Run>> {
    let suffix = if s.quick { "_quick" } else { "" };
    let guard =
        Scratch(std::env::temp_dir().join(format!("bloomlab-check-{}", std::process::id())));
    let scratch = &guard.0;
    let mut pairs = Vec::new();
    for path in experiment_files(&s.experiments)? {
        let spec = Spec::load(&path)?;
        let base = s.results_dir.join(format!("{}{suffix}.csv", spec.name));
        if !base.exists() {
            return Err(anyhow::anyhow!(
                "no baseline {} (run `bloomlab reproduce{}` and commit results/)",
                base.display(),
                if s.quick { " --quick" } else { "" }
            ));
        }
        pairs.push((path, spec, base));
    }
    let mut runs = Vec::new();
    for (path, spec, base) in pairs {
        run_experiment(&Experiment {
            spec: &path,
            quick: s.quick,
            results_dir: scratch,
            plots_dir: &scratch.join("plots"),
            // one point at a time by default: timings of points running side by
            // side on 2 cores disturb each other
            threads: Some(s.threads.map_or(1, usize::from)),
            fresh: true,
        })?;
        let new = scratch.join(format!("{}{suffix}.csv", spec.name));
        let tables = (
            crate::check::read_table(&base)?,
            crate::check::read_table(&new)?,
        );
        runs.push((spec, tables.0, tables.1));
    }
    Ok(runs)
}

/// The scratch directory of a check, removed however the check ends.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The table of what moved.
fn print_findings(findings: &[crate::check::Finding]) {
    println!(
        "{:<20} {:>6} {:<28} {:>14} {:>14} {:>12}  verdict",
        "experiment", "point", "column", "baseline", "now", "change"
    );
    for f in findings {
        println!(
            "{:<20} {:>6} {:<28} {:>14} {:>14} {:>12}  {}",
            f.experiment,
            f.point,
            f.column,
            f.base,
            f.new,
            f.measure,
            if f.regression {
                "REGRESSION"
            } else {
                "moved (within noise)"
            }
        );
    }
}
