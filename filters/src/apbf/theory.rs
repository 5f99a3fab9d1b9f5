//! Theory of the Age-Partitioned Bloom filter, re-derived from the paper's
//! definitions (its displayed formulas were lost in extraction).
//!
//! # Set-up
//!
//! k + l slices s_0 .. s_{k+l-1} of m bits; each generation is g insertions; an
//! insertion sets one bit in each of s_0 .. s_{k-1}; after every g insertions the
//! slices shift (s_i becomes s_{i+1}, s_{k+l-1} is zeroed and becomes s_0).
//! Slice sizing: a slice takes insertions for k generations and should then be
//! half full, so m = ⌈k g / ln 2⌉ (from 1 - e^(-kg/m) = 1/2).
//!
//! # Phase and fill ratios
//!
//! Write φ ∈ 1..=g for the number of insertions in the current generation (the
//! *phase*); φ = g is "just before a shift". In steady state (after k + l
//! generations) slice s_i has received min(i g + φ, k g) distinct keys, so its
//! expected fill ratio is
//!
//! r_i(φ) = 1 - (1 - 1/m)^min(i g + φ, k g)
//!
//! which, with m = k g / ln 2, is 1 - 2^(-min(i + φ/g, k)/k) (the *asymptotic*
//! model). The paper draws the first k slices as a *linear* gradient up to 1/2
//! (r_i = (i+1)/(2k) just before a shift; the CrowdStrike implementation uses
//! exactly this); the true fills are concave in i and above that line, so the
//! linear model underestimates the FPR. Both are here ([`FillModel`]); the
//! harness reports the paper's as `*_paper_formula` and tests the exact one.
//!
//! # FPR: the recursion F
//!
//! A query answers yes iff some k consecutive slices s_j .. s_{j+k-1}, 0 <= j <= l,
//! all have the key's bit set. For a key never inserted, slice i matches with
//! probability q_i = r_i, independently across slices (each slice is filled by
//! its own hash function). With a = the number of consecutive matches just
//! before slice i:
//!
//! F(i, a) = 1 if a = k;  0 if i = k + l;  q_i F(i+1, a+1) + (1 - q_i) F(i+1, 0)
//!
//! and FPR = F(0, 0) ([`match_probability`]). Because F is multilinear in the
//! q_i and the slices are independent, E[F(actual fills)] = F(expected fills):
//! the formula is exact in expectation, not an approximation, given uniform
//! hashing.
//!
//! # Age profile, slack and (N)PWS
//!
//! A key of age a (a = 1 is the most recent insertion) seen at phase φ has been
//! shifted j = 0 times if a <= φ, else j = ⌈(a - φ)/g⌉ times, and was written to
//! s_j .. s_{j+k-1}; those of its slices with index < k + l still exist and match
//! with probability 1. Its presence probability is F with q_i = 1 on those
//! slices ([`presence_probability`]). All k slices exist while j <= l, i.e.
//! a <= l g + φ: the guaranteed window is **w = l g** (reached at φ → 0;
//! the true guarantee oscillates between l g + 1 and (l + 1) g, so an
//! implementation promising (l + 1) g, as some do, breaks its promise just after
//! every shift). No slice exists once j >= k + l, i.e. beyond age (k + l) g at
//! φ = g, so the **slack is s = k g**.
//!
//! PWS(φ) = Σ_{a = w+1}^{w+s} P(yes | a, φ) and NPWS = PWS / w. The paper's
//! estimate of the peak at φ = g counts generation j = l + i as reported with
//! probability 2^-i for i = 0..k-1, giving NPWS ≈ (2 - 2^(1-k)) / l
//! ([`npws_peak_paper`]). That estimate assumes every other slice is half
//! full and ignores other windows that may match: when l >= k the exact value
//! from the age profile is slightly higher (other windows), when l < k it is
//! lower (the slice that must complete an expiring key's window is one of the
//! partially filled s_0 .. s_{k-1}).
//!
//! # Negative-query cost
//!
//! Algorithm 1 starts at slice l, counts consecutive matches c moving right, and
//! on a miss at slice i jumps to i - k, keeping p = c (the matches just left of
//! i are contiguous with the new candidate window [i-k, i-1]); it answers yes
//! when p + c = k and no when i < 0. The state is (i, p, c); the paper's
//! A(k, l, a, p, c, i) also carries the accumulated count a, which we factor out
//! by computing, per state, P(no), E[probes · 1{no}] and E[probes · 1{yes}]
//! ([`query_cost`]), memoised on all of (i, p, c). Expected probes of a negative
//! query = E[probes · 1{no}] / P(no); P(no) must equal 1 - F, a check that the
//! algorithm implements the specification.

