//! Other implementations' conventions, computed as they compute them, so a
//! configuration stated in a peer's terms can be read in bloomlab's
//! (`bloomlab peers`, docs/peers.md).
//!
//! - CrowdStrike/apbf `New(k, l, g)` and decred/dcrd `container/apbf`
//!   promise a capacity of (l + 1) g (bloomlab and the paper: a window of
//!   w = l g, which the filter holds at every phase; (l + 1) g holds only
//!   just before a shift) and report the FPR of the paper's linear fill
//!   (bloomlab: the exact fill). dcrd's `NewFilter(capacity, fpr)` picks
//!   k = ceil(log2(1/fpr)) and the largest l whose linear F meets fpr.
//! - The stable-bloom-filter crate and tylertreat/BoomFilters pick K =
//!   ceil(log2(1/fpr)) / 2 and P = floor(1 / ((1/q - 1)(1/K - 1/m))), q =
//!   (1 - fpr^(1/K))^(1/Max): P rounded down, so the stable FPR is at or
//!   above the target (bloomlab rounds up).

use bloomlab_filters::apbf::theory as apbf_theory;
use bloomlab_filters::stable::theory::{p_for_fpr, StableTheory};
use std::f64::consts::LN_2;

/// An APBF as a peer builds it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PeerApbf {
    /// Slices written per insertion.
    pub k: u32,
    /// Extra slices.
    pub l: u32,
    /// Generation size.
    pub g: u64,
    /// Bits per slice as the peer allocates them.
    pub bits_per_slice: u64,
}

impl PeerApbf {
    /// CrowdStrike's `New(k, l, g)`: m = ceil(1.442695 k g) bits per slice.
    // the peer's truncated 1/ln 2, not LOG2_E: its slice sizes follow it
    #[allow(clippy::approx_constant)]
    pub fn crowdstrike(k: u32, l: u32, g: u64) -> PeerApbf {
        PeerApbf {
            k,
            l,
            g,
            bits_per_slice: (1.442695 * k as f64 * g as f64).ceil() as u64,
        }
    }

    /// dcrd's `NewFilterKL(capacity, k, l)`: g = ceil(capacity / (l + 1)),
    /// m = ceil(k g / ln 2).
    pub fn dcrd_kl(capacity: u64, k: u32, l: u32) -> PeerApbf {
        let g = (capacity as f64 / (l as f64 + 1.0)).ceil() as u64;
        PeerApbf {
            k,
            l,
            g,
            bits_per_slice: (k as f64 * g as f64 / LN_2).ceil() as u64,
        }
    }

    /// dcrd's `NewFilter(capacity, fpr)`: k = ceil(log2(1/fpr)), l the
    /// largest (up to 100) whose linear-fill F meets fpr (0 if none does,
    /// as dcrd returns it).
    pub fn dcrd(capacity: u64, fpr: f64) -> PeerApbf {
        let k = (-fpr.log2()).ceil() as u32;
        let l = (1..=100u32)
            .find(|&l| apbf_theory::fpr_paper(k, l) > fpr)
            .map_or(100, |l| l - 1);
        PeerApbf::dcrd_kl(capacity, k, l)
    }

    /// The capacity the peer promises, (l + 1) g.
    pub fn promised_capacity(&self) -> u64 {
        (self.l as u64 + 1) * self.g
    }

    /// The window every phase holds, l g (bloomlab's w).
    pub fn window(&self) -> u64 {
        self.l as u64 * self.g
    }

    /// The FPR the peer reports: the paper's linear fill.
    pub fn promised_fpr(&self) -> f64 {
        apbf_theory::fpr_paper(self.k, self.l)
    }

    /// The worst-phase FPR with the exact fill at the peer's slice size.
    pub fn exact_fpr(&self) -> f64 {
        let (k, m) = (self.k as usize, self.bits_per_slice as f64);
        let fills: Vec<f64> = (0..(self.k + self.l) as usize)
            .map(|i| {
                let keys = (i + 1).min(k) as f64 * self.g as f64;
                1.0 - (keys * (-1.0 / m).ln_1p()).exp()
            })
            .collect();
        apbf_theory::match_probability(&fills, self.k)
    }

    /// Payload bits, (k + l) m.
    pub fn payload_bits(&self) -> u64 {
        (self.k + self.l) as u64 * self.bits_per_slice
    }

    /// dcrd's `Size()`: the payload in whole bytes plus its 70-byte overhead.
    pub fn dcrd_size_bytes(&self) -> u64 {
        self.payload_bits().div_ceil(8) + 70
    }
}

