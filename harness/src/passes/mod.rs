//! The measurement passes: each one a [`Pass`], each in its own module
//! with the metrics it measures and their columns documented there.
//!
//! | pass | module | metrics |
//! |---|---|---|
//! | membership | [`membership`] | `fpr`, `fnr`, `zero_fraction`, `accesses`, `npws`, `profile`, `convergence`, `speed`, `batched`, `tail` (and `memory`) |
//! | summary | [`summary`] | `count`, `distinct`, `entropy` |
//! | adversary | [`adversary`] | `adversary` |
//! | time | [`time`] | `timeline` |
//! | seen | [`seen`] | `seen` (the Sliding Sketches' error definition) |
//!
//! A pass says which metrics it serves, which designs take it, what it
//! refuses before a run starts ([`Pass::check`]), what it will do at a point
//! ([`Pass::plan`]: its insertions, queries and peak bytes) and how it runs
//! ([`Pass::run`], returning a row and typed side tables). A point's
//! [`PointPlan`] is made once, when the run is prepared, from the plans of
//! the passes it runs: the shard weights, the work limit and the memory
//! budget all read it, and the passes run from it, so the three cannot
//! drift apart. `memory` is reported by the first pass a point runs.

pub mod adversary;
#[cfg(test)]
mod example;
pub mod fitted;
pub mod membership;
pub mod seen;
pub mod speed;
pub mod summary;
pub mod time;

use crate::designs::{self, Built, Params};
use crate::metrics::columns::col;
use crate::metrics::{Row, TableKind};
use crate::spec::{AdversarySpec, MeasureSpec, Metric, Point, TimeSpec, WorkloadSpec};
use crate::workload::{KeyStream, Trace};
use bloomlab_filters::hash::mix64;
use rand::SeedableRng;
use rand_pcg::Pcg64;
use std::collections::BTreeSet;
use std::sync::Arc;

/// The passes, in the order a point runs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PassKind {
    /// Count-window membership ([`membership`]).
    Membership,
    /// Sliding-window estimates ([`summary`]).
    Summary,
    /// The replaying adversary ([`adversary`]).
    Adversary,
    /// Time windows ([`time`]).
    Time,
    /// The Sliding Sketches' error rate ([`seen`]).
    Seen,
    /// The worked example of `docs/extending.md` ("adding a metric"),
    /// compiled only in the crate's tests.
    #[cfg(test)]
    Example,
}

impl PassKind {
    /// Every pass, in run order.
    #[cfg(not(test))]
    pub const ALL: &'static [PassKind] = &[
        PassKind::Membership,
        PassKind::Summary,
        PassKind::Adversary,
        PassKind::Time,
        PassKind::Seen,
    ];
    /// Every pass, in run order, and the example.
    #[cfg(test)]
    pub const ALL: &'static [PassKind] = &[
        PassKind::Membership,
        PassKind::Summary,
        PassKind::Adversary,
        PassKind::Time,
        PassKind::Seen,
        PassKind::Example,
    ];

    /// The pass itself.
    pub fn pass(self) -> &'static dyn Pass {
        match self {
            PassKind::Membership => &membership::MembershipPass,
            PassKind::Summary => &summary::SummaryPass,
            PassKind::Adversary => &adversary::AdversaryPass,
            PassKind::Time => &time::TimePass,
            PassKind::Seen => &seen::SeenPass,
            #[cfg(test)]
            PassKind::Example => &example::ExamplePass,
        }
    }

    /// The pass that measures `m`; None for `memory`, which the first pass
    /// a point runs reports.
    pub fn of(m: Metric) -> Option<PassKind> {
        PassKind::ALL
            .iter()
            .copied()
            .find(|k| k.pass().metrics().contains(&m))
    }

    /// The passes `metrics` asks for, in run order (`memory` alone: the
    /// membership pass).
    pub fn wanted(metrics: &BTreeSet<Metric>) -> Vec<PassKind> {
        let set: BTreeSet<PassKind> = metrics.iter().filter_map(|&m| PassKind::of(m)).collect();
        if set.is_empty() && metrics.contains(&Metric::Memory) {
            return vec![PassKind::Membership];
        }
        set.into_iter().collect()
    }
}

/// What every pass of one point reads: the spec's settings with the point's
/// own overrides (its workload, rounds, attack and arrival parameters) and
/// the precision (`--quick`) applied.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The spec's metrics.
    pub metrics: BTreeSet<Metric>,
    /// Precision of the membership and summary passes.
    pub measure: MeasureSpec,
    /// The adversary's attack.
    pub attack: AdversarySpec,
    /// The `[time]` section.
    pub time: TimeSpec,
    /// The point's key stream.
    pub workload: WorkloadSpec,
}

impl Settings {
    /// Whether the stream never repeats a key (the history needs no map).
    pub fn distinct(&self) -> bool {
        matches!(self.workload, WorkloadSpec::Distinct)
    }
}

