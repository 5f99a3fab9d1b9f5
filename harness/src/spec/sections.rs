//! The `[workload]`, `[measure]` and `[adversary]` sections of a spec, each
//! with its one validation.

use serde::Deserialize;
use std::path::PathBuf;

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
    /// Independent attacks per point, each on a fresh copy of the design
    /// with its own random stream. With 2 or more, the sustained FPR is
    /// their mean and its interval comes from their spread (Student-t),
    /// which holds the variation between attacks that one attack's binomial
    /// interval misses; with 1, the interval is that binomial one.
    pub runs: u64,
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
            runs: 1,
        }
    }
}

impl WorkloadSpec {
    /// A trace workload of `path` in the format the fields describe.
    pub fn trace(
        path: PathBuf,
        fields: &crate::trace::FormatFields,
    ) -> anyhow::Result<WorkloadSpec> {
        Ok(WorkloadSpec::Trace(crate::trace::TraceSource::new(
            path, fields, None,
        )?))
    }

    /// The trace file and its format, for a trace workload.
    pub fn trace_source(&self) -> Option<&crate::trace::TraceSource> {
        match self {
            WorkloadSpec::Trace(source) => Some(source),
            _ => None,
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
    /// Item batches (Clock-sketch's "consecutive sequence of identical items
    /// that are close in time"): `concurrent` flows are open at once, each
    /// arrival is the next item of one of them chosen uniformly (so a
    /// batch's items are `concurrent` arrivals apart on average), and a
    /// flow ends after a geometric number of items of mean `mean_run`, its
    /// slot taken by a fresh key that no flow had before.
    Batch {
        /// Flows open at once, 1 ..= 2^24.
        concurrent: u64,
        /// Mean items per batch, >= 1.
        mean_run: f64,
    },
    /// The keys of a file, replayed cyclically if the experiment needs more
    /// insertions than the file has keys: one per line (default), a CSV
    /// column, or a packet capture's flows (see [`crate::trace`]). Relative
    /// paths resolve against the current directory. The spec writes `path`,
    /// `format` ("lines", "csv" or "pcap"), `key` (pcap: "five_tuple",
    /// "src_ip", "dst_ip" or "src_dst"), `column` (csv: the key's column by
    /// its header name) and `time_column` (csv: times in seconds, for
    /// `[time.arrivals] kind = "trace"`); they are typed into one
    /// [`TraceSource`](crate::trace::TraceSource) when the spec is read.
    Trace(crate::trace::TraceSource),
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
    /// The `speed` metric also times a plain Bloom filter of the same
    /// memory (its best k for the window), interleaved with the design in
    /// eight chunks per operation kind, and reports the ratios
    /// (`*_vs_bloom`): speed comparable across runs on a noisy machine.
    pub speed_reference: bool,
    /// Insertions measured one by one for the `tail` metric.
    pub tail_ops: u64,
    /// Checkpoints of the convergence curve.
    pub convergence_points: u64,
    /// FPR queries per run and checkpoint of the convergence curve.
    pub convergence_queries: u64,
    /// Arrivals per round of the summary metrics, each queried on arrival
    /// for `count` (0 = the window W).
    pub arrivals: u64,
    /// The `seen` metric: insertions of its stream.
    pub seen_length: u64,
    /// The `seen` metric: insertions between samples.
    pub seen_every: u64,
    /// The `seen` metric: samples only after this insertion (0 = the
    /// window).
    pub seen_start: u64,
    /// The `seen` metric: never-inserted keys queried at each sample (the
    /// Half Sliding Sketch's false positives; 0: none).
    pub seen_negatives: u64,
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
            speed_reference: false,
            tail_ops: 1_000_000,
            convergence_points: 30,
            convergence_queries: 2000,
            arrivals: 0,
            seen_length: 1_000_000,
            seen_every: 7331,
            seen_start: 0,
            seen_negatives: 0,
        }
    }
}

impl MeasureSpec {
    /// The settings at the chosen precision: [`MeasureSpec::quick`] or these.
    pub fn at(&self, quick: bool) -> MeasureSpec {
        if quick {
            self.quick()
        } else {
            self.clone()
        }
    }

    /// The `--quick` variant: a fifth of the rounds, a tenth of the FPR queries.
    pub fn quick(&self) -> MeasureSpec {
        MeasureSpec {
            rounds: (self.rounds / 5).max(10),
            fpr_positives: self.fpr_positives / 10.0,
            min_fpr_queries: self.min_fpr_queries / 10,
            max_fpr_queries: self.max_fpr_queries / 10,
            // a fifth of the stream, but at least one sample past seen_start
            seen_length: (self.seen_length / 5).max(1).max(
                self.seen_length
                    .min(self.seen_start.saturating_add(self.seen_every)),
            ),
            // speed keeps its full count: short timings are too noisy to
            // compare as ratios in `check --quick`
            ..self.clone()
        }
    }
}