use std::f64::consts::LN_2;

/// How slice fill ratios are modelled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FillModel {
    /// 1 - (1 - 1/m)^(keys in slice) for the actual g and m: exact in expectation.
    Exact {
        /// Generation size.
        g: u64,
        /// Bits per slice.
        m: u64,
    },
    /// m = k g / ln 2 with g → ∞: r_i = 1 - 2^(-min(i + x, k)/k), x = φ/g.
    Asymptotic,
    /// The paper's linear gradient r_i = min((i + x)/(2k), 1/2).
    PaperLinear,
}

/// Bits per slice for k and g: ⌈k g / ln 2⌉ (the slice is half full after k
/// generations). `None` on overflow.
pub fn slice_bits(k: u32, g: u64) -> Option<u64> {
    let n = (k as u64).checked_mul(g)?;
    let m = (n as f64 / LN_2).ceil();
    (m < u64::MAX as f64).then_some(m as u64)
}

/// Expected fill ratios of s_0 .. s_{k+l-1} at phase fraction `x` = φ/g in (0, 1]
/// (x = 1 is just before a shift). For [`FillModel::Exact`] x·g is rounded to
/// the nearest whole phase.
pub fn fill_ratios(k: u32, l: u32, x: f64, model: FillModel) -> Vec<f64> {
    let k_f = k as f64;
    (0..(k + l))
        .map(|i| {
            let gens = (i as f64 + x).min(k_f);
            match model {
                FillModel::Exact { g, m } => {
                    let phase = (x * g as f64).round() as u64;
                    let keys = (i as u64 * g + phase).min(k as u64 * g);
                    crate::bloom::fill_ratio(keys as f64, m as f64)
                }
                FillModel::Asymptotic => 1.0 - (-gens / k_f * LN_2).exp(),
                FillModel::PaperLinear => gens / (2.0 * k_f),
            }
        })
        .collect()
}

/// Probability that a sequence of independent slices, slice i matching with
/// probability `q[i]`, contains k consecutive matches: the paper's F(k, l, 0, 0)
/// when `q` holds fill ratios.
pub fn match_probability(q: &[f64], k: u32) -> f64 {
    let k = k as usize;
    // f[a] = F(i+1, a) while sweeping i downwards; F(n, a) = [a == k].
    let mut next = vec![0.0; k + 1];
    next[k] = 1.0;
    let mut cur = vec![0.0; k + 1];
    for &qi in q.iter().rev() {
        cur[k] = 1.0;
        for a in 0..k {
            cur[a] = qi * next[a + 1] + (1.0 - qi) * next[0];
        }
        std::mem::swap(&mut cur, &mut next);
    }
    next[0]
}

pub use super::cost::{query_cost, QueryCost, MAX_COST_STATES};
pub use crate::window::shifts_at_age;

/// P(yes) for a key shifted j times, given the slices' fill ratios: F with the
/// key's surviving slices s_j .. s_{j+k-1} forced to match.
pub fn presence_probability(fills: &[f64], k: u32, j: u64) -> f64 {
    let n = fills.len() as u64;
    if j >= n {
        return match_probability(fills, k);
    }
    if j + k as u64 <= n {
        // k forced slices in a row: a match for sure (and the recursion
        // would return exactly 1.0 after O((k + l) k) work)
        return 1.0;
    }
    let mut q = fills.to_vec();
    for qi in &mut q[j as usize..(j + k as u64).min(n) as usize] {
        *qi = 1.0;
    }
    match_probability(&q, k)
}

/// Asymptotic FPR F(k, l) just before a shift (exact fills, m = kg/ln 2, g → ∞).
pub fn fpr(k: u32, l: u32) -> f64 {
    match_probability(&fill_ratios(k, l, 1.0, FillModel::Asymptotic), k)
}

