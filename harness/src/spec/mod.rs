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

mod arrivals;
mod plot;
mod read;
mod sections;
mod time;

pub use arrivals::{ArrivalSpec, CycleSpec, NS};
pub use plot::{Adoption, EqualAt, PlotKind, PlotSpec};
pub use read::{read_limited, read_text, MAX_SPEC_BYTES};
pub use sections::{AdversarySpec, MeasureSpec, WorkloadSpec};
pub use time::{point_time, TimeSpec, PARAM_PREFIX};

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

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
    /// Theory figures of the designs written as columns of their own (under
    /// their names, blank where a design has no such figure), beyond the
    /// `*_theory` columns the metrics write: e.g. the APBF's
    /// `efficiency_paper_formula`. `bloomlab theory DESIGN --json` lists a
    /// design's figures.
    #[serde(default)]
    pub theory_columns: Vec<String>,
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
    /// The arrival process and precision of the `timeline` metric.
    #[serde(default)]
    pub time: TimeSpec,
}

/// The most points one spec may expand to: each is built and checked before
/// the run starts, and each becomes a row.
pub const MAX_POINTS: usize = 100_000;

fn default_seed() -> u64 {
    1
}
fn default_repeats() -> u32 {
    1
}

/// A measurable figure; each is measured by one pass and defined in its
/// module (`crate::passes`: the table of passes and their metrics).
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
    /// FPR over time and P(yes | age in seconds) under timestamped
    /// arrivals (see `[time]` and `timed/`; written to
    /// `<name>_timeline.csv` and `<name>_age_time.csv`).
    Timeline,
    /// The Sliding Sketches' error rate over every key seen so far (see
    /// `passes::seen`): `seen_fpr`, `seen_fnr`.
    Seen,
    /// The worked example of `docs/extending.md` ("adding a metric"): each
    /// of `rounds` fresh keys inserted into a fresh copy of the design and
    /// queried at once. Compiled only in the crate's tests.
    #[cfg(test)]
    Example,
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

impl SweepSpec {
    /// Checks block `n` (from 1): its rounds, and every value finite and
    /// every grid axis non-empty.
    fn check(&self, n: usize) -> anyhow::Result<()> {
        if self.rounds == Some(0) {
            return Err(anyhow::anyhow!(
                "sweep {} ({}): rounds must be at least 1",
                n,
                self.design
            ));
        }
        let given = self.points.iter().flatten().chain(
            self.grid
                .iter()
                .flat_map(|(k, vs)| vs.iter().map(move |v| (k, v))),
        );
        for (k, v) in given {
            if !v.is_finite() {
                return Err(anyhow::anyhow!(
                    "sweep {} ({}): {k} = {v} must be a finite number",
                    n,
                    self.design
                ));
            }
        }
        for (k, v) in &self.grid {
            if v.is_empty() {
                return Err(anyhow::anyhow!(
                    "sweep {} ({}): grid {k} is empty",
                    n,
                    self.design
                ));
            }
        }
        Ok(())
    }
}

