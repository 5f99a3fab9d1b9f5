//! The membership pass's plan for one point: its time scales (horizon,
//! warm-up, spacing between rounds), its queries, and from them the work
//! and the peak memory of the pass. The pass runs this plan, and its
//! [`Work`](crate::passes::Work) (which the point's plan, hence the shard
//! weights and the memory budget, read) is made from it, so that the three
//! cannot drift apart.

use crate::designs::Built;
use crate::metrics::columns::col;
use crate::metrics::{MAP_ENTRY, ROW_BYTES};
use crate::spec::{MeasureSpec, Metric};
use std::collections::BTreeSet;

/// The time scales of one point's measurement, from its geometry and the
/// precision knobs.
pub struct MembershipPlan<'a> {
    pub(crate) metrics: &'a BTreeSet<Metric>,
    pub(crate) spec: &'a MeasureSpec,
    /// Window, slack, period.
    pub(crate) w: u64,
    pub(crate) s: u64,
    pub(crate) period: u64,
    /// Insertions past a multiple of the period to the worst phase.
    pub(crate) worst_phase: u64,
    pub(crate) guaranteed: bool,
    /// Ages profiled, and the expired ages beyond w + s.
    pub(crate) horizon: u64,
    pub(crate) margin: u64,
    /// Insertions before the first round.
    pub(crate) warm: u64,
    /// Insertions from one round's worst phase to the next.
    pub(crate) spacing: u64,
    /// FPR queries per round and phase kind.
    pub(crate) per_round: u64,
    /// Age-profile bucket width.
    pub(crate) bucket: u64,
}

impl<'a> MembershipPlan<'a> {
    /// The plan of `built` measured for `metrics` at precision `spec`.
    pub fn new(built: &Built, metrics: &'a BTreeSet<Metric>, spec: &'a MeasureSpec) -> Self {
        let g = &built.geometry;
        let (w, s) = (g.window, g.slack);
        let period = g.period.max(1);
        let margin = ((w as f64 * spec.margin) as u64).max(period);
        let horizon = g.horizon.unwrap_or(w + s + margin).max(w + s);
        let fpr_queries = {
            let target = built
                .theory
                .get(col::FPR)
                .filter(|&p| p > 0.0)
                .map_or(spec.max_fpr_queries as f64, |p| spec.fpr_positives / p);
            (target as u64).clamp(spec.min_fpr_queries, spec.max_fpr_queries)
        };
        MembershipPlan {
            metrics,
            spec,
            w,
            s,
            period,
            worst_phase: g.worst_phase % period,
            guaranteed: g.guaranteed,
            horizon,
            margin: horizon - w - s,
            warm: g.warmup.unwrap_or(horizon).max(horizon),
            spacing: g
                .spacing
                .unwrap_or((w + s).div_ceil(period).max(1) * period),
            per_round: fpr_queries.div_ceil(spec.rounds.max(1)),
            bucket: if spec.bucket > 0 {
                spec.bucket
            } else {
                (period / 8).max(1)
            },
        }
    }

    /// Insertions from empty to the first round's worst phase: the
    /// warm-up, rounded up to whole periods, then the worst phase's offset.
    pub fn warm_to_worst(&self) -> u64 {
        self.warm.div_ceil(self.period) * self.period + self.worst_phase
    }

    /// Whether the point measures `m`.
    pub fn has(&self, m: Metric) -> bool {
        self.metrics.contains(&m)
    }

    /// Buckets of the age profile.
    pub fn buckets(&self) -> u64 {
        self.horizon.div_ceil(self.bucket)
    }

    /// The pass's insertions and queries: the warm-up and the rounds, the
    /// FPR queries of both phase kinds, the sampled ages, the timed
    /// operations and the convergence runs.
    pub fn operations(&self) -> (f64, f64) {
        let m = self.spec;
        let rounds = m.rounds as f64;
        let warm = self.warm_to_worst();
        let mut inserts = warm as f64 + rounds * self.spacing as f64;
        // per phase, as `phase` makes them (two phases a round)
        // in f64: counts near 2^64 summed in u64 wrapped to a small work
        // estimate (`--queries 18446744073709551615` then ran for ever)
        let mut per_phase = 0f64;
        if self.has(Metric::Fpr) || self.has(Metric::Accesses) {
            per_phase += self.per_round as f64;
        }
        // the lines of each negative key, counted by a second query (a
        // design that counts none answers at once: an upper bound)
        if self.has(Metric::Accesses) {
            per_phase += self.per_round as f64;
        }
        if self.has(Metric::Fnr) && self.w > 0 {
            per_phase += f64::from(u8::from(self.guaranteed)) + m.age_samples.min(self.w) as f64;
        }
        if self.has(Metric::Fpr) && self.guaranteed && self.margin > 0 {
            per_phase += m.age_samples.min(self.margin) as f64;
        }
        if self.has(Metric::Npws) {
            per_phase += self.s as f64;
        }
        if self.has(Metric::Profile) {
            per_phase += self.horizon as f64;
        }
        let mut queries = 0.0;
        queries += 2.0 * rounds * per_phase;
        let timed = m.speed_ops as f64;
        if self.has(Metric::Speed) {
            inserts += timed;
            queries += 2.0 * timed;
        }
        if self.has(Metric::Batched) {
            // negative keys only, as one batch
            queries += timed;
        }
        if self.has(Metric::Tail) {
            inserts += m.tail_ops as f64;
        }
        if self.has(Metric::Convergence) {
            inserts += rounds * self.warm as f64;
            queries += m.convergence_points as f64 * m.convergence_queries as f64 * rounds;
        }
        (inserts, queries)
    }

