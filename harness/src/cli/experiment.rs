//! The experiment commands: `run`, `reproduce` and `check`.

use super::args::{ReproduceArgs, RunArgs};
use crate::engine::{experiment_files, run_experiment, Experiment};
use crate::report;
use std::path::PathBuf;

/// `bloomlab run`.
pub(super) fn run(a: RunArgs) -> anyhow::Result<()> {
    if let Some(shard) = a.shard {
        return super::shard::run_shard(a, shard);
    }
    let (results_dir, plots_dir) = a.output.dirs();
    let trace = a.trace.trace_override();
    run_experiment(&Experiment {
        spec: &a.spec,
        quick: a.output.quick,
        results_dir: &results_dir,
        plots_dir: &plots_dir,
        threads: a.threads.map(usize::from),
        fresh: a.fresh,
        memory_limit: a.memory_limit,
        trace: trace.as_ref(),
    })
    .map(|_| ())
}

/// `bloomlab reproduce`.
pub(super) fn reproduce(r: ReproduceArgs) -> anyhow::Result<()> {
    if r.slurm {
        return super::slurm::reproduce(&r);
    }
    super::slurm::refuse_without_slurm(&r.jobs)?;
    let a = r.suite;
    let suffix = if a.output.quick { "_quick" } else { "" };
    let (results_dir, plots_dir) = a.output.dirs();
    let mut report = format!(
        "# bloomlab reproduction report\n\nProduced by `cargo run --release -- reproduce{}`: every \
         experiment in `{}`, each table with the paper's formula (where the paper has one), this \
         repository's theory and the measurement side by side, and links to the charts.\n",
        if a.output.quick { " --quick" } else { "" },
        a.experiments.display()
    );
    for path in experiment_files(&a.experiments)? {
        let (spec, written) = run_experiment(&Experiment {
            spec: &path,
            quick: a.output.quick,
            results_dir: &results_dir,
            plots_dir: &plots_dir,
            memory_limit: a.memory_limit,
            // each spec's threads, else one per core, as `check` runs them
            threads: a.threads.map(usize::from),
            fresh: false,
            trace: None,
        })?;
        let md_path = results_dir.join(format!("{}{suffix}.md", spec.name));
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
            let shown = p.strip_prefix(&results_dir).map_or_else(
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
    let out = results_dir.join(format!("REPORT{suffix}.md"));
    report::write_atomic(&out, report.as_bytes())?;
    eprintln!("wrote {}", out.display());
    Ok(())
}
