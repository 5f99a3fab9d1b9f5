//! Theory of the Stable Bloom filter (Deng, Rafiei, *Approximately Detecting
//! Duplicates for Streaming Data using Stable Bloom Filters*, SIGMOD 2006),
//! from the proofs of its stable point (displayed formulas lost in our copy,
//! re-derived here from the model and Lemma 1).
//!
//! # Model
//!
//! m cells of d bits, Max = 2^d - 1. Step t: H(x_t) is a uniform K-subset of the
//! cells, V_t a uniform P-subset, all independent (ideal hashing, distinct
//! elements). For one cell j, a step is a *set* (j ∈ H) with probability
//! a = K/m, a *pure decrement* (j ∈ V, j ∉ H) with probability
//! b = (P/m)(1 - K/m), and irrelevant otherwise; steps are independent.
//!
//! # Zero fraction (Theorem 1)
//!
//! By Lemma 1, C_t\[j\] = 0 iff, reading the steps backwards from t and keeping
//! only relevant ones, the first Max are all pure decrements, or there are fewer
//! than Max relevant steps and none is a set. A relevant step is a pure
//! decrement with probability q = b / (a + b), independently. With R_t ~
//! Binomial(t, a + b) relevant steps,
//!
//! P(C_t\[j\] = 0) = E\[q^min(R_t, Max)\]  →  q^Max  (t → ∞),
//!
//! the stable point, with q = 1 / (1 + 1/(P (1/K - 1/m))) as in Deng and Rafiei.
//! The convergence curve is the finite-t expectation ([`StableTheory::zero_fraction_at`]).
//!
//! # False positives
//!
//! A never-inserted key is reported iff its K cells are all non-zero:
//! FPR_t = (1 - z_t)^K, stable FPR = (1 - q^Max)^K. This treats the K cells as
//! independent; they are not quite (each step sets exactly K cells and
//! decrements exactly P), an O(K²/m) effect.
//!
//! # False negatives by age
//!
//! A key inserted at step s and queried after step t = s + n (age n + 1, the
//! newest key having age 1) set its K cells at s. Cell j is 0 after step t iff
//! among the steps s+1..t there are at least Max relevant ones and the last Max
//! of them are pure decrements (fewer than Max relevant steps cannot undo the set
//! at s): P = q^Max · P(Binomial(n, a + b) >= Max). So
//!
//! FNR(age) = 1 - (1 - q^Max · P(Bin(age - 1, a + b) >= Max))^K,
//!
//! rising from 0 (for ages up to Max, no cell can have reached 0) to
//! 1 - stable FPR (an old key is reported as often as a never-inserted one).

/// Parameters (m, d, K, P) of a Stable Bloom filter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StableTheory {
    /// Cells.
    pub m: u64,
    /// Bits per cell.
    pub d: u32,
    /// Cells set per insertion.
    pub k: u32,
    /// Cells decremented per insertion.
    pub p: u64,
}

/// ln P(X < r) and P(X >= r) helpers for X ~ Binomial(n, c), r small.
fn binomial_cdf_below(n: u64, c: f64, r: u64) -> f64 {
    // P(X < r) = Σ_{ρ<r} pmf(ρ), pmf by recurrence in log space.
    if c <= 0.0 {
        return 1.0;
    }
    if c >= 1.0 {
        return if n < r { 1.0 } else { 0.0 };
    }
    let (lc, l1c) = (c.ln(), (-c).ln_1p());
    let mut lpmf = n as f64 * l1c;
    let mut sum = 0.0;
    for rho in 0..r.min(n + 1) {
        sum += lpmf.exp();
        lpmf += ((n - rho) as f64).ln() - ((rho + 1) as f64).ln() + lc - l1c;
    }
    sum.min(1.0)
}

impl StableTheory {
    /// Max = 2^d - 1.
    pub fn max(&self) -> u64 {
        (1u64 << self.d) - 1
    }

    fn a(&self) -> f64 {
        self.k as f64 / self.m as f64
    }

    fn b(&self) -> f64 {
        self.p as f64 / self.m as f64 * (1.0 - self.a())
    }

    /// q = b / (a + b): a relevant step is a pure decrement.
    pub fn q(&self) -> f64 {
        self.b() / (self.a() + self.b())
    }

