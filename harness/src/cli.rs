//! Command-line interface: `run`, `theory`, `measure`.
//!
//! Every error is printed as one line on stderr and gives a non-zero exit
//! status (2 for usage errors, 1 for failures).

use crate::designs;
use crate::metrics::{self, Row, Value};
use crate::report;
use crate::spec::{MeasureSpec, Metric, Spec, WorkloadSpec};
use crate::sweep::{self, RunOptions};
use crate::workload::KeyStream;
use clap::{Args, Parser, Subcommand};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "bloomlab",
    version,
    about = "Benchmark and simulation harness for sliding-window approximate-membership filters"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run an experiment spec: writes results/<name>.csv and .md, plots/<name>.svg
    Run(RunArgs),
    /// Print the theoretical figures of one configuration
    Theory {
        #[command(subcommand)]
        design: DesignArgs,
    },
    /// Measure one configuration (FPR, FNR, NPWS, probes, memory, speed)
    Measure {
        #[command(subcommand)]
        design: DesignArgs,
    },
}

#[derive(Args, Debug)]
struct RunArgs {
    /// The experiment spec (TOML)
    spec: PathBuf,
    /// Worker threads (default: one per core)
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
    /// Reduced precision (fewer rounds and queries); outputs get a _quick suffix
    #[arg(long)]
    quick: bool,
    /// Directory for CSV and markdown results
    #[arg(long, default_value = "results")]
    results_dir: PathBuf,
    /// Directory for charts
    #[arg(long, default_value = "plots")]
    plots_dir: PathBuf,
    /// Ignore (and discard) a checkpoint of an interrupted run
    #[arg(long)]
    fresh: bool,
}

#[derive(Subcommand, Debug)]
enum DesignArgs {
    /// Age-Partitioned Bloom filter
    Apbf(ApbfArgs),
    /// Stable Bloom filter
    Stable(StableArgs),
}

/// Flags shared by every design.
#[derive(Args, Debug)]
struct Common {
    /// FPR queries per phase kind (measure; default: sized to expect 4000 false positives)
    #[arg(long)]
    queries: Option<u64>,
    /// Measurement rounds (measure)
    #[arg(long, default_value_t = 100)]
    rounds: u64,
    /// Seed (measure)
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print one JSON object
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct ApbfArgs {
    /// Slices written per insertion
    #[arg(long)]
    k: u32,
    /// Extra slices (window = l * g)
    #[arg(long)]
    l: u32,
    /// Generation size
    #[arg(long, default_value_t = 1024)]
    g: u64,
    #[command(flatten)]
    common: Common,
}

#[derive(Args, Debug)]
struct StableArgs {
    /// Cells
    #[arg(long)]
    m: u64,
    /// Bits per cell (Max = 2^d - 1)
    #[arg(long)]
    d: u32,
    /// Cells set per insertion
    #[arg(long)]
    k: u32,
    /// Cells decremented per insertion (or give --fpr to pick the smallest P meeting it)
    #[arg(long, required_unless_present = "fpr", conflicts_with = "fpr")]
    p: Option<u64>,
    /// Target stable FPR (picks P)
    #[arg(long)]
    fpr: Option<f64>,
    /// Window of interest for the FNR (default: the age up to which the FNR stays below 1%)
    #[arg(long)]
    window: Option<u64>,
    /// Decrement P adjacent cells from one random start instead of a uniform P-subset
    #[arg(long)]
    adjacent: bool,
    #[command(flatten)]
    common: Common,
}

impl DesignArgs {
    /// Design name, parameters, shared flags, and the metrics `measure` takes.
    fn params(&self) -> (&'static str, BTreeMap<String, f64>, &Common, Vec<Metric>) {
        let map = |pairs: &[(&str, Option<f64>)]| {
            pairs
                .iter()
                .filter_map(|(k, v)| v.map(|v| (k.to_string(), v)))
                .collect()
        };
        match self {
            DesignArgs::Apbf(a) => (
                "apbf",
                map(&[
                    ("k", Some(a.k as f64)),
                    ("l", Some(a.l as f64)),
                    ("g", Some(a.g as f64)),
                ]),
                &a.common,
                vec![
                    Metric::Fpr,
                    Metric::Fnr,
                    Metric::Accesses,
                    Metric::Npws,
                    Metric::Memory,
                    Metric::Speed,
                ],
            ),
            DesignArgs::Stable(a) => (
                "stable",
                map(&[
                    ("m", Some(a.m as f64)),
                    ("d", Some(a.d as f64)),
                    ("k", Some(a.k as f64)),
                    ("p", a.p.map(|p| p as f64)),
                    ("fpr", a.fpr),
                    ("window", a.window.map(|w| w as f64)),
                    ("adjacent", Some(a.adjacent as u8 as f64)),
                ]),
                &a.common,
                vec![
                    Metric::Fpr,
                    Metric::Fnr,
                    Metric::ZeroFraction,
                    Metric::Memory,
                    Metric::Speed,
                ],
            ),
        }
    }
}

/// Runs the command line; returns the exit status.
pub fn main<I: IntoIterator<Item = OsString>>(args: I) -> i32 {
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion)
                || e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            {
                let _ = e.print();
                return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                    2
                } else {
                    0
                };
            }
            // clap's message spans lines ("...not provided:\n  --p <P>\n\nUsage: ...");
            // keep the message and what it lists, on one line.
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
            eprintln!("{line} (see bloomlab --help)");
            return 2;
        }
    };
    let result = match cli.command {
        Command::Run(a) => run(a),
        Command::Theory { design } => theory(design),
        Command::Measure { design } => measure(design),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}

