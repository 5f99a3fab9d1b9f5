//! The blocked Age-Partitioned Bloom filter: every slice is cut into 64-bit
//! words, and a key uses the same word index (its *block*) in every slice.
//!
//! The APBF paper generalises its slices to blocked Bloom filters (its Section
//! 6, whose text is missing from our copy); this is our construction, built so
//! that an operation touches a few cache lines instead of one per slice, with
//! its theory derived here from scratch.
//!
//! # Layout
//!
//! B blocks of L = k + l words, stored block-major: block b is the L
//! consecutive words `b L .. b L + L - 1`, word p of a block belonging to
//! physical slice p. A key picks its block b = fastrange(key, B) once, and in
//! physical slice p the bit `(key · a_p mod 2^64) >> 58` of its word (a_p a
//! fixed odd multiplier per physical slice, so a key finds its bits after the
//! slices have shifted). Slices rotate exactly as in the unblocked APBF: every
//! g insertions the oldest slice (word p = base - 1 in every block) is zeroed
//! and becomes the newest. An insertion writes the k newest slices: k
//! consecutive words of one block (modulo L), which is one contiguous run or
//! two; a query runs the paper's Algorithm 1 over the same words. A block is
//! 8 L bytes, so an insertion touches ⌈8k / 64⌉ to ⌈8k / 64⌉ + 2 cache lines
//! and a query at most ⌈8L / 64⌉ + 1; [`Instrumented::contains_probes`](crate::Instrumented::contains_probes) reports the
//! distinct 64-byte lines a query read. The price is that zeroing a slice
//! writes one word in each of the B blocks (B cache lines, amortised over g
//! insertions; B ≈ k g / 44 at the default size, so about k / 44 lines per
//! insertion).
//!
//! # Theory: the FPR with correlated block loads
//!
//! Write generations by age: generation a (a = 0 the current one, with φ
//! insertions; a >= 1 full, with g) was written to slices a .. a + k - 1, so
//! slice j holds the generations max(0, j - k + 1) .. j. Fix a query key y
//! never inserted, in block b. Let X_a be the number of generation-a keys in
//! block b: independent Binomial(g_a, 1/B). Given X, the word of slice j in
//! block b holds n_j = Σ_{a in slice j} X_a keys' bits, each uniform over 64
//! positions and independent of everything else, so y's bit in slice j is set
//! with probability 1 - q^{n_j}, q = 63/64, independently across slices (every
//! physical slice has its own bit hash). The unblocked recursion F then applies
//! *given X*; the FPR is E_X\[F\]. Unlike the unblocked filter, F's inputs are
//! now correlated (adjacent slices share k - 1 generations, so one crowded
//! block is crowded in all its slices) and E\[F(q)\] != F(E\[q\]): taking each slice's
//! mean fill, the *independent* approximation [`BlockedTheory::fpr_independent`],
//! underestimates the FPR. That approximation is also exactly the FPR of the
//! unblocked APBF with the same k, l, g and memory (m = 64 B bits per slice):
//! a word's mean fill 1 - Π_a (1 - 1/(64 B))^{g_a} is the unblocked slice's
//! 1 - (1 - 1/m)^{Σ g_a}. So the gap between the two is the whole price of
//! blocking, and it is the correlation.
//!
//! The exact expectation. P(no k consecutive hits | X) is a sum over hit
//! patterns h of Π_j P(h_j | n_j), with P(miss) = q^{n_j} and
//! P(hit) = 1 - q^{n_j}. Expand every hit as (+1) + (-1)·q^{n_j}: each slice then
//! contributes a sign and a factor q^{e_j n_j} with e_j ∈ {0, 1} (miss: e = 1,
//! +; hit: e = 0, + or e = 1, -). Since Σ_j e_j n_j = Σ_a c_a X_a with
//! c_a = Σ_{j ∋ a} e_j (the number of a's slices with e = 1), and the X_a are
//! independent binomials,
//!
//! E[q^{Σ_a c_a X_a}] = Π_a ψ_a(c_a),  ψ_a(c) = (1 - (1 - q^c) / B)^{g_a}.
//!
//! Generation a's slices are a .. a + k - 1, so c_a is known once slice
//! a + k - 1 has been chosen. A dynamic programme over slices j = 0 .. L - 1 with
//! state (r, e_{j-k+2} .. e_j) = (current run of hits, < k; the last k - 1
//! choices of e) multiplies in ψ_a as generation a = j - k + 1 completes, and
//! the clipped generations a > l at the end. That is k 2^(k-1) states and
//! 3 transitions per slice: exact (no sampling), for k <= [`MAX_EXACT_K`].
//! The signed sum loses about log2 of (sum of |terms|) ≈ L bits of the 53
//! to cancellation (2^-53 · 2^L: 1e-11 at L = 17, 1e-7 at L = 30), which
//! [`BlockedTheory::fpr_at`] stays well within for the configurations we use;
//! the test against simulation in `tests/blocked_vs_simulation.rs` checks it.
//!
//! A key inserted j shifts ago (j > l, so some of its slices have expired) has
//! its surviving slices j .. L - 1 forced to hit and g_j - 1 *other* keys of
//! its generation in its block; the same programme with those slices forced
//! gives P(yes | j shifts) ([`BlockedTheory::presence_by_shift`]). For j <= l
//! all k slices survive and the answer is yes: the window is l g, the slack
//! k g, as for the unblocked APBF.

