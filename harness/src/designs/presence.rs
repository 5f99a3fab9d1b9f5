//! The age profile of a design whose theory gives P(yes | age) as steps at
//! any moment ([`Presence`]): the HSS-BF's, Clock-sketch's Bloom
//! filter's and SHE-BF's.

use super::built::ProfileTheory;
use bloomlab_filters::clock_sketch::theory::ClockBloomTheory;
use bloomlab_filters::half_sliding::theory::{HalfSlidingTheory, Presence};
use bloomlab_filters::she::theory::SheTheory;
use std::sync::OnceLock;

/// A theory of P(yes | age) at each moment of a period.
pub(super) trait PresenceTheory: Send + Sync {
    /// P(yes | age) after insertion t.
    fn presence(&self, t: u64) -> Presence;
    /// `n` moments spread over one period of the steady state.
    fn moments(&self, n: u64) -> Vec<u64>;
    /// The most insertions a cell holds: past it every age has the FPR.
    fn longest(&self) -> u64;
}

impl PresenceTheory for HalfSlidingTheory {
    fn presence(&self, t: u64) -> Presence {
        HalfSlidingTheory::presence(self, t)
    }
    fn moments(&self, n: u64) -> Vec<u64> {
        self.moments_n(n)
    }
    fn longest(&self) -> u64 {
        HalfSlidingTheory::longest(self)
    }
}

impl PresenceTheory for ClockBloomTheory {
    fn presence(&self, t: u64) -> Presence {
        ClockBloomTheory::presence(self, t)
    }
    fn moments(&self, n: u64) -> Vec<u64> {
        self.moments_n(n)
    }
    fn longest(&self) -> u64 {
        ClockBloomTheory::longest(self)
    }
}

impl PresenceTheory for SheTheory {
    fn presence(&self, t: u64) -> Presence {
        SheTheory::presence(self, t)
    }
    fn moments(&self, n: u64) -> Vec<u64> {
        self.moments_n(n)
    }
    fn longest(&self) -> u64 {
        SheTheory::longest(self)
    }
}

/// P(yes | age) at the worst moment, and averaged over `moments` moments
/// of the period (computed on first use, over ages up to the longest span).
pub(super) struct PresenceProfile<T> {
    th: T,
    worst: Presence,
    moments: u64,
    avg: OnceLock<Vec<f64>>,
}

impl<T: PresenceTheory> PresenceProfile<T> {
    /// The profile of `th`, `worst` its presence at the worst moment.
    pub(super) fn new(th: T, worst: Presence, moments: u64) -> Self {
        PresenceProfile {
            th,
            worst,
            moments,
            avg: OnceLock::new(),
        }
    }
}

impl<T: PresenceTheory> ProfileTheory for PresenceProfile<T> {
    fn worst(&self, age: u64) -> f64 {
        self.worst.at(age.saturating_sub(1))
    }
    fn avg(&self, age: u64) -> f64 {
        let curve = self.avg.get_or_init(|| {
            let max_age = self.th.longest() + 1;
            let moments = self.th.moments(self.moments);
            let mut avg = vec![0.0; max_age as usize + 1];
            for &t in &moments {
                for (a, p) in avg.iter_mut().zip(self.th.presence(t).curve(max_age)) {
                    *a += p / moments.len() as f64;
                }
            }
            avg
        });
        curve[(age.saturating_sub(1) as usize).min(curve.len() - 1)]
    }
}