fn yes() -> bool {
    true
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
    pub fn load(path: &Path) -> anyhow::Result<Spec> {
        let text = read_text(path)?;
        Spec::parse(&text).map_err(|e| anyhow::anyhow!("spec {}: {e}", path.display()))
    }

    /// Parses and validates spec text. Errors are one line.
    pub fn parse(text: &str) -> anyhow::Result<Spec> {
        let spec: Spec = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| format!("line {}: ", text[..s.start].lines().count().max(1)))
                .unwrap_or_default();
            anyhow::anyhow!("{line}{}", e.message().trim().replace('\n', " "))
        })?;
        spec.validate()?;
        Ok(spec)
    }

    /// Checks what deserializing cannot: names, counts, ranges, and each
    /// section through its own check.
    fn validate(&self) -> anyhow::Result<()> {
        if self.name.is_empty()
            || !self
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(anyhow::anyhow!(
                "name {:?} must be non-empty and use only letters, digits, _ and -",
                self.name
            ));
        }
        if self.metrics.is_empty() {
            return Err(anyhow::anyhow!("metrics is empty: name at least one"));
        }
        if self.sweep.is_empty() {
            return Err(anyhow::anyhow!("no [[sweep]] block: nothing to run"));
        }
        if self.repeats == 0 {
            return Err(anyhow::anyhow!("repeats must be at least 1"));
        }
        if self.threads == Some(0) {
            return Err(anyhow::anyhow!("threads must be at least 1"));
        }
        self.measure.check()?;
        self.workload.check()?;
        self.adversary.check(&|f| format!("adversary.{f}"))?;
        self.time.check()?;
        self.check_columns()?;
        let mut files = std::collections::BTreeSet::new();
        for (i, p) in self.plot.iter().enumerate() {
            p.check(i + 1, &mut files)?;
        }
        for (i, s) in self.sweep.iter().enumerate() {
            s.check(i + 1)?;
        }
        Ok(())
    }

    /// The number of points the grid expands to (before `quick` drops
    /// blocks), computed without expanding it.
    pub fn point_count(&self) -> u128 {
        let per_repeat: u128 = self
            .sweep
            .iter()
            .map(|b| {
                b.grid.values().fold(b.points.len().max(1) as u128, |n, v| {
                    n.saturating_mul(v.len() as u128)
                })
            })
            .fold(0u128, |a, n| a.saturating_add(n));
        per_repeat.saturating_mul(self.repeats as u128)
    }

    /// Expands every sweep block into points: for each repeat, for each block,
    /// each explicit point (or one empty point) crossed with the grid in
    /// lexicographic parameter order. The order is the seed order. With
    /// `quick`, blocks marked `quick = false` are left out (the others keep
    /// their indices and seeds).
    pub fn points(&self, quick: bool) -> anyhow::Result<Vec<Point>> {
        let count = self.point_count();
        if count > MAX_POINTS as u128 {
            return Err(anyhow::anyhow!(
                "{} points (repeats x blocks x grid) is above the limit of {MAX_POINTS}: split the spec or coarsen its grid",
                count
            ));
        }
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
                                return Err(anyhow::anyhow!(
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

impl Spec {
    /// Every column the spec names (its table's, its theory columns, its
    /// charts' axes, series and filters) is in the registry of columns
    /// (`metrics::columns`), as a column, a part of one or a target: a
    /// misspelt name is refused here rather than giving an empty column.
    fn check_columns(&self) -> anyhow::Result<()> {
        let table = self
            .table_columns
            .iter()
            .flatten()
            .map(|c| ("table_columns", c));
        let theory = self.theory_columns.iter().map(|c| ("theory_columns", c));
        let plots = self.plot.iter().flat_map(|p| {
            [&p.x, &p.y, &p.series, &p.reference]
                .into_iter()
                .flatten()
                .chain(p.filter.keys())
                .map(|c| ("plot", c))
        });
        for (field, c) in table.chain(theory).chain(plots) {
            if crate::metrics::columns::resolve(c).is_none() {
                return Err(anyhow::anyhow!(
                    "{field}: no column {c:?} (every column is declared in harness/src/metrics/columns/col.rs)"
                ));
            }
        }
        if let Some(c) = self
            .theory_columns
            .iter()
            .find(|c| crate::metrics::columns::lookup(c).is_none())
        {
            return Err(anyhow::anyhow!(
                "theory_columns: {c:?} is a part of a column, not a theory of its own"
            ));
        }
        Ok(())
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
            (
                &(OK.to_string() + "[[plot]]\nkind = \"fpr_vs_theory\"\nfile = \"../../x\"\n"),
                "plain name",
            ),
            (
                &(OK.to_string() + "[[plot]]\nkind = \"fpr_vs_theory\"\nfile = \"/tmp/x\"\n"),
                "plain name",
            ),
            (
                &(OK.to_string()
                    + "[[plot]]\nkind = \"fpr_vs_theory\"\nfile = \"a\"\n[[plot]]\nkind = \"age_profile\"\nfile = \"a\"\n"),
                "earlier plot",
            ),
        ];
        for (text, needle) in cases {
            let e = Spec::parse(text).unwrap_err().to_string();
            assert!(!e.contains('\n'), "multi-line error: {e}");
            assert!(e.contains(needle), "{e:?} should mention {needle}");
        }
    }

    #[test]
    fn point_and_grid_overlap_is_an_error() {
        let s = Spec::parse(&OK.replace("g = [10, 20]", "k = [1]")).unwrap();
        assert!(s.points(false).unwrap_err().to_string().contains("both"));
    }
}
