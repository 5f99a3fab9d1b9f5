//! The Stable Bloom filter (Deng and Rafiei): no window, a stable FPR.

use super::built::{int, Built, Geometry, ProfileTheory, Theory};
use super::{at_least_one, probability, zero_one, DesignDef};
use super::{Candidate, Constraints};
use crate::metrics::columns::col;
use crate::spec::Metric;
use bloomlab_filters::stable::{self, Decrement, StableBloomFilter};
use bloomlab_filters::{StableShape, Target};
use serde::{Deserialize, Serialize};

/// Stable Bloom filter parameters: (m, d, k, p), or (m, d, k, fpr) picking
/// P, or (memory, fpr) picking d, K and P.
#[derive(clap::Args, Deserialize, Serialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct StableParams {
    /// Cells
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    m: Option<u64>,
    /// Bits per cell (Max = 2^d - 1)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    d: Option<u32>,
    /// Cells set per insertion
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    k: Option<u32>,
    /// Cells decremented per insertion (or give fpr to pick the smallest P meeting it)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    p: Option<u64>,
    /// Target stable FPR, in (0, 1) (picks P; with memory also d and K)
    #[arg(long)]
    fpr: Option<f64>,
    /// Memory in bits (with fpr: picks d, K and P)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    memory: Option<u64>,
    /// Window of interest for the FNR (default: the age up to which the FNR stays below 1%)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    window: Option<u64>,
    /// Decrement P adjacent cells from one random start instead of a uniform P-subset (spec: 0 or 1)
    #[arg(long)]
    #[serde(default, deserialize_with = "zero_one")]
    adjacent: bool,
}

struct StableProfile(stable::theory::StableTheory);

impl ProfileTheory for StableProfile {
    fn worst(&self, age: u64) -> f64 {
        self.0.presence(age)
    }
    fn avg(&self, age: u64) -> f64 {
        self.0.presence(age)
    }
}

/// Largest history the harness keeps for a design without a window.
const MAX_HORIZON: u64 = 1 << 24;

/// The Stable Bloom filter.
pub struct Stable;

