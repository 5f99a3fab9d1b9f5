//! The timing Bloom filter over a window of time (`tbf_time`): its cells
//! hold the time quantum of the latest key that set them, not its arrival
//! number.
//!
//! Time is cut into quanta of δ; the wraparound clock of the count-based TBF
//! ticks once per quantum instead of once per arrival, and its sweep runs
//! on every tick. With W = r + 1 quanta in the clock's window, a key written
//! in quantum c is live while the current quantum is below c + W, so a key
//! younger than **T = rδ** is always reported (its quantum is at most r
//! behind) and none older than (r + 1)δ is: slack δ. The cells need only
//! ⌈log2 2W⌉ bits, whatever the rate: r = 64 quanta per window takes 8-bit
//! cells where the count-based TBF over 2^16 arrivals takes 17.
//!
//! After a lull longer than the window and a whole sweep every cell is dead:
//! the filter clears them at once instead of ticking through the lull.
//!
//! # Theory
//!
//! The live cells are those a partitioned Bloom filter of the keys of the
//! last W quanta would set. Those are Poisson with mean Λ over
//! [(c - r)δ, now], and the FPR is E[(1 - (1 - 1/s)^D)^k] ≈
//! (1 - e^(-Λ/s))^k, leaving out a Jensen term of relative size about
//! k²/(4s) (the k slices share D). A key inserted at u is reported for sure
//! while ⌊now/δ⌋ - ⌊u/δ⌋ < W, and like a never-inserted key after.

use super::quanta::Quanta;
use super::tbf::TimingBloom;
use crate::{Filter, ParamError, TimedFilter};

/// A timing Bloom filter over a window of time: r quanta of δ (T = rδ).
#[derive(Debug, Clone)]
pub struct TimedTbf {
    inner: TimingBloom,
    clock: Quanta,
}

/// The shape of a [`TimedTbf`]: what [`TimedTbf::new`] takes, each paper letter
/// by a word (see [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimedTbfShape {
    /// Time quanta per window (`r`).
    pub quanta: u64,
    /// Clock ticks per quantum (`delta`).
    pub quantum_ticks: u64,
    /// Hash functions: the bits or cells a key sets and a query reads (`k`).
    pub hashes: u32,
    /// Cells in each slice (`s`).
    pub cells_per_slice: u64,
}

impl TimedTbf {
    /// k slices of s cells, a window of r quanta of δ time units.
    pub fn new(shape: TimedTbfShape) -> Result<TimedTbf, ParamError> {
        let TimedTbfShape {
            quanta: r,
            quantum_ticks: delta,
            hashes: k,
            cells_per_slice: s,
        } = shape;
        let clock = Quanta::new(r, delta, None)?;
        Ok(TimedTbf {
            inner: TimingBloom::new(crate::TimingBloomShape {
                window: r + 1,
                hashes: k,
                cells_per_slice: s,
            })?,
            clock,
        })
    }

    /// The timing Bloom filter of the cells.
    pub fn inner(&self) -> &TimingBloom {
        &self.inner
    }

    /// δ: the time quantum.
    pub fn delta(&self) -> u64 {
        self.clock.delta()
    }

    /// r: quanta per window.
    pub fn quanta(&self) -> u64 {
        self.clock.r()
    }

    /// FPR at a moment whose live quanta hold `keys` keys on average
    /// (Poisson; see the module docs).
    pub fn fpr_theory(&self, keys: f64) -> f64 {
        let s = self.inner.slice_cells() as f64;
        (-(-keys / s).exp_m1()).powi(self.inner.k() as i32)
    }

    /// Start of the oldest live quantum at time `now`: keys inserted from
    /// here on are reported.
    pub fn live_from(&self, now: f64) -> f64 {
        let delta = self.delta() as f64;
        let q = (now / delta).floor();
        ((q - self.quanta() as f64) * delta).max(0.0)
    }
}

