//! The Naor-Yogev filter over a window of time, through [`OnTime`] with the
//! hybrid trigger only (`naor_yogev_hybrid`): a generation ends after τ or
//! after its g insertions, whichever comes first.
//!
//! A key is active while at most c switches have come since its
//! generation began, and no entry is active after c + 1, so with the hybrid
//! rule of [`crate::timewindow`] a key is reported while
//! ⌊a/τ⌋ + ⌊n/g⌋ < c (T = cτ in a lull, cg insertions in a burst), nothing
//! older than (c + 1)τ is reported after a lull, and the FPR bound ε holds
//! under any traffic, since no generation holds more than g keys.
//!
//! The pure time trigger is refused: the dictionary holds one entry per
//! active key and is sized for (c + 1)g of them, so a burst would overflow
//! the table into the stash instead of raising an FPR.
//!
//! A generation that ends on time, before its g insertions, first runs the
//! background scan those insertions would have run (`switch`), so every
//! generation still scans its share of the table and an inactive entry is
//! freed before its tag value comes round again, however many generations
//! pass without an insertion.
//!
//! # Theory
//!
//! The active entries are the keys of the current generation and the c
//! before it: Poisson with mean Λ(now) - Λ(b_c) over the (fluid) boundaries
//! of [`crate::timewindow::theory`]. A never-inserted key matches each with
//! probability 1/R, so FPR = 1 - E[(1 - 1/R)^N] = 1 - exp(-Λ/R). A key
//! inserted at u is reported for sure while at most c switches have come
//! since, and like a never-inserted key after.

use super::NaorYogev;
use crate::timewindow::theory::{shifts_since, Boundaries};
use crate::timewindow::{Generational, OnTime, Trigger};

impl Generational for NaorYogev {
    fn write(&mut self, key: u64) {
        self.write_counted(key);
    }
    fn next_generation(&mut self) {
        self.switch()
    }
    fn in_generation(&self) -> u64 {
        self.count
    }
    fn generation_size(&self) -> u64 {
        self.size.g
    }
    fn kept(&self) -> u64 {
        self.size.c
    }
    fn forgotten(&self) -> u64 {
        self.size.c + 1
    }
    fn insertions(&self) -> u64 {
        self.inserted
    }
    fn timed_name(trigger: Trigger) -> &'static str {
        match trigger {
            Trigger::Time => "naor_yogev_time",
            Trigger::Hybrid => "naor_yogev_hybrid",
        }
    }
    fn time_trigger_safe(&self) -> bool {
        false
    }
}

/// The time theory of a Naor-Yogev filter on the hybrid trigger.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimedNyTheory {
    /// Fingerprint range R.
    pub range: f64,
    /// c: generations kept.
    pub c: u64,
    /// Where its generations begin.
    pub boundaries: Boundaries,
}

/// The expected state at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct TimedNyState {
    /// FPR of a never-inserted key.
    pub fpr: f64,
    starts: Vec<f64>,
    c: u64,
}

impl TimedNyState {
    /// P(yes) for a key inserted at time `u`.
    pub fn presence(&self, u: f64) -> f64 {
        if shifts_since(&self.starts, u) <= self.c {
            1.0
        } else {
            self.fpr
        }
    }
}

impl TimedNyTheory {
    /// The theory of `f`.
    pub fn of(f: &OnTime<NaorYogev>) -> TimedNyTheory {
        TimedNyTheory {
            range: f.inner().sizing().range(),
            c: f.inner().sizing().c,
            boundaries: f.boundaries(),
        }
    }

    /// The expected state at time `now`.
    pub fn at(&self, now: f64, cum: &dyn Fn(f64) -> f64) -> TimedNyState {
        let starts = self.boundaries.starts(now, cum);
        let oldest = starts[self.c as usize];
        let active = (cum(now) - cum(oldest)).max(0.0);
        TimedNyState {
            fpr: -(-active / self.range).exp_m1(),
            starts,
            c: self.c,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::mix64;
    use crate::{Filter, TimedFilter};

    #[test]
    fn only_the_hybrid_trigger_is_taken() {
        let f = NaorYogev::new(crate::NaorYogevShape {
            window: 1000,
            slack: 1000,
            fpr: 0.01,
            generations: None,
            max_load: None,
        })
        .unwrap();
        assert!(OnTime::wrap(f.clone(), 100, Trigger::Time).is_err());
        let h = OnTime::wrap(f, 100, Trigger::Hybrid).unwrap();
        assert_eq!(h.name(), "naor_yogev_hybrid");
        let c = h.inner().sizing().c;
        assert_eq!((h.window_time(), h.slack_time()), (c * 100, 100));
    }

    /// Generations that end on time still scan their share of the table:
    /// after many lulls, each a few generations long, no expired entry is
    /// left in the table and the expired keys are not reported when their
    /// tag values come round again.
    #[test]
    fn lulls_leave_no_stale_entries() {
        let f = NaorYogev::new(crate::NaorYogevShape {
            window: 2000,
            slack: 2000,
            fpr: 0.01,
            generations: Some(2),
            max_load: None,
        })
        .unwrap();
        let mut f = OnTime::wrap(f, 1000, Trigger::Hybrid).unwrap();
        let tags = f.inner().sizing().tags;
        let mut now = 0;
        for round in 0..50u64 {
            for i in 0..300u64 {
                now += 1;
                f.advance(now);
                f.insert(mix64(round * 1000 + i));
            }
            // a lull of one to tags + 1 generations
            now += 1000 * (1 + round % (tags + 1));
            f.advance(now);
            // every key of earlier rounds has expired: a stale entry revived
            // by its tag value would answer yes for most of its round, a
            // false positive for about ε of it
            for old in 0..round.saturating_sub(1) {
                let yes = (0..300u64)
                    .filter(|&i| f.contains(mix64(old * 1000 + i)))
                    .count();
                assert!(yes < 30, "round {round}: {yes} of round {old}'s 300 keys");
            }
        }
        assert!(f.inner().occupied() <= 600, "{}", f.inner().occupied());
    }

    /// The wrapper reads the insertion count through `insertions`, and a
    /// key of the last c generations is present for sure, an older one
    /// at the FPR.
    #[test]
    fn insertions_and_presence_at_a_moment() {
        let f = NaorYogev::new(crate::NaorYogevShape {
            window: 2000,
            slack: 2000,
            fpr: 0.01,
            generations: Some(4),
            max_load: None,
        })
        .unwrap();
        let mut f = OnTime::wrap(f, 1000, Trigger::Hybrid).unwrap();
        for i in 0..777u64 {
            f.advance(i);
            f.insert(mix64(i));
        }
        assert_eq!(f.inner().insertions(), 777);
        assert_eq!(f.inserted(), 777);
        let t = TimedNyTheory::of(&f);
        // a steady 100 keys per unit of time, so generations end on time
        let s = t.at(10_000.0, &|x| 100.0 * x);
        assert!(s.fpr > 0.0 && s.fpr < 0.05, "{}", s.fpr);
        assert_eq!(s.presence(9_999.0), 1.0);
        assert_eq!(s.presence(10.0), s.fpr);
    }
}
