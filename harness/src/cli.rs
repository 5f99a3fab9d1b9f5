//! Command-line interface: `run`, `theory`, `measure`.
//!
//! Every error is printed as one line on stderr and gives a non-zero exit
//! status (2 for usage errors, 1 for failures).

use crate::adversary;
use crate::designs;
use crate::estimates;
use crate::metrics::{self, Row, Value};
use crate::report;
use crate::spec::{MeasureSpec, Metric, Spec, WorkloadSpec};
use crate::sweep::{self, RunOptions};
use crate::workload::{KeyStream, Trace};
use clap::{Args, Parser, Subcommand};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    /// Measure one configuration (FPR, FNR, NPWS, probes, memory, speed; for
    /// SWAMP also count, distinct and entropy errors)
    Measure {
        #[command(subcommand)]
        design: DesignArgs,
    },
    /// Which designs meet a window and FPR (and limits), cheapest first, from theory
    Plan(PlanArgs),
    /// Run every experiment in experiments/ and write results/REPORT.md
    Reproduce(SuiteArgs),
    /// Rerun the experiments and compare with the committed baselines in results/
    Check(CheckArgs),
    /// Tables, ratios to fastbloom and charts from the criterion benchmarks
    /// (run `cargo bench -p bloomlab-filters` first)
    BenchReport(BenchReportArgs),
}

#[derive(Args, Debug)]
struct BenchReportArgs {
    /// Criterion's output directory
    #[arg(long, default_value = "target/criterion")]
    criterion_dir: PathBuf,
    /// Directory for bench_ops.csv and bench_ops.md
    #[arg(long, default_value = "results")]
    results_dir: PathBuf,
    /// Directory for the charts
    #[arg(long, default_value = "plots")]
    plots_dir: PathBuf,
}

#[derive(Args, Debug)]
struct SuiteArgs {
    /// Reduced precision; outputs get a _quick suffix (these are the CI baselines)
    #[arg(long)]
    quick: bool,
    /// Directory of experiment specs
    #[arg(long, default_value = "experiments")]
    experiments: PathBuf,
    /// Directory for CSV and markdown results
    #[arg(long, default_value = "results")]
    results_dir: PathBuf,
    /// Directory for charts
    #[arg(long, default_value = "plots")]
    plots_dir: PathBuf,
    /// Worker threads (default: one per core)
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
}

#[derive(Args, Debug)]
struct CheckArgs {
    #[command(flatten)]
    suite: SuiteArgs,
    /// Family-wise significance of the statistical comparisons
    #[arg(long, default_value_t = 0.01)]
    alpha: f64,
    /// Largest acceptable growth of a design's speed ratio (ns/op over the run's median);
    /// 3 by default because timings on a shared 2-core machine move by up to 1.5x
    #[arg(long, default_value_t = 3.0)]
    speed_tolerance: f64,
}

#[derive(Args, Debug)]
struct PlanArgs {
    /// Window the design must guarantee (insertions)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    window: u64,
    /// Target worst-phase FPR, in (0, 1)
    #[arg(long)]
    fpr: f64,
    /// Largest acceptable peak NPWS
    #[arg(long)]
    max_npws: Option<f64>,
    /// Largest acceptable bits per window element
    #[arg(long)]
    max_bits_per_element: Option<f64>,
    /// Print one JSON object
    #[arg(long)]
    json: bool,
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
    /// Naor-Yogev sliding Bloom filter (dictionary of fingerprints with generations)
    NaorYogev(NaorYogevArgs),
    /// SWAMP: membership, per-flow counts, distinct count and entropy over a window
    Swamp(SwampArgs),
    /// Broom filter: adaptive, fixes each false positive it is told of (over an exact window of n arrivals)
    Broom(BroomArgs),
}

#[derive(Args, Debug)]
struct BroomArgs {
    /// Capacity n: the window of the last n arrivals
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    n: u64,
    /// Target FPR ε, in (0, 1): r = ⌈log2(α/ε)⌉ remainder bits
    #[arg(long)]
    eps: f64,
    /// Load n/S at capacity, in (0, 1)
    #[arg(long)]
    load: Option<f64>,
    /// Elements moved to the new hash function per Adapt
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    c: Option<u64>,
    #[command(flatten)]
    common: Common,
}

#[derive(Args, Debug)]
struct SwampArgs {
    /// Window W (arrivals)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    w: u64,
    /// Target FPR ε, in (0, 1): fingerprints of ⌈log2(W/ε)⌉ bits
    #[arg(long)]
    eps: f64,
    /// Measure on a trace file, one key per line (default: distinct keys)
    #[arg(long, conflicts_with = "zipf")]
    trace: Option<PathBuf>,
    /// Measure on a Zipf stream with this exponent (default: distinct keys)
    #[arg(long)]
    zipf: Option<f64>,
    /// Universe of the Zipf stream
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    universe: u64,
    #[command(flatten)]
    common: Common,
}