use super::{algorithm1, middle_hits};
use crate::error::{check_bits, check_nonzero};
use crate::hash::{fastrange, mix64, GOLDEN};
use crate::lines::Line;
use crate::{Filter, ParamError, SlidingFilter};

/// Largest k for which [`BlockedTheory`] evaluates its exact programme
/// (k 2^(k-1) states).
pub const MAX_EXACT_K: u32 = 20;

/// Largest number of slices k + l a blocked APBF takes (a block of at most 64
/// words, 8 cache lines).
pub const MAX_SLICES: u32 = 64;

/// Bits per word (per slice per block).
pub const WORD_BITS: u64 = 64;

/// The key's bit in the word of a physical slice with multiplier `mult`:
/// the top 6 bits of key · mult.
#[inline]
fn key_bit(key: u64, mult: u64) -> u64 {
    1u64 << (key.wrapping_mul(mult) >> 58)
}

/// Per-physical-slice odd multipliers for the bit position.
fn multipliers() -> Box<[u64; MAX_SLICES as usize]> {
    let mut mult = Box::new([0u64; MAX_SLICES as usize]);
    for (p, m) in mult.iter_mut().enumerate() {
        *m = mix64((p as u64).wrapping_add(1).wrapping_mul(GOLDEN) ^ 0x5bd1_e995) | 1;
    }
    mult
}

/// A blocked Age-Partitioned Bloom filter (see the module documentation).
#[derive(Debug, Clone)]
pub struct BlockedApbf {
    k: u32,
    l: u32,
    g: u64,
    blocks: u64,
    lines: Vec<Line>,
    /// Per-physical-slice odd multipliers for the bit position (the first
    /// k + l used; a fixed array, so that a slice's index needs no bounds
    /// check).
    mult: Box<[u64; MAX_SLICES as usize]>,
    /// Physical position of logical slice s_0.
    base: u32,
    /// Insertions in the current generation, 0..=g.
    count: u64,
    inserted: u64,
    /// Whether this processor runs the AVX-512 version of the query's mask.
    simd: bool,
}

impl BlockedApbf {
    /// A blocked APBF with k slices written per insertion, l extra slices,
    /// generation size g and B = `blocks` blocks of k + l words (by default
    /// [`default_blocks`]`(k, g)`, the unblocked APBF's memory). Window l g,
    /// slack k g, payload (k + l) 64 B bits.
    pub fn new(shape: BlockedApbfShape) -> Result<Self, ParamError> {
        let (k, l, g, blocks) = shape.resolve()?;
        let lines = Self::shape(k, l, g, blocks)?;
        let mult = multipliers();
        Ok(BlockedApbf {
            k,
            l,
            g,
            blocks,
            lines: vec![Line::default(); lines],
            mult,
            base: 0,
            count: 0,
            inserted: 0,
            simd: crate::cpu::avx512(),
        })
    }

