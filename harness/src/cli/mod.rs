//! Command-line interface. The argument definitions live in [`args`]; each
//! command's orchestration in its own module. The `theory` and `measure`
//! subcommands are built from the design registry, so every design answers
//! both with its own parameter flags.
//!
//! Every error is printed as one line on stderr and gives a non-zero exit
//! status (2 for usage errors, 1 for failures).

pub mod args;
mod calibrate;
mod check;
mod design;
mod experiment;
mod peers;
mod plan;
mod plan_args;
mod plan_measure;
mod replot;
mod shard;
mod slurm;

pub use crate::engine::{run_experiment, Experiment};

use crate::designs::REGISTRY;
use args::{
    BenchReportArgs, CheckArgs, DesignsArgs, MeasureFlags, MergeArgs, PeersApbfArgs,
    PeersStableArgs, PlanArgs, ReportArgs, ReproduceArgs, RunArgs, SlurmArgs, TheoryFlags,
};
use clap::{ArgMatches, Args, Command, FromArgMatches};
use std::ffi::OsString;

/// `bloomlab theory` or `bloomlab measure` with one subcommand per design.
fn design_commands<F: Args>(name: &'static str, about: &'static str) -> Command {
    let mut cmd = Command::new(name)
        .about(about)
        .subcommand_required(true)
        .subcommand_value_name("DESIGN");
    for d in REGISTRY {
        // the parameter structs' doc comments would set the about text:
        // the design's own goes last
        let sub = F::augment_args(d.args(Command::new(d.name())))
            .about(d.about())
            .long_about(None)
            .aliases(d.aliases().iter().copied());
        cmd = cmd.subcommand(sub);
    }
    cmd
}

/// The whole command line.
pub fn command() -> Command {
    Command::new("bloomlab")
        .version(env!("CARGO_PKG_VERSION"))
        .about("Benchmark and simulation harness for sliding-window approximate-membership filters")
        .subcommand_required(true)
        .subcommand(RunArgs::augment_args(Command::new("run").about(
            "Run an experiment spec: writes results/<name>.csv and .md, plots/<name>*.svg (with --shard, one part of it)",
        )))
        .subcommand(MergeArgs::augment_args(Command::new("merge").about(
            "Merge the part files of `run --shard` into the outputs a single `run` writes",
        )))
        .subcommand(SlurmArgs::augment_args(Command::new("slurm").about(
            "Write (and with --submit, submit) a Slurm job array running a spec's shards, and its merge job",
        )))
        .subcommand(design_commands::<TheoryFlags>(
            "theory",
            "Print the theoretical figures of one configuration of a design",
        ))
        .subcommand(design_commands::<MeasureFlags>(
            "measure",
            "Measure one configuration of a design: a one-point spec, the same numbers `run` gives",
        ))
        .subcommand(
            Command::new("peers")
                .about("A configuration in another implementation's terms, and what it means here")
                .subcommand_required(true)
                .subcommand(PeersApbfArgs::augment_args(Command::new("apbf").about(
                    "An APBF as dcrd or CrowdStrike builds it: capacity, FPR and memory side by side",
                )))
                .subcommand(PeersStableArgs::augment_args(Command::new("stable").about(
                    "A Stable Bloom filter as the stable-bloom-filter crate and BoomFilters size it",
                ))),
        )
        .subcommand(DesignsArgs::augment_args(
            Command::new("designs").about("List every design with its parameters and capabilities"),
        ))
        .subcommand(PlanArgs::augment_args(Command::new("plan").about(
            "Which designs meet a window and FPR (and limits), cheapest first, from theory",
        )))
        .subcommand(ReproduceArgs::augment_args(Command::new("reproduce").about(
            "Run every experiment in experiments/ and write results/REPORT.md (with --slurm, on a cluster)",
        )))
        .subcommand(CheckArgs::augment_args(Command::new("check").about(
            "Rerun the experiments and compare with the committed baselines in results/",
        )))
        .subcommand(ReportArgs::augment_args(Command::new("report").about(
            "Write a static HTML site over results/ and plots/: an index of experiments and a page each (opens from disk)",
        )))
        .subcommand(replot::ReplotArgs::augment_args(Command::new("replot").about(
            "Draw every chart again from the results already in results/ (nothing is rerun)",
        )))
        .subcommand(calibrate::CalibrateArgs::augment_args(Command::new("calibrate").about(
            "Measure the coverage of bloomlab's intervals over many seeds of points whose truth is known (with --check, fail when one covers too little)",
        )))
        .subcommand(BenchReportArgs::augment_args(Command::new("bench-report").about(
            "Tables, ratios to fastbloom and charts from the criterion benchmarks (run `cargo bench -p bloomlab-bench` first)",
        )))
}

