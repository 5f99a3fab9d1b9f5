//! The summaries' point: a [`Blur`], an exact window whose answers carry
//! errors of a known law, under the summary pass ([`crate::passes::summary`]).

use super::unit;
use crate::designs::{Built, Geometry, Theory};
use crate::metrics::Row;
use crate::passes::summary;
use crate::spec::{MeasureSpec, Metric, WorkloadSpec};
use crate::workload::KeyStream;
use bloomlab_filters::hash::mix64;
use bloomlab_filters::{
    DistinctEstimator, EntropyEstimator, ExactWindow, FrequencyEstimator, WindowSummary,
};
use rand::SeedableRng;
use rand_pcg::Pcg64;
use std::collections::BTreeSet;

/// A standard normal from a hash (Box-Muller over two uniforms of `x`,
/// the first in (0, 1]).
fn normal(x: u64) -> f64 {
    let (u, v) = (1.0 - unit(x), unit(x ^ 0x5A5A));
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// The exact window of the last `window` keys, answering with errors of a
/// known law, drawn from its seed (one per round of the summary pass) and
/// a hash of each query:
///
/// - a frequency is off by -1, 0 or +1, each with probability 1/3 and
///   independently from query to query: E\[error²\] = 2/3;
/// - the distinct count is D (1 + δ), δ normal of mean 0 and standard
///   deviation 0.05 per seed (as an estimator's error is, nearly):
///   E\[((D̂ - D)/D)²\] = 0.0025;
/// - the entropy is H + η, η uniform in [0, 0.1) per seed: E\[H - Ĥ\] =
///   -0.05;
/// - the distinct count's lower bound is D (1 - λ), λ = 0.05 |z| with z
///   normal per seed (half-normal, as a bound's shortfall is, nearly):
///   E\[bound\] = (1 - 0.05 √(2/π)) D, E\[((bound - D)/D)²\] = 0.0025.
pub struct Blur {
    exact: ExactWindow,
    seed: u64,
    recorded: u64,
}

/// E\[error²\] of a [`Blur`]'s frequency.
pub const COUNT_MSE: f64 = 2.0 / 3.0;
/// E\[((D̂ - D)/D)²\] of a [`Blur`]'s distinct count.
pub const DISTINCT_REL_MSE: f64 = 0.0025;
/// E\[H - Ĥ\] of a [`Blur`]'s entropy.
pub const ENTROPY_ERROR: f64 = -0.05;
/// E\[bound / D\] of a [`Blur`]'s distinct lower bound: 1 - 0.05 √(2/π).
pub const LB_OVER_D: f64 = 1.0 - 0.05 * 0.797_884_560_802_865_4;
/// E\[((bound - D)/D)²\] of a [`Blur`]'s distinct lower bound.
pub const LB_REL_MSE: f64 = 0.0025;

impl Blur {
    /// A blur over `window` keys, its errors drawn from `seed`.
    pub fn new(window: u64, seed: u64) -> anyhow::Result<Blur> {
        Ok(Blur {
            exact: ExactWindow::new(window).map_err(|e| anyhow::anyhow!("{e}"))?,
            seed,
            recorded: 0,
        })
    }
}

impl WindowSummary for Blur {
    fn record(&mut self, key: u64) {
        self.exact.record(key);
        self.recorded += 1;
    }
    fn summary_window(&self) -> u64 {
        self.exact.summary_window()
    }
    fn summary_bits(&self) -> u64 {
        self.exact.summary_bits()
    }
    fn summary_name(&self) -> &'static str {
        "blur"
    }
    fn as_frequency(&self) -> Option<&dyn FrequencyEstimator> {
        Some(self)
    }
    fn as_distinct(&self) -> Option<&dyn DistinctEstimator> {
        Some(self)
    }
    fn as_entropy(&self) -> Option<&dyn EntropyEstimator> {
        Some(self)
    }
}

impl FrequencyEstimator for Blur {
    /// Off by -1, 0 or +1 (never below 0: the pass asks for keys just
    /// recorded, whose frequency is at least 1).
    fn frequency(&self, key: u64) -> u64 {
        let f = self.exact.frequency(key);
        let draw = mix64(key ^ mix64(self.seed ^ mix64(self.recorded))) % 3;
        (f + draw).saturating_sub(1)
    }
    fn never_underestimates(&self) -> bool {
        false
    }
}

impl DistinctEstimator for Blur {
    fn distinct(&self) -> f64 {
        self.exact.distinct() * (1.0 + 0.05 * normal(self.seed ^ 0xD15))
    }
    fn distinct_lower_bound(&self) -> Option<f64> {
        let shortfall = 0.05 * normal(self.seed ^ 0x1B).abs();
        Some(self.exact.distinct() * (1.0 - shortfall))
    }
}

impl EntropyEstimator for Blur {
    fn entropy(&self) -> f64 {
        self.exact.entropy() + 0.1 * unit(self.seed ^ 0xE47)
    }
}

/// The window of the calibration's [`Blur`]: 256 distinct random keys,
/// so D = 256 in every round.
pub const W: u64 = 256;

/// The summary pass's row of a [`Blur`] over a window of [`W`] distinct
/// random keys, `rounds` rounds, under `seed`, its intervals at `level`.
pub fn measure(rounds: u64, seed: u64, level: f64) -> anyhow::Result<Row> {
    let build = |s: u64| -> anyhow::Result<Built> {
        Ok(Built {
            filter: None,
            summary: Some(Box::new(Blur::new(W, s)?)),
            geometry: Geometry::exact(W, true),
            resolved: Vec::new(),
            theory: Theory::default(),
        })
    };
    let built = build(seed)?;
    let mut rng = Pcg64::seed_from_u64(seed);
    let stream = KeyStream::new(&WorkloadSpec::Distinct, None, &mut rng);
    let metrics: BTreeSet<Metric> = [Metric::Count, Metric::Distinct, Metric::Entropy]
        .into_iter()
        .collect();
    let spec = MeasureSpec {
        rounds,
        ci_level: level,
        ..MeasureSpec::default()
    };
    summary::measure(&built, stream, rng, &metrics, &spec, &build, false)
}
