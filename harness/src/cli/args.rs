//! Argument definitions of every subcommand. The design subcommands of
//! `theory` and `measure` are built from the registry (see `mod.rs`): their
//! parameter flags come from each design's parameter struct, and the flags
//! below are the ones every design shares.

use clap::Args;
use std::path::PathBuf;

pub use super::plan_args::{PlanArgs, PlanFixedArgs, PlanMeasureArgs};

/// Where a run's outputs go: `results/` and `plots/`, except that a
/// `--quick` run without `--update-baselines` goes under
/// `target/bloomlab-quick/` so that it never replaces the committed CI
/// baselines by accident. Explicit directories win.
pub fn output_dirs(
    quick: bool,
    update_baselines: bool,
    results_dir: &Option<PathBuf>,
    plots_dir: &Option<PathBuf>,
) -> (PathBuf, PathBuf) {
    let scratch = quick && !update_baselines;
    let base = PathBuf::from("target/bloomlab-quick");
    let results = results_dir.clone().unwrap_or_else(|| {
        if scratch {
            base.join("results")
        } else {
            PathBuf::from("results")
        }
    });
    let plots = plots_dir.clone().unwrap_or_else(|| {
        if scratch {
            base.join("plots")
        } else {
            PathBuf::from("plots")
        }
    });
    (results, plots)
}

/// `bloomlab run SPEC`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The experiment spec (TOML)
    pub spec: PathBuf,
    /// Worker threads (default: the spec's `threads`, else one per core)
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
    /// Precision and output directories.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Ignore (and discard) a checkpoint of an interrupted run
    #[arg(long)]
    pub fresh: bool,
    /// Refuse a run whose estimated peak memory passes this many GiB
    /// [default: the memory the system reports available]
    #[arg(long)]
    pub memory_limit: Option<f64>,
    /// Run only shard I of N of the spec's points (0 <= I < N) and write a
    /// part file for `bloomlab merge` instead of the results
    #[arg(long, value_name = "I/N", conflicts_with = "trace")]
    pub shard: Option<crate::sweep::Shard>,
    /// With --shard: directory of the part files
    /// [default: RESULTS_DIR/shards/NAME]
    #[arg(long, requires = "shard")]
    pub out: Option<PathBuf>,
    /// With --shard: print how the points are dealt to the shards, and stop
    #[arg(long, requires = "shard")]
    pub dry_run: bool,
    /// With --dry-run: the part files of an earlier run of this spec (all
    /// its points, e.g. from --shard 0/1): the deal's balance judged by
    /// their measured seconds beside the estimate's
    #[arg(long, value_name = "DIR", requires = "dry_run")]
    pub measured: Option<PathBuf>,
    /// With --measured: write each design's measured seconds over its
    /// estimated seconds to FILE (results/point_costs.csv is the table
    /// the harness deals by, compiled in)
    #[arg(long, value_name = "FILE", requires = "measured")]
    pub fit: Option<PathBuf>,
    /// The trace to run the spec on instead of its workload; the outputs
    /// are named NAME_trace-STEM-HASH.
    #[command(flatten)]
    pub trace: TraceArgs,
}

/// Precision and where the outputs go: the flags `run`, `merge`, `slurm`,
/// `reproduce` and `check` share.
#[derive(Args, Debug, Clone)]
pub struct OutputArgs {
    /// Reduced precision (fewer rounds and queries); outputs get a _quick suffix
    /// and go under target/bloomlab-quick/ unless --update-baselines
    #[arg(long)]
    pub quick: bool,
    /// With --quick: write results/ and plots/ (the committed CI baselines)
    #[arg(long, requires = "quick")]
    pub update_baselines: bool,
    /// Directory for CSV and markdown results [default: results]
    #[arg(long)]
    pub results_dir: Option<PathBuf>,
    /// Directory for charts [default: plots]
    #[arg(long)]
    pub plots_dir: Option<PathBuf>,
}

impl OutputArgs {
    /// The results and plots directories ([`output_dirs`]).
    pub fn dirs(&self) -> (PathBuf, PathBuf) {
        output_dirs(
            self.quick,
            self.update_baselines,
            &self.results_dir,
            &self.plots_dir,
        )
    }
}

/// A trace file and how to read it: the flags `run` and `measure` share.
#[derive(Args, Debug, Clone)]
pub struct TraceArgs {
    /// Keys (and times) from this trace file instead of the workload; gzip
    /// is read as is
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// With --trace: one key per line, a CSV column, or a pcap/pcapng
    /// capture (default: the spec's trace format, else lines)
    #[arg(long, requires = "trace", value_parser = ["lines", "csv", "pcap"])]
    pub trace_format: Option<String>,
    /// With --trace: the key of a packet (pcap)
    #[arg(long, requires = "trace", value_parser = ["five_tuple", "src_ip", "dst_ip", "src_dst"])]
    pub trace_key: Option<String>,
    /// With --trace: the column holding the key, by its header name (csv)
    #[arg(long, requires = "trace")]
    pub trace_column: Option<String>,
}

