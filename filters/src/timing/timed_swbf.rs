//! SWBF over a window of time (`swbf_hybrid`): its timestamps are time
//! quanta, and a quantum ends after δ or after g insertions, whichever comes
//! first.
//!
//! SWBF's table holds one entry per live key. On time alone a burst above
//! the sized rate would put more live keys in it than its 2-per-bucket-slot
//! sizing allows and spill them into the stash without bound; so, like the
//! Naor-Yogev filter, it takes the hybrid clock only. With at most g keys
//! per quantum and W = r + 1 live quanta, the table never holds more than
//! (r + 1)g live keys, the number it is sized for, and the FPR never passes
//! its value there. The window: a key is reported while
//! ⌊a/δ⌋ + ⌊n/g⌋ < r (the hybrid rule of [`crate::timewindow`], with r
//! quanta): T = rδ in a lull, rg insertions in a burst. After a lull of
//! (r + 1)δ nothing is left.
//!
//! # Theory
//!
//! The live entries are the keys of the current quantum and the r before
//! it, Poisson with mean Λ over the (fluid) quantum boundaries of
//! [`crate::timewindow::theory`]. SWBF's FPR with D keys is
//! (1 - 1/B)(1 - (1 - 2p)^D) + (1/B)(1 - (1 - p)^D), p = 2^-f/B
//! ([`super::swbf::fpr`]); over a Poisson D each (1 - x)^D becomes
//! e^(-xΛ) exactly.

use super::quanta::Quanta;
use super::swbf::Swbf;
use crate::timewindow::theory::{shifts_since, Boundaries};
use crate::timewindow::Trigger;
use crate::{Filter, ParamError, TimedFilter};

/// SWBF on a hybrid clock of time quanta: r quanta of at most δ time units
/// and at most g insertions each.
#[derive(Debug, Clone)]
pub struct TimedSwbf {
    inner: Swbf,
    clock: Quanta,
    g: u64,
}

/// The shape of a [`TimedSwbf`]: what [`TimedSwbf::new`] takes, each paper letter
/// by a word (see [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimedSwbfShape {
    /// Time quanta per window (`r`).
    pub quanta: u64,
    /// Clock ticks per quantum (`delta`).
    pub quantum_ticks: u64,
    /// Insertions a quantum holds at most (`g`).
    pub quantum_keys: u64,
    /// Bits per fingerprint (`f`).
    pub fingerprint_bits: u32,
}

impl TimedSwbf {
    /// r quanta per window, each at most δ time units and g insertions,
    /// `f`-bit fingerprints; the table is sized for (r + 1)g live keys.
    pub fn new(shape: TimedSwbfShape) -> Result<TimedSwbf, ParamError> {
        let TimedSwbfShape {
            quanta: r,
            quantum_ticks: delta,
            quantum_keys: g,
            fingerprint_bits: f,
        } = shape;
        let clock = Quanta::new(r, delta, Some(g))?;
        Ok(TimedSwbf {
            inner: Swbf::with_clock((r + 1) * g, r + 1, f)?,
            clock,
            g,
        })
    }

    /// The SWBF of the entries.
    pub fn inner(&self) -> &Swbf {
        &self.inner
    }

    /// δ: the longest a quantum lasts.
    pub fn delta(&self) -> u64 {
        self.clock.delta()
    }

    /// g: the most insertions a quantum takes.
    pub fn g(&self) -> u64 {
        self.g
    }

    /// r: quanta per window.
    pub fn quanta(&self) -> u64 {
        self.clock.r()
    }

    /// The quantum boundaries' theory (δ in clock units).
    pub fn boundaries(&self) -> Boundaries {
        Boundaries {
            tau: self.delta() as f64,
            g: self.g,
            trigger: Trigger::Hybrid,
            count: self.quanta() as usize + 1,
        }
    }

    /// FPR with `keys` live keys on average (Poisson).
    pub fn fpr_theory(&self, keys: f64) -> f64 {
        let b = self.inner.buckets() as f64;
        let p = 2f64.powi(-(self.inner.fingerprint_bits() as i32)) / b;
        let miss = |x: f64| (-x * keys).exp();
        (1.0 - 1.0 / b) * (1.0 - miss(2.0 * p)) + (1.0 / b) * (1.0 - miss(p))
    }

    /// FPR at time `now` and P(yes) for a key inserted at `u`, for arrivals
    /// of cumulative mean `cum`.
    pub fn theory_at(&self, now: f64, cum: &dyn Fn(f64) -> f64) -> (f64, Vec<f64>) {
        let starts = self.boundaries().starts(now, cum);
        let oldest = starts[self.quanta() as usize];
        (self.fpr_theory((cum(now) - cum(oldest)).max(0.0)), starts)
    }

