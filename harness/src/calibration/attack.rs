//! The adversary's points: a [`Coin`] that holds still under the
//! replaying adversary ([`crate::passes::adversary`]), whose sustained FPR
//! is known exactly.

use super::Coin;
use crate::designs::{Built, Geometry, Theory};
use crate::metrics::columns::col;
use crate::metrics::Row;
use crate::passes::adversary;
use crate::spec::{AdversarySpec, WorkloadSpec};
use crate::workload::KeyStream;
use bloomlab_filters::hash::mix64;
use rand::SeedableRng;
use rand_pcg::Pcg64;

/// A [`Coin`] of bias `p` over a window of 256, attacked with 20 000
/// queries in 10 windows, every `replay_every`-th query a replay, in
/// `runs` independent attacks.
///
/// A replay of a false positive answers yes every time (the coin holds
/// still and answers by a hash of the key), a fresh draw with probability
/// p: the last window's FPR is exactly s + (1 - s) p, s = 1/`replay_every`
/// the replayed share, which is the pass's theory.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AttackPoint {
    /// The coin's bias.
    pub p: f64,
    /// Every this many queries, a replay.
    pub replay_every: u64,
    /// Independent attacks.
    pub runs: u64,
}

impl AttackPoint {
    /// The attack.
    pub fn spec(&self) -> AdversarySpec {
        AdversarySpec {
            queries: 20_000,
            windows: 10,
            replay_every: self.replay_every,
            runs: self.runs,
            ..AdversarySpec::default()
        }
    }

    /// The sustained FPR, exactly.
    pub fn truth(&self) -> f64 {
        let s = 1.0 / self.replay_every as f64;
        s + (1.0 - s) * self.p
    }
}

/// The adversary's row of `point` under `seed` (its runs combined as the
/// pass combines them), its intervals at `level`.
pub fn measure(point: AttackPoint, seed: u64, level: f64) -> anyhow::Result<Row> {
    let spec = point.spec();
    let rows = (0..point.runs.max(1))
        .map(|run| {
            let mut built = Built {
                filter: Some(Box::new(Coin::new(256, point.p, 1))),
                summary: None,
                geometry: Geometry::exact(256, true),
                resolved: Vec::new(),
                theory: Theory {
                    scalars: vec![(col::FPR, point.p)],
                    ..Theory::default()
                },
            };
            let mut rng = Pcg64::seed_from_u64(mix64(seed) ^ mix64(run + 1));
            let stream = KeyStream::new(&WorkloadSpec::Distinct, None, &mut rng);
            adversary::measure(&mut built, stream, rng, &spec, None, level, false)
        })
        .collect::<anyhow::Result<Vec<Row>>>()?;
    Ok(adversary::combine(rows, level))
}