/// Parses a command line without running it (the docs' commands are
/// tested through this). Errors are clap's.
pub fn parse<I: IntoIterator<Item = OsString>>(args: I) -> Result<ArgMatches, clap::Error> {
    command().try_get_matches_from(args)
}

/// clap's message on one line: the message and what it lists, without the
/// usage block.
fn one_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let mut line = String::new();
    for l in text.lines().map(str::trim) {
        if l.is_empty() || l.starts_with("Usage:") || l.starts_with("For more") {
            break;
        }
        line = if line.is_empty() {
            l.to_string()
        } else {
            format!("{line} {l}")
        };
    }
    line
}

/// Runs the command line; returns the exit status.
pub fn main<I: IntoIterator<Item = OsString>>(args: I) -> i32 {
    let matches = match parse(args) {
        Ok(m) => m,
        Err(e) => {
            use clap::error::ErrorKind;
            return match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    let _ = e.print();
                    0
                }
                ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    let _ = e.print();
                    2
                }
                _ => {
                    eprintln!("{} (see bloomlab --help)", one_line(&e));
                    2
                }
            };
        }
    };
    if let Err(e) = refuse_non_finite(&matches) {
        eprintln!("error: {e}");
        return 2;
    }
    let result = dispatch(&matches);
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e:#}");
            1
        }
    }
}

/// Refuses a number flag given as NaN or an infinity, at any depth of the
/// command line: clap parses `--load inf` as a valid `f64`, and a value that
/// is not a finite number would otherwise travel on (as a JSON null, that
/// is, as an absent parameter) and silently become the default.
fn refuse_non_finite(m: &ArgMatches) -> anyhow::Result<()> {
    for id in m.ids() {
        if let Ok(Some(values)) = m.try_get_many::<f64>(id.as_str()) {
            if let Some(v) = values.copied().find(|v| !v.is_finite()) {
                return Err(anyhow::anyhow!(
                    "--{} {v}: must be a finite number",
                    id.as_str().replace('_', "-")
                ));
            }
        }
    }
    match m.subcommand() {
        Some((_, sub)) => refuse_non_finite(sub),
        None => Ok(()),
    }
}

/// The flags given on the command line to `cmd` (whose matches are `m`),
/// as words a shell script can repeat: `--flag` for a switch, `--flag
/// value` for each value of the others; flags left at their defaults are
/// left out.
fn given_words(m: &ArgMatches, cmd: &Command) -> anyhow::Result<Vec<String>> {
    let mut words = Vec::new();
    for arg in cmd.get_arguments() {
        let id = arg.get_id().as_str();
        if m.value_source(id) != Some(clap::parser::ValueSource::CommandLine) {
            continue;
        }
        let Some(long) = arg.get_long() else {
            continue;
        };
        if matches!(
            arg.get_action(),
            clap::ArgAction::SetTrue | clap::ArgAction::SetFalse
        ) {
            words.push(format!("--{long}"));
            continue;
        }
        for v in m.get_raw(id).into_iter().flatten() {
            let v = v
                .to_str()
                .ok_or_else(|| anyhow::anyhow!("--{long}: {v:?} is not UTF-8"))?;
            words.push(format!("--{long}"));
            words.push(v.to_string());
        }
    }
    Ok(words)
}