#[derive(Args, Debug)]
struct NaorYogevArgs {
    /// Window: every key among the last n insertions is reported
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    n: u64,
    /// Largest slack: keys older than n + m are reported at most at rate eps
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    m: u64,
    /// Target FPR, in (0, 1)
    #[arg(long)]
    eps: f64,
    /// Trade-off parameter c: generations of ⌈(n-1)/c⌉ insertions (default: least memory)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    c: Option<u64>,
    /// Largest load of the cuckoo table, in [0.5, 1)
    #[arg(long)]
    max_load: Option<f64>,
    #[command(flatten)]
    common: Common,
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
    /// Query workload (measure): `adversarial` replays every false positive
    /// it finds and reports the sustained FPR instead of the usual figures
    #[arg(long, value_parser = ["adversarial"])]
    workload: Option<String>,
    /// Adversarial workload: every N-th query replays a found false positive (0: never)
    #[arg(long, default_value_t = 1)]
    replay_every: u64,
    /// Adversarial workload: insertions between consecutive queries (0: the filter holds still)
    #[arg(long, default_value_t = 0.0)]
    inserts_per_query: f64,
    /// Adversarial workload: queries in the attack
    #[arg(long, default_value_t = 200_000)]
    attack_queries: u64,
    /// Adversarial workload: fresh queries from this file, one key per line, in order
    #[arg(long)]
    query_trace: Option<PathBuf>,
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
    /// Flag checks that name the flag (the registry names its parameters).
    fn check(&self) -> Result<(), String> {
        let eps = match self {
            DesignArgs::NaorYogev(a) => Some(a.eps),
            DesignArgs::Swamp(a) => Some(a.eps),
            DesignArgs::Broom(a) => Some(a.eps),
            _ => None,
        };
        if let Some(eps) = eps {
            if !(eps > 0.0 && eps < 1.0) {
                return Err(format!("--eps {eps} must be in (0, 1)"));
            }
        }
        if let DesignArgs::Swamp(SwampArgs { zipf: Some(z), .. }) = self {
            if !(z.is_finite() && *z >= 0.0) {
                return Err(format!("--zipf {z} must be a finite exponent >= 0"));
            }
        }
        Ok(())
    }

