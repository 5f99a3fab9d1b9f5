//! Experiment specs: one TOML file per reproduced table, figure or comparison.
//!
//! ```toml
//! name = "apbf_table"              # outputs results/apbf_table.{csv,md}, plots/apbf_table.svg
//! description = "..."
//! seed = 1                         # every random choice derives from it and the point index
//! repeats = 1                      # independent seeds per grid point
//! metrics = ["fpr", "fnr", "accesses", "npws", "memory", "speed"]   # and "profile"
//!
//! [workload]                       # kind = "distinct" | "zipf" | "trace"
//! kind = "distinct"
//!
//! [measure]                        # precision knobs, all optional
//! rounds = 200
//!
//! [[sweep]]                        # one or more; points x grid (cartesian) per block
//! design = "apbf"
//! points = [{ k = 6, l = 14 }]
//! grid = { g = [1000] }
//!
//! [[plot]]
//! kind = "fpr_vs_theory"           # or "age_profile"
//! ```

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A whole experiment.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// Output base name: `results/<name>.csv`, `plots/<name>.svg`.
    pub name: String,
    /// What the experiment reproduces, in words.
    #[serde(default)]
    pub description: String,
    /// Master seed.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Independent repetitions (seeds) of every grid point.
    #[serde(default = "default_repeats")]
    pub repeats: u32,
    /// Which metrics to measure.
    pub metrics: Vec<Metric>,
    /// The key stream.
    #[serde(default)]
    pub workload: WorkloadSpec,
    /// Precision knobs.
    #[serde(default)]
    pub measure: MeasureSpec,
    /// Grid blocks.
    pub sweep: Vec<SweepSpec>,
    /// Charts to render.
    #[serde(default)]
    pub plot: Vec<PlotSpec>,
    /// Columns of the markdown table (defaults to a standard selection).
    #[serde(default)]
    pub table_columns: Option<Vec<String>>,
    /// Worker threads unless `--threads` says otherwise (default: one per
    /// core). Speed experiments say 1, so that no two points share the caches
    /// and the memory bus while they are timed.
    #[serde(default)]
    pub threads: Option<usize>,
    /// Render the markdown as adoption tables: one table per group, one row
    /// per design, the best value of each listed column in bold.
    #[serde(default)]
    pub adoption: Option<Adoption>,
    /// Add a table comparing the designs at equal values of a measured
    /// column (memory at equal measured FPR, error at equal memory).
    #[serde(default)]
    pub compare_at: Option<EqualAt>,
    /// The adaptive query workload of the `adversary` metric.
    #[serde(default)]
    pub adversary: AdversarySpec,
}

/// How to compare designs at equal measured `x`: for every row of the
/// reference design, every other design's `y` interpolated at that row's
/// `x`, log-linearly between the two of its rows whose `x` bracket it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EqualAt {
    /// The design whose rows give the `x` values.
    pub reference: String,
    /// The measured column held equal (e.g. `fpr`).
    pub x: String,
    /// The column compared (e.g. `bits_per_element`).
    pub y: String,
    /// One comparison per distinct combination of these columns.
    #[serde(default)]
    pub group_by: Vec<String>,
}

/// How to render adoption tables.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Adoption {
    /// One table per distinct combination of these columns.
    pub group_by: Vec<String>,
    /// Columns where the smallest value is best (marked in bold).
    #[serde(default)]
    pub lower_is_better: Vec<String>,
}

fn default_seed() -> u64 {
    1
}
fn default_repeats() -> u32 {
    1
}