    /// P(yes) for a key inserted at `u`, given the FPR and starts of
    /// [`theory_at`](Self::theory_at).
    pub fn presence(&self, fpr: f64, starts: &[f64], u: f64) -> f64 {
        if shifts_since(starts, u) <= self.quanta() {
            1.0
        } else {
            fpr
        }
    }
}

impl Filter for TimedSwbf {
    fn insert(&mut self, key: u64) {
        let ended = self.clock.on_insert();
        self.inner.tick_quanta(ended);
        self.inner.write(key);
    }

    fn contains(&self, key: u64) -> bool {
        self.inner.contains(key)
    }

    /// The SWBF's slots, stash and words, plus 64 bits each for the time,
    /// the quantum's start and its insertion count.
    fn memory_bits(&self) -> u64 {
        self.inner.memory_bits() + 3 * 64
    }

    fn name(&self) -> &'static str {
        "swbf_hybrid"
    }
}

impl crate::Instrumented for TimedSwbf {
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

impl TimedFilter for TimedSwbf {
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

crate::persist::codec_struct!(TimedSwbf { inner, clock, g });

impl crate::persist::sealed::Design for TimedSwbf {
    fn tag() -> String {
        "swbf_hybrid".into()
    }
    fn check(&self) -> Result<(), String> {
        self.inner.check()?;
        self.clock.check()?;
        crate::persist::ensure(
            crate::SlidingFilter::window(&self.inner) == self.clock.r() + 1
                && self.clock.cap == Some(self.g),
            || "the table's window is not r + 1 quanta of g".into(),
        )
    }
}

crate::persist::persists!(TimedSwbf);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::mix64;
    use crate::Instrumented;

    /// In a burst the quanta end on their count, so the table never holds
    /// more than (r + 1)g live keys and the stash stays empty.
    #[test]
    fn a_burst_never_overfills_the_table() {
        let mut f = TimedSwbf::new(crate::TimedSwbfShape {
            quanta: 8,
            quantum_ticks: 1000,
            quantum_keys: 100,
            fingerprint_bits: 12,
        })
        .unwrap();
        for i in 0..50_000u64 {
            f.advance(i / 20); // 200 g per δ
            f.insert(mix64(i));
        }
        assert_eq!(f.inner().stash_len(), 0);
        assert_eq!(f.now(), 49_999 / 20);
        assert_eq!(f.name(), "swbf_hybrid");
        assert_eq!((f.window_time(), f.slack_time()), (8000, 1000));
        assert!(
            TimedSwbf::new(crate::TimedSwbfShape {
                quanta: 0,
                quantum_ticks: 1,
                quantum_keys: 1,
                fingerprint_bits: 8
            })
            .is_err()
                && TimedSwbf::new(crate::TimedSwbfShape {
                    quanta: 1,
                    quantum_ticks: 1,
                    quantum_keys: 0,
                    fingerprint_bits: 8
                })
                .is_err()
        );
        assert!(TimedSwbf::new(crate::TimedSwbfShape {
            quanta: 1,
            quantum_ticks: 1,
            quantum_keys: 1,
            fingerprint_bits: 0
        })
        .is_err());
        assert!(f.as_timed().is_some());
        for q in 0..200u64 {
            let k = mix64(q + 49_900);
            assert_eq!(f.contains_probes(k), f.inner().contains_probes(k));
        }
    }

    /// The FPR runs from 0 with no live key to 1 with unboundedly many,
    /// and a key is sure while its quantum is among the last r.
    #[test]
    fn theory_limits_and_presence() {
        let f = TimedSwbf::new(crate::TimedSwbfShape {
            quanta: 16,
            quantum_ticks: 625,
            quantum_keys: 250,
            fingerprint_bits: 6,
        })
        .unwrap();
        assert_eq!(f.fpr_theory(0.0), 0.0);
        assert!(
            (f.fpr_theory(1e30) - 1.0).abs() < 1e-12,
            "{}",
            f.fpr_theory(1e30)
        );
        let few = f.fpr_theory(10.0);
        assert!(few > 0.0 && few < f.fpr_theory(100.0));
        let (fpr, starts) = f.theory_at(100_000.0, &|x| x / 10.0);
        assert!(fpr > 0.0 && fpr < 1.0);
        assert_eq!(f.presence(fpr, &starts, 99_999.0), 1.0);
        assert_eq!(f.presence(fpr, &starts, 1.0), fpr);
    }
}
