//! A real design's point: a small Stable Bloom filter under the membership
//! pass, whose figures have no exact theory (Deng and Rafiei's treats a
//! key's K cells as independent) and are known instead from a pooled
//! estimate over independent seeds ([`super::Truth::Pooled`]).
//!
//! It calibrates what the Coin cannot: one filter state answers all of a
//! round's queries, so they move together (a round whose cells happen to
//! be fuller answers yes more often to every key), and P(yes | age) falls
//! across a profile bucket's ages instead of being one number.

use super::StablePoint;
use crate::designs::{self, Params};
use crate::passes::membership::{self, PointResult};
use crate::spec::{MeasureSpec, Metric, WorkloadSpec};
use crate::workload::KeyStream;
use rand::SeedableRng;
use rand_pcg::Pcg64;
use std::collections::BTreeSet;

impl StablePoint {
    /// The design's parameters.
    fn params(&self) -> Params {
        [
            ("m", self.m as f64),
            ("d", self.d as f64),
            ("k", self.k as f64),
            ("p", self.p as f64),
            ("window", self.window as f64),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

/// The measurement's precision: 20 rounds, 4000 never-inserted queries at
/// each phase over them, buckets of 64 ages.
fn spec(level: f64) -> MeasureSpec {
    MeasureSpec {
        rounds: 20,
        min_fpr_queries: 4000,
        max_fpr_queries: 4000,
        fpr_positives: 400.0,
        bucket: 64,
        ci_level: level,
        ..MeasureSpec::default()
    }
}

/// The membership pass's figures of `point` under `seed`, its intervals
/// at `level`.
pub(super) fn measure(point: StablePoint, seed: u64, level: f64) -> anyhow::Result<PointResult> {
    let params = point.params();
    let build = |s: u64| designs::build("stable", &params, s);
    let mut built = build(seed)?;
    let mut rng = Pcg64::seed_from_u64(seed);
    let stream = KeyStream::new(&WorkloadSpec::Distinct, None, &mut rng);
    let metrics: BTreeSet<Metric> = [
        Metric::Fpr,
        Metric::Fnr,
        Metric::Profile,
        Metric::ZeroFraction,
    ]
    .into_iter()
    .collect();
    membership::measure(&mut built, stream, rng, &metrics, &spec(level), &build)
}