impl TraceArgs {
    /// The trace given on the command line, if any.
    pub fn trace_override(&self) -> Option<TraceOverride> {
        self.trace.as_ref().map(|path| TraceOverride {
            path: path.clone(),
            fields: self.fields(),
        })
    }

    /// The format fields given.
    pub fn fields(&self) -> crate::trace::FormatFields {
        crate::trace::FormatFields {
            format: self.trace_format.clone(),
            key: self.trace_key.clone(),
            column: self.trace_column.clone(),
        }
    }
}

pub use crate::engine::TraceOverride;

/// `bloomlab merge SPEC [DIR]`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The experiment spec (TOML) the parts were run from
    pub spec: PathBuf,
    /// Directory of the part files [default: RESULTS_DIR/shards/NAME]
    pub dir: Option<PathBuf>,
    /// Precision (of the run the parts are of) and output directories.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// The Slurm job settings of `bloomlab slurm` and `bloomlab reproduce --slurm`.
#[derive(Args, Debug, Clone)]
pub struct SlurmOpts {
    /// Array tasks (shards) per experiment
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=10000))]
    pub shards: Option<u16>,
    /// Slurm partition (sbatch --partition)
    #[arg(long)]
    pub partition: Option<String>,
    /// Time limit of each task and of the merge (sbatch --time, e.g. 2:00:00)
    #[arg(long)]
    pub time: Option<String>,
    /// CPUs per array task; bloomlab runs that many threads
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub cpus_per_task: u16,
    /// Submit with sbatch (the array, then the merge after it) and print the job ids
    #[arg(long)]
    pub submit: bool,
    /// Directory of the job scripts, part files and logs, on storage every
    /// node sees [default: RESULTS_DIR/shards/NAME]
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The most memory a task may request, in GiB (a node's size): a spec
    /// whose points need more is refused before any script is written, its
    /// points over it named with their estimates
    #[arg(long, value_name = "GIB")]
    pub mem_cap: Option<f64>,
}

/// `bloomlab slurm SPEC --shards N`.
#[derive(Args, Debug)]
pub struct SlurmArgs {
    /// The experiment spec (TOML)
    pub spec: PathBuf,
    /// The job settings.
    #[command(flatten)]
    pub slurm: SlurmOpts,
    /// Precision and output directories.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `bloomlab reproduce`.
#[derive(Args, Debug)]
pub struct ReproduceArgs {
    /// The experiments and where their outputs go.
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// Write (with --submit: submit) a Slurm job array and merge job per
    /// experiment instead of running here; needs --shards
    #[arg(long, requires = "shards")]
    pub slurm: bool,
    /// The Slurm job settings (with --slurm).
    #[command(flatten)]
    pub jobs: SlurmOpts,
}

/// `bloomlab reproduce` (and the experiment set of `check`).
#[derive(Args, Debug)]
pub struct SuiteArgs {
    /// Precision and output directories (check: the baselines' directory).
    #[command(flatten)]
    pub output: OutputArgs,
    /// Directory of experiment specs
    #[arg(long, default_value = "experiments")]
    pub experiments: PathBuf,
    /// Refuse a run whose estimated peak memory passes this many GiB
    /// [default: the memory the system reports available]
    #[arg(long)]
    pub memory_limit: Option<f64>,
    /// Worker threads (each spec's `threads`, else one per core; the numbers
    /// do not depend on it, only the timing columns' noise does)
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
}

/// `bloomlab check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The experiments and where their outputs go.
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// Family-wise significance of the statistical comparisons
    #[arg(long, default_value_t = 0.01)]
    pub alpha: f64,
    /// Rerun at full precision (about an hour on 2 cores); without it, check
    /// needs --quick
    #[arg(long, conflicts_with = "quick")]
    pub full: bool,
    /// Largest acceptable growth of a design's speed ratio (ns/op over the run's median);
    /// 3 by default because timings on a shared 2-core machine move by up to 1.5x
    #[arg(long, default_value_t = 3.0)]
    pub speed_tolerance: f64,
    /// Also write the check as an HTML page, DIR/index.html: what moved,
    /// baseline beside the new figure, a chart per moved column, the power
    /// (written whether the check passes or fails)
    #[arg(long, value_name = "DIR")]
    pub report: Option<PathBuf>,
}

