//! The Stable Bloom filter (Deng and Rafiei 2006).
//!
//! m cells of d bits (packed back to back, memory m·d bits), Max = 2^d - 1.
//! Processing an element, in the order the proofs use: read its K cells (the
//! duplicate answer), decrement P cells chosen at random, set its K cells to
//! Max. A query answers yes iff all K cells are non-zero.
//!
//! It promises **no window**: recent elements can be forgotten (false
//! negatives, growing with age, see [`theory`]), and its FPR converges to a
//! stable point instead of growing to 1. So it implements [`Filter`] but not
//! `SlidingFilter`.
//!
//! * The K cells of a key are a K-subset: indices `hash::index(key, i, m)` for
//!   i = 0, 1, ..., skipping repeats until K distinct cells are found, as the
//!   proofs' model assumes.
//! * The P cells are a uniform P-subset ([`Decrement::Uniform`], the default)
//!   drawn from the filter's own seeded generator; [`Decrement::Adjacent`]
//!   takes P consecutive cells from one random start instead (what some
//!   libraries do for speed: each cell still has probability P/m per step, but
//!   neighbouring cells decay together).

mod lines;
mod shape;
pub mod theory;
pub use shape::StableShape;

use crate::error::{check_bits, check_nonzero};
use crate::hash::{fastrange, index, mix64, GOLDEN};
use crate::Instrumented;
use crate::{Filter, ParamError};

/// Largest K supported (the key's cells are kept on the stack).
pub const MAX_K: u32 = 64;
/// Largest cell width in bits.
pub const MAX_D: u32 = 16;

/// How the P cells decremented per insertion are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decrement {
    /// A uniform random P-subset of the cells (the proofs' model).
    Uniform,
    /// P consecutive cells (cyclically) from one uniform random start.
    Adjacent,
}

/// A Stable Bloom filter.
#[derive(Debug, Clone)]
pub struct StableBloomFilter {
    words: Vec<u64>,
    m: u64,
    d: u32,
    k: u32,
    p: u64,
    decrement: Decrement,
    /// SplitMix64 state of the decrement generator.
    rng: u64,
    scratch: Vec<u64>,
    inserted: u64,
}

impl StableBloomFilter {
    /// The bits of m cells of d bits, after checking (m, d, K, P) as `new`
    /// does.
    fn bits_for(m: u64, d: u32, k: u32, p: u64) -> Result<u64, ParamError> {
        check_nonzero("m", m)?;
        check_nonzero("d", d as u64)?;
        crate::error::check_hashes(k)?;
        check_nonzero("p", p)?;
        if d > MAX_D {
            return Err(ParamError::OutOfRange {
                name: "d",
                value: d.to_string(),
                expected: "at most 16 bits per cell",
            });
        }
        if k > MAX_K || k as u64 >= m {
            return Err(ParamError::OutOfRange {
                name: "k",
                value: k.to_string(),
                expected: "below m and at most 64",
            });
        }
        if p > m {
            return Err(ParamError::OutOfRange {
                name: "p",
                value: p.to_string(),
                expected: "at most m",
            });
        }
        check_bits(m.checked_mul(d as u64))
    }

    /// m cells of d bits, K cells per key, P decrements per insertion, uniform
    /// decrements, generator seed 0.
    pub fn new(shape: StableShape) -> Result<Self, ParamError> {
        let StableShape {
            cells: m,
            cell_bits: d,
            hashes: k,
            decrements: p,
        } = shape;
        let bits = Self::bits_for(m, d, k, p)?;
        Ok(StableBloomFilter {
            words: vec![0; bits.div_ceil(64) as usize],
            m,
            d,
            k,
            p,
            decrement: Decrement::Uniform,
            rng: 0,
            scratch: Vec::with_capacity(p.min(1 << 16) as usize),
            inserted: 0,
        })
    }

    /// Chooses how decremented cells are picked.
    pub fn with_decrement(mut self, decrement: Decrement) -> Self {
        self.decrement = decrement;
        self
    }

