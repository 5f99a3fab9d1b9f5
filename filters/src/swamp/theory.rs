//! SWAMP's theory: fingerprint length, FPR, memory, the distinct-count
//! estimators and the expected errors of counting and entropy, all in terms
//! of M = 2^L fingerprint values and the window's true histogram.
//!
//! # Derivations
//!
//! Fingerprints h(x) are uniform on \[M\] and independent across distinct keys
//! (we hash keys through a 64-bit mixer; the paper needs only pairwise
//! independence for its bounds).
//!
//! * **Membership.** A never-seen key y is reported iff h(y) equals the
//!   fingerprint of one of the window's D distinct keys:
//!   FPR = 1 - (1 - 1/M)^D ≤ D/M ≤ W/M. The paper takes
//!   L = ⌈log2(W/ε)⌉, so FPR ≤ ε at any stream.
//! * **Frequency.** The estimate f̂_y counts the window arrivals whose
//!   fingerprint is h(y): f̂_y = f_y + X with X = Σ_{j≠y} f_j·I_j and
//!   I_j = [h(j) = h(y)] independent Bernoulli(1/M). So f̂_y ≥ f_y always,
//!   E\[X\] = (n - f_y)/M and
//!   E\[X²\] = (1/M)(1 - 1/M) Σ_{j≠y} f_j² + ((n - f_y)/M)², n the window's
//!   arrivals. The *on-arrival* RMSE (the WCSS paper's measure: query each
//!   arriving key) averages E\[X²\] over arrivals: [`count_mse`].
//! * **Distinct count.** Z, the number of distinct fingerprints, is the
//!   number of occupied bins when D balls fall into M bins:
//!   E\[Z\] = M(1 - (1 - 1/M)^D) ≤ D, and Z ≤ D always (DistinctLB). Setting
//!   Z = E\[Z\] and solving for D gives the estimator
//!   D̂ = ln(1 - Z/M) / ln(1 - 1/M) (DistinctMLE; the maximum-likelihood
//!   estimate of D from Z up to the integrality of D). Its variance follows
//!   from the occupancy variance
//!   Var Z = M(M - 1)(1 - 2/M)^D + M(1 - 1/M)^D - M²(1 - 1/M)^(2D)
//!   by the delta method: Var D̂ ≈ Var Z / (M (1 - 1/M)^D ln(1/(1 - 1/M)))².
//! * **Entropy.** SWAMP computes the entropy Ĥ of the fingerprint histogram.
//!   Merging flows never raises entropy, so Ĥ ≤ H. Two flows i, j share a
//!   fingerprint with probability 1/M; a merge of just those two lowers n·H
//!   by Δ_ij = (f_i + f_j) log2(f_i + f_j) - f_i log2 f_i - f_j log2 f_j, so
//!   to first order in 1/M (ignoring merges of three or more flows, whose
//!   probability is O((D/M)²) per pair)
//!   E[H - Ĥ] ≈ (1/(nM)) Σ_{i<j} Δ_ij ([`entropy_bias`]); the exact
//!   expectation, all merges included, is [`entropy_error_exact`] (one bin's
//!   load distribution by convolution), which the harness reports. A bound with no
//!   approximation: a group G of flows merged into one fingerprint, of total
//!   F, lowers n·H by Σ_{i∈G} f_i log2(F/f_i) ≤ Σ_{i∈G} (F - f_i)/ln 2
//!   (log2(1 + x) ≤ x/ln 2), that is Σ_i Σ_{j∈G, j≠i} f_j / ln 2; each pair
//!   shares a fingerprint with probability 1/M, so
//!   E[H - Ĥ] ≤ Σ_i (n - f_i)/(nM ln 2) = (D - 1)/(M ln 2) bits, O(ε) for
//!   L = ⌈log2(W/ε)⌉.
//! * **Memory.** The fingerprint buffer holds W·L bits; the table's cost is
//!   derived in [`table`](super::table).

use super::table::{buckets_for, remainder_bits, ALPHA, SLOTS};

