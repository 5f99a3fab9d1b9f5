//! The pocket-dictionary filter's cache lines, counted on the filter
//! ([`NyPocket::lines_read`]) and in theory ([`Sizing::lines`],
//! [`NyPocket::lines_given_loads`]).
//!
//! Block b is a 128-bit header and C entries of E bits from bit
//! b·(128 + C·E). A query reads both of its key's blocks' headers, then in
//! each block the entries of its bucket q, e₀ .. e₀ + n - 1 with e₀ the
//! entries of buckets before q: the distinct lines of the header and of
//! that range. Given a block's N entries, each in a uniform bucket of B
//! (the block is chosen by load, the bucket by other hash bits), e₀ is
//! Binomial(N, q/B) and n, given e₀, Binomial(N - e₀, 1/(B - q)); with q
//! uniform, the expected lines of a block at offset o = b·(128 + C·E) mod
//! 512 follow exactly. A negative query reads two distinct blocks, each
//! uniform: twice the mean over blocks.
//!
//! - **Given the loads** ([`NyPocket::lines_given_loads`]): the mean over
//!   the filter's blocks at their loads. The test holds counted lines to
//!   it.
//! - **For `plan`** ([`Sizing::lines`]): every block at the mean load of
//!   the worst phase, capacity / blocks (two-choice keeps the loads within
//!   a few entries of it), split between the two whole loads around it;
//!   the test prints how far that is from the loads' figure.
//!
//! Left out of both: the stash (a sorted vector of tens of entries,
//! searched by bisection only when both blocks miss) and an early stop at
//! a false match (at most the FPR times a block's lines).

use super::{theory::Sizing, NyPocket, HEADER_BITS};
use crate::lines::{Lines, LINE_BITS};
use std::collections::HashMap;

/// Binomial(n, p) probabilities of 0 ..= n.
fn binomial(n: u32, p: f64) -> Vec<f64> {
    let mut out = vec![0.0; n as usize + 1];
    if p <= 0.0 {
        out[0] = 1.0;
        return out;
    }
    if p >= 1.0 {
        out[n as usize] = 1.0;
        return out;
    }
    let mut x = (1.0 - p).powi(n as i32);
    let ratio = p / (1.0 - p);
    for (k, o) in out.iter_mut().enumerate() {
        *o = x;
        x *= (n as f64 - k as f64) / (k as f64 + 1.0) * ratio;
    }
    out
}

/// The shape lines depend on: B buckets, E-bit entries, blocks of
/// 128 + C·E bits.
#[derive(Debug, Clone, Copy)]
struct Shape {
    buckets: u32,
    entry_bits: u64,
    block_bits: u64,
}

impl Shape {
    /// P(e₀ = a, n = c) for a block of `load` entries, q uniform.
    fn joint(&self, load: u32) -> Vec<Vec<f64>> {
        let b = self.buckets;
        let mut j = vec![vec![0.0; load as usize + 1]; load as usize + 1];
        for q in 0..b {
            let before = binomial(load, q as f64 / b as f64);
            for (a, pa) in before.iter().enumerate() {
                if *pa == 0.0 {
                    continue;
                }
                let rest = load - a as u32;
                let own = binomial(rest, 1.0 / (b - q) as f64);
                for (c, pc) in own.iter().enumerate() {
                    j[a][c] += pa * pc / b as f64;
                }
            }
        }
        j
    }

    /// Expected distinct lines of one block at bit offset `o` (mod 512)
    /// holding `load` entries, from its joint table.
    fn block_lines(&self, joint: &[Vec<f64>], o: u64) -> f64 {
        let (h0, h1) = (o / LINE_BITS, (o + HEADER_BITS as u64 - 1) / LINE_BITS);
        let header = (h1 - h0 + 1) as f64;
        let mut total = 0.0;
        for (a, row) in joint.iter().enumerate() {
            for (c, p) in row.iter().enumerate() {
                if *p == 0.0 {
                    continue;
                }
                let lines = if c == 0 {
                    header
                } else {
                    let first = o + HEADER_BITS as u64 + a as u64 * self.entry_bits;
                    let (e0, e1) = (
                        first / LINE_BITS,
                        (first + c as u64 * self.entry_bits - 1) / LINE_BITS,
                    );
                    let overlap = (h1.min(e1) + 1).saturating_sub(h0.max(e0));
                    header + (e1 - e0 + 1 - overlap) as f64
                };
                total += p * lines;
            }
        }
        total
    }

    /// Mean lines of a block over the offsets blocks take, every block at
    /// `load` entries.
    fn mean_over_offsets(&self, load: u32) -> f64 {
        let joint = self.joint(load);
        let period = LINE_BITS / crate::half_sliding::theory::gcd(LINE_BITS, self.block_bits);
        (0..period)
            .map(|i| self.block_lines(&joint, (i * self.block_bits) % LINE_BITS))
            .sum::<f64>()
            / period as f64
    }
}