impl DesignDef for Stable {
    type Params = StableParams;
    const NAME: &'static str = "stable";
    const FILTER: &'static str = "StableBloomFilter";
    const ABOUT: &'static str =
        "Stable Bloom filter: d-bit cells, P random decrements per insertion; no window";
    const CAPS: super::Capabilities = super::Capabilities {
        guaranteed_window: false,
        slack: false,
        ..super::Capabilities::SLIDING
    };
    const METRICS: &'static [Metric] = &[
        Metric::Fpr,
        Metric::Fnr,
        Metric::ZeroFraction,
        Metric::Memory,
        Metric::Speed,
    ];

    fn build(a: StableParams, seed: u64) -> anyhow::Result<Built> {
        let fpr = probability(col::FPR, a.fpr)?;
        let (m, d, k, p) = (
            at_least_one(col::M, a.m)?,
            at_least_one(col::D, a.d)?,
            at_least_one(col::K, a.k)?,
            at_least_one(col::P, a.p)?,
        );
        let memory = at_least_one(col::MEMORY, a.memory)?;
        let sized = |bits: u64, e: f64| Target::memory(bits).fpr(e);
        let f = match (m, d, k, p, fpr, memory) {
            (Some(m), Some(d), Some(k), Some(p), None, None) => {
                StableBloomFilter::new(StableShape {
                    cells: m,
                    cell_bits: d,
                    hashes: k,
                    decrements: p,
                })
            }
            (Some(m), Some(d), Some(k), None, Some(e), None) => {
                let bits = m.checked_mul(d as u64).ok_or_else(|| {
                    anyhow::anyhow!("stable: m times d is {m} x {d}, past 2^64 bits")
                })?;
                sized(bits, e).cell_bits(d).hashes(k).build()
            }
            (None, None, None, None, Some(e), Some(bits)) => sized(bits, e).build(),
            _ => {
                return Err(anyhow::anyhow!(
                    "stable needs m, d, k and p; or m, d, k and fpr; or memory and fpr"
                ))
            }
        }
        .map_err(|e| anyhow::anyhow!("stable: {e}"))?;
        let f = f.with_seed(seed).with_decrement(if a.adjacent {
            Decrement::Adjacent
        } else {
            Decrement::Uniform
        });
        let t = f.theory();
        let window = match at_least_one(col::WINDOW, a.window)? {
            Some(w) if w >= MAX_HORIZON => {
                return Err(anyhow::anyhow!(
                    "stable: parameter window = {w} must be below 2^24 (the longest age history the harness keeps)"
                ))
            }
            Some(w) => w,
            None => {
                let w = t.age_at_fnr(0.01).map_or(1, |a| a.saturating_sub(1).max(1));
                if w >= MAX_HORIZON {
                    return Err(anyhow::anyhow!(
                        "stable: the window its theory gives ({w} keys, the age where P(yes) falls to 0.99) is not below 2^24 (the longest age history the harness keeps); give a window below 2^24 or a smaller m"
                    ));
                }
                w
            }
        };
        // Profile up to where P(yes | age) is within 1% of its limit, the FPR.
        let horizon = t
            .age_at_fnr((1.0 - t.fpr()) * 0.99)
            .unwrap_or(MAX_HORIZON)
            .clamp(window + 1, MAX_HORIZON);
        // the theory is of the stable state: a filter that needs more than
        // 2^30 insertions to come within 1e-4 of it would be measured in
        // its transient against the stable theory
        let warmup = t.steps_to_stable(1e-4);
        if warmup > 1 << 30 {
            return Err(anyhow::anyhow!(
                "stable: m = {} takes {warmup} insertions to come within 1e-4 of its stable state, past the 2^30 the harness warms up for; choose a smaller m",
                t.m
            ));
        }
        let theory = stable_theory(t, window, warmup);
        Ok(Built {
            geometry: Geometry {
                window,
                slack: 0,
                period: 1,
                worst_phase: 0,
                guaranteed: false,
                horizon: Some(horizon),
                warmup: Some(warmup),
                spacing: Some(horizon),
                time: None,
            },
            resolved: vec![
                int(col::M, t.m),
                int(col::D, t.d),
                int(col::K, t.k),
                int(col::P, t.p),
                int(col::ADJACENT, a.adjacent as u64),
                int(col::WINDOW, window),
            ],
            filter: Some(Box::new(f)),
            summary: None,
            theory,
        })
    }

    fn plan(_c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        Err(anyhow::anyhow!(
            "no window: a Stable Bloom filter loses recent keys too (see stable_fnr_by_age)"
        ))
    }
}

/// The theory of a Stable Bloom filter whose FNR is reported over ages
/// 1..=`window`, `warmup` insertions from empty to its stable point.
fn stable_theory(t: stable::theory::StableTheory, window: u64, warmup: u64) -> Theory {
    let fnr_window = (1..=window).map(|a| t.fnr_at_age(a)).sum::<f64>() / window as f64;
    Theory {
        later: Default::default(),
        scalars: vec![
            (col::ZERO_FRACTION, t.zero_fraction()),
            (col::FPR, t.fpr()),
            (col::FPR_AVG, t.fpr()),
            (col::FPR_EXPIRED, t.fpr()),
            (col::FNR, fnr_window),
            (
                col::HALF_LIFE,
                t.age_at_fnr(0.5).map_or(f64::NAN, |a| a as f64),
            ),
            (col::STEPS_TO_STABLE, warmup as f64),
            (
                col::BITS_PER_ELEMENT,
                t.payload_bits() as f64 / window as f64,
            ),
        ]
        .into_iter()
        .chain(super::candidate::line_scalars(Some(t.lines())))
        .collect(),
        profile: Some(Box::new(StableProfile(t))),
        convergence: Some(Box::new(move |s| (t.zero_fraction_at(s), t.fpr_at(s)))),
        estimates: None,
        moment: None,
    }
}
