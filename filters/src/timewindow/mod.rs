//! Windows of time for the designs that forget generation by generation.
//!
//! The APBF and the segmentation baselines (jumping window, double
//! buffering) switch generations every g insertions. [`OnTime`] switches
//! them on time instead ([`Trigger::Time`]: every τ, on a grid from time 0),
//! or on whichever comes first, τ or g insertions ([`Trigger::Hybrid`]).
//! A design joins by implementing [`Generational`]: how to write a key
//! without switching, how to switch, and how many switches a key survives.
//!
//! # What the triggers guarantee
//!
//! Say a design reports a key for sure while at most `kept` switches have
//! come since its generation began, and keeps nothing of a generation after
//! `forgotten` switches (the APBF: l and k + l; a jumping window of n
//! segments: n - 1 and n; double buffering: 1 and 2).
//!
//! - **Time**: a key inserted at t, in the generation begun at b ≤ t, loses
//!   the guarantee at the (kept + 1)-th switch after b, at b + (kept + 1)τ >
//!   t + kept·τ. So every key younger than **T = kept·τ** is reported,
//!   whatever the traffic, and nothing older than forgotten·τ is left: slack
//!   (forgotten - kept)τ. The slices or segments are sized for g keys per
//!   generation (a peak rate of g per τ); a burst above that rate overfills
//!   them and the FPR climbs.
//! - **Hybrid**: a generation holds at most g keys, so the FPR never passes
//!   the count-based design's worst phase, whatever the burst; and it lasts
//!   at most τ, so nothing older than forgotten·τ is left after a lull. A
//!   key is reported while ⌊a/τ⌋ + ⌊n/g⌋ < kept, for a its age in time and
//!   n the insertions after it: of the kept generations that must end before
//!   it is lost, those ended by time took τ each, those ended by count g
//!   insertions each. In a lull that is age < T; in a burst, fewer than
//!   kept·g insertions.
//!
//! [`theory`] gives the generation boundaries for an arrival process; each
//! design's time theory builds on them (`apbf::timed_theory`,
//! `segmented::timed`).

pub mod renewal;
pub mod theory;

use crate::error::check_nonzero;
use crate::{Filter, ParamError, TimedFilter};

/// What ends a generation of an [`OnTime`] design.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// Every τ of time, on a grid from time 0.
    Time,
    /// After τ or after g insertions, whichever comes first.
    Hybrid,
}

/// A design that switches generations: what [`OnTime`] drives.
pub trait Generational: crate::Instrumented {
    /// Inserts `key` into the current generation, without switching.
    fn write(&mut self, key: u64);
    /// Ends the current generation and begins the next.
    fn next_generation(&mut self);
    /// Insertions in the current generation.
    fn in_generation(&self) -> u64;
    /// g: the keys per generation the design is sized for.
    fn generation_size(&self) -> u64;
    /// Switches after the start of a key's generation within which the key
    /// is reported for sure.
    fn kept(&self) -> u64;
    /// Switches after which nothing of a generation is left.
    fn forgotten(&self) -> u64;
    /// Total insertions.
    fn insertions(&self) -> u64;
    /// The design's name when driven by `trigger`.
    fn timed_name(trigger: Trigger) -> &'static str
    where
        Self: Sized;
    /// Whether the pure time trigger is safe: a design that stores one
    /// entry per key (a dictionary sized for g keys per generation) would
    /// overflow in a burst, and takes only the hybrid trigger.
    fn time_trigger_safe(&self) -> bool {
        true
    }
}

/// A generational design whose generations end on time (or on time or
/// count): its window is T = kept·τ of time. See the module docs.
#[derive(Debug, Clone)]
pub struct OnTime<F> {
    inner: F,
    trigger: Trigger,
    /// τ: the longest a generation lasts.
    tau: u64,
    /// When the current generation began.
    start: u64,
    /// The clock.
    now: u64,
}

impl<F: Generational> OnTime<F> {
    /// `inner` with generations of at most τ time units ended by `trigger`.
    pub fn wrap(inner: F, tau: u64, trigger: Trigger) -> Result<Self, ParamError> {
        check_nonzero("tau", tau)?;
        if trigger == Trigger::Time && !inner.time_trigger_safe() {
            return Err(ParamError::OutOfRange {
                name: "trigger",
                value: "time".into(),
                expected:
                    "hybrid: the design stores an entry per key and would overflow in a burst",
            });
        }
        if inner.forgotten().checked_mul(tau).is_none() {
            return Err(ParamError::TooLarge {
                what: "generations kept times tau",
                limit: "2^64 - 1".into(),
            });
        }
        Ok(OnTime {
            inner,
            trigger,
            tau,
            start: 0,
            now: 0,
        })
    }

    /// The design driven.
    pub fn inner(&self) -> &F {
        &self.inner
    }

    /// τ: the longest a generation lasts.
    pub fn tau(&self) -> u64 {
        self.tau
    }

    /// What ends a generation.
    pub fn trigger(&self) -> Trigger {
        self.trigger
    }

    /// Sets the generation's start and the clock (for a filter rebuilt
    /// from another's state).
    pub(crate) fn set_clock(&mut self, start: u64, now: u64) {
        self.start = start;
        self.now = now;
    }

    /// Insertions in the current generation.
    pub fn in_generation(&self) -> u64 {
        self.inner.in_generation()
    }

    /// When the current generation began.
    pub fn generation_start(&self) -> u64 {
        self.start
    }

