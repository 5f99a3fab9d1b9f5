//! SHE's Bloom filter, SHE-BF (Sliding Hardware Estimator, ICPP 2022; code
//! `Sliding-Hardware-Estimator/SlidingHardwareEstimator`,
//! `she_bloomfilter/`).
//!
//! One array of m bits in G = m/g groups of g bits, each group with a
//! 1-bit timestamp. Group j's phase after t insertions is
//! ⌊(t + o_j)/P⌋ mod 2, its offset o_j = ⌊(W + P)·j/G⌋ (the reference
//! code's staggering, over W + P = (1 + α)·W) and P = α·W the phase length
//! (α >= 1; the reference code's α·W is real, here P is a whole number of
//! insertions). A group whose timestamp differs from its current phase
//! has been cleared since it was last written: an insertion finding it so
//! zeroes its bits and updates the timestamp (lazily: the group is cleared
//! when next touched), then sets its k bits.
//!
//! **Queries.** A key's bit counts as zero only if its group's phase at
//! the window's first insertion, t + 1 - W, equals its phase now (no
//! flip within the window) and the bit is zero (or the group is logically
//! cleared). A group that flipped within the window has lost part of the
//! window's keys, so its bits count as one. With P >= W a group flips at
//! most once in any W insertions, so every key of the last W is reported
//! (window W, no false negatives).
//!
//! **What it remembers.** A group that flipped f insertions ago (f >= W)
//! holds exactly the f most recent insertions; every group flips at least
//! once per P insertions, so no key of age P or more is reported but by a
//! false positive (slack P - W).
//!
//! **Queries read, never write.** The reference code's query also clears
//! a group it finds in a new phase; here a query treats such a group as
//! cleared without touching it, which answers the same. The 1-bit
//! timestamp aliases when a group receives no insertion for a whole phase
//! (its stale bits then survive a second flip): an extra false positive,
//! never a false negative, with probability about exp(-k·g·P/m) per group
//! and phase ([`theory::SheTheory::untouched_phase`]), which the theory
//! leaves out.

mod lines;
pub mod theory;
pub mod timed;

pub use timed::{TimedSheBloom, TimedSheBloomShape};

use crate::bits::BitArray;
use crate::divide::Divisor;
use crate::error::{check_bits, check_nonzero, check_probability};
use crate::hash::index;
use crate::{Filter, ParamError, SlidingFilter};

/// The reference code's group size.
pub const CODE_GROUP: u64 = 64;

/// The checks both SHE-BFs make of their shape: whole groups, a phase at
/// least the window (in insertions or in time), and (P + W)·G in 64 bits
/// (the groups' offsets).
/// The k cells of `key` in m bits (`index(key, i, m)`), each one's line
/// prefetched at once: an insertion computes them before its group logic,
/// which between a probe's read and its write is long enough that the
/// processor would otherwise hold only a few probes' misses in flight
/// (about 1 µs an insertion against 0.35 µs at 24 MB of bits).
#[inline]
fn prefetched_cells<'a>(
    bits: &BitArray,
    key: u64,
    k: u32,
    m: u64,
    cells: &'a mut [u64; crate::error::MAX_HASHES as usize],
) -> &'a [u64] {
    let cells = &mut cells[..k as usize];
    for (i, c) in cells.iter_mut().enumerate() {
        *c = index(key, i as u64, m);
        bits.prefetch(*c);
    }
    cells
}

pub(crate) fn check_shape(w: u64, m: u64, g: u64, phase: u64) -> Result<(), ParamError> {
    check_bits(Some(m))?;
    if !m.is_multiple_of(g) {
        return Err(ParamError::OutOfRange {
            name: "g",
            value: g.to_string(),
            expected: "a divisor of m (whole groups)",
        });
    }
    if phase < w {
        return Err(ParamError::OutOfRange {
            name: "phase",
            value: phase.to_string(),
            expected: "at least the window (alpha >= 1), or a group flips twice in a window",
        });
    }
    if phase
        .checked_add(w)
        .and_then(|s| s.checked_mul(m / g))
        .is_none()
    {
        return Err(ParamError::TooLarge {
            what: "phase + window times groups",
            limit: "2^64".into(),
        });
    }
    Ok(())
}

/// Whether a loaded SHE-BF's fields fit together ([`check_shape`]'s rules,
/// and the arrays' lengths), as the persistence check reports it; `w` is
/// the window in insertions or in time.
pub(crate) fn check_loaded(
    w: u64,
    k: u32,
    m: u64,
    g: u64,
    phase: u64,
    bits: u64,
    stamps: u64,
) -> Result<(), String> {
    crate::persist::ensure(
        w >= 1
            && (1..=crate::MAX_HASHES).contains(&k)
            && g >= 1
            && m >= g
            && check_shape(w, m, g, phase).is_ok()
            && bits == m
            && stamps == m / g,
        || {
            format!("{bits} bits and {stamps} stamps for m = {m}, g = {g}, phase {phase} over window {w}")
        },
    )
}

