//! The flags of `bloomlab plan` and of its `--measure` run.

use super::args::{SlurmOpts, TraceArgs};
use crate::sweep::Shard;
use clap::Args;
use std::path::PathBuf;

/// `bloomlab plan`.
#[derive(Args, Debug)]
pub struct PlanArgs {
    /// Window the design must guarantee (insertions)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..), required_unless_present = "window_time", conflicts_with = "window_time")]
    pub window: Option<u64>,
    /// A window of time instead: T in seconds (with --peak-rate)
    #[arg(long, requires = "peak_rate")]
    pub window_time: Option<f64>,
    /// The largest arrival rate, keys per second (with --window-time)
    #[arg(long, requires = "window_time")]
    pub peak_rate: Option<f64>,
    /// Target worst-phase FPR, in (0, 1)
    #[arg(long)]
    pub fpr: f64,
    /// Largest acceptable peak NPWS
    #[arg(long)]
    pub max_npws: Option<f64>,
    /// Largest acceptable bits per window element
    #[arg(long)]
    pub max_bits_per_element: Option<f64>,
    /// Plan only these designs (comma-separated or repeated; default: all)
    #[arg(long = "design", value_delimiter = ',')]
    pub designs: Vec<String>,
    /// Print one JSON object
    #[arg(long)]
    pub json: bool,
    /// Build every feasible candidate and measure it on the workload below:
    /// FPR and FNR with their intervals, memory, ns per operation beside a
    /// plain Bloom filter of the same memory
    #[command(flatten)]
    pub measured: PlanMeasureArgs,
}

/// The flags of `bloomlab plan --measure`.
#[derive(Args, Debug)]
pub struct PlanMeasureArgs {
    /// Measure the candidates instead of only planning them
    #[arg(long)]
    pub measure: bool,
    /// With --measure: wall time to spend measuring, all candidates
    /// together (seconds; `60`, `60s`, `2m`); sizes each candidate's rounds
    #[arg(long, default_value = "60s", value_parser = parse_budget, requires = "measure")]
    pub budget: f64,
    /// With --measure: seed of the workload and the measurement
    #[arg(long, default_value_t = 1, requires = "measure")]
    pub seed: u64,
    /// With --measure: insert keys drawn from a Zipf law with this exponent
    /// (default: distinct keys)
    #[arg(long, requires = "measure", conflicts_with = "trace")]
    pub zipf: Option<f64>,
    /// With --zipf: universe of the Zipf stream
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub universe: u64,
    /// With --measure: keys (and, with --arrivals trace, times) from a trace
    #[command(flatten)]
    pub trace: TraceArgs,
    /// With --measure and --window-time: the arrival process (poisson at the
    /// peak rate; constant; on_off: a quarter of it, bursts at it for a
    /// quarter of every T; diurnal: a swing of 0.8 peaking at it over 10 T;
    /// trace: the trace's own times)
    #[arg(long, default_value = "poisson", value_parser = ["poisson", "constant", "on_off", "diurnal", "trace"], requires = "window_time")]
    pub arrivals: String,
    /// With --measure: name of the outputs (results/NAME.csv, .md, .json,
    /// plots/NAME_pareto.svg, .png); by default named by the request,
    /// `plan_w<WINDOW>-<HASH>` or `plan_t<T>-r<RATE>-<HASH>`. A name whose
    /// files hold anything but this request's measured plan is refused
    #[arg(long, value_parser = parse_name, requires = "measure")]
    pub name: Option<String>,
    /// With --measure: directory for the tables
    #[arg(long, default_value = "results", requires = "measure")]
    pub results_dir: PathBuf,
    /// With --measure: directory for the chart
    #[arg(long, default_value = "plots", requires = "measure")]
    pub plots_dir: PathBuf,
    /// With --measure: refuse a candidate whose estimated peak memory passes
    /// this many GiB [default: the memory the system reports available]
    #[arg(long, requires = "measure")]
    pub memory_limit: Option<f64>,
    /// With --measure: candidates measured at once, each on one thread
    /// [default: the cores]
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024), requires = "measure")]
    pub threads: Option<u16>,
    /// Fixed rounds, split across shards, merged, or run on Slurm.
    #[command(flatten)]
    pub fixed: PlanFixedArgs,
}

/// The flags of a `plan --measure` whose candidates all get the same
/// fixed work: on one machine, as shard I of N, merged from the shards'
/// part files, or as a Slurm job array and merge job.
#[derive(Args, Debug)]
pub struct PlanFixedArgs {
    /// With --measure: this many rounds (a window of insertions) or
    /// moments (a window of time) for every candidate, instead of sizing
    /// each by --budget: the same work, and the same figures but the
    /// timings, on any machine and in any split into shards
    #[arg(long, value_parser = clap::value_parser!(u64).range(2..=1_000_000), requires = "measure", conflicts_with = "budget")]
    pub rounds: Option<u64>,
    /// With --rounds: measure only shard I of N of the candidates (dealt
    /// by their estimated cost) and write a part file to --parts
    #[arg(long, value_name = "I/N", requires_all = ["rounds", "parts"])]
    pub shard: Option<Shard>,
    /// With --shard: where the part file goes; with --merge: where the
    /// parts are read
    #[arg(long, value_name = "DIR", requires = "rounds")]
    pub parts: Option<PathBuf>,
    /// With --rounds and --parts: write the outputs from every shard's part
    /// file instead of measuring (what one process writes, the timings
    /// being each task's)
    #[arg(long, requires_all = ["rounds", "parts"], conflicts_with = "shard")]
    pub merge: bool,
    /// With --rounds and --shards: write (with --submit: submit) a Slurm job
    /// array whose task I measures shard I, and a merge job after it,
    /// instead of measuring here
    #[arg(long, requires_all = ["rounds", "shards"], conflicts_with_all = ["shard", "merge", "parts"])]
    pub slurm: bool,
    /// The job settings (with --slurm).
    #[command(flatten)]
    pub jobs: SlurmOpts,
}

/// A time budget: seconds, with an optional `s` or `m` suffix, positive
/// and at most a day.
fn parse_budget(s: &str) -> Result<f64, String> {
    let (num, scale) = match s.strip_suffix('m') {
        Some(n) => (n, 60.0),
        None => (s.strip_suffix('s').unwrap_or(s), 1.0),
    };
    let x: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a duration (60, 60s or 2m)"))?;
    let secs = x * scale;
    if secs > 0.0 && secs <= 86_400.0 {
        Ok(secs)
    } else {
        Err(format!("{s:?} must be above 0 and at most a day"))
    }
}

/// An output name: letters, digits, `_` and `-` only (it names files).
fn parse_name(s: &str) -> Result<String, String> {
    if !s.is_empty()
        && s.len() <= 100
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        Ok(s.to_string())
    } else {
        Err(format!(
            "{s:?}: a name of 1-100 letters, digits, '_' or '-' (it names the output files)"
        ))
    }
}