    /// The key stream `measure` uses: distinct keys unless the design's flags
    /// name a Zipf law or a trace file.
    fn workload(&self) -> WorkloadSpec {
        match self {
            DesignArgs::Swamp(SwampArgs {
                trace: Some(path), ..
            }) => WorkloadSpec::Trace { path: path.clone() },
            DesignArgs::Swamp(SwampArgs {
                zipf: Some(exponent),
                universe,
                ..
            }) => WorkloadSpec::Zipf {
                universe: *universe,
                exponent: *exponent,
            },
            _ => WorkloadSpec::Distinct,
        }
    }

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
            DesignArgs::NaorYogev(a) => (
                "naor_yogev",
                map(&[
                    ("window", Some(a.n as f64)),
                    ("slack", Some(a.m as f64)),
                    ("fpr", Some(a.eps)),
                    ("c", a.c.map(|c| c as f64)),
                    ("max_load", a.max_load),
                ]),
                &a.common,
                vec![
                    Metric::Fpr,
                    Metric::Fnr,
                    Metric::Accesses,
                    Metric::Npws,
                    Metric::Memory,
                    Metric::Speed,
                    Metric::Tail,
                ],
            ),
            DesignArgs::Swamp(a) => (
                "swamp",
                map(&[("window", Some(a.w as f64)), ("fpr", Some(a.eps))]),
                &a.common,
                vec![
                    Metric::Fpr,
                    Metric::Fnr,
                    Metric::Memory,
                    Metric::Speed,
                    Metric::Count,
                    Metric::Distinct,
                    Metric::Entropy,
                ],
            ),
            DesignArgs::Broom(a) => (
                "broom",
                map(&[
                    ("window", Some(a.n as f64)),
                    ("fpr", Some(a.eps)),
                    ("load", a.load),
                    ("c", a.c.map(|c| c as f64)),
                ]),
                &a.common,
                vec![Metric::Fpr, Metric::Fnr, Metric::Memory, Metric::Speed],
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
        Command::Plan(a) => plan(a),
        Command::Reproduce(a) => reproduce(a),
        Command::Check(a) => check(a),
        Command::BenchReport(a) => crate::bench::run(&crate::bench::Paths {
            criterion: &a.criterion_dir,
            results: &a.results_dir,
            plots: &a.plots_dir,
        })
        .map(|files| {
            for f in files {
                eprintln!("wrote {}", f.display());
            }
        }),
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
pub fn run_experiment(x: &Experiment) -> Result<(Spec, Vec<PathBuf>), String> {
    let text = std::fs::read_to_string(x.spec)
        .map_err(|e| format!("cannot read spec {}: {e}", x.spec.display()))?;
    let spec = Spec::parse(&text).map_err(|e| format!("spec {}: {e}", x.spec.display()))?;
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
    d.check()?;
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
    d.check()?;
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
    let adversarial = a.workload.is_some();
    if adversarial {
        // the filter pass only measures memory and speed: one round will do
        spec.rounds = 1;
    }
    let metrics: BTreeSet<Metric> = if adversarial {
        // the attack, with memory and speed beside it
        [Metric::Adversary, Metric::Memory, Metric::Speed].into()
    } else {
        metrics.into_iter().collect()
    };
    let attack = crate::spec::AdversarySpec {
        queries: a.attack_queries,
        replay_every: a.replay_every,
        inserts_per_query: a.inserts_per_query,
        query_trace: a.query_trace.clone(),
        ..Default::default()
    };
    if a.query_trace.is_some() && !adversarial {
        return Err("--query-trace needs --workload adversarial".into());
    }
    let query_trace = match &a.query_trace {
        Some(path) => Some(Trace::load(path, a.seed)?),
        None => None,
    };
    if attack.queries < attack.windows {
        return Err(format!(
            "--attack-queries {} must be at least {}",
            attack.queries, attack.windows
        ));
    }
    if !(attack.inserts_per_query >= 0.0 && attack.inserts_per_query.is_finite()) {
        return Err(format!(
            "--inserts-per-query {} must be finite and >= 0",
            attack.inserts_per_query
        ));
    }
    let workload = d.workload();
    let trace = match &workload {
        WorkloadSpec::Trace { path } => Some(Arc::new(Trace::load(path, a.seed)?)),
        _ => None,
    };
    let stream = KeyStream::new(&workload, trace.clone(), &mut rng);
    let mut row = Row::default();
    row.push("design", Value::Text(name.into()));
    for (k, v) in &built.resolved {
        row.num(*k, *v);
    }
    let rebuild = |seed: u64| designs::build(name, &params, seed);
    let passes = sweep::Passes::of(&metrics);
    if passes.summary {
        // drawn before the filter pass takes the generator
        let mut rng = Pcg64::seed_from_u64(rng.random());
        let stream = KeyStream::new(&workload, trace.clone(), &mut rng);
        let res = estimates::measure(
            &built,
            stream,
            rng,
            &metrics,
            &spec,
            &rebuild,
            passes.summary_memory(),
        )?;
        row.0.extend(res.0);
    }
    let adversary_rng = passes.adversary.then(|| Pcg64::seed_from_u64(rng.random()));
    if passes.filter {
        let res = metrics::measure(&mut built, stream, rng, &metrics, &spec, &rebuild)?;
        row.0.extend(res.row.0);
    }
    if let Some(mut rng) = adversary_rng {
        let mut fresh = rebuild(rng.random())?;
        let stream = KeyStream::new(&workload, trace, &mut rng);
        let res = adversary::measure(
            &mut fresh,
            stream,
            rng,
            &attack,
            query_trace.as_ref(),
            spec.ci_level,
            passes.adversary_memory(),
        )?;
        // the names for the sustained FPR's interval
        let ci = (
            res.get_num("sustained_fpr_ci_low"),
            res.get_num("sustained_fpr_ci_high"),
        );
        row.0.extend(res.0);
        if let (Some(lo), Some(hi)) = ci {
            row.num("fpr_ci_low", lo);
            row.num("fpr_ci_high", hi);
        }
    }
    print_row(&row, a.json);
    Ok(())
}

fn plan(a: PlanArgs) -> Result<(), String> {
    if !(a.fpr > 0.0 && a.fpr < 1.0) {
        return Err(format!("--fpr {} must be in (0, 1)", a.fpr));
    }
    for (name, v) in [
        ("--max-npws", a.max_npws),
        ("--max-bits-per-element", a.max_bits_per_element),
    ] {
        if let Some(x) = v {
            if x.is_nan() || x <= 0.0 {
                return Err(format!("{name} {x} must be positive"));
            }
        }
    }
    if a.window > 1 << 40 {
        return Err(format!("--window {} is larger than 2^40", a.window));
    }
    let c = crate::plan::Constraints {
        window: a.window,
        fpr: a.fpr,
        max_npws: a.max_npws,
        max_bits_per_element: a.max_bits_per_element,
    };
    let (ok, rejected) = crate::plan::plan(&c);
    if a.json {
        let cands: Vec<serde_json::Value> = ok
            .iter()
            .map(|x| {
                serde_json::json!({
                    "design": x.design,
                    "params": x.params.iter().map(|(k, v)| (k.to_string(), serde_json::json!(v))).collect::<serde_json::Map<_, _>>(),
                    "memory_bits": x.memory_bits,
                    "bits_per_element": x.bits_per_element,
                    "fpr": x.fpr,
                    "window": x.window,
                    "slack": x.slack,
                    "npws_peak": x.npws_peak,
                    "insert_bits": x.insert_bits,
                    "query_probes": x.query_probes,
                })
            })
            .collect();
        let rej: Vec<serde_json::Value> = rejected
            .iter()
            .map(|r| serde_json::json!({"design": r.design, "reason": r.reason}))
            .collect();
        println!(
            "{}",
            serde_json::json!({"window": a.window, "fpr": a.fpr, "candidates": cands, "rejected": rej})
        );
        return Ok(());
    }
    println!(
        "{:<14} {:<34} {:>12} {:>9} {:>10} {:>10} {:>10} {:>7} {:>7} {:>7}",
        "design",
        "parameters",
        "memory bits",
        "bits/el",
        "FPR",
        "window",
        "slack",
        "NPWS",
        "writes",
        "probes"
    );
    for x in &ok {
        let params = x
            .params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ");
        println!(
            "{:<14} {:<34} {:>12} {:>9.2} {:>10} {:>10} {:>10} {:>7.4} {:>7} {:>7}",
            x.design,
            params,
            x.memory_bits,
            x.bits_per_element,
            report::fmt_num(x.fpr),
            x.window,
            x.slack,
            x.npws_peak,
            x.insert_bits,
            x.query_probes.map_or("-".into(), |p| format!("{p:.2}"))
        );
    }
    for r in &rejected {
        println!("{:<14} cannot: {}", r.design, r.reason);
    }
    Ok(())
}

/// The experiment specs in a directory, by name.
fn experiment_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("no experiment specs (*.toml) in {}", dir.display()));
    }
    Ok(files)
}