    /// The number of 64-byte lines of a valid configuration.
    fn shape(k: u32, l: u32, g: u64, blocks: u64) -> Result<usize, ParamError> {
        crate::error::check_hashes(k)?;
        check_nonzero("l", l as u64)?;
        check_nonzero("g", g)?;
        check_nonzero("blocks", blocks)?;
        let slices = k as u64 + l as u64;
        if slices > MAX_SLICES as u64 {
            return Err(ParamError::TooLarge {
                what: "k + l",
                limit: MAX_SLICES.to_string(),
            });
        }
        let words = blocks.checked_mul(slices);
        check_bits(words.and_then(|w| w.checked_mul(WORD_BITS)))?;
        Ok(words.expect("checked").div_ceil(8) as usize)
    }

    /// k: slices written per insertion.
    pub fn k(&self) -> u32 {
        self.k
    }

    /// l: extra slices (window l g).
    pub fn l(&self) -> u32 {
        self.l
    }

    /// g: generation size.
    pub fn g(&self) -> u64 {
        self.g
    }

    /// B: blocks (64-bit words per slice).
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// The theory of this configuration.
    pub fn theory(&self) -> BlockedTheory {
        BlockedTheory {
            k: self.k,
            l: self.l,
            g: self.g,
            blocks: self.blocks,
        }
    }

    fn slices(&self) -> u64 {
        self.k as u64 + self.l as u64
    }

    /// The filter's words, in order, as one slice.
    #[inline]
    fn words(&self) -> &[u64] {
        // SAFETY: `Line` is `repr(C)` around `[u64; 8]`: 64 bytes, no
        // padding, aligned to 64 (a multiple of u64's alignment), so
        // `lines.len()` lines are `8 lines.len()` consecutive initialised
        // u64s, borrowed as long as `self`.
        unsafe {
            std::slice::from_raw_parts(self.lines.as_ptr().cast::<u64>(), self.lines.len() * 8)
        }
    }

    /// The filter's words, in order, as one mutable slice.
    #[inline]
    fn words_mut(&mut self) -> &mut [u64] {
        // SAFETY: as in `words`, borrowed mutably as long as `self`.
        unsafe {
            std::slice::from_raw_parts_mut(
                self.lines.as_mut_ptr().cast::<u64>(),
                self.lines.len() * 8,
            )
        }
    }

    #[inline]
    fn word(&self, w: u64) -> u64 {
        self.words()[w as usize]
    }

    #[inline]
    fn word_mut(&mut self, w: u64) -> &mut u64 {
        &mut self.words_mut()[w as usize]
    }

    /// Physical slice of logical slice i (< k + l).
    #[inline]
    fn physical(&self, i: usize) -> u64 {
        crate::window::ring_index(self.base as u64, i as u64, self.slices())
    }

    /// Index of the first word of the key's block. The key is already a
    /// uniform 64-bit hash: the block takes its high bits (fastrange), the
    /// bit positions the top of key · a_p ([`bit`](Self::bit)), which within
    /// a block (a range of 2^64 / B keys) are still uniform.
    #[inline]
    fn block_start(&self, key: u64) -> u64 {
        fastrange(key, self.blocks) * self.slices()
    }

    /// The key's bit in physical slice p.
    #[inline]
    fn bit(&self, key: u64, p: u64) -> u64 {
        key_bit(key, self.mult[p as usize % MAX_SLICES as usize])
    }

    /// Whether the key's bit is set in logical slice i of its block.
    #[inline]
    fn probe(&self, start: u64, key: u64, i: usize) -> bool {
        let p = self.physical(i);
        self.word(start + p) & self.bit(key, p) != 0
    }

