//! The non-sliding references: the classic Bloom filter and the partitioned
//! Bloom filter (one slice per hash function), with their FPR formulas.
//!
//! # Theory
//!
//! One hash function maps n distinct keys uniformly into an array of m bits; a
//! given bit stays 0 with probability (1 - 1/m)^n, so the expected *fill ratio*
//! is r(n, m) = 1 - (1 - 1/m)^n ≈ 1 - e^(-n/m).
//!
//! * Partitioned, k slices of m bits, one hash per slice: the slices are filled by
//!   independent hash functions, so a never-inserted key matches all k with
//!   probability E\[∏ r_i\] = ∏ E\[r_i\] = r(n, m)^k, exactly (the FPR is
//!   multilinear in independent fills).
//! * Classic, one array of m bits, k hashes: fill r(kn, m) and the usual
//!   approximation FPR ≈ r(kn, m)^k (Bose et al. show the true value is slightly
//!   higher for small m; the gap vanishes as m grows).
//!
//! For a target p the memory is minimised at fill 1/2, where FPR = 2^-k, so
//! k = ⌈log2(1/p)⌉ and, from r(n, m) = 1/2, m = n / ln 2 bits per slice: k / ln 2
//! bits per element. A negative query stops at the first 0 bit; at fill r the
//! number of probes, conditioned on answering "no", is
//! Σ_{i=1..k} i r^(i-1) (1-r) / (1 - r^k), which at r = 1/2 is the APBF paper's
//! 2^k/(2^k-1) Σ_{i=1..k} i/2^i, bounded by 2.

use crate::bits::BitArray;
use crate::error::{check_bits, check_nonzero, check_probability};
use crate::hash::index;
use crate::lines::LINE_BITS;
use crate::Instrumented;
use crate::{Filter, ParamError};
use std::f64::consts::LN_2;

/// Expected fill ratio of an m-bit array after `n` distinct keys, one bit each.
pub fn fill_ratio(n: f64, m: f64) -> f64 {
    1.0 - (n * (-1.0 / m).ln_1p()).exp()
}

/// Expected probes of a negative query that answers "no" on k slices of fill `r`.
pub fn negative_query_probes(r: f64, k: u32) -> f64 {
    let num: f64 = (1..=k)
        .map(|i| i as f64 * r.powi(i as i32 - 1) * (1.0 - r))
        .sum();
    num / (1.0 - r.powi(k as i32))
}

/// Expected distinct 64-byte lines a query of a never-inserted key reads
/// of a partitioned Bloom filter of k slices of m bits each at fill `r`,
/// laid one after the other from the start of a line (as
/// [`PartitionedBloomFilter::lines_read`] counts them), whatever it
/// answers. The query stops at the J-th slice, J = j < k with probability
/// r^(j-1)(1 - r), and reads all k slices with probability r^(k-1); given
/// J, a line is read unless every probe of the first J slices missed it,
/// each probe uniform over its slice. Lines inside one slice add up to J;
/// a line that straddles slices is read with probability 1 - Π(1 - its
/// share of each slice) instead of the sum of its shares.
pub fn query_lines(r: f64, k: u32, m: u64) -> f64 {
    let (stopped, all) = partitioned_lines(r, k, m);
    stopped + r.powi(k as i32) * all
}

/// Expected distinct 64-byte lines a query reads when it reads all k
/// slices, as a query of a key the filter holds does: k, less what the
/// lines straddling two slices save.
pub fn present_query_lines(k: u32, m: u64) -> f64 {
    partitioned_lines(0.0, k, m).1
}

/// (Σ_j E[lines | J = j]·r^(j-1)(1 - r), the lines of all k slices).
fn partitioned_lines(r: f64, k: u32, m: u64) -> (f64, f64) {
    let mf = m as f64;
    // Σ over the lines holding two or more of the first j slices of
    // (Σ shares - P(read)), for j = 1..=k
    let straddled = |j: u64| -> f64 {
        let mut lines: Vec<u64> = (1..j)
            .map(|i| i * m)
            .filter(|b| b % LINE_BITS != 0)
            .map(|b| b / LINE_BITS)
            .collect();
        lines.dedup();
        lines
            .into_iter()
            .map(|line| {
                let (lo, hi) = (line * LINE_BITS, (line + 1) * LINE_BITS);
                let shares: Vec<f64> = (lo / m..hi.div_ceil(m).min(j))
                    .map(|i| (hi.min((i + 1) * m) - lo.max(i * m)) as f64 / mf)
                    .collect();
                let missed: f64 = shares.iter().map(|s| 1.0 - s).product();
                shares.iter().sum::<f64>() - (1.0 - missed)
            })
            .sum()
    };
    let stopped: f64 = (1..=k)
        .map(|j| (j as f64 - straddled(j as u64)) * r.powi(j as i32 - 1) * (1.0 - r))
        .sum();
    (stopped, k as f64 - straddled(k as u64))
}