/// A measurable figure; see `metrics.rs` for the definitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// FPR on never-inserted keys at the worst phase and over all phases, and
    /// on keys older than w + s.
    Fpr,
    /// FNR on keys of age <= w.
    Fnr,
    /// Probes (slice accesses) of negative queries.
    Accesses,
    /// PWS / NPWS, peak and phase-averaged.
    Npws,
    /// memory_bits and bits per window element.
    Memory,
    /// ns/op for insert, positive and negative query.
    Speed,
    /// Per-insertion slot reads and time: mean, p99, p99.9, max.
    Tail,
    /// ns per negative query through `contains_many` (batched, misses
    /// overlapped), beside the one-at-a-time figure of `speed`.
    Batched,
    /// P(yes | age) over ages 1 ..= w + s + margin (written to `<name>_profile.csv`).
    Profile,
    /// Fraction of zero cells (Stable Bloom).
    ZeroFraction,
    /// Zero fraction and FPR from empty filters over time (written to
    /// `<name>_convergence.csv`).
    Convergence,
    /// On-arrival RMSE of per-flow frequency estimates (summaries).
    Count,
    /// Distinct-count estimates and their relative error (summaries).
    Distinct,
    /// Window entropy estimates and their error (summaries).
    Entropy,
    /// FPR under an adaptive query workload that replays the false
    /// positives it finds (see `[adversary]` and `adversary.rs`).
    Adversary,
}

/// The adaptive query workload of the `adversary` metric.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct AdversarySpec {
    /// Queries in the attack.
    pub queries: u64,
    /// Consecutive windows the queries are cut into; the FPR of the last is
    /// the sustained FPR.
    pub windows: u64,
    /// Every `replay_every`-th query replays a false positive found so far
    /// (round robin); 0 never replays.
    pub replay_every: u64,
    /// Fresh queries are drawn from a fixed pool of this many non-members
    /// (so they repeat); 0 draws a new non-member every time.
    pub pool: u64,
    /// Zipf exponent of the draws from the pool (0 = uniform).
    pub zipf: f64,
    /// Insertions of the key stream between consecutive queries (may be
    /// fractional); 0 holds the filter still during the attack.
    pub inserts_per_query: f64,
    /// Fresh queries taken in order (from a random line, cycling) from this trace file, one key
    /// per line, hashed like a trace workload; keys among the last w + s
    /// insertions are skipped (not non-members). Excludes `pool`.
    pub query_trace: Option<std::path::PathBuf>,
}

impl Default for AdversarySpec {
    fn default() -> Self {
        AdversarySpec {
            queries: 200_000,
            windows: 20,
            replay_every: 1,
            pool: 0,
            zipf: 0.0,
            inserts_per_query: 0.0,
            query_trace: None,
        }
    }
}

/// The key stream of an experiment.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum WorkloadSpec {
    /// Every insertion a fresh key.
    #[default]
    Distinct,
    /// Keys drawn i.i.d. from a Zipf law over `universe` ranks.
    Zipf {
        /// Number of distinct keys.
        universe: u64,
        /// Zipf exponent s >= 0 (0 = uniform).
        exponent: f64,
    },
    /// One key per line of a text file, replayed cyclically if the experiment
    /// needs more insertions than the file has lines. Relative paths resolve
    /// against the current directory.
    Trace {
        /// The file.
        path: PathBuf,
    },
}

/// Precision and cost knobs of the measurement.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct MeasureSpec {
    /// Measurement rounds; each measures at the worst phase and at one
    /// uniformly random phase, then advances the filter by w + s insertions
    /// (rounded up to whole periods) so that rounds are independent.
    pub rounds: u64,
    /// FPR queries are sized to expect this many false positives at the
    /// theoretical rate, within [min_fpr_queries, max_fpr_queries].
    pub fpr_positives: f64,
    /// Lower bound on FPR queries per phase kind.
    pub min_fpr_queries: u64,
    /// Upper bound on FPR queries per phase kind.
    pub max_fpr_queries: u64,
    /// Random in-window (and expired) ages checked per round.
    pub age_samples: u64,
    /// Confidence level of every interval.
    pub ci_level: f64,
    /// Age-profile bucket width in insertions (0 = g/8 or 1).
    pub bucket: u64,
    /// Ages beyond w + s measured, as a fraction of w (at least one period).
    pub margin: f64,
    /// Operations timed per speed figure.
    pub speed_ops: u64,
    /// Insertions measured one by one for the `tail` metric.
    pub tail_ops: u64,
    /// Checkpoints of the convergence curve.
    pub convergence_points: u64,
    /// FPR queries per run and checkpoint of the convergence curve.
    pub convergence_queries: u64,
    /// Arrivals per round of the summary metrics, each queried on arrival
    /// for `count` (0 = the window W).
    pub arrivals: u64,
}