    /// The answer of Algorithm 1 for `key` in the block at `start`, found
    /// without its data-dependent branches (the answers are the same; only
    /// the order of the reads differs, see [`Instrumented::contains_probes`](crate::Instrumented::contains_probes) for
    /// the paper's).
    ///
    /// First [`middle_hits`]: the k - l words of the slices every run of k
    /// covers are read and tested together, one branch for the lot, and
    /// about 9 negative queries in 10 end there at the default
    /// (k, l) = (10, 7). Otherwise the key's bit in all k + l words
    /// goes into a mask (physical order, rotated to logical), and a run of k
    /// ones is found by log2 k shift-and-ANDs.
    #[inline]
    fn answer(&self, start: u64, key: u64) -> bool {
        middle_hits(self.k, self.l, |i| self.probe(start, key, i)) && self.runs_of_k(start, key)
    }

    /// Whether the key's bits hold k consecutive logical slices, from a
    /// mask of all k + l of them.
    #[inline]
    fn runs_of_k(&self, start: u64, key: u64) -> bool {
        let slices = self.slices() as u32;
        let block = &self.words()[start as usize..start as usize + slices as usize];
        let physical = mask::physical(block, &self.mult, key, self.simd);
        // logical slice i is physical (base + i) mod (k + l): rotate right
        let doubled = physical as u128 | (physical as u128) << slices;
        let run = (doubled >> self.base) as u64 & (u64::MAX >> (64 - slices));
        // starts past l cannot hold k: their bits are zero
        super::has_run(run, self.k)
    }

    /// Writes `key` into the k newest slices and counts it, without a
    /// shift.
    fn write(&mut self, key: u64) {
        self.count += 1;
        self.inserted += 1;
        let start = self.block_start(key);
        // the k newest slices: physical base .. base + k, wrapping once
        let (base, k, slices) = (self.base as u64, self.k as u64, self.slices());
        let end = (base + k).min(slices);
        for p in base..end {
            let bit = self.bit(key, p);
            *self.word_mut(start + p) |= bit;
        }
        for p in 0..base + k - end {
            let bit = self.bit(key, p);
            *self.word_mut(start + p) |= bit;
        }
    }

    /// Ages the filter by one generation: zero s_{k+l-1} (one word per block)
    /// and make it s_0.
    fn shift(&mut self) {
        let slices = self.slices();
        self.base = self.physical(slices as usize - 1) as u32;
        let mut w = self.base as u64;
        for _ in 0..self.blocks {
            *self.word_mut(w) = 0;
            w += slices;
        }
        self.count = 0;
    }

    /// Distinct 64-byte lines among the words `first + offsets`.
    fn lines_of(first: u64, words: impl Iterator<Item = u64>) -> u32 {
        let line0 = first / 8;
        let mut seen = 0u64;
        for w in words {
            seen |= 1 << (w / 8 - line0);
        }
        seen.count_ones()
    }
}

impl Filter for BlockedApbf {
    /// Computes the blocks of 16 keys at a time and reads each one's first
    /// probed word before answering any, so that their cache misses are in
    /// flight together; then answers from the warmed lines.
    fn contains_many(&self, keys: &[u64], out: &mut [bool]) {
        assert!(out.len() >= keys.len(), "out shorter than keys");
        const BATCH: usize = 16;
        for (chunk, out) in keys.chunks(BATCH).zip(out.chunks_mut(BATCH)) {
            let mut starts = [0u64; BATCH];
            let mut acc = 0u64;
            for (s, &key) in starts.iter_mut().zip(chunk) {
                *s = self.block_start(key);
                // an independent load per key: the misses overlap
                acc ^= self.word(*s + self.physical(self.l as usize));
            }
            std::hint::black_box(acc);
            for ((o, &key), &start) in out.iter_mut().zip(chunk).zip(&starts) {
                *o = self.answer(start, key);
            }
        }
    }
    fn insert(&mut self, key: u64) {
        if self.count == self.g {
            self.shift();
        }
        self.write(key);
    }

    fn contains(&self, key: u64) -> bool {
        self.answer(self.block_start(key), key)
    }