/// A classic Bloom filter: m bits, k hash functions.
#[derive(Debug, Clone)]
pub struct BloomFilter {
    bits: BitArray,
    k: u32,
    inserted: u64,
}

/// The shape of a [`BloomFilter`]: what [`BloomFilter::new`] takes, each paper letter
/// by a word (see [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BloomShape {
    /// Bits of the bit array, in all (`m`).
    pub bits: u64,
    /// Hash functions: the bits or cells a key sets and a query reads (`k`).
    pub hashes: u32,
}

impl BloomFilter {
    /// m bits and k hash functions.
    pub fn new(shape: BloomShape) -> Result<Self, ParamError> {
        let BloomShape { bits: m, hashes: k } = shape;
        check_nonzero("m", m)?;
        crate::error::check_hashes(k)?;
        let m = check_bits(Some(m))?;
        Ok(BloomFilter {
            bits: BitArray::new(m),
            k,
            inserted: 0,
        })
    }

    /// Sized for `capacity` keys at false-positive rate `fpr`:
    /// m = ⌈-n ln p / (ln 2)^2⌉, k = max(1, round(m/n ln 2)).
    pub(crate) fn with_fpr(capacity: u64, fpr: f64) -> Result<Self, ParamError> {
        check_nonzero("capacity", capacity)?;
        check_probability("fpr", fpr)?;
        let m = (-(capacity as f64) * fpr.ln() / (LN_2 * LN_2)).ceil();
        let m = check_bits((m <= crate::MAX_BITS as f64).then_some(m as u64))?;
        let k = ((m as f64 / capacity as f64) * LN_2).round().max(1.0) as u32;
        Self::new(BloomShape { bits: m, hashes: k })
    }

    /// Number of hash functions.
    pub fn k(&self) -> u32 {
        self.k
    }

    /// Number of bits.
    pub fn m(&self) -> u64 {
        self.bits.len()
    }

    /// Insertions so far.
    pub fn inserted(&self) -> u64 {
        self.inserted
    }

    /// Brings the filter to the state `n` insertions of random keys leave
    /// it in, without inserting any: each bit is set independently with
    /// the probability they would set it, 1 - (1 - 1/m)^(kn) (to 16 binary
    /// digits), in one pass over the words, and `inserted` grows by `n`.
    /// Bits already set stay set, so every key inserted before is still
    /// reported. `seed` chooses the bits.
    ///
    /// For timing a filter at its load: its queries then read what they
    /// read after `n` insertions, which cost k random writes each where
    /// this costs a few word operations (a window of 3 million keys into
    /// 100 MB at k = 25 takes seconds).
    ///
    /// ```
    /// use bloomlab_filters::{bloom::BloomFilter, Filter};
    /// let mut f = BloomFilter::new(bloomlab_filters::BloomShape { bits: 1 << 20, hashes: 7 }).unwrap();
    /// f.insert(42);
    /// f.fill_as_if(100_000, 1);
    /// assert!(f.contains(42));
    /// ```
    pub fn fill_as_if(&mut self, n: u64, seed: u64) {
        let p = fill_ratio(self.k as f64 * n as f64, self.m() as f64);
        // p to 16 binary digits, q / 2^16; a word of density q / 2^16 is
        // built from the digits up: x := x | r for a 1, x & r for a 0,
        // each r a fresh uniform word (density (x + d) / 2 a digit)
        let q = (p * 65536.0).round().clamp(0.0, 65536.0) as u32;
        let mut stream = crate::hash::mix64(seed ^ 0xF111_A51F);
        let mut next = || {
            stream = stream.wrapping_add(crate::hash::GOLDEN);
            crate::hash::mix64(stream)
        };
        for w in 0..self.bits.words() {
            let x = if q >= 65536 {
                !0
            } else {
                let mut x = 0u64;
                for d in q.trailing_zeros().min(16)..16 {
                    x = if q >> d & 1 == 1 {
                        x | next()
                    } else {
                        x & next()
                    };
                }
                x
            };
            self.bits.or_word(w, x);
        }
        self.inserted += n;
    }