/// What a pass will do at a point.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Work {
    /// Insertions, over all its rounds and copies.
    pub inserts: f64,
    /// Queries.
    pub queries: f64,
    /// Copies of the design the pass holds beside the point's own (a
    /// rebuilt filter, the adversary's fresh one).
    pub copies: u64,
    /// The pass's own structures at its peak, (what, bytes).
    pub bytes: Vec<(&'static str, u64)>,
}

/// A measurement pass.
pub trait Pass: Sync {
    /// The metrics it measures (each documented in the pass's module).
    fn metrics(&self) -> &'static [Metric];
    /// Whether `built` takes the pass (a summary takes no membership pass).
    fn takes(&self, built: &Built) -> bool;
    /// Refuses, before the run starts, settings the pass cannot run at
    /// this point.
    fn check(&self, _built: &Built, _settings: &Settings) -> anyhow::Result<()> {
        Ok(())
    }
    /// Its work at this point: what the shard weights, the work limit and
    /// the memory budget read, from the same scales the run uses.
    fn plan(&self, built: &Built, settings: &Settings) -> Work;
    /// Measures the point.
    fn run(&self, point: &mut PointRun<'_>) -> anyhow::Result<PassOutput>;
}

/// What a pass measured: its columns of the point's row and its side rows,
/// each with its table.
#[derive(Debug, Default)]
pub struct PassOutput {
    /// The pass's columns.
    pub row: Row,
    /// Rows of the side tables (profile, convergence, timeline, age_time).
    pub tables: Vec<(TableKind, Row)>,
}

/// One point's estimated peak memory, by part.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PointBytes {
    /// (what, bytes), largest first.
    pub parts: Vec<(&'static str, u64)>,
}

impl PointBytes {
    /// The whole estimate.
    pub fn total(&self) -> u64 {
        self.parts.iter().fold(0u64, |a, p| a.saturating_add(p.1))
    }

