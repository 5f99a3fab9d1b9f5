//! Theory of the [`TimedApbf`](super::timed::TimedApbf) for an arrival process.
//!
//! # Set-up
//!
//! Arrivals form a Poisson process of rate λ(t), known through its
//! cumulative mean Λ(t) = ∫₀ᵗ λ (constant, on/off and diurnal rates are all
//! of this kind, and a trace's timestamps give an empirical Λ). At time t
//! write b_0 ≥ b_1 ≥ ... for the start times of the current generation and
//! the ones before it (b_i = 0 for generations before the first). Logical
//! slice s_i became the newest at b_i and took insertions until it became
//! s_k, at b_{i-k} (for i < k: until now), so it holds
//! N_i ~ Poisson(Λ_i) keys, Λ_i = Λ(min(t, b_{i-k})) - Λ(b_i), and its bit
//! for a never-inserted key is set with probability
//!
//! q_i = 1 - E[(1 - 1/m)^N_i] = 1 - exp(-Λ_i / m)
//!
//! (the probability generating function of the Poisson law at 1 - 1/m). The
//! FPR is then the APBF's recursion F over these q_i
//! ([`super::theory::match_probability`]), and a key inserted at time u,
//! shifted j = #{i : b_i > u} times since, is reported with the APBF's
//! presence probability for j shifts.
//!
//! # What is exact and what is not
//!
//! - The time trigger's b_i are the grid ⌊t/τ⌋τ - iτ, whatever the traffic.
//!   Each q_i is exact. F is multilinear, so F(E\[q\]) = E\[F(q)\] when the q_i
//!   are independent; here consecutive slices share generations (s_0 and s_1
//!   both hold the current one), so their counts are correlated and F(E\[q\])
//!   leaves out a covariance term of relative size about 1/Λ_i: below 0.1%
//!   for the thousands of keys per generation of the experiments.
//! - The hybrid's boundaries depend on the arrivals (a generation ends at
//!   its g-th insertion if that comes before τ). The theory takes the *fluid*
//!   boundaries: a generation ends at τ or when Λ has grown by g since it
//!   began. This is exact when the rate keeps well below g/τ (every
//!   generation ends on time) or well above it (every generation holds g
//!   keys); near λτ = g the real generations end earlier than the fluid ones
//!   about half the time and hold slightly fewer keys, so the fluid FPR is
//!   slightly high there. The tests say by how much.

use super::theory::{match_probability, presence_probability, ApbfTheory};
use crate::timewindow::theory::{generation_keys, shifts_since, Boundaries};
use crate::timewindow::Trigger;

/// The configuration of a [`TimedApbf`](super::timed::TimedApbf), τ in the
/// units of the clock (and of the times given to [`TimedApbfTheory::at`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimedApbfTheory {
    /// Slices written per insertion.
    pub k: u32,
    /// Extra slices.
    pub l: u32,
    /// Keys per generation the slices are sized for.
    pub g: u64,
    /// Bits per slice.
    pub m: u64,
    /// The longest a generation lasts.
    pub tau: f64,
    /// What ends a generation.
    pub trigger: Trigger,
}

/// The filter's expected state at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct TimedState {
    k: u32,
    /// q_i, newest slice first.
    pub fills: Vec<f64>,
    /// b_i: start of the current generation and of the k + l - 1 before it
    /// (slice s_i began at b_i).
    pub starts: Vec<f64>,
}

impl TimedState {
    /// FPR of a never-inserted key.
    pub fn fpr(&self) -> f64 {
        match_probability(&self.fills, self.k)
    }

    /// Shifts since time `u` (generations begun after it).
    pub fn shifts_since(&self, u: f64) -> u64 {
        shifts_since(&self.starts, u)
    }

    /// P(yes) for a key inserted at time `u`.
    pub fn presence(&self, u: f64) -> f64 {
        presence_probability(&self.fills, self.k, self.shifts_since(u))
    }
}

impl TimedApbfTheory {
    /// T = lτ: the window.
    pub fn window(&self) -> f64 {
        self.l as f64 * self.tau
    }

    /// The count-based APBF with the same k, l and g: its worst-phase FPR is
    /// what the time design reaches at a steady rate of g per τ, and a bound
    /// on the hybrid's FPR under any traffic.
    pub fn count_based(&self) -> ApbfTheory {
        ApbfTheory {
            k: self.k,
            l: self.l,
            g: self.g,
            m: self.m,
        }
    }

