//! `bloomlab check`: every experiment rerun into a scratch directory and
//! compared, table by table, with its committed baseline (`crate::check`),
//! with the power of the comparison printed beside the verdict.

use super::args::{CheckArgs, SuiteArgs};
use crate::check::{self, Finding, Table, Thresholds};
use crate::engine::{experiment_files, run_experiment, Experiment};
use crate::metrics::columns::{col, Col};
use crate::spec::Spec;
use std::path::{Path, PathBuf};

/// One table of an experiment (`""` for the results, `"profile"`,
/// `"convergence"`) with its baseline and its rerun; `None` where that side
/// has no such file.
type TablePair = (&'static str, PathBuf, Option<Table>, Option<Table>);

/// An experiment's spec with its tables.
type Run = (Spec, Vec<TablePair>);

/// The columns the power table reports, where an experiment has them.
const POWER_COLUMNS: &[Col] = &[
    col::FPR,
    col::FPR_AVG,
    col::FNR,
    col::NPWS_PEAK,
    col::PROBES_NEGATIVE,
    col::SUSTAINED_FPR,
    col::COUNT_RMSE,
    col::DISTINCT_REL_RMSE,
    col::ZERO_FRACTION,
    col::FPR_TIME_AVG,
    col::FNR_TIME,
    col::P_YES_PAST_WINDOW,
];

/// `bloomlab check`.
pub(super) fn check(a: CheckArgs) -> anyhow::Result<()> {
    if !(a.alpha > 0.0 && a.alpha < 1.0) || a.speed_tolerance.is_nan() || a.speed_tolerance <= 1.0 {
        return Err(anyhow::anyhow!(
            "--alpha must be in (0, 1) and --speed-tolerance above 1"
        ));
    }
    let s = &a.suite;
    if !s.output.quick && !a.full {
        return Err(anyhow::anyhow!(
            "check without --quick reruns every experiment at full precision, about an hour on 2 cores (compare alone about 37 minutes): pass --full for that, or --quick for the CI check (about 6 minutes on 2 cores)"
        ));
    }
    let runs = rerun_all(s)?;
    let baselines = || runs.iter().flat_map(|(_, tables)| tables.iter());
    let tests: usize = baselines()
        .filter_map(|t| t.2.as_ref())
        .map(check::count_tests)
        .sum();
    let pooled_tests: usize = baselines()
        .filter(|t| t.0.is_empty())
        .filter_map(|t| t.2.as_ref())
        .map(check::count_pooled)
        .sum();
    let mut findings = Vec::new();
    let mut power = Vec::new();
    for (spec, tables) in &runs {
        let t = Thresholds {
            alpha: a.alpha,
            speed_tolerance: a.speed_tolerance,
            ci_level: spec.measure.ci_level,
            tests,
            pooled_tests,
        };
        for (table, path, base, new) in tables {
            findings.extend(compare_table(spec, table, path, (base, new), &t));
            if let (true, Some(b)) = (table.is_empty(), base) {
                power.extend(
                    check::power(b, &t, POWER_COLUMNS)
                        .into_iter()
                        .map(|p| (spec.name.clone(), p)),
                );
            }
        }
    }
    print_power(&power);
    let regressions = findings.iter().filter(|f| f.regression).count();
    if let Some(dir) = &a.report {
        let page = write_report(dir, &runs, (tests, pooled_tests), &a, &findings, &power)?;
        println!("check: report in {}", page.display());
    }
    if findings.is_empty() {
        println!(
            "check: {} experiments, {tests} row comparisons and {pooled_tests} pooled column tests: nothing moved",
            runs.len()
        );
    } else {
        print_findings(&findings);
        println!(
            "check: {} experiments, {tests} row comparisons and {pooled_tests} pooled column tests (alpha {} overall), {} moved, {regressions} regression(s)",
            runs.len(),
            a.alpha,
            findings.len()
        );
    }
    if regressions > 0 {
        Err(anyhow::anyhow!(
            "{regressions} regression(s) against the baselines in {}",
            baseline_dir(s).display()
        ))
    } else {
        Ok(())
    }
}

/// `check --report DIR`.
fn write_report(
    dir: &Path,
    runs: &[Run],
    tests: (usize, usize),
    a: &CheckArgs,
    findings: &[Finding],
    power: &[(String, check::Power)],
) -> anyhow::Result<PathBuf> {
    let mut tables = std::collections::BTreeMap::new();
    for (spec, pairs) in runs {
        for (table, _, base, new) in pairs {
            if let (Some(b), Some(n)) = (base, new) {
                let name = if table.is_empty() {
                    spec.name.clone()
                } else {
                    format!("{}_{table}", spec.name)
                };
                tables.insert(name, (b, n));
            }
        }
    }
    check::html::write(
        dir,
        &check::html::CheckReport {
            experiments: runs.len(),
            tests,
            alpha: a.alpha,
            baselines: &baseline_dir(&a.suite),
            findings,
            power,
            tables,
        },
    )
}

/// One table's findings: compared, or a finding that it exists on one side
/// only.
fn compare_table(
    spec: &Spec,
    table: &str,
    path: &Path,
    (base, new): (&Option<Table>, &Option<Table>),
    t: &Thresholds,
) -> Vec<Finding> {
    let name = if table.is_empty() {
        spec.name.clone()
    } else {
        format!("{}_{table}", spec.name)
    };
    match (base, new) {
        (Some(b), Some(n)) => check::compare(&name, (b, n), check::key_columns(table), t),
        (b, _) => vec![Finding {
            experiment: name,
            point: "(file)".into(),
            column: path.display().to_string(),
            base: if b.is_some() { "present" } else { "missing" }.into(),
            new: if b.is_some() { "missing" } else { "present" }.into(),
            measure: "file".into(),
            regression: true,
        }],
    }
}

/// The power table: per experiment and column, the smallest relative shift
/// of every row detected with 90% power, pooled and in the best single row.
fn print_power(power: &[(String, check::Power)]) {
    let pct = |d: Option<f64>| d.map_or("-".into(), |d| format!("{:.1}%", 100.0 * d));
    println!(
        "power (90%): smallest shift of every row the check detects
{:<24} {:<20} {:>5} {:>10} {:>10}",
        "experiment", "column", "rows", "pooled", "best row"
    );
    for (exp, p) in power {
        println!(
            "{:<24} {:<20} {:>5} {:>10} {:>10}",
            exp,
            p.column,
            p.rows,
            pct(p.pooled),
            pct(p.best_row)
        );
    }
}

/// Reruns every experiment into a scratch directory, after checking that
/// each has a baseline (a missing one is an error before anything runs).
fn rerun_all(s: &SuiteArgs) -> anyhow::Result<Vec<Run>> {
    let suffix = if s.output.quick { "_quick" } else { "" };
    let guard =
        Scratch(std::env::temp_dir().join(format!("bloomlab-check-{}", std::process::id())));
    let scratch = &guard.0;
    let mut pairs = Vec::new();
    for path in experiment_files(&s.experiments)? {
        let spec = Spec::load(&path)?;
        let base = baseline_dir(s).join(format!("{}{suffix}.csv", spec.name));
        if !base.exists() {
            return Err(anyhow::anyhow!(
                "no baseline {} (run `bloomlab reproduce{}` and commit results/)",
                base.display(),
                if s.output.quick { " --quick" } else { "" }
            ));
        }
        pairs.push((path, spec, base));
    }
    let mut runs = Vec::new();
    for (path, spec, _) in pairs {
        run_experiment(&Experiment {
            spec: &path,
            quick: s.output.quick,
            results_dir: scratch,
            plots_dir: &scratch.join("plots"),
            memory_limit: s.memory_limit,
            // one point per core by default: the numbers do not depend on it,
            // and the speed comparison is of ratios to the run's median with
            // a 3x tolerance, which points side by side do not approach
            threads: s.threads.map(usize::from),
            fresh: true,
            trace: None,
        })?;
        let mut tables = Vec::new();
        for table in crate::metrics::TableKind::ALL.map(crate::metrics::TableKind::suffix) {
            let file = if table.is_empty() {
                format!("{}{suffix}.csv", spec.name)
            } else {
                format!("{}_{table}{suffix}.csv", spec.name)
            };
            let (b, n) = (baseline_dir(s).join(&file), scratch.join(&file));
            let read = |p: &Path| p.exists().then(|| check::read_table(p)).transpose();
            let (bt, nt) = (read(&b)?, read(&n)?);
            if bt.is_some() || nt.is_some() {
                tables.push((table, b, bt, nt));
            }
        }
        runs.push((spec, tables));
    }
    Ok(runs)
}

/// Where `check` finds the baselines: `--results-dir`, else `results/`.
fn baseline_dir(s: &SuiteArgs) -> PathBuf {
    s.output
        .results_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from("results"))
}

/// The scratch directory of a check, removed however the check ends.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The table of what moved.
fn print_findings(findings: &[Finding]) {
    println!(
        "{:<20} {:>6} {:<28} {:>14} {:>14} {:>12}  verdict",
        "experiment",
        col::POINT.name(),
        "column",
        "baseline",
        "now",
        "change"
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