fn run(a: RunArgs) -> Result<(), String> {
    let text = std::fs::read_to_string(&a.spec)
        .map_err(|e| format!("cannot read spec {}: {e}", a.spec.display()))?;
    let spec = Spec::parse(&text).map_err(|e| format!("spec {}: {e}", a.spec.display()))?;
    if a.fresh {
        sweep::clear_checkpoint(&a.results_dir, &spec, a.quick);
    }
    let suffix = if a.quick { "_quick" } else { "" };
    let opts = RunOptions {
        threads: a.threads.map(usize::from),
        quick: a.quick,
        checkpoint_dir: Some(a.results_dir.clone()),
        progress: std::io::stderr().is_terminal(),
    };
    let started = std::time::Instant::now();
    let prepared = sweep::prepare(&spec)?;
    eprintln!(
        "{}: {} point(s), {} thread(s){}",
        spec.name,
        prepared.points.len(),
        opts.threads.unwrap_or_else(rayon::current_num_threads),
        if a.quick { ", quick precision" } else { "" }
    );
    let out = sweep::run(&spec, &text, &prepared, &opts)?;
    let level = spec.measure.ci_level;
    let command = format!(
        "cargo run --release -- run {}{}",
        a.spec.display(),
        if a.quick { " --quick" } else { "" }
    );
    let base = a.results_dir.join(format!("{}{suffix}", spec.name));
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
            let p = a
                .results_dir
                .join(format!("{}_{table}{suffix}.csv", spec.name));
            report::write_atomic(&p, report::csv_string(rows)?.as_bytes())?;
            written.push(p);
        }
    }
    written.extend(report::render_plots(&spec, &out, &a.plots_dir, suffix)?);
    sweep::clear_checkpoint(&a.results_dir, &spec, a.quick);
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
    Ok(())
}

fn print_row(row: &Row, json: bool) {
    if json {
        let obj: serde_json::Map<String, serde_json::Value> = row
            .0
            .iter()
            .map(|(k, v)| {
                let j = match v {
                    Value::Num(x) => serde_json::Number::from_f64(*x)
                        .map_or(serde_json::Value::Null, serde_json::Value::Number),
                    Value::Int(x) => serde_json::Value::from(*x),
                    Value::Bool(b) => serde_json::Value::Bool(*b),
                    Value::Text(s) => serde_json::Value::String(s.clone()),
                };
                (k.clone(), j)
            })
            .collect();
        println!("{}", serde_json::Value::Object(obj));
    } else {
        let width = row.0.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
        for (k, v) in &row.0 {
            let s = match v {
                Value::Num(x) => report::fmt_num(*x),
                other => other.to_string(),
            };
            println!("{k:width$}  {s}");
        }
    }
}

fn theory(d: DesignArgs) -> Result<(), String> {
    let (name, params, a, _) = d.params();
    let built = designs::build(name, &params, a.seed)?;
    let mut row = Row::default();
    row.push("design", Value::Text(name.into()));
    for (k, v) in &built.resolved {
        row.num(*k, *v);
    }
    for (k, v) in &built.theory.scalars {
        row.num(*k, *v);
    }
    if let Some(p) = built.theory.get("probes_negative") {
        row.num("expected_accesses", p);
    }
    if built.geometry.guaranteed {
        row.num("slack", built.geometry.slack as f64);
    }
    print_row(&row, a.json);
    Ok(())
}

fn measure(d: DesignArgs) -> Result<(), String> {
    let (name, params, a, metrics) = d.params();
    if a.rounds == 0 {
        return Err("--rounds must be at least 1".into());
    }
    let mut rng = Pcg64::seed_from_u64(sweep::point_seed(a.seed, 0));
    let mut built = designs::build(name, &params, rng.random())?;
    let mut spec = MeasureSpec {
        rounds: a.rounds,
        ..MeasureSpec::default()
    };
    if let Some(q) = a.queries {
        if q == 0 {
            return Err("--queries must be at least 1".into());
        }
        spec.min_fpr_queries = q;
        spec.max_fpr_queries = q;
    }
    let metrics: BTreeSet<Metric> = metrics.into_iter().collect();
    let stream = KeyStream::new(&WorkloadSpec::Distinct, None, &mut rng);
    let mut row = Row::default();
    row.push("design", Value::Text(name.into()));
    for (k, v) in &built.resolved {
        row.num(*k, *v);
    }
    let rebuild = |seed: u64| designs::build(name, &params, seed);
    let res = metrics::measure(&mut built, stream, rng, &metrics, &spec, &rebuild)?;
    row.0.extend(res.row.0);
    print_row(&row, a.json);
    Ok(())
}
