//! The APBF over a window of time: "was this key seen in the last T?".
//!
//! The slices, the insertion and Algorithm 1 are the APBF's; only what ends
//! a generation changes ([`Trigger`]):
//!
//! - **time**: a generation lasts τ, on a grid from time 0 (the variant of
//!   RedisBloom's time-based age-partitioned branch). A key inserted at time
//!   t in the generation that began at b ≤ t loses its oldest slice at the
//!   (l + 1)-th shift after b, at b + (l + 1)τ > t + lτ, so a key younger than
//!   **T = lτ** is always reported, whatever the traffic; it is gone for good
//!   after its k slices have left, by age (k + l)τ (slack kτ in time). The
//!   price is in the FPR: the slices are sized for g keys per generation
//!   (the peak rate times τ), and a burst above that rate overfills them.
//! - **hybrid**: a generation ends after τ or after g insertions, whichever
//!   comes first. No slice ever holds more than g keys, so the FPR never
//!   exceeds the count-based APBF's worst-phase F whatever the burst; every
//!   generation lasts at most τ, so after a lull nothing older than
//!   (k + l)τ is remembered. What bursts cost is the window: a generation
//!   that ended on its count lasted less than τ. A key is reported while
//!   ⌊a/τ⌋ + ⌊n/g⌋ < l, for a its age in time and n the insertions after it
//!   (of the l generations that must end before it is lost, those ended by
//!   time took τ each and those ended by count took g insertions each). In
//!   a lull that is age < lτ = T; in a burst, fewer than l g insertions ago.
//!
//! The theory (FPR and presence at a moment, for an arrival process given by
//! its cumulative mean) is in [`super::timed_theory`].

use super::Apbf;
use crate::error::{check_nonzero, check_probability};
use crate::{Filter, ParamError, TimedFilter};

/// What ends a generation of a [`TimedApbf`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// Every τ of time, on a grid from time 0.
    Time,
    /// After τ or after g insertions, whichever comes first.
    Hybrid,
}

/// An Age-Partitioned Bloom filter whose generations end on time (or on time
/// or count), so that its window is T = lτ of time. See the module docs.
#[derive(Debug, Clone)]
pub struct TimedApbf {
    inner: Apbf,
    trigger: Trigger,
    /// τ: the longest a generation lasts.
    tau: u64,
    /// When the current generation began.
    start: u64,
    /// The clock.
    now: u64,
}

impl TimedApbf {
    /// k slices written per insertion, l extra slices, slices sized for g
    /// keys per generation (the APBF's m = ⌈k g / ln 2⌉), generations of at
    /// most τ time units. Window T = lτ, slack kτ.
    pub fn new(k: u32, l: u32, g: u64, tau: u64, trigger: Trigger) -> Result<Self, ParamError> {
        check_nonzero("tau", tau)?;
        let inner = Apbf::new(k, l, g)?;
        if (l as u64).checked_mul(tau).is_none() || ((k + l) as u64).checked_mul(tau).is_none() {
            return Err(ParamError::TooLarge {
                what: "(k + l) tau",
                limit: "2^64 - 1".into(),
            });
        }
        Ok(TimedApbf {
            inner,
            trigger,
            tau,
            start: 0,
            now: 0,
        })
    }

    /// Sized for a window of `window` time units holding up to `peak_keys`
    /// insertions (the peak rate times the window) at FPR <= `fpr` when the
    /// traffic stays at or below that rate: (k, l) as
    /// [`Apbf::with_fpr`] chooses them, τ = ⌈window / l⌉ (so lτ >= window), g = ⌈peak_keys / l⌉.
    pub fn with_fpr(
        window: u64,
        peak_keys: u64,
        fpr: f64,
        trigger: Trigger,
    ) -> Result<Self, ParamError> {
        check_nonzero("window", window)?;
        check_nonzero("peak_keys", peak_keys)?;
        check_probability("fpr", fpr)?;
        let (k, l) = super::theory::choose_kl(fpr, super::DEFAULT_MAX_L).ok_or_else(|| {
            ParamError::Unreachable {
                target: format!("fpr {fpr} with k <= {}", super::theory::MAX_K),
            }
        })?;
        Self::new(
            k,
            l,
            peak_keys.div_ceil(l as u64),
            window.div_ceil(l as u64),
            trigger,
        )
    }

    /// k: slices written per insertion.
    pub fn k(&self) -> u32 {
        self.inner.k
    }

    /// l: extra slices (window lτ).
    pub fn l(&self) -> u32 {
        self.inner.l
    }

    /// g: keys per generation the slices are sized for (the hybrid's count
    /// trigger).
    pub fn g(&self) -> u64 {
        self.inner.g
    }

    /// m: bits per slice.
    pub fn m(&self) -> u64 {
        self.inner.m
    }

    /// τ: the longest a generation lasts.
    pub fn tau(&self) -> u64 {
        self.tau
    }

    /// What ends a generation.
    pub fn trigger(&self) -> Trigger {
        self.trigger
    }

    /// Insertions in the current generation.
    pub fn in_generation(&self) -> u64 {
        self.inner.count
    }

    /// When the current generation began.
    pub fn generation_start(&self) -> u64 {
        self.start
    }

    /// Total insertions so far.
    pub fn inserted(&self) -> u64 {
        self.inner.inserted
    }

    /// The theory of this configuration (τ in the same units as the clock).
    pub fn theory(&self) -> super::timed_theory::TimedApbfTheory {
        super::timed_theory::TimedApbfTheory {
            k: self.inner.k,
            l: self.inner.l,
            g: self.inner.g,
            m: self.inner.m,
            tau: self.tau as f64,
            trigger: self.trigger,
        }
    }
}

impl Filter for TimedApbf {
    fn insert(&mut self, key: u64) {
        if self.trigger == Trigger::Hybrid && self.inner.count >= self.inner.g {
            self.inner.shift();
            self.start = self.now;
        }
        self.inner.write(key);
    }

    fn contains(&self, key: u64) -> bool {
        self.inner.contains(key)
    }

    fn contains_probes(&self, key: u64) -> (bool, u32) {
        self.inner.contains_probes(key)
    }

    fn contains_many(&self, keys: &[u64], out: &mut [bool]) {
        self.inner.contains_many(keys, out)
    }

    /// The APBF's slices and counters, plus 64 bits each for the clock and
    /// the start of the current generation.
    fn memory_bits(&self) -> u64 {
        self.inner.memory_bits() + 2 * 64
    }

    fn name(&self) -> &'static str {
        match self.trigger {
            Trigger::Time => "apbf_time",
            Trigger::Hybrid => "apbf_hybrid",
        }
    }

    fn as_timed(&mut self) -> Option<&mut dyn TimedFilter> {
        Some(self)
    }
}

impl TimedFilter for TimedApbf {
    fn advance(&mut self, now: u64) {
        if now <= self.now {
            return;
        }
        self.now = now;
        let due = (now - self.start) / self.tau;
        if due == 0 {
            return;
        }
        // after k + l shifts every slice is empty: the rest change nothing
        for _ in 0..due.min((self.inner.k + self.inner.l) as u64) {
            self.inner.shift();
        }
        self.start += due * self.tau;
    }

    fn now(&self) -> u64 {
        self.now
    }

    fn window_time(&self) -> u64 {
        self.inner.l as u64 * self.tau
    }

    fn slack_time(&self) -> u64 {
        self.inner.k as u64 * self.tau
    }
}

#[cfg(test)]
#[path = "timed_tests.rs"]
mod tests;
