//! The line's lanes as bit masks: a key's position in a lane, lane masks as
//! line words, the k newest slices' lanes, and the run of k hits a query
//! looks for.

use super::MAX_SLICES;

/// The key's bit position in lane j.
#[inline]
pub(super) fn position(a: u64, b: u64, j: u32) -> u32 {
    let w = if j < 16 { a } else { b };
    ((w >> (4 * (j & 15))) & 15) as u32
}

/// Lanes of `mask` (bit j: lane j) as the eight words of a line, each set
/// lane all ones.
#[inline]
pub(super) fn lane_words(mask: u32) -> [u64; 8] {
    std::array::from_fn(|w| {
        let nib = mask >> (4 * w);
        (0..4).fold(0u64, |acc, i| {
            acc | ((nib >> i & 1) as u64 * 0xFFFF) << (16 * i)
        })
    })
}

/// `x` (n bits) rotated left by r < n within n bits.
#[inline(always)]
pub(super) fn rotl(x: u64, r: u32, n: u32) -> u64 {
    let full = (1u64 << n) - 1;
    ((x << r) | (x >> (n - r))) & full
}

/// What finds a run of k hits among a line's lanes (see
/// `LineApbf::decide`), derived from (k, l).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Runs {
    /// Every slice's lane, as a mask.
    pub(super) full: u64,
    /// The logical run starts 0 ..= l.
    pub(super) starts: u64,
    /// The shifts that find k consecutive ones.
    pub(super) steps: [u32; 5],
    /// k + l.
    pub(super) slices: u32,
}

impl Runs {
    pub(crate) fn of(k: u32, l: u32) -> Self {
        let n = (k + l).min(MAX_SLICES);
        Runs {
            full: low_bits(n),
            starts: low_bits((l + 1).min(MAX_SLICES)),
            steps: run_steps(k),
            slices: n,
        }
    }

    /// Whether the hits hold k consecutive logical slices from a start
    /// s >= `behind` (the `behind` newest slices are pending clearing),
    /// with the newest slice at physical lane `base`.
    #[inline(always)]
    pub(crate) fn decide(&self, hits: u32, base: u32, behind: u32) -> bool {
        let physical = hits as u64 & self.full;
        let mut run = physical | physical << self.slices;
        for s in self.steps {
            run &= run >> s;
        }
        let starts = self.starts & (u64::MAX << behind);
        (run >> base) & starts != 0
    }
}

/// The k newest slices' lanes (physical base .. base + k mod k + l) as line
/// words. Total for any input (a loaded file is checked after this runs).
pub(super) fn newest_words(k: u32, l: u32, base: u32) -> [u64; 8] {
    let n = (k + l).clamp(1, MAX_SLICES);
    let k = k.min(n);
    lane_words(rotl((1u64 << k) - 1, base % n, n) as u32)
}

/// The low `n` bits set (n <= 63).
#[inline(always)]
pub(super) fn low_bits(n: u32) -> u64 {
    (1u64 << n) - 1
}

/// The shifts whose AND-ing leaves bit i of a mask set exactly when bits
/// i .. i + k - 1 are (k <= 31: at most five; unused ones 0).
pub(super) fn run_steps(k: u32) -> [u32; 5] {
    let mut steps = [0; 5];
    let mut have = 1;
    for s in steps.iter_mut() {
        if have < k {
            *s = have.min(k - have);
            have += *s;
        }
    }
    steps
}
