//! The concurrent line APBF's words: a line of atomics, the state word
//! (phase and count), the stamp and lock in a line's last word, and the
//! conversion of a line to the sequential filter's.

use super::{MAX_SLICES, SWEEP};
use crate::lines::Line;
use std::sync::atomic::AtomicU64;

/// A line of eight atomic words, 64 bytes aligned to 64.
#[repr(C, align(64))]
#[derive(Debug, Default)]
pub(super) struct AtomicLine(pub(super) [AtomicU64; 8]);

/// Bits of a line's stamp: the generation modulo 2^15.
pub(super) const EPOCH_BITS: u32 = 15;
pub(super) const EPOCH_MASK: u64 = (1 << EPOCH_BITS) - 1;
/// Where the stamp sits in a line's last word (lane 31), and its lock.
pub(super) const STAMP_SHIFT: u32 = 48;
pub(super) const STAMP: u64 = EPOCH_MASK << STAMP_SHIFT;
pub(super) const LOCK: u64 = 1 << 63;
/// The state word: the phase above, the generation's claims below.
pub(super) const COUNT_BITS: u32 = 44;
pub(super) const COUNT_MASK: u64 = (1 << COUNT_BITS) - 1;

/// The largest generation size g: a generation's claims (g, and the
/// threads racing past it) fit the state word's count.
pub const MAX_CONCURRENT_G: u64 = 1 << 43;

pub(super) fn pack(phase: u64, count: u64) -> u64 {
    phase << COUNT_BITS | count
}

pub(super) fn unpack(state: u64) -> (u64, u64) {
    (state >> COUNT_BITS, state & COUNT_MASK)
}

/// The physical lane of the newest slice in `phase` (it moves down one lane
/// a generation, from 0).
#[inline(always)]
pub(super) fn base_of(phase: u64, n: u32) -> u32 {
    ((n as u64 - phase % n as u64) % n as u64) as u32
}

/// The generation modulo 2^15 of `phase`.
#[inline(always)]
pub(super) fn epoch(phase: u64) -> u64 {
    phase & EPOCH_MASK
}

/// A line's stamp, from its last word.
#[inline(always)]
pub(super) fn stamp_of(w7: u64) -> u64 {
    (w7 & STAMP) >> STAMP_SHIFT
}

/// The generations a line stamped `stamp` is behind `epoch`, at most n: 0
/// when it is clean, or ahead (stamped by a thread that read a newer
/// generation; a line is never more than [`SWEEP`] behind).
#[inline(always)]
pub(super) fn behind(epoch: u64, stamp: u64, n: u32) -> u32 {
    let d = epoch.wrapping_sub(stamp) & EPOCH_MASK;
    if d > SWEEP {
        0
    } else {
        (d as u32).min(n)
    }
}

/// Converts a snapshot's line to the sequential filter's: the lock bit
/// dropped, the 15-bit stamp made the 16-bit one of generation `phase`
/// (the same number of generations behind).
pub(super) fn sequential_line(line: &Line, phase: u64) -> Line {
    let mut out = *line;
    // uncapped (as the sequential filter's stamps are), 0 if ahead
    let d = match epoch(phase).wrapping_sub(stamp_of(line.0[7])) & EPOCH_MASK {
        d if d > SWEEP => 0,
        d => d,
    };
    let stamp16 = (phase.wrapping_sub(d) as u16) as u64;
    out.0[7] = (line.0[7] & !(0xFFFF << 48)) | stamp16 << 48;
    out
}

// the phase, below (k + l)·2^15, fits the state word's top bits
const _: () = assert!((MAX_SLICES as u64) << EPOCH_BITS < 1 << (64 - COUNT_BITS));
