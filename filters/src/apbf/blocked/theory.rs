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
    /// The exact programme's model: 64-bit words.
    pub(crate) fn correlated(&self) -> Correlated {
        Correlated {
            k: self.k,
            l: self.l,
            g: self.g,
            blocks: self.blocks,
            word_bits: WORD_BITS,
        }
    }

    /// Keys per generation by age a = 0 .. k + l - 1 at phase φ (steady state).
    pub(super) fn generation_sizes(&self, phase: u64) -> Vec<u64> {
        self.correlated().generation_sizes(phase)
    }

    /// ψ(c) = E[q^{c X}] for X ~ Binomial(`keys`, 1/B): the chance that c
    /// given bits of the block all stay clear of one generation's keys.
    pub(super) fn psi(&self, keys: u64, c: u32) -> f64 {
        self.correlated().psi(keys, c)
    }

    /// P(some k consecutive slices hit) with the slices in `forced` (a bit
    /// mask over logical slices) hitting for sure and `sizes[a]` keys in
    /// generation a (each in the query's block with probability 1/B): the
    /// exact programme of the module documentation. `None` for k >
    /// [`MAX_EXACT_K`].
    pub fn match_probability(&self, sizes: &[u64], forced: u64) -> Option<f64> {
        self.correlated().match_probability(sizes, forced)
    }

    /// FPR at phase φ ∈ 1..=g, exact (k <= [`MAX_EXACT_K`]).
    pub fn fpr_at(&self, phase: u64) -> Option<f64> {
        self.correlated().fpr_at(phase)
    }

    /// FPR at the worst phase φ = g.
    pub fn fpr(&self) -> Option<f64> {
        self.fpr_at(self.g)
    }

    /// The FPR if the slices' fills were independent, each at its mean
    /// 1 - Π_a ψ_a(1): the unblocked recursion on mean fills. An
    /// underestimate; the gap is the cost of the correlation.
    pub fn fpr_independent(&self, phase: u64) -> f64 {
        self.correlated().fpr_independent(phase)
    }

    /// P(yes | j shifts) for j = 0..=k+l at phase φ (j = k + l: expired).
    ///
    /// The programme for shift j differs from the unforced one (the FPR's)
    /// only from slice j on (slices j.. are forced, generation j has one
    /// key fewer, and ψ_j is first used at slice j + k - 1), so each runs
    /// from a copy of the unforced programme's state before slice j: the
    /// same operations in the same order as a run from slice 0, about a
    /// third of the work.
    pub fn presence_by_shift(&self, phase: u64) -> Option<Vec<f64>> {
        self.correlated().presence_by_shift(phase)
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

/// The exact programme's model, shared by every layout that gives a key
/// one *block* (chosen uniformly among `blocks`) and in it one
/// `word_bits`-bit word per slice, its bit there uniform and independent
/// across slices: the blocked APBF (64-bit words) and the line APBF (a
/// line's segments). Only q = 1 - 1 / `word_bits` differs between them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Correlated {
    pub(crate) k: u32,
    pub(crate) l: u32,
    pub(crate) g: u64,
    pub(crate) blocks: u64,
    pub(crate) word_bits: u64,
}

impl Correlated {
    /// Keys per generation by age a = 0 .. k + l - 1 at phase φ (steady state).
    pub(crate) fn generation_sizes(&self, phase: u64) -> Vec<u64> {
        let slices = (self.k + self.l) as usize;
        (0..slices)
            .map(|a| if a == 0 { phase } else { self.g })
            .collect()
    }

    /// ψ(c) = E[q^{c X}] for X ~ Binomial(`keys`, 1/B).
    pub(crate) fn psi(&self, keys: u64, c: u32) -> f64 {
        let q = 1.0 - 1.0 / self.word_bits as f64;
        let t = 1.0 - (1.0 - q.powi(c as i32)) / self.blocks as f64;
        // t^keys in log space for large key counts
        (keys as f64 * t.ln()).exp()
    }

    /// ψ_a(c) for every generation a (with `sizes[a]` keys) and c = 0..=k.
    fn psis(&self, sizes: &[u64]) -> Vec<Vec<f64>> {
        sizes
            .iter()
            .map(|&n| (0..=self.k).map(|c| self.psi(n, c)).collect())
            .collect()
    }

    /// See [`BlockedTheory::match_probability`].
    pub(crate) fn match_probability(&self, sizes: &[u64], forced: u64) -> Option<f64> {
        if self.k > MAX_EXACT_K {
            return None;
        }
        let psis = self.psis(sizes);
        let mut dp = Programme::new(self.k as usize);
        for j in 0..(self.k + self.l) as usize {
            dp.step(j, &psis, forced >> j & 1 == 1);
        }
        Some(dp.finish(&psis, self.l as usize))
    }

    /// See [`BlockedTheory::fpr_at`].
    pub(crate) fn fpr_at(&self, phase: u64) -> Option<f64> {
        self.match_probability(&self.generation_sizes(phase), 0)
    }