impl Filter for TimedTbf {
    fn insert(&mut self, key: u64) {
        self.inner.write(key);
    }

    fn contains(&self, key: u64) -> bool {
        self.inner.contains(key)
    }

    /// The TBF's cells, clock and sweep pointer, plus 64 bits each for the
    /// time and the current quantum.
    fn memory_bits(&self) -> u64 {
        self.inner.memory_bits() + 128
    }

    fn name(&self) -> &'static str {
        "tbf_time"
    }
}

impl crate::Instrumented for TimedTbf {
    fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
        Some(self.inner.lines_read(key))
    }
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        self.inner.contains_probes(key)
    }

    fn as_timed(&mut self) -> Option<&mut dyn TimedFilter> {
        Some(self)
    }
}

impl TimedFilter for TimedTbf {
    fn advance(&mut self, now: u64) {
        let ticks = self.clock.advance(now);
        self.inner.tick_quanta(ticks);
    }

    fn now(&self) -> u64 {
        self.clock.now()
    }

    fn window_time(&self) -> u64 {
        self.clock.window()
    }

    fn slack_time(&self) -> u64 {
        self.clock.delta()
    }
}

crate::persist::codec_struct!(TimedTbf { inner, clock });

impl crate::persist::sealed::Design for TimedTbf {
    fn tag() -> String {
        "tbf_time".into()
    }
    fn check(&self) -> Result<(), String> {
        self.inner.check()?;
        self.clock.check()?;
        crate::persist::ensure(
            crate::SlidingFilter::window(&self.inner) == self.clock.r() + 1,
            || "the cells' window is not r + 1 quanta".into(),
        )
    }
}

crate::persist::persists!(TimedTbf);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::mix64;
    use crate::Instrumented;

    #[test]
    fn keys_younger_than_t_are_reported_and_older_ones_are_lost() {
        let mut f = TimedTbf::new(crate::TimedTbfShape {
            quanta: 8,
            quantum_ticks: 100,
            hashes: 4,
            cells_per_slice: 2000,
        })
        .unwrap();
        assert_eq!((f.window_time(), f.slack_time()), (800, 100));
        let mut now = 0;
        let mut keys: Vec<(u64, u64)> = Vec::new();
        for i in 0..20_000u64 {
            // bursts, steady traffic and lulls of many windows
            now += match i % 1000 {
                0 => 50_000,
                1..=300 => 0,
                _ => mix64(i) % 7,
            };
            f.advance(now);
            f.insert(mix64(i));
            keys.push((mix64(i), now));
            keys.retain(|&(_, at)| now - at < 2000);
            for &(k, at) in &keys {
                if now - at < 800 {
                    assert!(f.contains(k), "age {}", now - at);
                    assert_eq!(f.contains_probes(k), f.inner().contains_probes(k));
                    assert!(f.contains_probes(k).0);
                }
            }
        }
        // after a lull every key is gone, and the cells are empty
        f.advance(now + 900);
        assert_eq!(f.now(), now + 900);
        assert!(keys.iter().all(|&(k, _)| !f.contains(k)));
        assert_eq!(f.name(), "tbf_time");
        assert_eq!(f.inner().stamp_bits(), 5);
        assert_eq!(f.memory_bits(), 4 * 2000 * 5 + 128 + 128);
        assert!(
            TimedTbf::new(crate::TimedTbfShape {
                quanta: 0,
                quantum_ticks: 1,
                hashes: 1,
                cells_per_slice: 1
            })
            .is_err()
                && TimedTbf::new(crate::TimedTbfShape {
                    quanta: 1,
                    quantum_ticks: 0,
                    hashes: 1,
                    cells_per_slice: 1
                })
                .is_err()
        );
        assert!(f.as_timed().is_some());
        for q in 0..200u64 {
            let k = mix64(q + 19_900);
            assert_eq!(f.contains_probes(k), f.inner().contains_probes(k));
        }
    }
}