/// SHE's Bloom filter over the last W insertions: m bits in groups of g
/// under 1-bit timestamps, each group cleared once per phase of P
/// insertions.
#[derive(Debug, Clone)]
pub struct SheBloom {
    w: u64,
    k: u32,
    m: u64,
    g: u64,
    phase: u64,
    bits: BitArray,
    stamps: BitArray,
    inserted: u64,
    /// g, G and P as divisors, and W + P (derived, not saved).
    div: Dividers,
}

/// A SHE-BF's fixed divisors, so that a probe's group and phase cost
/// multiplies rather than hardware divisions (four per probe, which were
/// most of an insertion's time).
#[derive(Debug, Clone, Copy)]
struct Dividers {
    g: Divisor,
    groups: Divisor,
    phase: Divisor,
    w_plus_phase: u64,
}

impl Dividers {
    fn new(w: u64, m: u64, g: u64, phase: u64) -> Self {
        Dividers {
            g: Divisor::new(g),
            groups: Divisor::new(m / g.max(1)),
            phase: Divisor::new(phase),
            w_plus_phase: w.wrapping_add(phase),
        }
    }
}

/// The shape of a [`SheBloom`]: what [`SheBloom::new`] takes, each paper letter
/// by a word (see [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SheBloomShape {
    /// The window, in insertions (`w`).
    pub window: u64,
    /// Hash functions: the bits or cells a key sets and a query reads (`k`).
    pub hashes: u32,
    /// Bits of the bit array, in all (`m`).
    pub bits: u64,
    /// Bits per group (a divisor of `bits`) (`g`).
    pub group_bits: u64,
    /// The phase, in insertions (at least the window) (`phase`).
    pub phase: u64,
}

impl SheBloom {
    /// m bits in groups of `g` (g divides m), k bits per key, a window of W
    /// insertions and a phase of `phase` >= W insertions (the reference
    /// code's α·W).
    pub fn new(shape: SheBloomShape) -> Result<Self, ParamError> {
        let SheBloomShape {
            window: w,
            hashes: k,
            bits: m,
            group_bits: g,
            phase,
        } = shape;
        check_nonzero("window", w)?;
        crate::error::check_hashes(k)?;
        check_nonzero("m", m)?;
        check_nonzero("g", g)?;
        check_shape(w, m, g, phase)?;
        let th = theory::SheTheory { w, k, m, g, phase };
        let mut stamps = BitArray::new(m / g);
        for j in 0..m / g {
            stamps.assign(j, th.phase_bit(j, 0));
        }
        Ok(SheBloom {
            w,
            k,
            m,
            g,
            phase,
            bits: BitArray::new(m),
            stamps,
            inserted: 0,
            div: Dividers::new(w, m, g, phase),
        })
    }

    /// The reference code's configuration: groups of 64 and α from its
    /// equation ([`theory::code_alpha`]), for W distinct keys per window;
    /// m rounded up to whole groups.
    pub fn code(w: u64, k: u32, m: u64) -> Result<Self, ParamError> {
        check_nonzero("window", w)?;
        crate::error::check_hashes(k)?;
        check_nonzero("m", m)?;
        let m = m.div_ceil(CODE_GROUP) * CODE_GROUP;
        let alpha = theory::code_alpha(w, k, m, CODE_GROUP);
        Self::new(SheBloomShape {
            window: w,
            hashes: k,
            bits: m,
            group_bits: CODE_GROUP,
            phase: theory::phase_of(w, alpha),
        })
    }

    /// Sized for a window of `w` insertions at worst-phase FPR <= `fpr`,
    /// groups of 64: the (k, P, m) of fewest bits ([`theory::sizing`]).
    /// Windows above [`theory::MAX_EXACT_WINDOW`] are refused (the exact
    /// theory costs O(P) per evaluation).
    ///
    /// ```
    /// use bloomlab_filters::she::SheBloom;
    /// use bloomlab_filters::{Filter, SlidingFilter};
    /// let mut f = bloomlab_filters::Target::window(1000).fpr(1e-2).build::<SheBloom>().unwrap();
    /// f.insert(3);
    /// assert!(f.contains(3) && f.window() == 1000);
    /// assert!(f.theory().fpr() <= 1e-2);
    /// ```
    pub(crate) fn with_fpr(w: u64, fpr: f64) -> Result<Self, ParamError> {
        check_nonzero("window", w)?;
        if w > theory::MAX_EXACT_WINDOW {
            return Err(ParamError::TooLarge {
                what: "window for the exact sizing",
                limit: "2^24 insertions; give k, m, g and the phase to new".into(),
            });
        }
        let s = theory::sizing(w, check_probability("fpr", fpr)?).ok_or_else(|| {
            ParamError::Unreachable {
                target: format!("SHE-BF fpr {fpr} at window {w}"),
            }
        })?;
        Self::new(SheBloomShape {
            window: w,
            hashes: s.k,
            bits: s.m,
            group_bits: CODE_GROUP,
            phase: s.phase,
        })
    }