    /// The pass's own peak bytes by part (the filter is counted by the
    /// caller): the ring of recent keys (and, on a repeating stream, a key
    /// -> last insertion map), the age profile's accumulators and rows, the
    /// timed keys, and the convergence rows.
    pub fn peak_bytes(&self, distinct: bool) -> Vec<(&'static str, u64)> {
        let m = self.spec;
        let per_age = 8 + if distinct { 0 } else { MAP_ENTRY };
        let mut parts = vec![("age history", self.horizon.saturating_mul(per_age))];
        if self.has(Metric::Profile) {
            // per bucket and phase kind: its accumulators, and its row
            parts.push((
                "age profile",
                self.buckets().saturating_mul(2 * (ROW_BYTES + 64)),
            ));
        }
        let mut keys = 0u64;
        if self.has(Metric::Speed) {
            keys = keys.max(m.speed_ops.saturating_mul(24));
        }
        if self.has(Metric::Batched) {
            keys = keys.max(m.speed_ops.saturating_mul(9));
        }
        if self.has(Metric::Tail) {
            keys = keys.max(m.tail_ops.saturating_mul(24));
        }
        parts.push(("timed keys", keys));
        if self.has(Metric::Convergence) {
            parts.push((
                "convergence",
                m.convergence_points.saturating_mul(64 + ROW_BYTES),
            ));
        }
        parts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bloomlab_filters::{Filter, Instrumented};
    use rand::SeedableRng;
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    use std::sync::Arc;

    /// A filter that counts the operations the pass makes on the one it
    /// wraps.
    struct Counting {
        inner: Box<dyn Instrumented + Send>,
        inserts: Arc<AtomicU64>,
        queries: Arc<AtomicU64>,
    }

    impl Filter for Counting {
        fn insert(&mut self, key: u64) {
            self.inserts.fetch_add(1, Relaxed);
            self.inner.insert(key)
        }
        fn contains(&self, key: u64) -> bool {
            self.queries.fetch_add(1, Relaxed);
            self.inner.contains(key)
        }
        fn memory_bits(&self) -> u64 {
            self.inner.memory_bits()
        }
        fn name(&self) -> &'static str {
            self.inner.name()
        }
    }

    impl Instrumented for Counting {
        fn contains_probes(&self, key: u64) -> (bool, u32) {
            self.queries.fetch_add(1, Relaxed);
            self.inner.contains_probes(key)
        }
        fn insert_probes(&mut self, key: u64) -> Option<u32> {
            self.inserts.fetch_add(1, Relaxed);
            self.inner.insert_probes(key)
        }
        fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
            self.queries.fetch_add(1, Relaxed);
            self.inner.counted_lines(key)
        }
    }

    fn run_counted(metrics: &[Metric], horizon: Option<u64>) -> ((u64, u64), (f64, f64), u64) {
        let params = [("k", 4.0), ("l", 3.0), ("g", 50.0)]
            .iter()
            .map(|&(k, v)| (k.to_string(), v))
            .collect();
        let mut built = crate::designs::build("apbf", &params, 0).unwrap();
        built.geometry.horizon = horizon.or(built.geometry.horizon);
        let (inserts, queries) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
        built.filter = Some(Box::new(Counting {
            inner: built.filter.take().unwrap(),
            inserts: inserts.clone(),
            queries: queries.clone(),
        }));
        let metrics: BTreeSet<Metric> = metrics.iter().copied().collect();
        let spec = MeasureSpec {
            rounds: 7,
            min_fpr_queries: 1000,
            max_fpr_queries: 5000,
            ..MeasureSpec::default()
        };
        let plan = MembershipPlan::new(&built, &metrics, &spec);
        let planned = plan.operations();
        let bytes: u64 = plan.peak_bytes(true).iter().map(|p| p.1).sum();
        let mut rng = rand_pcg::Pcg64::seed_from_u64(1);
        let stream =
            crate::workload::KeyStream::new(&crate::spec::WorkloadSpec::Distinct, None, &mut rng);
        crate::passes::membership::measure(
            &mut built,
            stream,
            rng,
            &metrics,
            &spec,
            &|_| unreachable!(),
        )
        .unwrap();
        (
            (inserts.load(Relaxed), queries.load(Relaxed)),
            planned,
            bytes,
        )
    }

    /// The plan the shard weights and the memory budget read is the plan
    /// the pass runs: its insertions are exactly the pass's, its queries
    /// the pass's (the same sampled ages; a sampled age with no key yet
    /// would be skipped, and there are none after the warm-up).
    #[test]
    fn the_plan_counts_what_the_pass_does() {
        for metrics in [
            &[Metric::Fpr][..],
            &[Metric::Fpr, Metric::Fnr, Metric::Npws],
            &[Metric::Profile],
            &[Metric::Speed, Metric::Batched, Metric::Tail],
        ] {
            let ((ins, q), (pi, pq), _) = run_counted(metrics, None);
            assert_eq!(ins as f64, pi, "{metrics:?}: insertions");
            assert_eq!(q as f64, pq, "{metrics:?}: queries");
        }
    }

    /// A longer horizon (more warm-up, more ages kept) moves the pass, its
    /// cost and its memory together.
    #[test]
    fn a_longer_horizon_moves_work_and_memory_together() {
        let m = [Metric::Fpr, Metric::Profile];
        let (ran, planned, bytes) = run_counted(&m, None);
        let (ran2, planned2, bytes2) = run_counted(&m, Some(4000));
        assert!(ran2.0 > ran.0 && planned2.0 > planned.0 && bytes2 > bytes);
        assert_eq!(ran2.0 as f64, planned2.0);
    }
}