    /// Seeds the decrement generator.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.rng = seed;
        self
    }

    /// Cells.
    pub fn m(&self) -> u64 {
        self.m
    }
    /// Bits per cell.
    pub fn d(&self) -> u32 {
        self.d
    }
    /// Cells per key.
    pub fn k(&self) -> u32 {
        self.k
    }
    /// Decrements per insertion.
    pub fn p(&self) -> u64 {
        self.p
    }
    /// Max = 2^d - 1.
    pub fn max_value(&self) -> u64 {
        (1u64 << self.d) - 1
    }
    /// Insertions so far.
    pub fn inserted(&self) -> u64 {
        self.inserted
    }
    /// The decrement strategy.
    pub fn decrement_strategy(&self) -> Decrement {
        self.decrement
    }

    /// The theory of this configuration.
    pub fn theory(&self) -> theory::StableTheory {
        theory::StableTheory {
            m: self.m,
            d: self.d,
            k: self.k,
            p: self.p,
        }
    }

    /// Value of cell j.
    #[inline]
    pub fn cell(&self, j: u64) -> u64 {
        let off = j * self.d as u64;
        let (w, s) = ((off >> 6) as usize, (off & 63) as u32);
        let mask = (1u64 << self.d) - 1;
        let lo = self.words[w] >> s;
        if s + self.d <= 64 {
            lo & mask
        } else {
            (lo | (self.words[w + 1] << (64 - s))) & mask
        }
    }

    #[inline]
    fn set_cell(&mut self, j: u64, v: u64) {
        let off = j * self.d as u64;
        let (w, s) = ((off >> 6) as usize, (off & 63) as u32);
        let mask = (1u64 << self.d) - 1;
        self.words[w] = (self.words[w] & !(mask << s)) | (v << s);
        if s + self.d > 64 {
            let hi = 64 - s;
            self.words[w + 1] = (self.words[w + 1] & !(mask >> hi)) | (v >> hi);
        }
    }

    /// The key's K distinct cells, in a stack buffer.
    #[inline]
    fn key_cells(&self, key: u64, out: &mut [u64]) {
        let k = self.k as usize;
        let mut n = 0;
        let mut i = 0u64;
        while n < k {
            let j = index(key, i, self.m);
            i += 1;
            if !out[..n].contains(&j) {
                out[n] = j;
                n += 1;
            }
        }
    }

    #[inline]
    fn next_random(&mut self) -> u64 {
        self.rng = self.rng.wrapping_add(GOLDEN);
        mix64(self.rng)
    }

    #[inline]
    fn decrement_cell(&mut self, j: u64) {
        let v = self.cell(j);
        if v > 0 {
            self.set_cell(j, v - 1);
        }
    }

    /// Decrements (saturating at 0) cells `from..to`. When d divides 64 the
    /// range is done a word (64/d cells) at a time: a field's lowest bit gets
    /// the OR of its d bits (is it non-zero?), masked to the fields in range,
    /// and the word subtracts those bits, which never borrows across fields
    /// because only non-zero fields lose 1.
    fn decrement_range(&mut self, from: u64, to: u64) {
        let d = self.d as u64;
        if 64 % d != 0 {
            for j in from..to {
                self.decrement_cell(j);
            }
            return;
        }
        if from >= to {
            return;
        }
        let lsb = u64::MAX / (u64::MAX >> (64 - d));
        let (first, last) = (from * d, to * d); // bit offsets, last exclusive
        for w in (first >> 6)..=((last - 1) >> 6) {
            let lo = first.max(w << 6) - (w << 6);
            let hi = last.min((w + 1) << 6) - (w << 6);
            let range = (u64::MAX >> (64 - (hi - lo))) << lo;
            let x = self.words[w as usize];
            let mut nz = x;
            for s in 1..d {
                nz |= x >> s;
            }
            self.words[w as usize] = x - (nz & lsb & range);
        }
    }

    fn decrement_cells(&mut self) {
        match self.decrement {
            Decrement::Adjacent => {
                // P <= m (the constructor's rule): start..m, then wrap to 0
                let start = fastrange(self.next_random(), self.m);
                let first = self.p.min(self.m - start);
                self.decrement_range(start, start + first);
                self.decrement_range(0, self.p - first);
            }
            Decrement::Uniform => {
                let mut s = std::mem::take(&mut self.scratch);
                // when no cell straddles two words, each new cell is
                // decremented as it is drawn, by one branch-free
                // read-modify-write
                let aligned = 64 % self.d == 0;
                if !self.uniform_subset(&mut s, aligned) {
                    for &j in &s {
                        if aligned {
                            self.decrement_aligned(j);
                        } else {
                            self.decrement_cell(j);
                        }
                    }
                }
                self.scratch = s;
            }
        }
    }

    /// A uniform P-subset of the cells into `s`: the first P distinct values
    /// of the generator's draws, in draw order (sequential rejection of
    /// repeats), so the subset and the generator's consumption are those of
    /// drawing in batches, sorting and topping up (the reference in the
    /// tests). Repeats are found through a 1024-bit filter on the cell's low
    /// 10 bits, with an exact scan only when its bit is already set; for P
    /// above 256 the filter fills up, and the batches are sorted instead.
    ///
    /// With `decrement_aligned` (d divides 64), each new cell of the
    /// filter's path is also decremented as it is drawn (each distinct cell
    /// once, so the state is that of decrementing the subset afterwards);
    /// returns whether it did.
    fn uniform_subset(&mut self, s: &mut Vec<u64>, decrement_aligned: bool) -> bool {
        s.clear();
        if self.p > 256 {
            while (s.len() as u64) < self.p {
                while (s.len() as u64) < self.p {
                    let r = self.next_random();
                    s.push(fastrange(r, self.m));
                }
                s.sort_unstable();
                s.dedup();
            }
            return false;
        }
        let mut seen = [0u64; 16];
        while (s.len() as u64) < self.p {
            let j = fastrange(self.next_random(), self.m);
            let (w, bit) = ((j >> 6 & 15) as usize, 1u64 << (j & 63));
            if seen[w] & bit != 0 && s.contains(&j) {
                continue;
            }
            seen[w] |= bit;
            s.push(j);
            if decrement_aligned {
                self.decrement_aligned(j);
            }
        }
        decrement_aligned
    }

    /// Decrements cell `j` (saturating at 0) when d divides 64, so that no
    /// cell straddles two words: one read-modify-write, no branch.
    #[inline]
    fn decrement_aligned(&mut self, j: u64) {
        // d is a power of two: j d is a shift
        let off = j << self.d.trailing_zeros();
        let (w, sh) = ((off >> 6) as usize, (off & 63) as u32);
        let mask = ((1u64 << self.d) - 1) << sh;
        let x = self.words[w];
        let nonzero = (x & mask != 0) as u64;
        self.words[w] = x - (nonzero << sh);
    }

    /// The paper's PROCESS: answers whether `key` is a duplicate (all its cells
    /// non-zero before this step), then decrements P cells and sets its K
    /// cells to Max.
    pub fn process(&mut self, key: u64) -> bool {
        let mut cells = [0u64; MAX_K as usize];
        self.key_cells(key, &mut cells);
        let cells = &cells[..self.k as usize];
        let dup = cells.iter().all(|&j| self.cell(j) != 0);
        self.step(cells);
        dup
    }

    /// One insertion's change of state: decrement P cells, then set the
    /// key's cells to Max.
    fn step(&mut self, cells: &[u64]) {
        self.decrement_cells();
        let max = self.max_value();
        for &j in cells {
            self.set_cell(j, max);
        }
        self.inserted += 1;
    }

    /// Exact fraction of cells that are 0.
    pub fn count_zero_fraction(&self) -> f64 {
        (0..self.m).filter(|&j| self.cell(j) == 0).count() as f64 / self.m as f64
    }
}