/// The paper's fingerprint length L = ⌈log2(W/ε)⌉.
pub fn fingerprint_bits(w: u64, eps: f64) -> u32 {
    (w as f64 / eps).log2().ceil().max(1.0) as u32
}

/// FPR with D distinct keys in the window: 1 - (1 - 2^-L)^D.
pub fn fpr(l: u32, d: f64) -> f64 {
    -(d * (-(2f64.powi(-(l as i32)))).ln_1p()).exp_m1()
}

/// Bits of our SWAMP on a stream whose window never holds a flow three times
/// (a distinct stream): W·L for the fingerprint buffer, the table's slots and
/// four words of state. Overflow entries (flows of frequency ≥ 3) add
/// L + ⌈log2(W + 1)⌉ bits each.
pub fn memory_bits(w: u64, l: u32) -> u64 {
    let b = buckets_for(w);
    w * l as u64 + b * SLOTS * (remainder_bits(l, b) as u64 + 3) + 4 * 64
}

/// The paper's memory figure with TinyTable:
/// W·L + (1 + α)W(L - log2 W + 3) bits.
pub fn tinytable_memory_bits(w: u64, l: u32) -> f64 {
    let wf = w as f64;
    wf * l as f64 + (1.0 + ALPHA) * wf * (l as f64 - wf.log2() + 3.0)
}

/// E\[Z\]: expected distinct fingerprints of D distinct keys, M = 2^L.
pub fn expected_distinct_fingerprints(l: u32, d: f64) -> f64 {
    let m = 2f64.powi(l as i32);
    -m * (d * (-1.0 / m).ln_1p()).exp_m1()
}

/// Var Z for D distinct keys in M = 2^L bins, written without the
/// cancellation of M(M-1)p₂ + Mp₁ - M²p₁² (terms of order M² whose
/// difference is of order D²/M): with p₁ = (1 - 1/M)^D and
/// p₂ = (1 - 2/M)^D, Var Z = Mp₁(1 - p₁) + M(M - 1)(p₂ - p₁²), and
/// p₂ - p₁² = p₁²·expm1(D ln(1 - 1/(M - 1)²)).
pub fn var_distinct_fingerprints(l: u32, d: f64) -> f64 {
    let m = 2f64.powi(l as i32);
    let ln1 = d * (-1.0 / m).ln_1p();
    let p1 = ln1.exp();
    let cross = (2.0 * ln1).exp() * (d * (-1.0 / ((m - 1.0) * (m - 1.0))).ln_1p()).exp_m1();
    (m * p1 * -ln1.exp_m1() + m * (m - 1.0) * cross).max(0.0)
}

/// DistinctMLE: D̂ = ln(1 - Z/M) / ln(1 - 1/M).
pub fn distinct_mle(l: u32, z: f64) -> f64 {
    let m = 2f64.powi(l as i32);
    (-z / m).ln_1p() / (-1.0 / m).ln_1p()
}

/// Delta-method standard deviation of DistinctMLE at D distinct keys.
pub fn distinct_mle_sd(l: u32, d: f64) -> f64 {
    let m = 2f64.powi(l as i32);
    let slope = m * (d * (-1.0 / m).ln_1p()).exp() * -(-1.0 / m).ln_1p();
    var_distinct_fingerprints(l, d).sqrt() / slope
}

/// First-order E[H - Ĥ] in bits for a window of n arrivals whose flows have
/// the given counts, M = 2^L. Pairs are grouped by frequency value, so the
/// cost is quadratic in the number of distinct frequencies (at most √(2n)).
pub fn entropy_bias(l: u32, counts: impl IntoIterator<Item = u64>) -> f64 {
    let mut by_f: std::collections::BTreeMap<u64, u64> = Default::default();
    let mut n = 0u64;
    for c in counts {
        *by_f.entry(c).or_default() += 1;
        n += c;
    }
    if n == 0 {
        return 0.0;
    }
    let fl = crate::summary::flogf;
    let v: Vec<(u64, u64)> = by_f.into_iter().collect();
    let mut total = 0.0;
    for (i, &(a, na)) in v.iter().enumerate() {
        // pairs within the same frequency value
        let within = (na * (na - 1) / 2) as f64;
        total += within * (fl(2 * a) - 2.0 * fl(a));
        for &(b, nb) in &v[i + 1..] {
            total += (na * nb) as f64 * (fl(a + b) - fl(a) - fl(b));
        }
    }
    total / (n as f64 * 2f64.powi(l as i32))
}

