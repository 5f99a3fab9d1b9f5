//! The synthetic membership filter whose answers are known exactly.

use super::{unit, CoinPoint};
use crate::designs::{Built, Geometry, ProfileTheory, Theory};
use crate::passes::membership::{self, PointResult};
use crate::spec::{MeasureSpec, Metric, WorkloadSpec};
use crate::workload::KeyStream;
use bloomlab_filters::hash::mix64;
use bloomlab_filters::hash::KeyMap;
use bloomlab_filters::{Filter, Instrumented};
use rand::SeedableRng;
use rand_pcg::Pcg64;
use std::collections::{BTreeSet, VecDeque};

/// Remembers its last `remember` insertions exactly; any other key is
/// "yes" with probability `p` (by a hash of the key, so a stream of
/// distinct random keys sees independent coins). Every query reads
/// `probes` cells; the i-th insertion reports i mod 1000 + 1 cells read.
///
/// Under a stream of distinct keys its figures are known exactly: the FPR
/// of any state is `p`, a key of age `a` is reported with probability 1
/// if `a <= remember` and `p` otherwise. The calibration
/// ([`super::calibrate`]) and the passes' tests measure it.
///
/// [`Coin::varying`] makes its costs and its state's zero fraction vary
/// from key to key, each by a hash of the key, with means known exactly: a
/// query reads 1 to 2·`probes` - 1 cells (mean `probes`) and 1 to 3 lines
/// (mean 2), and the zero fraction of a state is the mean over the keys it
/// remembers of a uniform in [0, 1) (mean 1/2).
#[derive(Debug, Clone)]
pub struct Coin {
    remember: usize,
    recent: VecDeque<u64>,
    count: KeyMap<u32>,
    p: f64,
    probes: u32,
    inserted: u64,
    varying: bool,
}

/// The mean probes of a varying coin's query at the calibration's points.
pub(super) const VARYING_PROBES: u32 = 4;

/// Salts of the varying costs' and zero fraction's hashes.
const PROBES: u64 = 0xC014_0000_0000_0001;
const LINES: u64 = 0xC014_0000_0000_0002;
const ZEROS: u64 = 0xC014_0000_0000_0003;

impl Coin {
    /// A coin of bias `p` remembering `remember` keys, `probes` per query.
    pub fn new(remember: usize, p: f64, probes: u32) -> Coin {
        Coin {
            remember,
            recent: VecDeque::new(),
            count: KeyMap::default(),
            p,
            probes,
            inserted: 0,
            varying: false,
        }
    }

    /// The same coin with costs and a zero fraction that vary by key
    /// (type docs).
    pub fn varying(self) -> Coin {
        Coin {
            varying: true,
            ..self
        }
    }
}

impl Filter for Coin {
    fn insert(&mut self, key: u64) {
        if self.remember == 0 {
            return;
        }
        self.recent.push_back(key);
        *self.count.entry(key).or_default() += 1;
        if self.recent.len() > self.remember {
            let old = self.recent.pop_front().expect("a full memory");
            let c = self.count.get_mut(&old).expect("a counted key");
            *c -= 1;
            if *c == 0 {
                self.count.remove(&old);
            }
        }
    }
    fn contains(&self, key: u64) -> bool {
        self.count.contains_key(&key) || unit(key ^ 0x5EED) < self.p
    }
    fn memory_bits(&self) -> u64 {
        64 * self.remember as u64
    }
    fn name(&self) -> &'static str {
        "coin"
    }
}

impl Instrumented for Coin {
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        let probes = if self.varying {
            1 + (mix64(key ^ PROBES) % (2 * u64::from(self.probes.max(1)) - 1)) as u32
        } else {
            self.probes
        };
        (self.contains(key), probes)
    }
    fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
        self.varying
            .then(|| (self.contains(key), 1 + (mix64(key ^ LINES) % 3) as u32))
    }
    fn zero_fraction(&self) -> Option<f64> {
        (self.varying && !self.recent.is_empty()).then(|| {
            let sum: f64 = self.recent.iter().map(|&k| unit(k ^ ZEROS)).sum();
            sum / self.recent.len() as f64
        })
    }
    /// The i-th insertion reports i mod 1000 + 1 cells: over any 1000k
    /// consecutive insertions each of 1..=1000 exactly k times.
    fn insert_probes(&mut self, key: u64) -> Option<u32> {
        self.insert(key);
        self.inserted += 1;
        Some((self.inserted % 1000 + 1) as u32)
    }
}

/// The measurement's precision at `point`: a quick run's rounds, its
/// queries at each phase.
fn spec(level: f64, point: &CoinPoint) -> MeasureSpec {
    MeasureSpec {
        rounds: 20,
        min_fpr_queries: point.fpr_queries,
        max_fpr_queries: point.fpr_queries,
        fpr_positives: 400.0,
        bucket: 32,
        ci_level: level,
        ..MeasureSpec::default()
    }
}

/// P(yes | age) of a [`Coin`]: 1 up to the keys it remembers, its bias
/// after, at every phase.
struct CoinProfile(CoinPoint);

impl ProfileTheory for CoinProfile {
    fn worst(&self, age: u64) -> f64 {
        if age <= self.0.remember as u64 {
            1.0
        } else {
            self.0.p
        }
    }
    fn avg(&self, age: u64) -> f64 {
        self.worst(age)
    }
}

/// The membership pass's figures of `point` under `seed`, its intervals
/// at `level`.
pub(super) fn measure(point: CoinPoint, seed: u64, level: f64) -> anyhow::Result<PointResult> {
    let build = move |_seed: u64| -> anyhow::Result<Built> {
        let mut geometry = Geometry::exact(point.w, point.guaranteed);
        geometry.slack = point.s;
        Ok(Built {
            filter: Some(Box::new(if point.varying {
                Coin::new(point.remember, point.p, VARYING_PROBES).varying()
            } else {
                Coin::new(point.remember, point.p, 1)
            })),
            summary: None,
            geometry,
            resolved: Vec::new(),
            theory: Theory {
                profile: Some(Box::new(CoinProfile(point))),
                ..Theory::default()
            },
        })
    };
    let mut built = build(seed)?;
    let mut rng = Pcg64::seed_from_u64(seed);
    let stream = KeyStream::new(&WorkloadSpec::Distinct, None, &mut rng);
    let mut metrics: BTreeSet<Metric> = [Metric::Fpr, Metric::Fnr, Metric::Npws, Metric::Profile]
        .into_iter()
        .collect();
    if point.varying {
        metrics.extend([Metric::Accesses, Metric::ZeroFraction]);
    }
    membership::measure(
        &mut built,
        stream,
        rng,
        &metrics,
        &spec(level, &point),
        &build,
    )
}