    /// See [`BlockedTheory::fpr_independent`].
    pub(crate) fn fpr_independent(&self, phase: u64) -> f64 {
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

    /// See [`BlockedTheory::presence_by_shift`].
    pub(crate) fn presence_by_shift(&self, phase: u64) -> Option<Vec<f64>> {
        if self.k > MAX_EXACT_K {
            return None;
        }
        let slices = (self.k + self.l) as usize;
        let l = self.l as usize;
        let sizes = self.generation_sizes(phase);
        let base_psis = self.psis(&sizes);
        let mut out = vec![1.0; l + 1];
        let mut base = Programme::new(self.k as usize);
        // one scratch programme for the branches (a copy of the state, not a
        // new allocation each: at k = 17 a state is 9 MB)
        let mut dp = Programme::new(self.k as usize);
        for j in 0..slices {
            if j > l {
                let mut psis = base_psis.clone();
                psis[j] = (0..=self.k)
                    .map(|c| self.psi(sizes[j].saturating_sub(1), c))
                    .collect();
                dp.cur.copy_from_slice(&base.cur);
                for s in j..slices {
                    dp.step(s, &psis, true);
                }
                out.push(dp.finish(&psis, l));
            }
            base.step(j, &base_psis, false);
        }
        out.push(base.finish(&base_psis, l));
        Some(out)
    }
}

/// The state of the exact programme over slices 0, 1, ...: the weight of
/// (r, mask) at `r * masks + mask`, r the current run of hits (< k), mask
/// the e-choices of the last k - 1 slices.
struct Programme {
    k: usize,
    cur: Vec<f64>,
    next: Vec<f64>,
}

impl Programme {
    fn new(k: usize) -> Programme {
        let masks = 1usize << (k - 1);
        let mut cur = vec![0.0f64; k * masks];
        cur[0] = 1.0;
        Programme {
            k,
            next: vec![0.0; cur.len()],
            cur,
        }
    }

    /// Advances over slice `j` (hit for sure if `forced`).
    fn step(&mut self, j: usize, psis: &[Vec<f64>], forced: bool) {
        let k = self.k;
        let masks = 1usize << (k - 1);
        let low = masks - 1;
        self.next.iter_mut().for_each(|w| *w = 0.0);
        // the generation completing at slice j, if any
        let finishing = (j + 1).checked_sub(k).map(|a| psis[a].as_slice());
        let next = &mut self.next;
        for r in 0..k {
            let row = &self.cur[r * masks..(r + 1) * masks];
            for (mask, &w) in row.iter().enumerate() {
                if w == 0.0 {
                    continue;
                }
                // (e, sign, hit) choices, e of slices j-k+1 ..= j
                let mut push = |e: usize, sign: f64, hit: bool| {
                    let full = (mask << 1) | e;
                    let mut v = sign * w;
                    if let Some(psi) = finishing {
                        v *= psi[full.count_ones() as usize];
                    }
                    let r2 = if hit { r + 1 } else { 0 };
                    if r2 < k {
                        next[r2 * masks + (full & low)] += v;
                    }
                };
                if forced {
                    push(0, 1.0, true);
                } else {
                    push(1, 1.0, false);
                    push(0, 1.0, true);
                    push(1, -1.0, true);
                }
            }
        }
        std::mem::swap(&mut self.cur, &mut self.next);
    }

    /// P(a run of k hits) once every slice is stepped: the clipped
    /// generations a = l + 1 .. L - 1 cover slices a .. L - 1, the low
    /// L - a bits of the mask (bit 0 = slice L - 1).
    fn finish(&self, psis: &[Vec<f64>], l: usize) -> f64 {
        let k = self.k;
        let masks = 1usize << (k - 1);
        let slices = psis.len();
        let mut no_run = 0.0;
        for r in 0..k {
            for mask in 0..masks {
                let mut w = self.cur[r * masks + mask];
                if w == 0.0 {
                    continue;
                }
                for (a, psi) in psis.iter().enumerate().skip(l + 1) {
                    let bits = slices - a;
                    let c = (mask & ((1 << bits) - 1)).count_ones() as usize;
                    w *= psi[c];
                }
                no_run += w;
            }
        }
        (1.0 - no_run).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_prefixes_give_the_same_bits_as_whole_runs() {
        // presence_by_shift reuses the unforced programme's prefix; each
        // entry must be exactly what a run from slice 0 gives
        for (k, l, g, blocks) in [(1, 1, 7, 3), (3, 4, 50, 9), (4, 2, 33, 5), (7, 5, 100, 40)] {
            let t = BlockedTheory { k, l, g, blocks };
            for phase in [1, g / 2, g] {
                let got = t.presence_by_shift(phase).unwrap();
                let slices = (k + l) as u64;
                let want: Vec<f64> = (0..=slices)
                    .map(|j| {
                        if j <= l as u64 {
                            1.0
                        } else if j == slices {
                            t.fpr_at(phase).unwrap()
                        } else {
                            let mut sizes = t.generation_sizes(phase);
                            sizes[j as usize] = sizes[j as usize].saturating_sub(1);
                            let forced = (j..slices).fold(0u64, |m, s| m | 1 << s);
                            t.match_probability(&sizes, forced).unwrap()
                        }
                    })
                    .collect();
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got), bits(&want), "k={k} l={l} phase={phase}");
            }
        }
    }
}