/// The paper's F(k, l) with its linear fill gradient (what the CrowdStrike
/// implementation computes); below the true FPR.
pub fn fpr_paper(k: u32, l: u32) -> f64 {
    match_probability(&fill_ratios(k, l, 1.0, FillModel::PaperLinear), k)
}

/// The paper's peak NPWS estimate (2 - 2^(1-k)) / l.
pub fn npws_peak_paper(k: u32, l: u32) -> f64 {
    (2.0 - 2f64.powi(1 - k as i32)) / l as f64
}

/// Asymptotic payload bits per window element, (k + l) k / (l ln 2).
pub fn bits_per_element(k: u32, l: u32) -> f64 {
    (k + l) as f64 * k as f64 / (l as f64 * LN_2)
}

/// Space efficiency against a partitioned Bloom filter of the same FPR and with
/// capacity equal to the window: that filter needs log2(1/F) / ln 2 bits per
/// element (k_b = log2(1/F) slices, real-valued, at fill 1/2), the APBF
/// (k + l) k / (l ln 2); the ratio is log2(1/F) l / ((k + l) k).
pub fn efficiency_vs_bloom(k: u32, l: u32) -> f64 {
    (1.0 / fpr(k, l)).log2() * l as f64 / ((k + l) as f64 * k as f64)
}

/// The paper's space efficiency against a partitioned Bloom filter, with
/// the paper's own F (linear fill, [`fpr_paper`]): log2(1/F) l / ((k + l) k).
/// Over the 29 configurations of the paper's Table 2 it spans 35.5% at
/// (4, 3) to 61.5% at (22, 95) (see docs/apbf.md).
pub fn efficiency_paper(k: u32, l: u32) -> f64 {
    (1.0 / fpr_paper(k, l)).log2() * l as f64 / ((k + l) as f64 * k as f64)
}

/// Largest k [`choose_k`] and [`choose_kl`] consider.
pub const MAX_K: u32 = 64;

/// Smallest k with asymptotic F(k, l) <= `target`, if any k <= [`MAX_K`] does.
pub fn choose_k(target: f64, l: u32) -> Option<u32> {
    (1..=MAX_K).find(|&k| fpr(k, l) <= target)
}

/// The (k, l) with l <= `max_l` that reaches F <= `target` with the fewest bits
/// per window element (ties: the smaller l, for lower NPWS).
pub fn choose_kl(target: f64, max_l: u32) -> Option<(u32, u32)> {
    (1..=max_l)
        .filter_map(|l| choose_k(target, l).map(|k| (k, l)))
        .min_by(|a, b| {
            bits_per_element(a.0, a.1)
                .partial_cmp(&bits_per_element(b.0, b.1))
                .unwrap()
                .then(a.1.cmp(&b.1))
        })
}