    /// The generation boundaries.
    pub fn boundaries(&self) -> Boundaries {
        Boundaries {
            tau: self.tau,
            g: self.g,
            trigger: self.trigger,
            count: (self.k + self.l) as usize,
        }
    }

    /// The share of keys younger than T answered no, for ages uniform in
    /// (0, T), at a steady Poisson rate of `rate` keys per unit of time:
    /// 0 for the time trigger; for the hybrid, the renewal theory of
    /// [`crate::timewindow::renewal`] (the fluid boundaries predict 0 at any
    /// rate up to g/τ, where real generations sometimes fill early).
    /// P(yes) for a key j shifts old is averaged over 64 phases of the
    /// fluid steady state. `None` for a rate that is not positive and
    /// finite.
    pub fn loss_at_rate(&self, rate: f64) -> Option<f64> {
        if !(rate.is_finite() && rate > 0.0) {
            return None;
        }
        if self.trigger == Trigger::Time {
            return Some(0.0);
        }
        let forgotten = (self.k + self.l) as u64;
        let cum = |t: f64| rate * t;
        let period = self.tau.min(self.g as f64 / rate);
        let warm = (forgotten + 2) as f64 * self.tau;
        const PHASES: usize = 64;
        let states: Vec<TimedState> = (0..PHASES)
            .map(|i| self.at(warm + (i as f64 + 0.5) / PHASES as f64 * period, &cum))
            .collect();
        let presence = |j: u64| {
            states
                .iter()
                .map(|s| presence_probability(&s.fills, self.k, j))
                .sum::<f64>()
                / PHASES as f64
        };
        let renewal = crate::timewindow::renewal::HybridRenewal {
            tau: self.tau,
            g: self.g,
            rate,
        };
        renewal.loss(self.l as u64, forgotten, &presence)
    }

    /// The expected state at time `now` (see the module docs): slice s_i
    /// holds generations i - k + 1 ..= i (those that exist).
    pub fn at(&self, now: f64, cum: &dyn Fn(f64) -> f64) -> TimedState {
        let starts = self.boundaries().starts(now, cum);
        let per_gen = generation_keys(&starts, now, cum);
        let k = self.k as usize;
        let fills = (0..(self.k + self.l) as usize)
            .map(|i| {
                let keys: f64 = per_gen[(i + 1).saturating_sub(k)..=i].iter().sum();
                -(-keys / self.m as f64).exp_m1()
            })
            .collect();
        TimedState {
            k: self.k,
            fills,
            starts,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn theory(trigger: Trigger) -> TimedApbfTheory {
        let c = ApbfTheory::new(4, 6, 1000).unwrap();
        TimedApbfTheory {
            k: 4,
            l: 6,
            g: 1000,
            m: c.m,
            tau: 10.0,
            trigger,
        }
    }

    /// At a steady g keys per τ, the time design at the end of a generation
    /// is the count-based APBF just before a shift; the hybrid's fluid
    /// boundaries are the same grid.
    #[test]
    fn a_steady_rate_of_g_per_tau_is_the_count_based_apbf() {
        let cum = |t: f64| 100.0 * t;
        for trigger in [Trigger::Time, Trigger::Hybrid] {
            let t = theory(trigger);
            let count = t.count_based();
            // the end of the 20th generation, and a third of the way in
            for (now, phase) in [(199.999_999, 1000), (203.0, 300)] {
                let s = t.at(now, &cum);
                let rel = s.fpr() / count.fpr_at(phase) - 1.0;
                assert!(rel.abs() < 2e-3, "{trigger:?} at {now}: {rel}");
            }
        }
    }

    #[test]
    fn the_hybrid_stays_under_the_count_bound_in_a_burst() {
        let burst = |t: f64| 1000.0 * t; // ten times g per τ
        let s = theory(Trigger::Hybrid).at(105.0, &burst);
        assert!(s.fpr() <= theory(Trigger::Hybrid).count_based().fpr() * 1.001);
        assert!(theory(Trigger::Time).at(105.0, &burst).fpr() > 0.5);
    }

    #[test]
    fn presence_counts_the_shifts_since_insertion() {
        let t = theory(Trigger::Time);
        let s = t.at(125.0, &|x| 100.0 * x);
        assert_eq!(s.shifts_since(119.0), 1);
        // within the window (l = 6 shifts) for sure; gone after k + l
        assert_eq!(s.presence(125.0 - 60.0), 1.0);
        assert!((s.presence(0.0) - s.fpr()).abs() < 1e-12);
    }
}