    /// The stable fraction of zero cells, q^Max.
    pub fn zero_fraction(&self) -> f64 {
        self.q().powf(self.max() as f64)
    }

    /// The expected fraction of zero cells after t insertions from empty,
    /// E[q^min(R_t, Max)] with R_t ~ Binomial(t, a + b).
    pub fn zero_fraction_at(&self, t: u64) -> f64 {
        let (c, q, max) = (self.a() + self.b(), self.q(), self.max());
        // Σ_{ρ<Max} pmf(ρ) (q^ρ - q^Max) + q^Max
        if c <= 0.0 {
            return 1.0;
        }
        let (lc, l1c) = (c.ln(), (-c).ln_1p());
        let mut lpmf = t as f64 * l1c;
        let qmax = q.powf(max as f64);
        let mut sum = qmax;
        for rho in 0..max.min(t + 1) {
            sum += lpmf.exp() * (q.powf(rho as f64) - qmax);
            lpmf += ((t - rho) as f64).ln() - ((rho + 1) as f64).ln() + lc - l1c;
        }
        sum
    }

    /// The stable FPR (1 - q^Max)^K.
    pub fn fpr(&self) -> f64 {
        (1.0 - self.zero_fraction()).powi(self.k as i32)
    }

    /// FPR after t insertions from empty, (1 - z_t)^K.
    pub fn fpr_at(&self, t: u64) -> f64 {
        (1.0 - self.zero_fraction_at(t)).powi(self.k as i32)
    }

    /// P(one of a key's cells is 0) at `age` (1 = newest).
    fn cell_lost(&self, age: u64) -> f64 {
        let n = age.saturating_sub(1);
        let below = binomial_cdf_below(n, self.a() + self.b(), self.max());
        self.zero_fraction() * (1.0 - below)
    }

    /// False-negative probability of a key of the given age (stable filter,
    /// distinct stream).
    pub fn fnr_at_age(&self, age: u64) -> f64 {
        1.0 - (1.0 - self.cell_lost(age)).powi(self.k as i32)
    }

    /// P(reported | age) = 1 - FNR(age).
    pub fn presence(&self, age: u64) -> f64 {
        1.0 - self.fnr_at_age(age)
    }

