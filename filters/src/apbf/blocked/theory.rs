//! The blocked APBF's exact theory: the FPR as an expectation over the
//! correlated block loads (the derivation is in the parent module's docs).

use super::{MAX_EXACT_K, WORD_BITS};

/// The theory of a blocked APBF (k, l, g, B): see the module documentation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockedTheory {
    /// Slices written per insertion.
    pub k: u32,
    /// Extra slices.
    pub l: u32,
    /// Generation size.
    pub g: u64,
    /// Blocks.
    pub blocks: u64,
}

impl BlockedTheory {
    /// Keys per generation by age a = 0 .. k + l - 1 at phase φ (steady state).
    fn generation_sizes(&self, phase: u64) -> Vec<u64> {
        let slices = (self.k + self.l) as usize;
        (0..slices)
            .map(|a| if a == 0 { phase } else { self.g })
            .collect()
    }

    /// ψ(c) = E[q^{c X}] for X ~ Binomial(`keys`, 1/B): the chance that c
    /// given bits of the block all stay clear of one generation's keys.
    fn psi(&self, keys: u64, c: u32) -> f64 {
        let q = 1.0 - 1.0 / WORD_BITS as f64;
        let t = 1.0 - (1.0 - q.powi(c as i32)) / self.blocks as f64;
        // t^keys in log space for large key counts
        (keys as f64 * t.ln()).exp()
    }

    /// P(some k consecutive slices hit) with the slices in `forced` (a bit
    /// mask over logical slices) hitting for sure and `sizes[a]` keys in
    /// generation a (each in the query's block with probability 1/B): the
    /// exact programme of the module documentation. `None` for k >
    /// [`MAX_EXACT_K`].
    pub fn match_probability(&self, sizes: &[u64], forced: u64) -> Option<f64> {
        let k = self.k as usize;
        if self.k > MAX_EXACT_K {
            return None;
        }
        let slices = (self.k + self.l) as usize;
        // ψ_a(c) for every generation a and c = 0..=k
        let psis: Vec<Vec<f64>> = sizes
            .iter()
            .map(|&n| (0..=self.k).map(|c| self.psi(n, c)).collect())
            .collect();
        let mask_bits = k - 1;
        let masks = 1usize << mask_bits;
        let low = masks - 1;
        // weight[r * masks + mask]
        let mut cur = vec![0.0f64; k * masks];
        let mut next = vec![0.0f64; k * masks];
        cur[0] = 1.0;
        for j in 0..slices {
            next.iter_mut().for_each(|w| *w = 0.0);
            let finishing = j as isize - k as isize + 1; // generation completing at j
            let is_forced = forced >> j & 1 == 1;
            for r in 0..k {
                for mask in 0..masks {
                    let w = cur[r * masks + mask];
                    if w == 0.0 {
                        continue;
                    }
                    // (e, sign, hit) choices
                    let mut push = |e: usize, sign: f64, hit: bool| {
                        let full = (mask << 1) | e; // e of slices j-k+1 ..= j
                        let mut v = sign * w;
                        if finishing >= 0 {
                            v *= psis[finishing as usize][full.count_ones() as usize];
                        }
                        let r2 = if hit { r + 1 } else { 0 };
                        if r2 < k {
                            next[r2 * masks + (full & low)] += v;
                        }
                    };
                    if is_forced {
                        push(0, 1.0, true);
                    } else {
                        push(1, 1.0, false);
                        push(0, 1.0, true);
                        push(1, -1.0, true);
                    }
                }
            }
            std::mem::swap(&mut cur, &mut next);
        }
        // clipped generations a = l + 1 .. L - 1: slices a .. L - 1, which are
        // the low L - a bits of the mask (bit 0 = slice L - 1)
        let mut no_run = 0.0;
        for r in 0..k {
            for mask in 0..masks {
                let mut w = cur[r * masks + mask];
                if w == 0.0 {
                    continue;
                }
                for (a, psi) in psis.iter().enumerate().skip(self.l as usize + 1) {
                    let bits = slices - a;
                    let c = (mask & ((1 << bits) - 1)).count_ones() as usize;
                    w *= psi[c];
                }
                no_run += w;
            }
        }
        Some((1.0 - no_run).clamp(0.0, 1.0))
    }

    /// FPR at phase φ ∈ 1..=g, exact (k <= [`MAX_EXACT_K`]).
    pub fn fpr_at(&self, phase: u64) -> Option<f64> {
        self.match_probability(&self.generation_sizes(phase), 0)
    }

    /// FPR at the worst phase φ = g.
    pub fn fpr(&self) -> Option<f64> {
        self.fpr_at(self.g)
    }

    /// The FPR if the slices' fills were independent, each at its mean
    /// 1 - Π_a ψ_a(1): the unblocked recursion on mean fills. An
    /// underestimate; the gap is the cost of the correlation.
    pub fn fpr_independent(&self, phase: u64) -> f64 {
        let sizes = self.generation_sizes(phase);
        let k = self.k as usize;
        let fills: Vec<f64> = (0..(self.k + self.l) as usize)
            .map(|j| {
                let gens = j.saturating_sub(k - 1)..=j;
                1.0 - gens.map(|a| self.psi(sizes[a], 1)).product::<f64>()
            })
            .collect();
        crate::apbf::theory::match_probability(&fills, self.k)
    }

    /// P(yes | j shifts) for j = 0..=k+l at phase φ (j = k + l: expired).
    pub fn presence_by_shift(&self, phase: u64) -> Option<Vec<f64>> {
        let slices = (self.k + self.l) as u64;
        (0..=slices)
            .map(|j| {
                if j <= self.l as u64 {
                    return Some(1.0);
                }
                if j == slices {
                    return self.fpr_at(phase);
                }
                let mut sizes = self.generation_sizes(phase);
                sizes[j as usize] = sizes[j as usize].saturating_sub(1);
                let forced = (j..slices).fold(0u64, |m, s| m | 1 << s);
                self.match_probability(&sizes, forced)
            })
            .collect()
    }

    /// Payload bits (k + l) 64 B.
    pub fn payload_bits(&self) -> u64 {
        (self.k + self.l) as u64 * WORD_BITS * self.blocks
    }

    /// Payload bits per window element.
    pub fn bits_per_element(&self) -> f64 {
        self.payload_bits() as f64 / (self.l as u64 * self.g) as f64
    }
}