    /// Total insertions so far.
    pub fn inserted(&self) -> u64 {
        self.inner.insertions()
    }

    /// The boundaries' theory of this configuration (τ in clock units).
    pub fn boundaries(&self) -> theory::Boundaries {
        theory::Boundaries {
            tau: self.tau as f64,
            g: self.inner.generation_size(),
            trigger: self.trigger,
            // the current generation and the ones before it that may still
            // hold keys: `forgotten` in all
            count: self.inner.forgotten() as usize,
        }
    }
}

impl<F: Generational> Filter for OnTime<F> {
    fn insert(&mut self, key: u64) {
        if self.trigger == Trigger::Hybrid
            && self.inner.in_generation() >= self.inner.generation_size()
        {
            self.inner.next_generation();
            self.start = self.now;
        }
        self.inner.write(key);
    }

    fn contains(&self, key: u64) -> bool {
        self.inner.contains(key)
    }

    fn contains_many(&self, keys: &[u64], out: &mut [bool]) {
        self.inner.contains_many(keys, out)
    }

    /// The design's own state plus 64 bits each for the clock and the start
    /// of the current generation.
    fn memory_bits(&self) -> u64 {
        self.inner.memory_bits() + 2 * 64
    }

    fn name(&self) -> &'static str {
        F::timed_name(self.trigger)
    }
}

impl<F: Generational> crate::Instrumented for OnTime<F> {
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        self.inner.contains_probes(key)
    }

    /// The wrapped filter's: the clock adds no reads.
    fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
        self.inner.counted_lines(key)
    }

    fn as_timed(&mut self) -> Option<&mut dyn TimedFilter> {
        Some(self)
    }
}

impl<F: Generational> TimedFilter for OnTime<F> {
    fn advance(&mut self, now: u64) {
        if now <= self.now {
            return;
        }
        self.now = now;
        let due = (now - self.start) / self.tau;
        if due == 0 {
            return;
        }
        // after `forgotten` switches nothing is left: the rest change nothing
        for _ in 0..due.min(self.inner.forgotten()) {
            self.inner.next_generation();
        }
        self.start += due * self.tau;
    }

    fn now(&self) -> u64 {
        self.now
    }

    fn window_time(&self) -> u64 {
        self.inner.kept() * self.tau
    }

    fn slack_time(&self) -> u64 {
        (self.inner.forgotten() - self.inner.kept()) * self.tau
    }
}

crate::persist::codec_enum!(Trigger { Time, Hybrid });
crate::persist::codec_struct!(OnTime<F> { inner, trigger, tau, start, now });

impl<F: Generational + crate::persist::sealed::Design> crate::persist::sealed::Design
    for OnTime<F>
{
    fn tag() -> String {
        format!("on_time/{}", F::tag())
    }
    fn check(&self) -> Result<(), String> {
        use crate::persist::ensure;
        // a time generation may hold more than g keys (a burst): the
        // design's checks without that bound (a save after a burst used to
        // be refused by its own loader, "count 600 > g")
        self.inner.check_on_time()?;
        ensure(self.tau >= 1, || "tau is 0".into())?;
        ensure(
            self.trigger == Trigger::Hybrid || self.inner.time_trigger_safe(),
            || "the time trigger on a design that takes only the hybrid one".into(),
        )?;
        ensure(
            self.inner.forgotten().checked_mul(self.tau).is_some(),
            || "generations kept times tau overflows".into(),
        )?;
        ensure(
            self.start <= self.now && self.now - self.start < self.tau,
            || format!("generation begun at {} of {}", self.start, self.now),
        )
    }
}

impl<F: Generational + crate::persist::sealed::Design> crate::persist::Persist for OnTime<F> {}

#[cfg(feature = "serde")]
impl<F: Generational + crate::persist::sealed::Design> serde::Serialize for OnTime<F> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        crate::persist::serde_impls::serialize(self, s)
    }
}

#[cfg(feature = "serde")]
impl<'de, F: Generational + crate::persist::sealed::Design> serde::Deserialize<'de> for OnTime<F> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::persist::serde_impls::deserialize(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::mix64;
    use crate::Apbf;
    use crate::Instrumented;

    /// Queries, probes, memory and name go to the design driven; the
    /// wrapper is a `TimedFilter` (cargo mutants found these unread).
    #[test]
    fn delegates_to_the_design_and_is_timed() {
        let mut f = OnTime::wrap(
            Apbf::new(crate::ApbfShape {
                hashes: 3,
                extra_slices: 2,
                generation: 50,
            })
            .unwrap(),
            100,
            Trigger::Time,
        )
        .unwrap();
        for i in 0..300u64 {
            f.advance(i);
            f.insert(mix64(i));
        }
        let keys: Vec<u64> = (0..400u64).map(|q| mix64(q * 3 / 2)).collect();
        let mut out = vec![false; keys.len()];
        f.contains_many(&keys, &mut out);
        for (&k, &o) in keys.iter().zip(&out) {
            assert_eq!(f.contains_probes(k), f.inner().contains_probes(k));
            assert_eq!(
                (f.contains(k), o),
                (f.inner().contains(k), f.inner().contains(k))
            );
        }
        assert!(out.iter().any(|&o| o) && out.iter().any(|&o| !o));
        assert_eq!(f.memory_bits(), f.inner().memory_bits() + 128);
        assert_eq!(f.name(), "apbf_time");
        assert!(f.as_timed().is_some());
        assert_eq!(f.inserted(), 300);
    }
}