    /// The classic FPR approximation r(kn, m)^k after `n` distinct insertions.
    pub fn theoretical_fpr(&self, n: u64) -> f64 {
        fill_ratio(self.k as f64 * n as f64, self.m() as f64).powi(self.k as i32)
    }
}

impl Filter for BloomFilter {
    fn insert(&mut self, key: u64) {
        let m = self.m();
        for i in 0..self.k as u64 {
            self.bits.set(index(key, i, m));
        }
        self.inserted += 1;
    }

    fn contains(&self, key: u64) -> bool {
        self.contains_probes(key).0
    }

    fn memory_bits(&self) -> u64 {
        self.m()
    }

    fn name(&self) -> &'static str {
        "bloom"
    }
}

impl crate::Instrumented for BloomFilter {
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        let m = self.m();
        for i in 0..self.k {
            if !self.bits.get(index(key, i as u64, m)) {
                return (false, i + 1);
            }
        }
        (true, self.k)
    }
    /// The k bits' lines.
    fn prefetch_insert(&self, key: u64) {
        let m = self.m();
        for i in 0..self.k as u64 {
            self.bits.prefetch(index(key, i, m));
        }
    }
    /// The first two bits' lines (a negative query reads about two).
    fn prefetch_query(&self, key: u64) {
        let m = self.m();
        for i in 0..self.k.min(2) as u64 {
            self.bits.prefetch(index(key, i, m));
        }
    }
}

/// A partitioned Bloom filter: k slices of m bits, hash i sets a bit in slice i.
#[derive(Debug, Clone)]
pub struct PartitionedBloomFilter {
    bits: BitArray,
    k: u32,
    m: u64,
    inserted: u64,
}

/// The shape of a [`PartitionedBloomFilter`]: what [`PartitionedBloomFilter::new`] takes, each paper letter
/// by a word (see [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PartitionedBloomShape {
    /// Hash functions: the bits or cells a key sets and a query reads (`k`).
    pub hashes: u32,
    /// Bits in each slice (`m`).
    pub bits_per_slice: u64,
}

impl PartitionedBloomFilter {
    /// k slices of m bits.
    pub fn new(shape: PartitionedBloomShape) -> Result<Self, ParamError> {
        let PartitionedBloomShape {
            hashes: k,
            bits_per_slice: m,
        } = shape;
        crate::error::check_hashes(k)?;
        check_nonzero("m", m)?;
        let total = check_bits((k as u64).checked_mul(m))?;
        Ok(PartitionedBloomFilter {
            bits: BitArray::new(total),
            k,
            m,
            inserted: 0,
        })
    }

    /// Sized as in the APBF paper for `capacity` keys at rate `fpr`:
    /// k = ⌈log2(1/p)⌉ slices of m = ⌈n / ln 2⌉ bits, so that the fill reaches
    /// 1/2 at capacity and the FPR is 2^-k <= p.
    pub(crate) fn with_fpr(capacity: u64, fpr: f64) -> Result<Self, ParamError> {
        check_nonzero("capacity", capacity)?;
        check_probability("fpr", fpr)?;
        let k = (1.0 / fpr).log2().ceil().max(1.0) as u32;
        let m = (capacity as f64 / LN_2).ceil() as u64;
        Self::new(PartitionedBloomShape {
            hashes: k,
            bits_per_slice: m,
        })
    }

    /// Number of slices (hash functions).
    pub fn k(&self) -> u32 {
        self.k
    }

    /// Bits per slice.
    pub fn m(&self) -> u64 {
        self.m
    }

    /// Empties the filter (all bits 0, insertion count 0).
    pub fn clear(&mut self) {
        let n = self.bits.len();
        self.bits.clear_range(0, n);
        self.inserted = 0;
    }

    /// Insertions so far.
    pub fn inserted(&self) -> u64 {
        self.inserted
    }

    /// The exact expected FPR r(n, m)^k after `n` distinct insertions.
    pub fn theoretical_fpr(&self, n: u64) -> f64 {
        fill_ratio(n as f64, self.m as f64).powi(self.k as i32)
    }
}

impl Filter for PartitionedBloomFilter {
    fn insert(&mut self, key: u64) {
        for i in 0..self.k as u64 {
            self.bits.set(i * self.m + index(key, i, self.m));
        }
        self.inserted += 1;
    }