impl Default for MeasureSpec {
    fn default() -> Self {
        MeasureSpec {
            rounds: 200,
            fpr_positives: 4000.0,
            min_fpr_queries: 100_000,
            max_fpr_queries: 20_000_000,
            age_samples: 256,
            ci_level: 0.99,
            bucket: 0,
            margin: 0.25,
            speed_ops: 200_000,
            tail_ops: 1_000_000,
            convergence_points: 30,
            convergence_queries: 2000,
            arrivals: 0,
        }
    }
}

impl MeasureSpec {
    /// The `--quick` variant: a fifth of the rounds, a tenth of the FPR queries.
    pub fn quick(&self) -> MeasureSpec {
        MeasureSpec {
            rounds: (self.rounds / 5).max(10),
            fpr_positives: self.fpr_positives / 10.0,
            min_fpr_queries: self.min_fpr_queries / 10,
            max_fpr_queries: self.max_fpr_queries / 10,
            // speed keeps its full count: short timings are too noisy to
            // compare as ratios in `check --quick`
            ..self.clone()
        }
    }
}

/// One block of the grid: `points` (explicit parameter sets) crossed with the
/// cartesian product of `grid`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    /// Design name (`apbf`).
    pub design: String,
    /// Explicit parameter sets.
    #[serde(default)]
    pub points: Vec<BTreeMap<String, f64>>,
    /// Parameter -> values, crossed.
    #[serde(default)]
    pub grid: BTreeMap<String, Vec<f64>>,
    /// Measurement rounds for this block (large windows need fewer).
    #[serde(default)]
    pub rounds: Option<u64>,
    /// Whether `--quick` runs include this block (default true).
    #[serde(default = "yes")]
    pub quick: bool,
}

fn yes() -> bool {
    true
}

/// A chart to render.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlotSpec {
    /// What to draw.
    pub kind: PlotKind,
    /// Output file stem (defaults to the experiment name, suffixed when there
    /// are several plots).
    #[serde(default)]
    pub file: Option<String>,
    /// Logarithmic y axis (age_profile default true, xy default false).
    #[serde(default)]
    pub log_y: Option<bool>,
    /// xy: column on the x axis.
    #[serde(default)]
    pub x: Option<String>,
    /// xy: column on the y axis.
    #[serde(default)]
    pub y: Option<String>,
    /// xy: one line per value of this column (default "design").
    #[serde(default)]
    pub series: Option<String>,
    /// xy: only rows whose columns equal these values.
    #[serde(default)]
    pub filter: BTreeMap<String, f64>,
    /// xy: logarithmic x axis.
    #[serde(default)]
    pub log_x: bool,
    /// xy: a reference line; "info_bound" draws y = log2(1/x), the
    /// information-theoretic bits per element at FPR x.
    #[serde(default)]
    pub bound: Option<String>,
    /// xy: a column drawn as a black reference line through its values at
    /// each x (e.g. `space_bound_per_element`, a lower bound that depends on
    /// the row's parameters).
    #[serde(default)]
    pub reference: Option<String>,
    /// xy: chart title (default `"<y> vs <x>"`).
    #[serde(default)]
    pub title: Option<String>,
}

/// Chart kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlotKind {
    /// Measured worst-phase FPR (with CI) against theory, log-log, with the
    /// paper-formula values beside.
    FprVsTheory,
    /// P(yes | age), theory lines and measured points: against age / w when
    /// every design guarantees a window, else against age.
    AgeProfile,
    /// Zero fraction and FPR against insertions from empty, theory lines and
    /// measured points.
    Convergence,
    /// Any two result columns, one line per series (see `x`, `y`, `series`,
    /// `filter`, `log_x`, `log_y`, `bound`).
    Xy,
}

