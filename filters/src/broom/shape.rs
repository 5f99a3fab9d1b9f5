//! The broom filter's shape: what `BroomFilter::new` takes, and its sizing
//! for a capacity and an FPR.

use super::{BroomFilter, DEFAULT_C, DEFAULT_LOAD};
use crate::error::{check_nonzero, check_probability};
use crate::ParamError;

/// The shape of a [`BroomFilter`]: what [`BroomFilter::new`] takes, each
/// paper letter by a word (see [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BroomShape {
    /// Keys the filter holds at most (`n`).
    pub capacity: u64,
    /// Slots of the quotient table, more than the capacity (`S`).
    pub slots: u64,
    /// Bits per remainder (`r`).
    pub remainder_bits: u32,
    /// Elements moved across the frontier per Adapt (`c`).
    pub moves_per_adapt: u32,
}

impl BroomShape {
    /// Capacity `capacity` at false-positive rate at most `fpr`: S =
    /// ⌈n / 0.85⌉ slots, r = ⌈log2(α/ε)⌉ remainder bits, α = n/S, and the
    /// default moves per Adapt. (The broom filter over a window,
    /// [`Broom`](super::Broom), is sized by [`Target`](crate::build::Target).)
    pub fn for_fpr(capacity: u64, fpr: f64) -> Result<BroomShape, ParamError> {
        check_nonzero("n", capacity)?;
        check_probability("eps", fpr)?;
        let slots = BroomFilter::slots_for(capacity, DEFAULT_LOAD);
        Ok(BroomShape {
            capacity,
            slots,
            remainder_bits: BroomFilter::remainder_bits_for(capacity, slots, fpr),
            moves_per_adapt: DEFAULT_C,
        })
    }
}

impl BroomFilter {
    /// Capacity `n` at false-positive rate at most `eps`: S = ⌈n / 0.85⌉
    /// slots and r = ⌈log2(α/ε)⌉ remainder bits, α = n/S.
    pub(crate) fn with_fpr(n: u64, eps: f64) -> Result<Self, ParamError> {
        BroomFilter::new(BroomShape::for_fpr(n, eps)?)
    }

    /// S = ⌈n / load⌉ slots (at least n + 1) for capacity `n` at `load`.
    pub fn slots_for(n: u64, load: f64) -> u64 {
        ((n as f64 / load).ceil() as u64).max(n + 1)
    }

    /// r = ⌈log2(α/ε)⌉ (at least 1), α = n/S: the fewest remainder bits
    /// whose FPR bound n/(S·2^r) is at most `eps`.
    pub fn remainder_bits_for(n: u64, slots: u64, eps: f64) -> u32 {
        ((n as f64 / slots as f64) / eps).log2().ceil().max(1.0) as u32
    }
}