    /// "14.0 GiB age history, 0.8 GiB filter".
    pub fn describe(&self) -> String {
        self.parts
            .iter()
            .filter(|p| p.1 > 0)
            .take(3)
            .map(|(what, b)| format!("{} {what}", crate::resources::gib(*b)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A point ready to measure, made once when the run is prepared: the
/// design's own parameters, the settings its passes read, the passes it
/// runs with their plans, and from them its cost and peak memory.
#[derive(Debug, Clone)]
pub struct PointPlan {
    /// The point (index, design, parameters as the spec gives them).
    pub point: Point,
    /// The design's own parameters (the stream, attack and arrival
    /// parameters taken out).
    pub params: Params,
    /// The design configured from them, typed once when the run was
    /// prepared: the run builds its copies from it.
    pub design: designs::Configured,
    /// What the passes read.
    pub settings: Arc<Settings>,
    /// The passes the point runs, in order, with their work.
    pub passes: Vec<(PassKind, Work)>,
    /// The estimated work in nanoseconds of this repository's machine:
    /// [`base_cost`](Self::base_cost) times the design's fitted factor
    /// ([`fitted::factor`]): shard weights, order of the run, the work
    /// limit and the time estimate.
    pub cost: f64,
    /// The work from the design's cost per operation alone
    /// ([`designs::Design::op_ns`]), what the fitted factors are fitted to.
    pub base_cost: f64,
    /// The estimated peak memory.
    pub bytes: PointBytes,
}

impl PointPlan {
    /// The plan of `point` whose design is `built` (built for planning;
    /// the run builds its own with the point's seed), running those of
    /// `wanted` it takes. Errors are the passes' refusals.
    pub fn new(
        point: Point,
        params: Params,
        design: designs::Configured,
        settings: Arc<Settings>,
        built: &Built,
        wanted: &[PassKind],
    ) -> anyhow::Result<PointPlan> {
        let mut passes = Vec::new();
        for &kind in wanted {
            let pass = kind.pass();
            if pass.takes(built) {
                pass.check(built, &settings)?;
                passes.push((kind, pass.plan(built, &settings)));
            }
        }
        let design_bytes = built
            .filter
            .as_ref()
            .map(|f| f.memory_bits())
            .or_else(|| built.summary.as_ref().map(|s| s.summary_bits()))
            .unwrap_or(0)
            / 8;
        let (ins_ns, query_ns) = designs::lookup(&point.design)?.op_ns();
        let slow = cache_factor(design_bytes);
        let ops = passes.iter().fold(0.0, |a, (_, w)| {
            a + (w.inserts * ins_ns + w.queries * query_ns) * slow
        });
        let copies = 1 + passes.iter().map(|(_, w)| w.copies).max().unwrap_or(0);
        let mut parts = vec![("filter", design_bytes.saturating_mul(copies))];
        parts.extend(passes.iter().flat_map(|(_, w)| w.bytes.iter().copied()));
        parts.sort_by_key(|p| std::cmp::Reverse(p.1));
        let fitted = fitted::factor(&point.design);
        Ok(PointPlan {
            point,
            params,
            design,
            settings,
            passes,
            cost: ops.max(1.0) * fitted,
            base_cost: ops.max(1.0),
            bytes: PointBytes { parts },
        })
    }

    /// Whether the point runs `kind`.
    pub fn runs(&self, kind: PassKind) -> bool {
        self.passes.iter().any(|(k, _)| *k == kind)
    }
}

/// How much slower an operation is on a design of `bytes` than the
/// [`designs::DesignDef::OP_NS`] of a small one: 1 up to 1 MiB (the
/// caches nearest the core), then 0.6 more per doubling, at most 8. Fitted on
/// this repository's 2-core machine (L2 1 MiB per core, L3 32 MiB shared):
/// `measure apbf --window W --fpr 0.01 --rounds 1` gives insertions of 51
/// and 174 ns and queries of 119 and 410 ns at 2.6 and 26 MB (factor 1.9
/// and 3.9 here); `measure sliding_bloom --window 1000000 --fpr 0.01` (3.5
/// MB) ran 2.8 times its unscaled estimate (factor 2.05 here).
pub fn cache_factor(bytes: u64) -> f64 {
    const NEAR: f64 = (1u64 << 20) as f64;
    let over = bytes as f64 / NEAR;
    if over <= 1.0 {
        1.0
    } else {
        (1.0 + 0.6 * over.log2()).min(8.0)
    }
}

#[cfg(test)]
#[test]
fn the_cache_factor_grows_from_one_to_its_cap() {
    assert_eq!(cache_factor(0), 1.0);
    assert_eq!(cache_factor(1 << 20), 1.0);
    let sizes = (20..45).map(|b| 1u64 << b);
    let f: Vec<f64> = sizes.map(cache_factor).collect();
    assert!(f.windows(2).all(|w| w[0] <= w[1]), "{f:?}");
    assert_eq!(cache_factor(u64::MAX), 8.0);
    assert!((cache_factor(26_000_000) - 3.8).abs() < 0.1);
}

/// "point 3 (apbf k=4 l=3)", for messages.
pub fn describe_point(p: &Point) -> String {
    format!(
        "point {} ({} {})",
        p.index,
        p.design,
        p.params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    )
}

/// A point being measured: its plan, its design (built once, with the
/// point's seed), and what its passes share.
pub struct PointRun<'a> {
    /// The plan.
    pub plan: &'a PointPlan,
    /// The point's seed ([`point_seed`]).
    pub seed: u64,
    /// The design; the membership and time passes measure it.
    pub built: Built,
    /// The point's own generator, after the design's seed was drawn from
    /// it: the membership pass takes it.
    pub rng: Option<Pcg64>,
    /// The trace of a trace workload.
    pub trace: Option<&'a Arc<Trace>>,
    /// The adversary's query trace.
    pub query_trace: Option<&'a Trace>,
    /// The point's identifying columns.
    pub id: Row,
    /// Whether the pass running reports `memory`.
    pub reports_memory: bool,
}

impl PointRun<'_> {
    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.plan.settings
    }

    /// A fresh copy of the design seeded with `seed`.
    pub fn rebuild(&self, seed: u64) -> anyhow::Result<Built> {
        self.plan.design.build(seed)
    }

    /// The generator of a pass: its own, so that adding a pass's metrics to
    /// a spec leaves the other passes' numbers unchanged.
    pub fn pass_rng(&self, salt: u64) -> Pcg64 {
        Pcg64::seed_from_u64(mix64(self.seed ^ salt))
    }

    /// The point's key stream, drawn with `rng`.
    pub fn stream(&self, rng: &mut Pcg64) -> KeyStream {
        KeyStream::new(&self.settings().workload, self.trace.cloned(), rng)
    }
}

/// A point's identifying columns without `repeat`: the side tables keep
/// one row per point and key.
pub fn side_id(id: &Row) -> Row {
    Row(id
        .0
        .iter()
        .filter(|(n, _)| n != col::REPEAT.name())
        .cloned()
        .collect())
}

/// The seed of point `index`.
pub fn point_seed(spec_seed: u64, index: usize) -> u64 {
    mix64(spec_seed ^ mix64(index as u64 + 1))
}

/// The lines counted over one filter state's never-inserted keys
/// (`Instrumented::counted_lines`), for the membership and time passes:
/// each key's count added, the state's mean then kept as one sample.
#[derive(Debug, Default)]
pub(crate) struct CountedLines {
    read: u64,
    counted: u64,
}

impl CountedLines {
    /// Counts the lines of a query for `key`, where `f` counts them.
    pub(crate) fn add(&mut self, f: &(dyn bloomlab_filters::Instrumented + Send), key: u64) {
        if let Some((_, l)) = f.counted_lines(key) {
            self.read += l as u64;
            self.counted += 1;
        }
    }

    /// The mean lines of the keys counted (None if none was).
    pub(crate) fn mean(&self) -> Option<f64> {
        (self.counted > 0).then(|| self.read as f64 / self.counted as f64)
    }

    /// Adds this state's mean to `states`, if any key was counted.
    pub(crate) fn finish(self, states: &mut crate::metrics::stats::Welford) {
        if let Some(mean) = self.mean() {
            states.add(mean);
        }
    }
}
