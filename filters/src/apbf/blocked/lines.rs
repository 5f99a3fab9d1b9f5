//! The blocked APBF's cache lines: what an operation reads or writes of
//! memory, counted on the filter ([`BlockedApbf::lines_read`],
//! [`BlockedApbf::lines_written`]) and in theory ([`BlockedTheory::lines`]).
//!
//! A key's block is k + l consecutive 64-bit words from word b·(k + l), and
//! the words sit in 64-byte-aligned lines of eight, so a block starts at
//! word (b·(k + l)) mod 8 of its first line. Logical slice i is physical
//! word (base + i) mod (k + l) of the block.
//!
//! - **A query** reads the middle words first, logical slices l .. k - 1
//!   (when l < k; every run of k slices covers them), and stops with no if
//!   one misses; otherwise it reads the whole block. So a negative query
//!   reads the middle words' lines, and with probability π, the chance all
//!   middle bits are set, the block's; a positive one reads the block's.
//! - **π** is exact under the correlated block loads, as the FPR is: the
//!   query's bit in slice j stays clear of the block's keys of the
//!   generations that wrote slice j, so by inclusion-exclusion over the
//!   subsets S of the middle slices, π = Σ_S (-1)^|S| Π_a ψ_a(c_a(S)), c_a(S)
//!   the slices of S generation a wrote and ψ_a(c) = E[q^{c·X_a}] over the
//!   block's keys X_a of generation a (the theory module's ψ).
//! - **An insertion** writes the k newest slices' words of its block. Every
//!   g insertions the shift clears one word of every block, B words, which
//!   [`Lines::shift`] counts per insertion apart.
//!
//! The expectations are over the blocks (each start offset weighted by the
//! blocks that have it) at one rotation `base`; [`BlockedTheory::lines_mean`]
//! averages the rotations too, as a filter's generations cycle through them.

use super::{BlockedApbf, BlockedTheory, WORD_BITS};

/// Words of a 64-byte line.
const LINE_WORDS: u64 = 8;

pub use crate::lines::Lines;

/// Distinct lines of the words at `first` + each of `words`
/// ([`BlockedApbf::lines_of`], which `contains_probes` counts with).
fn lines_at(first: u64, words: impl Iterator<Item = u64>) -> u32 {
    BlockedApbf::lines_of(first, words.map(move |w| first + w))
}

impl BlockedTheory {
    /// Words of a block, k + l.
    fn slices(&self) -> u64 {
        (self.k + self.l) as u64
    }

    /// P(every middle slice's bit is set) for a never-inserted key at phase
    /// φ (1 when l >= k: there are no middle slices), by
    /// inclusion-exclusion over the subsets of the middle slices. `None`
    /// above 20 middle slices.
    pub fn middle_probability(&self, phase: u64) -> Option<f64> {
        let (k, l) = (self.k as usize, self.l as usize);
        if l >= k {
            return Some(1.0);
        }
        let middle = k - l;
        if middle > 20 {
            return None;
        }
        let sizes = self.generation_sizes(phase);
        let mut total = 0.0;
        for subset in 0u32..1 << middle {
            // c_a: the slices of the subset generation a wrote (slice j
            // holds generations j - k + 1 ..= j)
            let mut c = vec![0u32; sizes.len()];
            for s in 0..middle {
                if subset >> s & 1 == 1 {
                    let j = l + s;
                    for a in c.iter_mut().take(j + 1).skip(j.saturating_sub(k - 1)) {
                        *a += 1;
                    }
                }
            }
            let clear: f64 = sizes
                .iter()
                .zip(&c)
                .map(|(&n, &c)| self.psi(n, c))
                .product();
            let sign = if subset.count_ones() % 2 == 0 {
                1.0
            } else {
                -1.0
            };
            total += sign * clear;
        }
        Some(total.clamp(0.0, 1.0))
    }

    /// (start offset within a line, blocks starting there) over the B
    /// blocks: block b starts at word b·(k + l).
    fn offsets(&self) -> Vec<(u64, u64)> {
        let h = self.slices();
        let period = LINE_WORDS / crate::half_sliding::theory::gcd(h, LINE_WORDS);
        (0..period)
            .map(|r| {
                let count = self.blocks / period + u64::from(r < self.blocks % period);
                ((r * h) % LINE_WORDS, count)
            })
            .filter(|&(_, n)| n > 0)
            .collect()
    }