fn typed<T: FromArgMatches>(m: &ArgMatches) -> anyhow::Result<T> {
    T::from_arg_matches(m).map_err(|e| anyhow::anyhow!(one_line(&e)))
}

fn dispatch(matches: &ArgMatches) -> anyhow::Result<()> {
    let (name, m) = matches
        .subcommand()
        .ok_or_else(|| anyhow::anyhow!("no command (see bloomlab --help)"))?;
    match name {
        "run" => experiment::run(typed(m)?),
        "merge" => shard::merge(typed(m)?),
        "slurm" => slurm::slurm(typed(m)?),
        "theory" | "measure" => {
            let (design, dm) = m
                .subcommand()
                .ok_or_else(|| anyhow::anyhow!("no design (see bloomlab designs)"))?;
            let d = crate::designs::lookup(design)?;
            let params = d.params_from(dm)?;
            if name == "theory" {
                design::theory(d, &params, &typed::<TheoryFlags>(dm)?)
            } else {
                design::measure(d, &params, &typed::<MeasureFlags>(dm)?)
            }
        }
        "designs" => design::designs(&typed::<DesignsArgs>(m)?),
        "peers" => match m.subcommand() {
            Some(("apbf", pm)) => peers::apbf(typed(pm)?),
            Some(("stable", pm)) => peers::stable(typed(pm)?),
            _ => Err(anyhow::anyhow!("peers needs apbf or stable")),
        },
        "plan" => plan::plan(
            typed::<PlanArgs>(m)?,
            &given_words(m, &PlanArgs::augment_args(Command::new("plan")))?,
        ),
        "reproduce" => experiment::reproduce(typed::<ReproduceArgs>(m)?),
        "check" => check::check(typed::<CheckArgs>(m)?),
        "report" => report_site(typed(m)?),
        "replot" => replot::replot(typed(m)?),
        "calibrate" => calibrate::calibrate(typed(m)?),
        "bench-report" => {
            let a: BenchReportArgs = typed(m)?;
            crate::bench::run(&crate::bench::Paths {
                criterion: &a.criterion_dir,
                results: &a.results_dir,
                plots: &a.plots_dir,
                first_run: a.first_run.as_deref(),
            })
            .map(|files| {
                for f in files {
                    eprintln!("wrote {}", f.display());
                }
            })
        }
        other => Err(anyhow::anyhow!("unknown command {other}")),
    }
}

/// `bloomlab report`: the site, and what it could not find on stderr.
fn report_site(a: ReportArgs) -> anyhow::Result<()> {
    let start = std::time::Instant::now();
    let files = crate::engine::experiment_files(&a.experiments_dir)?;
    let dirs = crate::report::site::SiteDirs {
        results: &a.results_dir,
        plots: &a.plots_dir,
        docs: &a.docs_dir,
        out: &a.out,
    };
    let w = crate::report::site::write_site(&dirs, &files)?;
    for p in &w.missing_charts {
        eprintln!("warning: chart {} not found", p.display());
    }
    if !w.not_run.is_empty() {
        eprintln!("warning: not run yet: {}", w.not_run.join(", "));
    }
    println!(
        "wrote {} ({} experiment pages, {} charts) in {:.1} s",
        a.out.join("index.html").display(),
        w.pages,
        w.charts,
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_command_line_is_well_formed() {
        // clap's own consistency checks: no flag of a design clashes with a
        // shared flag, every alias is unique
        super::command().debug_assert();
    }

    #[test]
    fn every_design_subcommand_has_its_design_s_help() {
        let cmd = super::command();
        for name in ["theory", "measure"] {
            let c = cmd.find_subcommand(name).unwrap();
            for d in crate::designs::REGISTRY {
                let sub = c.find_subcommand(d.name()).unwrap();
                assert_eq!(
                    sub.get_about().map(|a| a.to_string()).as_deref(),
                    Some(d.about())
                );
            }
        }
    }
}