impl Filter for StableBloomFilter {
    /// PROCESS without its answer: decrement P cells, set the key's K cells
    /// to Max (the same state and generator sequence as [`process`](Self::process)).
    fn insert(&mut self, key: u64) {
        // K <= 16 in a small buffer, so an insertion does not clear 512 bytes
        let k = self.k as usize;
        if k <= 16 {
            let mut cells = [0u64; 16];
            self.key_cells(key, &mut cells);
            self.step(&cells[..k]);
        } else {
            let mut cells = [0u64; MAX_K as usize];
            self.key_cells(key, &mut cells);
            self.step(&cells[..k]);
        }
    }

    /// The answer of [`contains_probes`](crate::Instrumented::contains_probes) (the same
    /// cells, one at a time, stopping at the first zero) without counting,
    /// with the cells read in one shift and mask when d divides 64.
    fn contains(&self, key: u64) -> bool {
        const FAST_K: usize = 8;
        let k = self.k as usize;
        if k > FAST_K || 64 % self.d != 0 {
            return self.contains_probes(key).0;
        }
        let mask = (1u64 << self.d) - 1;
        let mut js = [0u64; FAST_K];
        let (mut n, mut i) = (0usize, 0u64);
        while n < k {
            let j = index(key, i, self.m);
            i += 1;
            if js[..n].contains(&j) {
                continue;
            }
            let off = j * self.d as u64;
            if (self.words[(off >> 6) as usize] >> (off & 63)) & mask == 0 {
                return false;
            }
            js[n] = j;
            n += 1;
        }
        true
    }