    /// k: bits set and read per key.
    pub fn k(&self) -> u32 {
        self.k
    }

    /// m: bits.
    pub fn m(&self) -> u64 {
        self.m
    }

    /// g: bits per group (per timestamp).
    pub fn group(&self) -> u64 {
        self.g
    }

    /// P: insertions per phase (a group is cleared once per phase).
    pub fn phase(&self) -> u64 {
        self.phase
    }

    /// The theory of this configuration.
    pub fn theory(&self) -> theory::SheTheory {
        theory::SheTheory {
            w: self.w,
            k: self.k,
            m: self.m,
            g: self.g,
            phase: self.phase,
        }
    }

    #[inline]
    fn cell(&self, key: u64, i: u32) -> u64 {
        index(key, i as u64, self.m)
    }

    /// Prefetches the lines of `key`'s first `n` bits and their
    /// timestamps.
    fn prefetch_first(&self, key: u64, n: u32) {
        for i in 0..self.k.min(n) {
            let c = self.cell(key, i);
            self.bits.prefetch(c);
            self.stamps.prefetch(self.group_of(c));
        }
    }

    /// Cell c's group j.
    #[inline]
    fn group_of(&self, c: u64) -> u64 {
        self.div.g.div(c)
    }

    /// [`theory::SheTheory::position`] of group j after insertion t, by
    /// the fixed divisors.
    #[inline]
    fn position(&self, j: u64, t: u64) -> (bool, u64) {
        let x = t + self.div.groups.div(self.div.w_plus_phase * j);
        let (q, r) = self.div.phase.div_rem(x);
        (q & 1 == 1, r)
    }
}

impl Filter for SheBloom {
    fn insert(&mut self, key: u64) {
        self.inserted += 1;
        let t = self.inserted;
        let mut buf = [0u64; crate::error::MAX_HASHES as usize];
        for &c in prefetched_cells(&self.bits, key, self.k, self.m, &mut buf) {
            let j = self.group_of(c);
            let now = self.position(j, t).0;
            if self.stamps.get(j) != now {
                self.bits.clear_range(j * self.g, (j + 1) * self.g);
                self.stamps.assign(j, now);
            }
            self.bits.set(c);
        }
    }

    fn contains(&self, key: u64) -> bool {
        crate::Instrumented::contains_probes(self, key).0
    }

    /// One bit per cell and per group, plus 64 bits for the insertion
    /// count (the clock every phase is read from).
    fn memory_bits(&self) -> u64 {
        self.m + self.m / self.g + 64
    }

    fn name(&self) -> &'static str {
        "she_bloom"
    }
}

impl crate::Instrumented for SheBloom {
    fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
        Some(Self::lines_read(self, key))
    }
    /// The answer and the cells read (stopping at the first that counts
    /// as zero).
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        let t = self.inserted;
        for i in 0..self.k {
            let c = self.cell(key, i);
            let j = self.group_of(c);
            let (now, since_flip) = self.position(j, t);
            if since_flip + 1 < self.w {
                continue; // flipped within the window: counts as one
            }
            if self.stamps.get(j) != now || !self.bits.get(c) {
                return (false, i + 1);
            }
        }
        (true, self.k)
    }
    /// The k bits' lines and their timestamps'.
    fn prefetch_insert(&self, key: u64) {
        self.prefetch_first(key, self.k);
    }
    /// The first bits' lines and their timestamps' (a negative query
    /// reads about four bits).
    fn prefetch_query(&self, key: u64) {
        self.prefetch_first(key, QUERY_PREFETCH);
    }
}

/// Bits a query hint prefetches: about what a negative query reads (its
/// probes_negative in results/compare.csv is 3.8 to 4.0).
const QUERY_PREFETCH: u32 = 4;

impl SlidingFilter for SheBloom {
    /// W: every key among the last W insertions is reported.
    fn window(&self) -> u64 {
        self.w
    }

    /// P - W: a group holds at most the last P insertions.
    fn slack(&self) -> u64 {
        self.phase - self.w
    }

    /// P: the groups' schedule repeats (phases aside).
    fn period(&self) -> u64 {
        self.phase
    }

    fn inserted(&self) -> u64 {
        self.inserted
    }
}

crate::persist::codec_struct!(SheBloom {
    w,
    k,
    m,
    g,
    phase,
    bits,
    stamps,
    inserted;
    div = Dividers::new(w, m, g, phase)
});

impl crate::persist::sealed::Design for SheBloom {
    fn tag() -> String {
        "she_bloom".into()
    }
    fn check(&self) -> Result<(), String> {
        check_loaded(
            self.w,
            self.k,
            self.m,
            self.g,
            self.phase,
            self.bits.len(),
            self.stamps.len(),
        )
    }
}

crate::persist::persists!(SheBloom);

#[cfg(test)]
mod tests;