impl AdversarySpec {
    /// The `--quick` attack: at least 5 independent runs (so that the
    /// check's interval of the sustained FPR holds the spread between
    /// attacks), each a fifth as long, for about the same work.
    pub fn quick(&self) -> AdversarySpec {
        let runs = self.runs.max(5);
        let queries = (self.queries * self.runs / runs).max(self.windows);
        AdversarySpec {
            runs,
            queries,
            ..self.clone()
        }
    }

    /// The one validation of an attack, wherever it comes from; `name`
    /// says how the caller's input names a field (`adversary.queries` in a
    /// spec, `--attack-queries` on the command line, `parameter queries` in
    /// a sweep point).
    pub fn check(&self, name: &dyn Fn(&'static str) -> String) -> anyhow::Result<()> {
        if self.queries == 0 || self.windows == 0 || self.windows > self.queries {
            return Err(anyhow::anyhow!(
                "{} = {} and {} = {} must satisfy 1 <= windows <= queries",
                name("queries"),
                self.queries,
                name("windows"),
                self.windows
            ));
        }
        if self.runs == 0 || self.runs > 1000 {
            return Err(anyhow::anyhow!(
                "{} = {} must be between 1 and 1000",
                name("runs"),
                self.runs
            ));
        }
        if self.query_trace.is_some() && self.pool > 0 {
            return Err(anyhow::anyhow!(
                "{} and {} exclude each other",
                name("query_trace"),
                name("pool")
            ));
        }
        for (field, x) in [
            ("zipf", self.zipf),
            ("inserts_per_query", self.inserts_per_query),
        ] {
            if !(x >= 0.0 && x.is_finite()) {
                return Err(anyhow::anyhow!(
                    "{} = {x} must be finite and >= 0",
                    name(field)
                ));
            }
        }
        Ok(())
    }
}

impl WorkloadSpec {
    /// Checks a Zipf law's universe and exponent, a batch stream's flows
    /// and run length, and that a time column goes with a CSV trace.
    pub fn check(&self) -> anyhow::Result<()> {
        if let WorkloadSpec::Batch {
            concurrent,
            mean_run,
        } = *self
        {
            if !((1..=1 << 24).contains(&concurrent) && mean_run >= 1.0 && mean_run.is_finite()) {
                return Err(anyhow::anyhow!(
                    "batch workload needs 1 <= concurrent <= 2^24 and a finite mean_run >= 1, got {concurrent} and {mean_run}"
                ));
            }
        }
        if let WorkloadSpec::Zipf { universe, exponent } = *self {
            if universe == 0 || !(exponent >= 0.0 && exponent.is_finite()) {
                return Err(anyhow::anyhow!(
                    "zipf workload needs universe >= 1 and a finite exponent >= 0, got {universe} and {exponent}"
                ));
            }
        }
        Ok(())
    }
}

impl MeasureSpec {
    /// Checks the precision knobs.
    pub fn check(&self) -> anyhow::Result<()> {
        if self.rounds == 0 {
            return Err(anyhow::anyhow!("measure.rounds must be at least 1"));
        }
        if !(self.ci_level > 0.0 && self.ci_level < 1.0) {
            return Err(anyhow::anyhow!(
                "measure.ci_level = {} must be in (0, 1)",
                self.ci_level
            ));
        }
        if self.min_fpr_queries > self.max_fpr_queries {
            return Err(anyhow::anyhow!(
                "measure.min_fpr_queries exceeds measure.max_fpr_queries"
            ));
        }
        let positive = self.fpr_positives.is_finite() && self.fpr_positives > 0.0;
        if !(positive && self.margin.is_finite() && self.margin >= 0.0) {
            return Err(anyhow::anyhow!(
                "measure.fpr_positives must be a finite number > 0 and measure.margin a finite number >= 0"
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::MeasureSpec;

    /// `--quick` takes a fifth of the seen stream, but keeps one sample
    /// past `seen_start` (the HSS claim samples from insertion 500,000 of
    /// 2.5 million: a fifth had none).
    #[test]
    fn quick_keeps_a_seen_sample() {
        let m = |length, start, every| MeasureSpec {
            seen_length: length,
            seen_start: start,
            seen_every: every,
            ..MeasureSpec::default()
        };
        assert_eq!(m(1_000_000, 0, 7331).quick().seen_length, 200_000);
        assert_eq!(m(2_500_000, 499_999, 100_000).quick().seen_length, 599_999);
        assert_eq!(m(300, 10_000, 7331).quick().seen_length, 300);
    }
}