    /// m·d bits of cells plus 64 bits of generator state.
    fn memory_bits(&self) -> u64 {
        self.m * self.d as u64 + 64
    }

    fn name(&self) -> &'static str {
        "stable"
    }
}

impl crate::Instrumented for StableBloomFilter {
    fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
        Some(Self::lines_read(self, key))
    }
    /// Derives the key's distinct cells one at a time and stops at the first
    /// zero: the same cells, answer and probe count as deriving all K first.
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        // the cells accepted so far; K > 16 (never chosen by `theory::choose`)
        // falls back to the heap rather than zero 512 bytes on every query
        let mut small = [0u64; 16];
        let mut large = Vec::new();
        let seen: &mut [u64] = if self.k as usize <= small.len() {
            &mut small
        } else {
            large.resize(self.k as usize, 0);
            &mut large
        };
        let (k, mut n, mut i) = (self.k as usize, 0usize, 0u64);
        while n < k {
            let j = index(key, i, self.m);
            i += 1;
            if seen[..n].contains(&j) {
                continue;
            }
            if self.cell(j) == 0 {
                return (false, n as u32 + 1);
            }
            seen[n] = j;
            n += 1;
        }
        (true, self.k)
    }

    fn zero_fraction(&self) -> Option<f64> {
        Some(self.count_zero_fraction())
    }
}

#[cfg(test)]
mod tests;

crate::persist::codec_enum!(Decrement { Uniform, Adjacent });
crate::persist::codec_struct!(StableBloomFilter { words, m, d, k, p, decrement, rng, inserted;
    scratch = Vec::new() });

impl crate::persist::sealed::Design for StableBloomFilter {
    fn tag() -> String {
        "stable".into()
    }
    fn check(&self) -> Result<(), String> {
        let bits = StableBloomFilter::bits_for(self.m, self.d, self.k, self.p)
            .map_err(|e| e.to_string())?;
        crate::persist::ensure(bits.div_ceil(64) == self.words.len() as u64, || {
            format!(
                "{} words for m = {}, d = {}",
                self.words.len(),
                self.m,
                self.d
            )
        })
    }
}

crate::persist::persists!(StableBloomFilter);
