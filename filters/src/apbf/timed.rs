//! The APBF over a window of time: "was this key seen in the last T?".
//!
//! The slices, the insertion and Algorithm 1 are the APBF's; only what ends
//! a generation changes, through [`OnTime`] (see [`crate::timewindow`] for
//! the two triggers and what each guarantees). A key survives l switches
//! after its generation began and nothing is left of a generation after
//! k + l, so:
//!
//! - **time** (`apbf_time`, the variant of RedisBloom's time-based
//!   age-partitioned branch): every key younger than T = lτ is reported,
//!   whatever the traffic; slack kτ. The slices are sized for g keys per
//!   generation, and a burst above g per τ overfills them.
//! - **hybrid** (`apbf_hybrid`): the FPR never passes the count-based
//!   APBF's worst-phase F; a key is reported while ⌊a/τ⌋ + ⌊n/g⌋ < l.
//!
//! The theory (FPR and presence at a moment, for an arrival process given
//! by its cumulative mean) is in [`super::timed_theory`].

use super::{Apbf, ApbfShape};
use crate::timewindow::{Generational, OnTime, Trigger};
use crate::ParamError;

/// An Age-Partitioned Bloom filter whose generations end on time (or on
/// time or count): its window is T = lτ of time.
pub type TimedApbf = OnTime<Apbf>;

impl Generational for Apbf {
    fn write(&mut self, key: u64) {
        Apbf::write(self, key)
    }
    fn next_generation(&mut self) {
        self.shift()
    }
    fn in_generation(&self) -> u64 {
        self.count
    }
    fn generation_size(&self) -> u64 {
        self.g
    }
    fn kept(&self) -> u64 {
        self.l as u64
    }
    fn forgotten(&self) -> u64 {
        (self.k + self.l) as u64
    }
    fn insertions(&self) -> u64 {
        self.inserted
    }
    fn timed_name(trigger: Trigger) -> &'static str {
        match trigger {
            Trigger::Time => "apbf_time",
            Trigger::Hybrid => "apbf_hybrid",
        }
    }
}

impl OnTime<Apbf> {
    /// The APBF of `shape` (k slices written per insertion, l extra slices,
    /// slices sized for g keys per generation: m = ⌈k g / ln 2⌉) over time:
    /// generations of at most τ = `generation_ticks` clock ticks, ended as
    /// `trigger` says. Window T = lτ, slack kτ.
    pub fn new(
        shape: ApbfShape,
        generation_ticks: u64,
        trigger: Trigger,
    ) -> Result<Self, ParamError> {
        OnTime::wrap(Apbf::new(shape)?, generation_ticks, trigger)
    }

    /// k: slices written per insertion.
    pub fn k(&self) -> u32 {
        self.inner().k
    }

    /// l: extra slices (window lτ).
    pub fn l(&self) -> u32 {
        self.inner().l
    }

    /// g: keys per generation the slices are sized for (the hybrid's count
    /// trigger).
    pub fn g(&self) -> u64 {
        self.inner().g
    }

    /// m: bits per slice.
    pub fn m(&self) -> u64 {
        self.inner().m
    }

    /// The theory of this configuration (τ in the same units as the clock).
    pub fn theory(&self) -> super::timed_theory::TimedApbfTheory {
        super::timed_theory::TimedApbfTheory {
            k: self.k(),
            l: self.l(),
            g: self.g(),
            m: self.m(),
            tau: self.tau() as f64,
            trigger: self.trigger(),
        }
    }
}

#[cfg(test)]
#[path = "timed_tests.rs"]
mod tests;