    /// The smallest age whose FNR reaches `level` (None if it never does, i.e.
    /// `level` >= 1 - stable FPR).
    pub fn age_at_fnr(&self, level: f64) -> Option<u64> {
        if level >= 1.0 - self.fpr() {
            return None;
        }
        let (mut lo, mut hi) = (1u64, 2u64);
        while self.fnr_at_age(hi) < level {
            lo = hi;
            hi = hi.checked_mul(2)?;
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.fnr_at_age(mid) < level {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some(hi)
    }

    /// Insertions until the expected zero fraction is within `rel` (relative)
    /// of the stable point.
    pub fn steps_to_stable(&self, rel: f64) -> u64 {
        let target = self.zero_fraction();
        let close = |t: u64| (self.zero_fraction_at(t) - target).abs() <= rel * target;
        let (mut lo, mut hi) = (0u64, 1u64);
        while !close(hi) {
            lo = hi;
            hi = match hi.checked_mul(2) {
                Some(h) => h,
                None => return u64::MAX,
            };
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if close(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        hi
    }

    /// Payload bits m d.
    pub fn payload_bits(&self) -> u64 {
        self.m * self.d as u64
    }
}

/// The smallest P whose stable FPR is at most `fpr` for (m, d, K), from
/// q* = (1 - fpr^(1/K))^(1/Max) and P = K q / ((1 - q)(1 - K/m)), rounded up
/// (rounding to nearest or down can miss the target). `None` if it exceeds m.
pub fn p_for_fpr(m: u64, d: u32, k: u32, fpr: f64) -> Option<u64> {
    let max = ((1u64 << d) - 1) as f64;
    let q = (1.0 - fpr.powf(1.0 / k as f64)).powf(1.0 / max);
    let p = k as f64 * q / ((1.0 - q) * (1.0 - k as f64 / m as f64));
    let mut p = p.ceil().max(1.0) as u64;
    // guard against floating error at the boundary
    while p <= m && (StableTheory { m, d, k, p }).fpr() > fpr {
        p += 1;
    }
    (p <= m).then_some(p)
}

/// Largest d and K that [`choose`] considers.
pub const MAX_D: u32 = 8;
/// See [`MAX_D`].
pub const MAX_K_CHOICE: u32 = 16;

/// For `memory_bits` of payload and a target stable FPR, the (d, K, P) that
/// remember longest: the largest age at which FNR is still below 1/2, with P
/// the smallest meeting the target. Returns the theory of the choice.
pub fn choose(memory_bits: u64, fpr: f64) -> Option<StableTheory> {
    let mut best: Option<(u64, StableTheory)> = None;
    for d in 1..=MAX_D {
        let m = memory_bits / d as u64;
        for k in 1..=MAX_K_CHOICE {
            if (k as u64) >= m {
                continue;
            }
            let Some(p) = p_for_fpr(m, d, k, fpr) else {
                continue;
            };
            let t = StableTheory { m, d, k, p };
            let Some(half) = t.age_at_fnr(0.5) else {
                continue;
            };
            if best.is_none_or(|(h, _)| half > h) {
                best = Some((half, t));
            }
        }
    }
    best.map(|(_, t)| t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stable_point_matches_deng_rafiei_form() {
        let t = StableTheory {
            m: 10_000,
            d: 3,
            k: 4,
            p: 20,
        };
        let base: f64 = 1.0 / (1.0 + 1.0 / (20.0 * (1.0 / 4.0 - 1.0 / 10_000.0)));
        assert!((t.zero_fraction() - base.powi(7)).abs() < 1e-12);
    }

    #[test]
    fn convergence_curve_endpoints() {
        let t = StableTheory {
            m: 1000,
            d: 2,
            k: 3,
            p: 5,
        };
        assert_eq!(t.zero_fraction_at(0), 1.0);
        // after one step: a cell is zero unless it was set
        assert!((t.zero_fraction_at(1) - (1.0 - 3.0 / 1000.0)).abs() < 1e-12);
        assert!((t.zero_fraction_at(1_000_000) - t.zero_fraction()).abs() < 1e-12);
        // E[q^R] = (1 - a)^t when Max is not reached
        let big = StableTheory {
            m: 1000,
            d: 8,
            k: 3,
            p: 5,
        };
        for s in [1u64, 10, 100] {
            assert!((big.zero_fraction_at(s) - (1.0 - 0.003f64).powi(s as i32)).abs() < 1e-12);
        }
    }

    #[test]
    fn fnr_rises_from_zero_to_one_minus_fpr() {
        let t = StableTheory {
            m: 10_000,
            d: 2,
            k: 4,
            p: 10,
        };
        for age in 1..=3 {
            assert_eq!(
                t.fnr_at_age(age),
                0.0,
                "fewer than Max steps cannot clear a cell"
            );
        }
        assert!(t.fnr_at_age(4) > 0.0);
        assert!((t.fnr_at_age(10_000_000) - (1.0 - t.fpr())).abs() < 1e-9);
        let mut prev = 0.0;
        for age in (1..200_000).step_by(997) {
            let f = t.fnr_at_age(age);
            assert!(f >= prev - 1e-15);
            assert_eq!(t.presence(age), 1.0 - f);
            prev = f;
        }
        assert_eq!(t.payload_bits(), 20_000);
    }

    #[test]
    fn p_for_fpr_meets_target_and_is_minimal() {
        for (m, d, k, fpr) in [
            (10_000, 1, 7, 0.01),
            (100_000, 3, 4, 0.001),
            (5000, 2, 2, 0.05),
        ] {
            let p = p_for_fpr(m, d, k, fpr).unwrap();
            assert!(StableTheory { m, d, k, p }.fpr() <= fpr);
            if p > 1 {
                assert!(StableTheory { m, d, k, p: p - 1 }.fpr() > fpr);
            }
        }
    }

    #[test]
    fn choose_meets_target() {
        let t = choose(80_000, 0.01).unwrap();
        assert!(t.fpr() <= 0.01);
        assert!(t.payload_bits() <= 80_000);
    }
}