fn reproduce(a: SuiteArgs) -> Result<(), String> {
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
            .map_err(|e| format!("cannot read {}: {e}", md_path.display()))?;
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

fn check(a: CheckArgs) -> Result<(), String> {
    if !(a.alpha > 0.0 && a.alpha < 1.0) || a.speed_tolerance.is_nan() || a.speed_tolerance <= 1.0 {
        return Err("--alpha must be in (0, 1) and --speed-tolerance above 1".into());
    }
    let s = &a.suite;
    let suffix = if s.quick { "_quick" } else { "" };
    let scratch = std::env::temp_dir().join(format!("bloomlab-check-{}", std::process::id()));
    let specs = experiment_files(&s.experiments)?;
    // baselines first: a missing one is an error before anything runs
    let mut pairs = Vec::new();
    for path in &specs {
        let spec = Spec::load(path)?;
        let base = s.results_dir.join(format!("{}{suffix}.csv", spec.name));
        if !base.exists() {
            return Err(format!(
                "no baseline {} (run `bloomlab reproduce{}` and commit results/)",
                base.display(),
                if s.quick { " --quick" } else { "" }
            ));
        }
        pairs.push((path.clone(), spec, base));
    }
    let mut runs = Vec::new();
    for (path, spec, base) in &pairs {
        run_experiment(&Experiment {
            spec: path,
            quick: s.quick,
            results_dir: &scratch,
            plots_dir: &scratch.join("plots"),
            // one point at a time by default: timings of points running side by
            // side on 2 cores disturb each other
            threads: Some(s.threads.map_or(1, usize::from)),
            fresh: true,
        })?;
        let new = scratch.join(format!("{}{suffix}.csv", spec.name));
        runs.push((
            spec.clone(),
            crate::check::read_table(base)?,
            crate::check::read_table(&new)?,
        ));
    }
    let _ = std::fs::remove_dir_all(&scratch);
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
        println!(
            "{:<20} {:>6} {:<28} {:>14} {:>14} {:>12}  verdict",
            "experiment", "point", "column", "baseline", "now", "change"
        );
        for f in &findings {
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
        println!(
            "check: {} experiments, {tests} statistical comparisons (alpha {} overall), {} moved, {regressions} regression(s)",
            runs.len(),
            a.alpha,
            findings.len()
        );
    }
    if regressions > 0 {
        Err(format!(
            "{regressions} regression(s) against the baselines in {}",
            s.results_dir.display()
        ))
    } else {
        Ok(())
    }
}