/// The (K, P) the stable-bloom-filter crate and BoomFilters choose for m
/// cells of d bits and a target FPR.
pub fn stable_peer(m: u64, d: u32, fpr: f64) -> StableTheory {
    let k = (((1.0 / fpr).log2().ceil() as u64) / 2).clamp(1, m) as u32;
    let max = ((1u64 << d) - 1) as f64;
    let sub_denom = (1.0 - fpr.powf(1.0 / k as f64)).powf(1.0 / max);
    let denom = (1.0 / sub_denom - 1.0) * (1.0 / k as f64 - 1.0 / m as f64);
    let p = ((1.0 / denom) as u64).max(1);
    StableTheory { m, d, k, p }
}

/// The P bloomlab picks for the same (m, d, K): the smallest meeting fpr.
pub fn stable_ours(peer: &StableTheory, fpr: f64) -> Option<StableTheory> {
    p_for_fpr(peer.m, peer.d, peer.k, fpr).map(|p| StableTheory { p, ..*peer })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CrowdStrike/apbf's own test vectors (apbf_test.go,
    /// TestCalculateFalsePositiveRate, within 1e-6): the linear-fill F.
    #[test]
    fn linear_fill_matches_crowdstrike_s_published_vectors() {
        let vectors = [
            (4, 3, 0.100586),
            (5, 7, 0.101603),
            (7, 5, 0.011232),
            (8, 8, 0.010244),
            (10, 7, 0.001211),
            (11, 9, 0.000918),
            (14, 11, 0.000099),
            (15, 15, 0.000100),
            (17, 13, 0.00001),
            (18, 16, 0.000009),
        ];
        for (k, l, want) in vectors {
            let f = PeerApbf::crowdstrike(k, l, 1000).promised_fpr();
            assert!((f - want).abs() <= 1e-6, "({k}, {l}): {f} vs {want}");
        }
    }

    /// dcrd's README, "Memory Usage": `Size()` of `NewFilter(capacity, fpr)`.
    #[test]
    fn dcrd_sizing_matches_its_published_memory_table() {
        let table = [
            (1000, 0.01, 2.78),
            (10000, 0.01, 27.19),
            (100000, 0.01, 271.28),
            (1000, 0.001, 4.10),
            (10000, 0.001, 40.34),
            (100000, 0.001, 402.62),
        ];
        for (cap, fpr, kib) in table {
            let f = PeerApbf::dcrd(cap, fpr);
            let got = f.dcrd_size_bytes() as f64 / 1024.0;
            assert!(
                (got - kib).abs() < 0.006,
                "{cap} {fpr}: {got:.3} KiB vs {kib}"
            );
        }
    }

    #[test]
    fn dcrd_picks_14_11_for_1e_4_and_misses_it_by_about_20_percent() {
        let f = PeerApbf::dcrd(1_000_000, 1e-4);
        assert_eq!((f.k, f.l), (14, 11));
        assert!(f.promised_fpr() <= 1e-4);
        let miss = f.exact_fpr() / 1e-4;
        assert!((1.18..1.22).contains(&miss), "{miss}");
        // its promise (l + 1) g is one generation more than every phase holds
        assert_eq!(f.promised_capacity() - f.window(), f.g);
    }

    #[test]
    fn exact_fill_at_the_peer_s_slice_size_agrees_with_bloomlab_s_apbf() {
        // same k, l, g: our filter's m is k g / ln 2 rounded its own way;
        // the two exact F agree to the rounding of m
        for (k, l, g) in [(4, 3, 1000), (10, 7, 1000), (14, 11, 5000)] {
            let peer = PeerApbf::crowdstrike(k, l, g).exact_fpr();
            let ours = bloomlab_filters::Apbf::new(bloomlab_filters::ApbfShape {
                hashes: k,
                extra_slices: l,
                generation: g,
            })
            .unwrap()
            .theory()
            .fpr();
            assert!(
                (peer / ours - 1.0).abs() < 2e-3,
                "({k},{l},{g}): {peer} vs {ours}"
            );
        }
    }

    #[test]
    fn stable_peers_round_p_down_and_miss_their_target() {
        // the crates' formula, and a case where rounding matters
        for (m, d, fpr) in [(1_000_000, 3, 0.01), (100_000, 2, 0.001), (10_000, 4, 0.05)] {
            let peer = stable_peer(m, d, fpr);
            let ours = stable_ours(&peer, fpr).unwrap();
            assert_eq!(peer.k, (((1.0 / fpr).log2().ceil() as u64) / 2) as u32);
            assert!(
                ours.p == peer.p || ours.p == peer.p + 1,
                "{peer:?} {ours:?}"
            );
            assert!(ours.fpr() <= fpr);
            if ours.p > peer.p {
                assert!(peer.fpr() > fpr, "{peer:?}");
            }
        }
        let peer = stable_peer(1_000_000, 3, 0.01);
        assert!(peer.fpr() > 0.01, "{}", peer.fpr());
    }
}