    /// Expected lines at phase φ with logical slice 0 at physical word
    /// `base` (`None` where [`middle_probability`](Self::middle_probability)
    /// has none).
    pub fn lines(&self, phase: u64, base: u64) -> Option<Lines> {
        let h = self.slices();
        let (k, l) = (self.k as u64, self.l as u64);
        let physical = |i: u64| (base + i) % h;
        let pi = self.middle_probability(phase)?;
        let (mut insert, mut negative, mut positive) = (0.0, 0.0, 0.0);
        for (o, n) in self.offsets() {
            let all = lines_at(o, 0..h) as f64;
            let middle = lines_at(o, (l..k).map(physical)) as f64;
            let n = n as f64;
            insert += n * lines_at(o, (0..k).map(physical)) as f64;
            positive += n * all;
            negative += n * if l < k {
                (1.0 - pi) * middle + pi * all
            } else {
                all
            };
        }
        let b = self.blocks as f64;
        Some(Lines {
            insert: insert / b,
            shift: self.shift_lines(physical(h - 1)) as f64 / self.g as f64,
            query_negative: negative / b,
            query_positive: positive / b,
        })
    }

    /// [`lines`](Self::lines) averaged over the k + l rotations, at the
    /// worst phase φ = g (a filter's generations take every rotation in
    /// turn).
    pub fn lines_mean(&self) -> Option<Lines> {
        let h = self.slices();
        let mut sum = Lines {
            insert: 0.0,
            shift: 0.0,
            query_negative: 0.0,
            query_positive: 0.0,
        };
        for base in 0..h {
            let x = self.lines(self.g, base)?;
            sum.insert += x.insert;
            sum.shift += x.shift;
            sum.query_negative += x.query_negative;
            sum.query_positive += x.query_positive;
        }
        let n = h as f64;
        Some(Lines {
            insert: sum.insert / n,
            shift: sum.shift / n,
            query_negative: sum.query_negative / n,
            query_positive: sum.query_positive / n,
        })
    }

    /// Distinct lines of word `p` of every block: B when a block spans a
    /// line or more, fewer when several blocks share one.
    fn shift_lines(&self, p: u64) -> u64 {
        let h = self.slices();
        if h >= LINE_WORDS {
            return self.blocks;
        }
        let mut last = None;
        let mut count = 0;
        for b in 0..self.blocks {
            let line = (b * h + p) / LINE_WORDS;
            if last != Some(line) {
                count += 1;
                last = Some(line);
            }
        }
        count
    }
}

impl BlockedApbf {
    /// The answer to a query for `key` and the distinct 64-byte lines
    /// [`contains`](crate::Filter::contains) reads for it: the middle
    /// words', and the whole block's when they all match (the module docs).
    pub fn lines_read(&self, key: u64) -> (bool, u32) {
        let start = self.block_start(key);
        let h = self.slices();
        let middle = super::middle_hits(self.k, self.l, |i| self.probe(start, key, i));
        if !middle {
            let words = (self.l..self.k).map(|i| self.physical(i as usize));
            return (false, lines_at(start, words));
        }
        (self.answer(start, key), lines_at(start, 0..h))
    }

    /// The distinct 64-byte lines an insertion of `key` writes (its block's
    /// k newest slices), leaving out the shift it may start.
    pub fn lines_written(&self, key: u64) -> u32 {
        let start = self.block_start(key);
        let words = (0..self.k as usize).map(|i| self.physical(i));
        lines_at(start, words)
    }

    /// Insertions in the current generation: the phase the theory's
    /// [`lines`](BlockedTheory::lines) take.
    pub fn phase(&self) -> u64 {
        self.count
    }

    /// The physical word of logical slice 0, the rotation
    /// [`lines`](BlockedTheory::lines) take.
    pub fn rotation(&self) -> u64 {
        self.base as u64
    }
}

const _: () = assert!(LINE_WORDS * 64 == 512 && WORD_BITS == 64);