/// Exact E[H - Ĥ] in bits for a window whose flows have the given counts,
/// M = 2^L.
///
/// SWAMP's n·Ĥ = n log2 n - Σ_φ N_φ log2 N_φ over fingerprints φ, with N_φ
/// the arrivals whose flow hashes to φ. The bins are exchangeable, so
/// E[Σ_φ N_φ log2 N_φ] = M·E[N log2 N] for one bin, where
/// N = Σ_f f·K_f and K_f ~ Binomial(n_f, 1/M) independently for the n_f
/// flows of each frequency f. The distribution of N on 0..=n is computed by
/// convolving the classes (binomial terms below 1e-30 of the largest are
/// dropped), and E[H - Ĥ] = (M·E[N log2 N] - Σ_i f_i log2 f_i)/n. Cost: the
/// number of distinct frequencies times n times the binomials' support.
pub fn entropy_error_exact(l: u32, counts: impl IntoIterator<Item = u64>) -> f64 {
    let mut by_f: std::collections::BTreeMap<u64, u64> = Default::default();
    let mut n = 0u64;
    for c in counts {
        *by_f.entry(c).or_default() += 1;
        n += c;
    }
    // summed in frequency order, so that the result does not depend on the
    // order the counts arrive in (a hash map's)
    let sum_flogf: f64 = by_f
        .iter()
        .map(|(&f, &nf)| nf as f64 * crate::summary::flogf(f))
        .sum();
    if n == 0 {
        return 0.0;
    }
    let q = 2f64.powi(-(l as i32));
    let mut dist = vec![0.0f64; n as usize + 1];
    dist[0] = 1.0;
    let mut top = 0usize;
    let mut pmf = Vec::new();
    for (&f, &nf) in &by_f {
        // Binomial(nf, q) pmf by the ratio recurrence
        pmf.clear();
        let mut p = (nf as f64 * (-q).ln_1p()).exp();
        let mut k = 0u64;
        let mut peak = p;
        loop {
            pmf.push(p);
            peak = peak.max(p);
            if k == nf || (p < 1e-30 * peak && k as f64 > nf as f64 * q) {
                break;
            }
            p *= (nf - k) as f64 / (k + 1) as f64 * q / (1.0 - q);
            k += 1;
        }
        let f = f as usize;
        let new_top = (top + (pmf.len() - 1) * f).min(n as usize);
        for v in (0..=new_top).rev() {
            let mut acc = 0.0;
            for (k, &pk) in pmf.iter().enumerate() {
                let Some(u) = v.checked_sub(k * f) else { break };
                if u <= top {
                    acc += dist[u] * pk;
                }
            }
            dist[v] = acc;
        }
        top = new_top;
    }
    let m = 1.0 / q;
    let e_nlogn: f64 = dist[..=top]
        .iter()
        .enumerate()
        .map(|(v, &p)| p * crate::summary::flogf(v as u64))
        .sum();
    (m * e_nlogn - sum_flogf) / n as f64
}

/// Expected squared error of the frequency estimate of a key of window
/// frequency `f`, in a window of n arrivals with second moment Σ f_j² = `s2`
/// (including the key's own f²), M = 2^L.
pub fn count_mse(l: u32, n: u64, s2: f64, f: u64) -> f64 {
    let m = 2f64.powi(l as i32);
    let others = s2 - (f * f) as f64;
    let mean = (n - f) as f64 / m;
    others / m * (1.0 - 1.0 / m) + mean * mean
}

#[cfg(test)]
mod tests {
    use super::*;