/// The (k, l) with the fewest bits per window element such that F(k, l) <=
/// `target` and the slack k⌈w/l⌉ is at most `max_slack`, for l <= `max_l`
/// (and l <= w). For each k the slack needs l >= ⌈w / ⌊max_slack/k⌋⌉; F grows
/// with l and the bits per element (k + l)k/(l ln 2) fall with it, so the
/// best l for that k is the largest one with F <= target (binary search).
pub fn choose_kl_with_slack(
    target: f64,
    window: u64,
    max_slack: u64,
    max_l: u32,
) -> Option<(u32, u32)> {
    let cap = (max_l as u64).min(window) as u32;
    (1..=MAX_K)
        .filter_map(|k| {
            let per_gen = max_slack / k as u64; // largest g allowed
            if per_gen == 0 {
                return None;
            }
            let lo = window.div_ceil(per_gen).max(1);
            if lo > cap as u64 || fpr(k, lo as u32) > target {
                return None;
            }
            let (mut lo, mut hi) = (lo as u32, cap);
            while lo < hi {
                let mid = lo + (hi - lo).div_ceil(2);
                if fpr(k, mid) <= target {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            Some((k, lo))
        })
        .min_by(|a, b| {
            bits_per_element(a.0, a.1)
                .partial_cmp(&bits_per_element(b.0, b.1))
                .unwrap()
                .then(a.1.cmp(&b.1))
        })
}

/// Every figure of one APBF configuration (k, l, g) with m = ⌈kg / ln 2⌉,
/// computed with the exact fill model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ApbfTheory {
    /// Slices written per insertion.
    pub k: u32,
    /// Extra slices that set the window.
    pub l: u32,
    /// Generation size.
    pub g: u64,
    /// Bits per slice.
    pub m: u64,
}

fn phase_grid(g: u64) -> Vec<u64> {
    crate::window::phase_grid(g, 1024)
}

impl ApbfTheory {
    /// Theory for (k, l, g); `None` if the sizes overflow.
    pub fn new(k: u32, l: u32, g: u64) -> Option<Self> {
        Some(ApbfTheory {
            k,
            l,
            g,
            m: slice_bits(k, g)?,
        })
    }

    /// w = l g.
    pub fn window(&self) -> u64 {
        self.l as u64 * self.g
    }

    /// s = k g.
    pub fn slack(&self) -> u64 {
        self.k as u64 * self.g
    }

    /// Expected fill ratios at phase φ ∈ 1..=g (steady state).
    pub fn fills(&self, phase: u64) -> Vec<f64> {
        fill_ratios(
            self.k,
            self.l,
            phase as f64 / self.g as f64,
            FillModel::Exact {
                g: self.g,
                m: self.m,
            },
        )
    }

    /// FPR at phase φ.
    pub fn fpr_at(&self, phase: u64) -> f64 {
        match_probability(&self.fills(phase), self.k)
    }

    /// FPR at the worst phase, just before a shift (φ = g): the paper's F.
    pub fn fpr(&self) -> f64 {
        self.fpr_at(self.g)
    }

    /// FPR averaged over phases (uniform φ).
    pub fn fpr_avg(&self) -> f64 {
        let grid = phase_grid(self.g);
        grid.iter().map(|&p| self.fpr_at(p)).sum::<f64>() / grid.len() as f64
    }

    /// P(yes | age, φ).
    pub fn presence(&self, age: u64, phase: u64) -> f64 {
        let j = shifts_at_age(age, phase, self.g);
        presence_probability(&self.fills(phase), self.k, j)
    }

    /// P(yes | j shifts) for j = 0..=k+l at phase φ (j = k + l: fully expired).
    pub fn presence_by_shift(&self, phase: u64) -> Vec<f64> {
        let fills = self.fills(phase);
        (0..=(self.k + self.l) as u64)
            .map(|j| presence_probability(&fills, self.k, j))
            .collect()
    }

    /// PWS at phase φ: expected number of keys of age w+1 ..= w+s reported.
    pub fn pws_at(&self, phase: u64) -> f64 {
        let by_j = self.presence_by_shift(phase);
        let tail = *by_j.last().expect("k + l + 1 entries");
        crate::window::pws(&by_j, tail, self.window(), self.slack(), self.g, phase)
    }

    /// Peak NPWS: max over phases of PWS / w (attained at φ = g).
    pub fn npws_peak(&self) -> f64 {
        phase_grid(self.g)
            .iter()
            .map(|&p| self.pws_at(p))
            .fold(0.0, f64::max)
            / self.window() as f64
    }

    /// NPWS averaged over phases.
    pub fn npws_avg(&self) -> f64 {
        let grid = phase_grid(self.g);
        grid.iter().map(|&p| self.pws_at(p)).sum::<f64>() / grid.len() as f64 / self.window() as f64
    }

    /// Algorithm 1's cost at the worst phase.
    pub fn query_cost(&self) -> QueryCost {
        query_cost(&self.fills(self.g), self.k, self.l)
    }

    /// Expected slice probes of a negative query (answering no) at φ = g.
    pub fn expected_probes_negative(&self) -> f64 {
        self.query_cost().probes_no
    }

    /// Payload bits (k + l) m.
    pub fn payload_bits(&self) -> u64 {
        (self.k + self.l) as u64 * self.m
    }

    /// Payload bits per window element.
    pub fn bits_per_element(&self) -> f64 {
        self.payload_bits() as f64 / self.window() as f64
    }

    /// Space efficiency against the optimal partitioned Bloom filter with the
    /// same worst-phase FPR and capacity w: (log2(1/F) / ln 2) / bits per element.
    pub fn efficiency_vs_bloom(&self) -> f64 {
        (1.0 / self.fpr()).log2() / LN_2 / self.bits_per_element()
    }
}

#[cfg(test)]
#[path = "theory_tests.rs"]
mod tests;