/// One grid point, after expansion.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// Position in the expansion order; seeds derive from it.
    pub index: usize,
    /// Repetition number.
    pub repeat: u32,
    /// Design name.
    pub design: String,
    /// Parameters as given.
    pub params: BTreeMap<String, f64>,
    /// The block's measurement rounds, if it overrides `measure.rounds`.
    pub rounds: Option<u64>,
}

impl Spec {
    /// Reads and validates a spec file. Errors are one line.
    pub fn load(path: &Path) -> Result<Spec, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read spec {}: {e}", path.display()))?;
        Spec::parse(&text).map_err(|e| format!("spec {}: {e}", path.display()))
    }

    /// Parses and validates spec text. Errors are one line.
    pub fn parse(text: &str) -> Result<Spec, String> {
        let spec: Spec = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| format!("line {}: ", text[..s.start].lines().count().max(1)))
                .unwrap_or_default();
            format!("{line}{}", e.message().trim().replace('\n', " "))
        })?;
        spec.validate()?;
        Ok(spec)
    }

    fn validate(&self) -> Result<(), String> {
        if self.name.is_empty()
            || !self
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(format!(
                "name {:?} must be non-empty and use only letters, digits, _ and -",
                self.name
            ));
        }
        if self.metrics.is_empty() {
            return Err("metrics is empty: name at least one".into());
        }
        if self.sweep.is_empty() {
            return Err("no [[sweep]] block: nothing to run".into());
        }
        if self.repeats == 0 {
            return Err("repeats must be at least 1".into());
        }
        if self.threads == Some(0) {
            return Err("threads must be at least 1".into());
        }
        let m = &self.measure;
        if m.rounds == 0 {
            return Err("measure.rounds must be at least 1".into());
        }
        if !(m.ci_level > 0.0 && m.ci_level < 1.0) {
            return Err(format!(
                "measure.ci_level = {} must be in (0, 1)",
                m.ci_level
            ));
        }
        if m.min_fpr_queries > m.max_fpr_queries {
            return Err("measure.min_fpr_queries exceeds measure.max_fpr_queries".into());
        }
        if m.fpr_positives.is_nan() || m.fpr_positives <= 0.0 || m.margin.is_nan() || m.margin < 0.0
        {
            return Err("measure.fpr_positives must be > 0 and measure.margin >= 0".into());
        }
        if let WorkloadSpec::Zipf { universe, exponent } = self.workload {
            if universe == 0 || !(exponent >= 0.0 && exponent.is_finite()) {
                return Err(format!(
                    "zipf workload needs universe >= 1 and a finite exponent >= 0, got {universe} and {exponent}"
                ));
            }
        }
        let a = &self.adversary;
        if a.queries == 0 || a.windows == 0 || a.windows > a.queries {
            return Err(format!(
                "adversary.queries = {} and adversary.windows = {} must satisfy 1 <= windows <= queries",
                a.queries, a.windows
            ));
        }
        if a.query_trace.is_some() && a.pool > 0 {
            return Err("adversary.query_trace and adversary.pool exclude each other".into());
        }
        let finite = |x: f64| x >= 0.0 && x.is_finite();
        if !(finite(a.zipf) && finite(a.inserts_per_query)) {
            return Err(format!(
                "adversary.zipf = {} and adversary.inserts_per_query = {} must be finite and >= 0",
                a.zipf, a.inserts_per_query
            ));
        }
        for (i, p) in self.plot.iter().enumerate() {
            if p.kind == PlotKind::Xy && (p.x.is_none() || p.y.is_none()) {
                return Err(format!("plot {}: kind xy needs x and y", i + 1));
            }
        }
        for (i, s) in self.sweep.iter().enumerate() {
            if s.rounds == Some(0) {
                return Err(format!(
                    "sweep {} ({}): rounds must be at least 1",
                    i + 1,
                    s.design
                ));
            }
            for (k, v) in &s.grid {
                if v.is_empty() {
                    return Err(format!("sweep {} ({}): grid {k} is empty", i + 1, s.design));
                }
            }
        }
        Ok(())
    }

    /// Expands every sweep block into points: for each repeat, for each block,
    /// each explicit point (or one empty point) crossed with the grid in
    /// lexicographic parameter order. The order is the seed order. With
    /// `quick`, blocks marked `quick = false` are left out (the others keep
    /// their indices and seeds).
    pub fn points(&self, quick: bool) -> Result<Vec<Point>, String> {
        let mut out: Vec<(bool, Point)> = Vec::new();
        for repeat in 0..self.repeats {
            for (bi, block) in self.sweep.iter().enumerate() {
                let bases = if block.points.is_empty() {
                    vec![BTreeMap::new()]
                } else {
                    block.points.clone()
                };
                for base in bases {
                    let mut combos = vec![base];
                    for (key, values) in &block.grid {
                        let mut next = Vec::with_capacity(combos.len() * values.len());
                        for c in &combos {
                            if c.contains_key(key) {
                                return Err(format!(
                                    "sweep {} ({}): parameter {key} is both in points and in grid",
                                    bi + 1,
                                    block.design
                                ));
                            }
                            for &v in values {
                                let mut c = c.clone();
                                c.insert(key.clone(), v);
                                next.push(c);
                            }
                        }
                        combos = next;
                    }
                    for params in combos {
                        let index = out.len();
                        let point = Point {
                            index,
                            repeat,
                            design: block.design.clone(),
                            params,
                            rounds: block.rounds,
                        };
                        // Indices (and so seeds) do not depend on `quick`.
                        out.push((block.quick || !quick, point));
                    }
                }
            }
        }
        Ok(out
            .into_iter()
            .filter(|(keep, _)| *keep)
            .map(|(_, p)| p)
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = r#"
name = "t"
metrics = ["fpr"]
[[sweep]]
design = "apbf"
points = [{ k = 3, l = 2 }, { k = 4, l = 3 }]
grid = { g = [10, 20] }
"#;

    #[test]
    fn expands_points_times_grid() {
        let s = Spec::parse(OK).unwrap();
        let p = s.points(false).unwrap();
        assert_eq!(p.len(), 4);
        assert_eq!(p[1].params["g"], 20.0);
        assert_eq!(p[3].params["k"], 4.0);
        assert_eq!(p[3].index, 3);
    }

    #[test]
    fn errors_are_one_line_and_name_the_problem() {
        let cases = [
            ("name = \"t\"\nmetrics = [\"fpr\"]\n", "sweep"),
            (
                &OK.replace("metrics = [\"fpr\"]", "metrics = [\"fpx\"]"),
                "fpx",
            ),
            (
                &OK.replace("name = \"t\"", "name = \"t\"\nbogus = 1"),
                "bogus",
            ),
            (&OK.replace("name = \"t\"", "name = \"a b\""), "name"),
            (
                &(OK.to_string() + "[workload]\nkind = \"zipf\"\nuniverse = 0\nexponent = 1.0\n"),
                "universe",
            ),
            (
                &(OK.to_string() + "[measure]\nci_level = 1.5\n"),
                "ci_level",
            ),
            ("name = [", "line 1"),
        ];
        for (text, needle) in cases {
            let e = Spec::parse(text).unwrap_err();
            assert!(!e.contains('\n'), "multi-line error: {e}");
            assert!(e.contains(needle), "{e:?} should mention {needle}");
        }
    }

    #[test]
    fn point_and_grid_overlap_is_an_error() {
        let s = Spec::parse(&OK.replace("g = [10, 20]", "k = [1]")).unwrap();
        assert!(s.points(false).unwrap_err().contains("both"));
    }
}
