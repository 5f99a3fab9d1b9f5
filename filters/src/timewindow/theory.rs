//! Where the generations of an [`OnTime`](super::OnTime) design begin, for
//! an arrival process given by its cumulative mean Λ(t) = ∫₀ᵗ λ (expected
//! arrivals by time t, in the clock's units).
//!
//! - The time trigger's generations begin on the grid ⌊t/τ⌋τ, ⌊t/τ⌋τ - τ,
//!   ..., whatever the traffic: exact.
//! - The hybrid's depend on the arrivals (a generation ends at its g-th
//!   insertion if that comes before τ). The theory takes the *fluid*
//!   boundaries: a generation ends at τ, or where Λ has grown by g since it
//!   began. Exact when the rate stays well below g/τ (every generation ends
//!   on time) or well above it (every generation holds g keys). Near
//!   λτ = g, real generations end on their count about half the time, a
//!   little earlier than the fluid ones, and a burst's last generation
//!   straddles its end at a random point where the fluid one meets it
//!   exactly: docs/time.md gives the measured size of that error.
//!
//! Given the boundaries b_0 ≥ b_1 ≥ ... (the current generation's start
//! first), a generation's keys are Poisson with mean Λ(end) - Λ(start), and
//! a key inserted at u has seen #{i : b_i > u} switches.

use super::Trigger;
use std::collections::VecDeque;

/// The generation boundaries of a configuration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Boundaries {
    /// τ: the longest a generation lasts.
    pub tau: f64,
    /// g: the hybrid's count trigger.
    pub g: u64,
    /// What ends a generation.
    pub trigger: Trigger,
    /// How many starts to return: the current generation and the ones
    /// before it that the design may still hold.
    pub count: usize,
}

impl Boundaries {
    /// The starts b_0 ≥ b_1 ≥ ... of the current generation and the
    /// `count - 1` before it at time `now` (0 for generations before the
    /// first), for arrivals of cumulative mean `cum`.
    pub fn starts(&self, now: f64, cum: &dyn Fn(f64) -> f64) -> Vec<f64> {
        let n = self.count;
        match self.trigger {
            Trigger::Time => {
                let current = (now / self.tau).floor();
                (0..n)
                    .map(|i| ((current - i as f64) * self.tau).max(0.0))
                    .collect()
            }
            Trigger::Hybrid => {
                let mut ring = VecDeque::with_capacity(n + 1);
                let mut b = 0.0;
                loop {
                    ring.push_front(b);
                    ring.truncate(n);
                    let next = self.fluid_end(b, cum);
                    if next > now {
                        break;
                    }
                    b = next;
                }
                ring.resize(n, 0.0);
                ring.into_iter().collect()
            }
        }
    }

    /// Where a generation begun at `b` ends in the fluid model: at b + τ, or
    /// earlier where Λ has grown by g.
    fn fluid_end(&self, b: f64, cum: &dyn Fn(f64) -> f64) -> f64 {
        let (base, g) = (cum(b), self.g as f64);
        let end = b + self.tau;
        if cum(end) - base < g {
            return end;
        }
        let (mut lo, mut hi) = (b, end);
        for _ in 0..64 {
            let mid = 0.5 * (lo + hi);
            if cum(mid) - base < g {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        // a generation takes some time, however fast the arrivals
        hi.max(b + self.tau * 1e-12)
    }
}

/// Switches since time `u`, given the starts: generations begun after it.
pub fn shifts_since(starts: &[f64], u: f64) -> u64 {
    starts.iter().filter(|&&b| b > u).count() as u64
}

/// The expected keys of each generation (newest first) at time `now`:
/// Λ over [b_i, b_{i-1}), the newest up to `now`.
pub fn generation_keys(starts: &[f64], now: f64, cum: &dyn Fn(f64) -> f64) -> Vec<f64> {
    (0..starts.len())
        .map(|i| {
            let end = if i == 0 { now } else { starts[i - 1].min(now) };
            (cum(end) - cum(starts[i])).max(0.0)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(trigger: Trigger) -> Boundaries {
        Boundaries {
            tau: 10.0,
            g: 1000,
            trigger,
            count: 11,
        }
    }

    #[test]
    fn the_time_grid_ignores_the_traffic_and_the_hybrid_cuts_bursts() {
        let burst = |t: f64| 1000.0 * t; // ten times g per τ
        let time = b(Trigger::Time).starts(105.0, &burst);
        assert_eq!(time[..3], [100.0, 90.0, 80.0]);
        let hybrid = b(Trigger::Hybrid).starts(105.0, &burst);
        // generations of exactly g = 1000 keys: one per time unit
        assert!((hybrid[0] - 105.0).abs() <= 1.0 && (hybrid[0] - hybrid[1] - 1.0).abs() < 1e-6);
        let keys = generation_keys(&hybrid, 105.0, &burst);
        assert!(
            keys[1..].iter().all(|&k| (k - 1000.0).abs() < 1e-6),
            "{keys:?}"
        );
        // before the first generation: starts at 0, no keys
        let early = b(Trigger::Time).starts(25.0, &burst);
        assert_eq!(early[..4], [20.0, 10.0, 0.0, 0.0]);
        assert_eq!(generation_keys(&early, 25.0, &burst)[3], 0.0);
    }

    #[test]
    fn shifts_count_the_generations_begun_since() {
        let s = b(Trigger::Time).starts(125.0, &|x| 100.0 * x);
        assert_eq!(shifts_since(&s, 124.0), 0);
        assert_eq!(shifts_since(&s, 120.0), 0);
        assert_eq!(shifts_since(&s, 119.0), 1);
        assert_eq!(shifts_since(&s, 0.0), 11);
    }

    /// However fast the arrivals (here a step of 10^12 keys at t = 5), a
    /// fluid generation lasts a little time, so generations never pile up
    /// at one instant.
    #[test]
    fn a_generation_takes_some_time_however_fast_the_arrivals() {
        let step = |t: f64| if t > 5.0 { 1e12 } else { 0.0 };
        let h = b(Trigger::Hybrid);
        let end = h.fluid_end(5.0, &step);
        assert!(end >= 5.0 + 10.0 * 1e-12, "{end}");
        assert!(end < 5.0 + 1e-9, "{end}");
        // a slow stream: the generation ends on time
        assert_eq!(h.fluid_end(5.0, &|t: f64| t), 15.0);
    }
}