/// `bloomlab bench-report`.
#[derive(Args, Debug)]
pub struct BenchReportArgs {
    /// Criterion's output directory
    #[arg(long, default_value = "target/criterion")]
    pub criterion_dir: PathBuf,
    /// Directory for bench_ops.csv and bench_ops.md
    #[arg(long, default_value = "results")]
    pub results_dir: PathBuf,
    /// Directory for the charts
    #[arg(long, default_value = "plots")]
    pub plots_dir: PathBuf,
    /// Criterion's output of an earlier run (a copy of target/criterion):
    /// adds the targets in both runs and the spread between them
    #[arg(long)]
    pub first_run: Option<PathBuf>,
}

/// `bloomlab report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// The experiment specs
    #[arg(long, default_value = "experiments")]
    pub experiments_dir: PathBuf,
    /// Their results (CSV; markdown of the benchmarks and measured plans)
    #[arg(long, default_value = "results")]
    pub results_dir: PathBuf,
    /// Their charts (SVG)
    #[arg(long, default_value = "plots")]
    pub plots_dir: PathBuf,
    /// The docs pages to link (those naming an experiment's spec)
    #[arg(long, default_value = "docs")]
    pub docs_dir: PathBuf,
    /// The site's directory (index.html and a page per experiment)
    #[arg(long, default_value = "target/report")]
    pub out: PathBuf,
}

/// `bloomlab designs`.
#[derive(Args, Debug)]
pub struct DesignsArgs {
    /// Print one JSON object
    #[arg(long)]
    pub json: bool,
}

/// The flags of `bloomlab theory <design>` beside the design's parameters.
#[derive(Args, Debug)]
pub struct TheoryFlags {
    /// Print one JSON object
    #[arg(long)]
    pub json: bool,
}

/// The flags of `bloomlab measure <design>` beside the design's parameters:
/// the one-point spec's seed, precision and workload.
#[derive(Args, Debug)]
pub struct MeasureFlags {
    /// Seed (the spec's `seed`)
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Measurement rounds (the spec's `measure.rounds`)
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    pub rounds: u64,
    /// FPR queries per phase kind (default: sized to expect 4000 false positives)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub queries: Option<u64>,
    /// Keys from a trace file instead of distinct keys.
    #[command(flatten)]
    pub trace: TraceArgs,
    /// Insert keys drawn from a Zipf law with this exponent (default: distinct keys)
    #[arg(long, conflicts_with = "trace")]
    pub zipf: Option<f64>,
    /// Universe of the Zipf stream
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub universe: u64,
    /// Query workload: `adversarial` replays every false positive it finds and
    /// reports the sustained FPR instead of the usual figures
    #[arg(long, value_parser = ["adversarial"])]
    pub workload: Option<String>,
    /// Adversarial workload: every N-th query replays a found false positive (0: never)
    #[arg(long, default_value_t = 1)]
    pub replay_every: u64,
    /// Adversarial workload: insertions between consecutive queries (0: the filter holds still)
    #[arg(long, default_value_t = 0.0)]
    pub inserts_per_query: f64,
    /// Adversarial workload: queries in the attack
    #[arg(long, default_value_t = 200_000)]
    pub attack_queries: u64,
    /// Adversarial workload: fresh queries from this file, one key per line, in order
    #[arg(long)]
    pub query_trace: Option<PathBuf>,
    /// Refuse a point whose estimated peak memory passes this many GiB
    /// [default: the memory the system reports available]
    #[arg(long)]
    pub memory_limit: Option<f64>,
    /// Print one JSON object
    #[arg(long)]
    pub json: bool,
}

/// `bloomlab peers apbf`.
#[derive(Args, Debug)]
pub struct PeersApbfArgs {
    /// The peer whose terms the configuration is in
    #[arg(long, value_parser = ["dcrd", "crowdstrike"], default_value = "dcrd")]
    pub convention: String,
    /// The capacity the peer is asked for (dcrd: NewFilter / NewFilterKL)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1u64 << 40))]
    pub capacity: Option<u64>,
    /// Target FPR (dcrd NewFilter: picks k and l)
    #[arg(long)]
    pub fpr: Option<f64>,
    /// Slices written per insertion
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub k: Option<u32>,
    /// Extra slices
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub l: Option<u32>,
    /// Generation size (crowdstrike: New(k, l, g))
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1u64 << 36))]
    pub g: Option<u64>,
    /// Print one JSON object
    #[arg(long)]
    pub json: bool,
}

/// `bloomlab peers stable`.
#[derive(Args, Debug)]
pub struct PeersStableArgs {
    /// Cells
    #[arg(long, value_parser = clap::value_parser!(u64).range(2..=1u64 << 36))]
    pub m: u64,
    /// Bits per cell
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=8))]
    pub d: u32,
    /// Target stable FPR, in (0, 1)
    #[arg(long)]
    pub fpr: f64,
    /// Print one JSON object
    #[arg(long)]
    pub json: bool,
}