    fn contains(&self, key: u64) -> bool {
        self.contains_probes(key).0
    }

    fn memory_bits(&self) -> u64 {
        self.k as u64 * self.m
    }

    fn name(&self) -> &'static str {
        "partitioned-bloom"
    }
}

impl PartitionedBloomFilter {
    /// The answer to a query for `key` and the distinct 64-byte lines it
    /// reads, counted from the start of the filter's bits as if that were
    /// the start of a line (a large allocation is page-aligned):
    /// [`query_lines`] in theory.
    pub fn lines_read(&self, key: u64) -> (bool, u32) {
        self.walk_lines(key, true)
    }

    /// The distinct 64-byte lines an insertion of `key` writes (its k
    /// cells, counted as [`lines_read`](Self::lines_read) counts them):
    /// [`present_query_lines`] in theory.
    pub fn lines_written(&self, key: u64) -> u32 {
        self.walk_lines(key, false).1
    }

    /// The distinct lines of `key`'s cells slice by slice, stopping at the
    /// first unset one when `stop`: whether none was unset, and the lines.
    fn walk_lines(&self, key: u64, stop: bool) -> (bool, u32) {
        let mut lines = 0u32;
        let mut last = u64::MAX;
        for i in 0..self.k as u64 {
            let pos = i * self.m + index(key, i, self.m);
            // the slices come in order, so a line read before is the last
            let line = pos / LINE_BITS;
            if line != last {
                lines += 1;
                last = line;
            }
            if stop && !self.bits.get(pos) {
                return (false, lines);
            }
        }
        (true, lines)
    }

    /// The 64-byte lines [`clear`](Self::clear) writes: every line of its
    /// k·m bits.
    pub fn lines_cleared(&self) -> u64 {
        (self.k as u64 * self.m).div_ceil(LINE_BITS)
    }
}

impl PartitionedBloomFilter {
    /// [`Instrumented::contains_probes`] with the key's position in slice
    /// i given by `pos(i)` (`index(key, i, m)`): filters of one shape (a
    /// ring's segments) can then share a key's hashes.
    #[inline]
    pub(crate) fn contains_probes_by(&self, mut pos: impl FnMut(usize) -> u64) -> (bool, u32) {
        for i in 0..self.k {
            if !self.bits.get(i as u64 * self.m + pos(i as usize)) {
                return (false, i + 1);
            }
        }
        (true, self.k)
    }
}

impl crate::Instrumented for PartitionedBloomFilter {
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        self.contains_probes_by(|i| index(key, i as u64, self.m))
    }
    /// The k bits' lines.
    fn prefetch_insert(&self, key: u64) {
        for i in 0..self.k as u64 {
            self.bits.prefetch(i * self.m + index(key, i, self.m));
        }
    }
    /// The first two bits' lines (a negative query reads about two).
    fn prefetch_query(&self, key: u64) {
        for i in 0..self.k.min(2) as u64 {
            self.bits.prefetch(i * self.m + index(key, i, self.m));
        }
    }
}

crate::persist::codec_struct!(BloomFilter { bits, k, inserted });
crate::persist::codec_struct!(PartitionedBloomFilter {
    bits,
    k,
    m,
    inserted
});

impl crate::persist::sealed::Design for BloomFilter {
    fn tag() -> String {
        "bloom".into()
    }
    fn check(&self) -> Result<(), String> {
        crate::persist::ensure(
            (1..=crate::MAX_HASHES).contains(&self.k) && self.bits.len() >= 1,
            || "k (1..=64) or m is 0".into(),
        )
    }
}

crate::persist::persists!(BloomFilter);

impl crate::persist::sealed::Design for PartitionedBloomFilter {
    fn tag() -> String {
        "partitioned_bloom".into()
    }
    fn check(&self) -> Result<(), String> {
        let total = (self.k as u64).checked_mul(self.m);
        crate::persist::ensure(
            (1..=crate::MAX_HASHES).contains(&self.k)
                && self.m >= 1
                && total == Some(self.bits.len()),
            || {
                format!(
                    "{} bits for k = {}, m = {}",
                    self.bits.len(),
                    self.k,
                    self.m
                )
            },
        )
    }
}

crate::persist::persists!(PartitionedBloomFilter);

#[cfg(test)]
#[path = "bloom_tests.rs"]
mod tests;