impl Sizing {
    fn shape(&self) -> Shape {
        Shape {
            buckets: self.buckets_per_block(),
            entry_bits: self.entry_bits() as u64,
            block_bits: self.block_bits(),
        }
    }

    /// Expected lines with every block at the worst phase's mean load (the
    /// module docs). An insertion reads both headers and writes one block's
    /// header and entries from its bucket on; its lines are not derived
    /// (NaN), nor a positive query's (it stops in the block and at the
    /// entry its key sits in).
    pub fn lines(&self) -> Lines {
        let shape = self.shape();
        let mean = self.capacity as f64 / self.blocks as f64;
        let lo = (mean.floor() as u32).min(self.slots_per_block);
        let hi = (lo + 1).min(self.slots_per_block);
        let w = mean - lo as f64;
        let per = (1.0 - w) * shape.mean_over_offsets(lo) + w * shape.mean_over_offsets(hi);
        Lines {
            insert: f64::NAN,
            shift: 0.0,
            query_negative: 2.0 * per,
            query_positive: f64::NAN,
        }
    }
}

impl NyPocket {
    /// The answer to a query for `key` and the distinct 64-byte lines of
    /// the table it reads (both headers, and each block's bucket until a
    /// match); the stash is not counted (module docs).
    pub fn lines_read(&self, key: u64) -> (bool, u32) {
        let (yes, lines, _) = self.query_counted(key);
        (yes, lines)
    }

    /// A query's answer, the table's lines it reads (header and bucket of
    /// each block read) and the stash entries it compares (those with the
    /// key's first block: the stash is sorted by it).
    pub(super) fn query_counted(&self, key: u64) -> (bool, u32, u32) {
        let fp = self.fingerprint(key);
        // both headers first, so that their cache misses overlap
        let (h1, h2) = (self.header(fp.b1), self.header(fp.b2));
        let (yes, l1) = self.lookup(fp.b1, h1, fp.q, fp.rem);
        if yes {
            return (true, l1, 0);
        }
        let (yes, l2) = self.lookup(fp.b2, h2, fp.q, fp.rem);
        if yes {
            return (true, l1 + l2, 0);
        }
        let (yes, compared) = self.stash_holds(&fp);
        (yes, l1 + l2, compared)
    }

    /// The expected lines of a negative query given the blocks' present
    /// loads (the module docs): twice the mean over blocks.
    pub fn lines_given_loads(&self) -> f64 {
        let shape = self.size.shape();
        let mut joints: HashMap<u32, Vec<Vec<f64>>> = HashMap::new();
        let mut cache: HashMap<(u32, u64), f64> = HashMap::new();
        let mut total = 0.0;
        for b in 0..self.size.blocks {
            let load = self.header(b).count_ones();
            let o = (b * self.block_bits) % LINE_BITS;
            total += *cache.entry((load, o)).or_insert_with(|| {
                let j = joints.entry(load).or_insert_with(|| shape.joint(load));
                shape.block_lines(j, o)
            });
        }
        2.0 * total / self.size.blocks as f64
    }
}

#[cfg(test)]
mod tests {
    use super::NyPocket;
    use crate::hash::mix64;
    use crate::testing::Tally;
    use crate::Filter;

    /// Counted lines of never-inserted keys against the theory given the
    /// blocks' loads, within 4 standard errors plus the FPR's bound; and
    /// the mean-load figure `plan` shows beside it.
    #[test]
    fn counted_lines_match_the_theory() {
        for (n, eps) in [(100_000u64, 1e-3), (50_000, 1e-2), (200_000, 1e-4)] {
            let mut f = NyPocket::new(crate::NyPocketShape {
                window: n,
                slack: n,
                fpr: eps,
                generations: None,
                max_load: None,
            })
            .unwrap();
            for t in 0..3 * n + n / 3 {
                f.insert(mix64(t));
            }
            let given = f.lines_given_loads();
            let mean_load = f.size.lines().query_negative;
            let mut neg = Tally::default();
            for i in 0..200_000u64 {
                let key = mix64(u64::MAX - i);
                let (yes, lines) = f.lines_read(key);
                assert_eq!(yes, f.contains(key));
                neg.add(lines);
            }
            println!(
                "n {n} eps {eps}: {:.4} ± {:.4} lines, given the loads {given:.4}, at the mean load {mean_load:.4}",
                neg.mean(),
                neg.se()
            );
            assert!(
                (neg.mean() - given).abs() <= 4.0 * neg.se() + eps * given,
                "{} against {given}",
                neg.mean()
            );
        }
    }
}
