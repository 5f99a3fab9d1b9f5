//! The line APBF: an Age-Partitioned Bloom filter whose every operation
//! touches one 64-byte cache line.
//!
//! The blocked APBF ([`BlockedApbf`](crate::BlockedApbf)) gives a key one
//! 64-bit word in each of its k + l slices, a block of up to three lines.
//! The line APBF cuts the line instead of the slice: a line is 32 lanes of
//! 16 bits, lane p of every line belongs to physical slice p (k + l <= 31),
//! and a key picks one line; in it, its bit in slice p is one of the lane's
//! 16. Every bit the key sets or reads, in every generation it lives
//! through, is in that line.
//!
//! # Layout and operations
//!
//! - A key (a uniform 64-bit hash) picks its line by its high bits
//!   (fastrange) and its 32 bit positions, one 4-bit nibble per lane, from
//!   two [`mix64`] of it.
//! - **A query** tests the key's bit in all 32 lanes at once (AVX2 where
//!   the processor has it: the positions become per-lane masks by one byte
//!   shuffle, an AND and a compare give the hits; a portable loop beside it
//!   gives the same bits), rotates the hit mask into logical order and looks
//!   for k consecutive hits by log2 k shift-and-ANDs (the paper's Algorithm
//!   1 answer, without its data-dependent branches).
//! - **An insertion** ORs the key's bits into the k newest slices' lanes of
//!   its line (one masked OR over the line).
//! - **A shift** (every g insertions) retires the oldest slice, which must
//!   be cleared in every line before it is written again. Instead of a
//!   pass over all lines, the clearing is *lazy*: lane 31 of each line holds
//!   the generation (mod 2^16) up to which the line is clean, so a line
//!   last cleaned d generations ago has exactly the d newest slices'
//!   lanes pending (the slices retired since are the newest ones now). A
//!   query masks them out of its hits; an insertion clears them in the line
//!   it writes anyway and stamps it. A shift is then O(1), and no
//!   operation ever touches a line but its key's. So that the 16-bit stamp
//!   never wraps, every [`SWEEP`] generations one pass cleans every line
//!   (L lines per 2^14 g insertions).
//!
//! Lazy and eager clearing give the same answers for every key at every
//! moment (the pending lanes read as zero either way), so the filter is
//! the age-partitioned construction exactly: window l g, slack k g, no
//! false negative within the window.
//!
//! # Theory
//!
//! The blocked APBF's exact programme ([`crate::apbf::blocked`], its
//! module documentation) with 16-bit words and L blocks: a query key's line
//! holds X_a keys of generation a (Binomial(g_a, 1/L)), each setting one of
//! 16 bits in each of its slices' lanes, independently across lanes. The
//! line's load variance (the blocked-Bloom penalty) is in the programme's
//! expectation over X, exactly; [`LineTheory::fpr_independent`] drops it.
//! A lane is 16 bits against the blocked APBF's 64, so the penalty is
//! larger: the price of one line is memory, which the sizing states.

use crate::hash::{fastrange, mix64, GOLDEN};
use crate::lines::Line;
use crate::{Filter, ParamError, SlidingFilter};
use lanes::{lane_words, low_bits, newest_words, position, rotl, Runs};

mod concurrent;
mod lanes;
mod persist;
mod shape;
mod simd;
mod sizing;
pub use sizing::MAX_SIZED_K;
mod theory;

pub use concurrent::{ConcurrentLineApbf, MAX_CONCURRENT_G};
pub use shape::LineApbfShape;
pub use theory::LineTheory;

/// Lanes of a line (16 bits each).
pub const LANES: u32 = 32;

/// Most slices k + l: lane 31 holds the line's stamp.
pub const MAX_SLICES: u32 = LANES - 1;

/// Bits of a lane: a slice's bits in one line.
pub const LANE_BITS: u64 = 16;

/// Generations between two passes that clean every line, so that a line's
/// 16-bit stamp is never more than this behind.
pub const SWEEP: u64 = 1 << 14;

/// A line's stamp (lane 31): the generation (mod 2^16) it is clean up to.
/// A line is 32 16-bit lanes, lane j bits 16 (j mod 4) .. of word j / 4.
#[inline]
fn stamp(line: &Line) -> u16 {
    (line.0[7] >> 48) as u16
}

/// The key's bit positions: nibble j of the pair (lanes 0..15 from the
/// first word, 16..31 from the second) is its bit in lane j. The first is a
/// full mix of the key, the second a full mix of the first: a chain, not
/// two independent mixes (which the compiler would pair into slow 64-bit
/// vector multiplies), and no cheaper second word (a linear one, such as a
/// product of the key, keeps its low nibbles when a high key bit flips, and
/// the conformance suite's keys one bit apart then share lanes). The line
/// is the key's top bits (fastrange).
#[inline(always)]
pub(crate) fn positions(key: u64) -> (u64, u64) {
    let a = mix64(key);
    (a, mix64(a ^ GOLDEN))
}