    /// E[H - Ĥ] by enumerating every assignment of fingerprints to four
    /// flows with M = 4: 256 equally likely cases. Three flows of one count
    /// make the convolution's support wider than a class's count plus its
    /// binomial's (a truncation there survived the simulation tests).
    #[test]
    fn entropy_error_exact_against_enumeration() {
        for counts in [[1u64, 2, 3, 3], [5, 5, 5, 1], [7, 7, 7, 7]] {
            let n: u64 = counts.iter().sum();
            let fl = crate::summary::flogf;
            let h = (n as f64).log2() - counts.iter().map(|&c| fl(c)).sum::<f64>() / n as f64;
            let mut total = 0.0;
            for a in 0..256u64 {
                let mut bins = [0u64; 4];
                for (i, &c) in counts.iter().enumerate() {
                    bins[((a >> (2 * i)) & 3) as usize] += c;
                }
                let est = (n as f64).log2() - bins.iter().map(|&b| fl(b)).sum::<f64>() / n as f64;
                total += h - est;
            }
            let want = total / 256.0;
            let got = entropy_error_exact(2, counts);
            assert!(
                (got - want).abs() < 1e-12,
                "{counts:?}: {got} against {want}"
            );
        }
    }

    #[test]
    fn closed_forms() {
        assert_eq!(fingerprint_bits(1 << 16, 1.0 / 1024.0), 26);
        assert_eq!(fingerprint_bits(1000, 0.01), 17);
        assert!(fpr(26, (1u64 << 16) as f64) <= 1.0 / 1024.0);
        // E[Z] and the MLE invert each other
        let ez = expected_distinct_fingerprints(20, 5000.0);
        assert!((distinct_mle(20, ez) - 5000.0).abs() < 1e-6);
        assert!(ez < 5000.0);
        // Var Z: with few collisions, about the expected number of colliding
        // pairs D(D-1)/2M; and the exact occupancy variance at small M
        let v = var_distinct_fingerprints(30, 10_000.0);
        let pairs = 10_000.0 * 9_999.0 / 2.0 / 2f64.powi(30);
        assert!((v / pairs - 1.0).abs() < 0.01, "{v} vs {pairs}");
        // M = 2, D = 2: Z = 1 or 2 with probability 1/2 each, variance 1/4
        assert!((var_distinct_fingerprints(1, 2.0) - 0.25).abs() < 1e-12);
        // the pairwise entropy bias of two flows of 1: Δ = 2 bits, n = 2
        assert!((entropy_bias(4, [1, 1]) - 2.0 / (2.0 * 16.0)).abs() < 1e-12);
        // and it is below the crude bound (D - 1)/(M ln 2)
        let counts = [5u64, 1, 1, 2, 9, 3, 3];
        let b = entropy_bias(10, counts);
        assert!(b > 0.0 && b <= 6.0 / (1024.0 * std::f64::consts::LN_2));
        // exact entropy error: two flows of 1 in M = 2 bins merge with
        // probability 1/2, losing 1 bit: E = 1/2
        assert!((entropy_error_exact(1, [1, 1]) - 0.5).abs() < 1e-12);
        // three flows (1, 1, 2) in M = 4 bins, by enumeration of 64 placements
        let mut total = 0.0;
        for a in 0..4 {
            for b in 0..4 {
                for c in 0..4 {
                    let mut bins = [0u64; 4];
                    bins[a] += 1;
                    bins[b] += 1;
                    bins[c] += 2;
                    let h_hat = crate::summary::entropy_from_sum(
                        4,
                        bins.iter().map(|&x| crate::summary::flogf(x)).sum(),
                    );
                    total += 1.5 - h_hat;
                }
            }
        }
        assert!((entropy_error_exact(2, [1, 1, 2]) - total / 64.0).abs() < 1e-12);
        // and the first-order formula approaches it when collisions are rare
        let exact = entropy_error_exact(20, counts);
        assert!((entropy_bias(20, counts) / exact - 1.0).abs() < 1e-4);
        // count_mse: one other flow of 3 in a window of 5
        let m = 16.0;
        let want = 9.0 / m * (1.0 - 1.0 / m) + (3.0 / m) * (3.0 / m);
        assert!((count_mse(4, 5, 4.0 + 9.0, 2) - want).abs() < 1e-12);
        assert!(tinytable_memory_bits(1 << 16, 26) < memory_bits(1 << 16, 26) as f64);
    }
}
