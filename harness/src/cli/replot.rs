//! `bloomlab replot`: every chart drawn again from the results already in
//! results/, without rerunning an experiment or a benchmark.

use crate::engine::replot::{replot as replot_spec, Replotted};
use clap::Args;
use std::path::{Path, PathBuf};

/// `bloomlab replot [SPEC...]`.
#[derive(Args, Debug)]
pub struct ReplotArgs {
    /// The specs whose charts to draw (default: every spec in
    /// --experiments-dir, the benchmark charts and the measured plans')
    pub specs: Vec<PathBuf>,
    /// The experiment specs
    #[arg(long, default_value = "experiments")]
    pub experiments_dir: PathBuf,
    /// The results the charts are drawn from
    #[arg(long, default_value = "results")]
    pub results_dir: PathBuf,
    /// Where the charts go
    #[arg(long, default_value = "plots")]
    pub plots_dir: PathBuf,
    /// Only the quick results (`<name>_quick.csv`)
    #[arg(long, conflicts_with = "full")]
    pub quick: bool,
    /// Only the full results
    #[arg(long)]
    pub full: bool,
}

/// Draws the charts again; says on stderr what it wrote and what it could
/// not draw (a spec never run at that precision).
pub fn replot(a: ReplotArgs) -> anyhow::Result<()> {
    let start = std::time::Instant::now();
    let all = a.specs.is_empty();
    let specs = if all {
        crate::engine::experiment_files(&a.experiments_dir)?
    } else {
        a.specs.clone()
    };
    let precisions: &[bool] = match (a.quick, a.full) {
        (true, _) => &[true],
        (_, true) => &[false],
        _ => &[false, true],
    };
    let (mut charts, mut not_run) = (0usize, Vec::new());
    for spec in &specs {
        for &quick in precisions {
            match replot_spec(spec, &a.results_dir, &a.plots_dir, quick)? {
                Replotted::Written(files) => {
                    charts += files.len();
                    for f in files {
                        eprintln!("wrote {}", f.display());
                    }
                }
                Replotted::NoCharts => break,
                Replotted::NotRun(csv) => not_run.push(csv.display().to_string()),
            }
        }
    }
    if all && !a.quick {
        charts += bench_charts(&a.results_dir, &a.plots_dir)?;
        for f in super::plan_measure::replot(&a.results_dir, &a.plots_dir)? {
            eprintln!("wrote {}", f.display());
            charts += 1;
        }
    }
    if !not_run.is_empty() {
        eprintln!("not run, so not drawn: {}", not_run.join(", "));
    }
    println!(
        "drew {charts} chart files from {} in {:.1} s",
        a.results_dir.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The benchmark charts: `bench_ops.csv` and `bench_concurrent.csv` in the
/// results directory draw into the plots directory, and those of each
/// `results/bench_<run>/` into `plots/bench_<run>/`.
fn bench_charts(results: &Path, plots: &Path) -> anyhow::Result<usize> {
    let mut dirs = vec![(results.to_path_buf(), plots.to_path_buf())];
    let mut runs: Vec<PathBuf> = std::fs::read_dir(results)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", results.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_dir()
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("bench_"))
        })
        .collect();
    runs.sort();
    for r in runs {
        let name = r.file_name().unwrap_or_default().to_owned();
        dirs.push((r, plots.join(name)));
    }
    let mut n = 0;
    for (r, p) in dirs {
        if r.join("bench_ops.csv").exists() || r.join("bench_concurrent.csv").exists() {
            std::fs::create_dir_all(&p)
                .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", p.display()))?;
            for f in crate::bench::replot(&r, &p)? {
                eprintln!("wrote {}", f.display());
                n += 1;
            }
        }
    }
    Ok(n)
}