    /// (k + l) 64 B bits of words plus 64 bits each for the base index and the
    /// generation counter.
    fn memory_bits(&self) -> u64 {
        self.blocks * self.slices() * WORD_BITS + 2 * 64
    }

    fn name(&self) -> &'static str {
        "blocked_apbf"
    }
}

impl crate::Instrumented for BlockedApbf {
    fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
        Some(Self::lines_read(self, key))
    }
    /// The answer and the number of distinct 64-byte cache lines read (for
    /// the unblocked APBF every slice probe is its own line, so the two
    /// designs' probe counts compare memory accesses).
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        let start = self.block_start(key);
        let mut words = 0u64;
        let (yes, _) = algorithm1(self.k, self.l, |i| {
            words |= 1 << self.physical(i);
            self.probe(start, key, i)
        });
        let read = (0..self.slices()).filter(|p| words >> p & 1 == 1);
        (yes, Self::lines_of(start, read.map(|p| start + p)))
    }
    /// The lines of the k newest slices' words in the key's block.
    fn prefetch_insert(&self, key: u64) {
        let start = self.block_start(key);
        for i in (0..self.k as usize).step_by(8).chain([self.k as usize - 1]) {
            crate::bits::prefetch_word(self.words(), (start + self.physical(i)) as usize);
        }
    }
    /// The words Algorithm 1 reads while it misses (`miss_chain`).
    fn prefetch_query(&self, key: u64) {
        let start = self.block_start(key);
        for i in crate::apbf::query::miss_chain(self.k, self.l) {
            crate::bits::prefetch_word(self.words(), (start + self.physical(i)) as usize);
        }
    }
}

impl SlidingFilter for BlockedApbf {
    fn window(&self) -> u64 {
        self.l as u64 * self.g
    }

    fn slack(&self) -> u64 {
        self.k as u64 * self.g
    }

    fn period(&self) -> u64 {
        self.g
    }

    fn inserted(&self) -> u64 {
        self.inserted
    }
}

pub mod concurrent;
mod lines;
mod mask;
mod sizing;
pub(crate) mod theory;

pub use sizing::default_blocks;
mod shape;
pub use shape::BlockedApbfShape;

impl crate::timewindow::Generational for BlockedApbf {
    fn write(&mut self, key: u64) {
        BlockedApbf::write(self, key)
    }
    fn next_generation(&mut self) {
        self.shift()
    }
    fn in_generation(&self) -> u64 {
        self.count
    }
    fn generation_size(&self) -> u64 {
        self.g
    }
    fn kept(&self) -> u64 {
        self.l as u64
    }
    fn forgotten(&self) -> u64 {
        self.slices()
    }
    fn insertions(&self) -> u64 {
        self.inserted
    }
    fn timed_name(trigger: crate::timewindow::Trigger) -> &'static str {
        match trigger {
            crate::timewindow::Trigger::Time => "blocked_apbf_time",
            crate::timewindow::Trigger::Hybrid => "blocked_apbf_hybrid",
        }
    }
}

pub use lines::Lines;
pub use theory::BlockedTheory;

#[cfg(test)]
mod tests;

crate::persist::codec_struct!(BlockedApbf { k, l, g, blocks, lines, base, count, inserted;
    mult = multipliers(), simd = crate::cpu::avx512() });

impl crate::persist::sealed::Design for BlockedApbf {
    fn tag() -> String {
        "blocked_apbf".into()
    }
    fn check(&self) -> Result<(), String> {
        use crate::persist::ensure;
        let lines =
            BlockedApbf::shape(self.k, self.l, self.g, self.blocks).map_err(|e| e.to_string())?;
        ensure(self.lines.len() == lines, || {
            format!("{} lines for {} blocks", self.lines.len(), self.blocks)
        })?;
        ensure((self.base as u64) < self.slices(), || {
            format!("base {}", self.base)
        })
        // no bound on count: a time trigger fills a generation past g
    }
}

crate::persist::persists!(BlockedApbf);