/// A line APBF (see the module documentation).
#[derive(Debug, Clone)]
pub struct LineApbf {
    k: u32,
    l: u32,
    g: u64,
    line_count: u64,
    lines: Vec<Line>,
    /// Physical lane of logical slice s_0.
    base: u32,
    /// Insertions in the current generation.
    count: u64,
    inserted: u64,
    /// Shifts since the filter was made: the generation number.
    generation: u64,
    /// The k newest slices' lanes as line words (derived from base).
    newest: [u64; 8],
    /// What finds a run of k hits (derived from k and l).
    runs: Runs,
    /// Whether this processor runs the AVX2 version.
    simd: bool,
}

impl LineApbf {
    /// A line APBF with k slices written per insertion, l extra slices
    /// (k + l <= [`MAX_SLICES`]), generation size g and L lines (by default
    /// [`default_lines`]`(k, g)`). Window l g, slack k g, payload 512 L bits.
    ///
    /// ```
    /// use bloomlab_filters::{Filter, LineApbf, LineApbfShape, SlidingFilter};
    /// let mut f = LineApbf::new(LineApbfShape { hashes: 10, extra_slices: 21, generation: 100, lines: None }).unwrap();
    /// assert_eq!((f.window(), f.slack()), (2100, 1000));
    /// f.insert(42);
    /// assert!(f.contains(42));
    /// ```
    pub fn new(shape: LineApbfShape) -> Result<Self, ParamError> {
        let (k, l, g, lines) = shape.resolve()?;
        Self::check_shape(k, l, g, lines)?;
        Ok(LineApbf {
            k,
            l,
            g,
            line_count: lines,
            lines: vec![Line::default(); lines as usize],
            base: 0,
            count: 0,
            inserted: 0,
            generation: 0,
            newest: newest_words(k, l, 0),
            runs: Runs::of(k, l),
            simd: crate::cpu::avx2(),
        })
    }

    /// Checks a configuration: k >= 1, l >= 1, k + l <= 31, g >= 1, L >= 1
    /// within the crate's bit limit.
    fn check_shape(k: u32, l: u32, g: u64, lines: u64) -> Result<(), ParamError> {
        crate::error::check_hashes(k)?;
        crate::error::check_nonzero("l", l as u64)?;
        crate::error::check_nonzero("g", g)?;
        crate::error::check_nonzero("lines", lines)?;
        if k as u64 + l as u64 > MAX_SLICES as u64 {
            return Err(ParamError::TooLarge {
                what: "k + l",
                limit: MAX_SLICES.to_string(),
            });
        }
        crate::error::check_bits(lines.checked_mul(512))?;
        Ok(())
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

    /// L: 64-byte lines.
    pub fn line_count(&self) -> u64 {
        self.line_count
    }

    /// The same filter on the portable path (tests compare the two).
    pub fn portable(mut self) -> Self {
        self.simd = false;
        self
    }

    /// The theory of this configuration.
    pub fn theory(&self) -> LineTheory {
        LineTheory {
            k: self.k,
            l: self.l,
            g: self.g,
            lines: self.line_count,
        }
    }

    fn slices(&self) -> u32 {
        self.k + self.l
    }

    #[inline]
    fn line_index(&self, key: u64) -> usize {
        fastrange(key, self.line_count) as usize
    }

    /// Physical lanes whose slices retired since `line` was last cleaned:
    /// the d newest slices, d the generations since its stamp.
    #[inline(always)]
    fn stale(&self, line: &Line) -> u64 {
        rotl(low_bits(self.behind(line)), self.base, self.slices())
    }

    /// d: the generations since `line` was last cleaned, at most k + l.
    #[inline(always)]
    fn behind(&self, line: &Line) -> u32 {
        let d = (self.generation as u16).wrapping_sub(stamp(line)) as u32;
        d.min(self.slices())
    }

    /// The answer on the portable path.
    #[inline]
    fn contains_portable(&self, key: u64) -> bool {
        let line = &self.lines[self.line_index(key)];
        let (a, b) = positions(key);
        self.decide(line, simd::hits_portable(&line.0, a, b))
    }

    /// The answer on the AVX2 path: the whole query in one function
    /// compiled for AVX2, so that nothing of it is a call.
    ///
    /// # Safety
    /// The processor must have AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn contains_avx2(&self, key: u64) -> bool {
        let line = &self.lines[self.line_index(key)];
        let (a, b) = positions(key);
        self.decide(line, simd::avx2::hits(&line.0, a, b))
    }

    /// The insertion's line update on the AVX2 path (see [`Self::write`]).
    ///
    /// # Safety
    /// The processor must have AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn write_avx2(&mut self, i: usize, a: u64, b: u64) {
        let stale = self.stale(&self.lines[i]) as u32;
        let stamp = (self.generation as u16 as u64) << 48;
        simd::avx2::update(&mut self.lines[i].0, a, b, &self.newest, stale, stamp);
    }

    /// The answer from a line's hits: k consecutive logical slices, none
    /// of them pending clearing. Without a rotation or a branch: the hits
    /// doubled (physical lanes 0 .. 2n), their runs of k found by the fixed
    /// shift-and-ANDs of k, and the run starts read at base + s for the
    /// logical starts s = d ..= l (the d newest slices are the pending ones,
    /// so a run from s >= d has none of them). Whether a line is behind is
    /// a coin toss per query (a line takes about one insertion a
    /// generation), which a branch would mispredict half the time.
    #[inline(always)]
    fn decide(&self, line: &Line, hits: u32) -> bool {
        self.runs.decide(hits, self.base, self.behind(line))
    }

    /// Clears the line's pending lanes and stamps it clean.
    #[inline]
    fn clean(line: &mut Line, stale: u64, generation: u64) {
        if stale != 0 {
            let clear = lane_words(stale as u32);
            for (w, c) in line.0.iter_mut().zip(clear) {
                *w &= !c;
            }
        }
        line.0[7] = (line.0[7] & !(0xFFFF << 48)) | ((generation as u16 as u64) << 48);
    }

    /// Writes `key` into the k newest slices of its line and counts it,
    /// without a shift: the line's pending lanes cleared, the key's bits
    /// ORed into the k newest lanes, the line stamped clean.
    fn write(&mut self, key: u64) {
        self.count += 1;
        self.inserted += 1;
        let i = self.line_index(key);
        let (a, b) = positions(key);
        #[cfg(target_arch = "x86_64")]
        if self.simd {
            // SAFETY: `simd` is set only where AVX2 was detected.
            unsafe { self.write_avx2(i, a, b) };
            return;
        }
        let stale = self.stale(&self.lines[i]);
        let (generation, base, k, n) = (self.generation, self.base, self.k, self.slices());
        let line = &mut self.lines[i];
        Self::clean(line, stale, generation);
        for i in 0..k {
            let p = (base + i) % n;
            line.0[(p / 4) as usize] |= 1u64 << (16 * (p % 4) + position(a, b, p));
        }
    }

    /// Ages the filter by one generation: the oldest slice becomes the
    /// newest, its lanes pending in every line (see the module docs); every
    /// [`SWEEP`] generations every line is cleaned.
    fn shift(&mut self) {
        let n = self.slices();
        self.base = (self.base + n - 1) % n;
        self.count = 0;
        self.generation += 1;
        self.newest = newest_words(self.k, self.l, self.base);
        if self.generation.is_multiple_of(SWEEP) {
            self.sweep();
        }
    }

    /// Cleans every line: the stamps are then the current generation.
    fn sweep(&mut self) {
        for i in 0..self.lines.len() {
            let stale = self.stale(&self.lines[i]);
            Self::clean(&mut self.lines[i], stale, self.generation);
        }
    }
}

/// Default L for (k, g): a slice's bits ⌈k g / ln 2⌉ (the APBF's) in
/// 16-bit lanes, one per line. `None` on overflow.
pub fn default_lines(k: u32, g: u64) -> Option<u64> {
    Some(crate::apbf::theory::slice_bits(k, g)?.div_ceil(LANE_BITS))
}

impl Filter for LineApbf {
    fn insert(&mut self, key: u64) {
        if self.count >= self.g {
            self.shift();
        }
        self.write(key);
    }

    #[inline]
    fn contains(&self, key: u64) -> bool {
        #[cfg(target_arch = "x86_64")]
        if self.simd {
            // SAFETY: `simd` is set only where AVX2 was detected.
            return unsafe { self.contains_avx2(key) };
        }
        self.contains_portable(key)
    }

    /// 512 bits per line (the stamp lane and any unused lanes included)
    /// plus 64 bits each for the base, the generation's count and the
    /// generation number.
    fn memory_bits(&self) -> u64 {
        self.line_count * 512 + 3 * 64
    }

    fn name(&self) -> &'static str {
        "line_apbf"
    }
}

impl LineApbf {
    /// The answer to a query for `key` and the distinct 64-byte lines of
    /// memory it reads, counted from the addresses of the 64 bytes it loads
    /// (one by construction: a `Line` is 64 bytes aligned to 64, which this
    /// counts rather than assumes).
    pub fn lines_read(&self, key: u64) -> (bool, u32) {
        let at = &self.lines[self.line_index(key)] as *const Line as usize;
        // the line of the first byte read and of the last
        let lines = (((at + 63) >> 6) - (at >> 6) + 1) as u32;
        (self.contains(key), lines)
    }
}

impl crate::Instrumented for LineApbf {
    /// The answer and the lines read (see [`LineApbf::lines_read`]).
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        self.lines_read(key)
    }
    fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
        Some(self.lines_read(key))
    }
}

impl SlidingFilter for LineApbf {
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

#[cfg(test)]
mod tests;
