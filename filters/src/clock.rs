//! Wraparound timestamps with incremental cleanup, shared by the timing Bloom
//! filter, SWBF and the sliding-window counters (SWLC, sliding HyperLogLog).
//!
//! # Derivation
//!
//! Arrivals are numbered t = 1, 2, ...; a cell written by arrival s stores the
//! code c = (s mod T) + 1 in b bits, with T = 2^b - 1 and code 0 meaning
//! empty. At arrival t the cell's age is a = (t - s) mod T, which equals the
//! true age t - s while t - s < T. The cell is *live* while a < W (it belongs
//! to one of the last W arrivals; the newest has age 0).
//!
//! A dead cell must be cleared before its true age reaches T, where its code
//! would read as age 0 again. A sweep pointer visits `rate` cells after every
//! arrival and clears those with a ≥ W, so it visits each cell once every
//! P = ⌈len / rate⌉ arrivals. A cell dies at true age W and is visited within
//! the next P arrivals, at true age ≤ W + P - 1, so P ≤ T - W suffices:
//! rate = ⌈len / (T - W)⌉. Choosing b = max(2, ⌈log2 2W⌉) gives T ≥ 2W - 1, so
//! rate ≤ ⌈len / (W - 1)⌉: a few cells per arrival for the designs here. The
//! conformance suite checks this over many wraps of the clock.

use crate::bits::PackedInts;

/// Bits per timestamp for window `w`: max(2, ⌈log2 2w⌉).
pub fn stamp_bits(w: u64) -> u32 {
    (64 - (2 * w - 1).leading_zeros()).max(2)
}

/// A wraparound clock for a window of W arrivals, plus the sweep pointer of
/// the cleanup over `len` cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    window: u64,
    /// T = 2^b - 1: codes 1..=T, 0 empty.
    modulus: u64,
    bits: u32,
    /// t mod T of the latest arrival.
    now: u64,
    /// Next cell of the sweep.
    sweep: u64,
    /// Cells swept per arrival.
    rate: u64,
    len: u64,
}

impl Clock {
    /// A clock for window `w` (≥ 1) sweeping `len` cells.
    pub fn new(w: u64, len: u64) -> Clock {
        let bits = stamp_bits(w);
        let modulus = (1u64 << bits) - 1;
        Clock {
            window: w,
            modulus,
            bits,
            now: 0,
            sweep: 0,
            rate: len.div_ceil(modulus - w).max(1),
            len,
        }
    }

    /// W: the window.
    pub fn window(&self) -> u64 {
        self.window
    }

    /// b: bits per stored timestamp.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// Cells the sweep visits per arrival.
    pub fn rate(&self) -> u64 {
        self.rate
    }

    /// Advances to the next arrival and returns its code (never 0).
    #[inline]
    pub fn tick(&mut self) -> u64 {
        self.now += 1;
        if self.now == self.modulus {
            self.now = 0;
        }
        self.now + 1
    }

    /// The code of the current tick (what an arrival that does not tick,
    /// in a clock of time quanta, stores).
    #[inline]
    pub fn current(&self) -> u64 {
        self.now + 1
    }

    /// Advances by `n` ticks without sweeping: only for a caller that has
    /// just cleared every cell (after a lull longer than the window and a
    /// whole sweep, when ticking one by one would change nothing else).
    pub fn skip(&mut self, n: u64) {
        self.now = (self.now + n % self.modulus) % self.modulus;
    }

    /// Ticks after which every cell has been swept once: ⌈len / rate⌉.
    pub fn sweep_period(&self) -> u64 {
        self.len.div_ceil(self.rate.max(1))
    }

    /// Age of a stored code at the latest arrival (None for empty).
    #[inline]
    pub fn age(&self, code: u64) -> Option<u64> {
        if code == 0 {
            None
        } else {
            Some((self.now + self.modulus - (code - 1)) % self.modulus)
        }
    }

    /// Whether a stored code belongs to one of the last W arrivals.
    #[inline]
    pub fn live(&self, code: u64) -> bool {
        self.age(code).is_some_and(|a| a < self.window)
    }

    /// The sweep over packed cells whose low `bits()` bits hold the code
    /// (any bits above it, a fingerprint say, go with it): clears the dead
    /// ones among the cells this arrival visits.
    #[inline]
    pub fn clear_dead(&mut self, cells: &mut PackedInts) {
        let mask = (1 << self.bits) - 1;
        for j in self.sweep() {
            let v = cells.get(j);
            if v != 0 && !self.live(v & mask) {
                cells.set(j, 0);
            }
        }
    }

    /// The cells the sweep visits after this arrival: `rate` indices from the
    /// sweep pointer on, wrapping at `len`. The caller clears the dead ones.
    #[inline]
    pub fn sweep(&mut self) -> impl Iterator<Item = u64> {
        let (start, rate, len) = (self.sweep, self.rate.min(self.len), self.len);
        self.sweep = (self.sweep + rate) % len.max(1);
        (0..rate).map(move |i| {
            let j = start + i;
            if j >= len {
                j - len
            } else {
                j
            }
        })
    }
}

impl crate::persist::Codec for Clock {
    fn put(&self, w: &mut crate::persist::Writer) {
        (self.window, self.len).put(w);
        (self.now, self.sweep).put(w);
    }
    fn get(r: &mut crate::persist::Reader<'_>) -> Result<Self, crate::persist::LoadError> {
        use crate::persist::{Codec, LoadError};
        let (window, len): (u64, u64) = Codec::get(r)?;
        let (now, sweep): (u64, u64) = Codec::get(r)?;
        if !(1..=1 << 62).contains(&window) {
            return Err(LoadError::Invalid(format!("clock window {window}")));
        }
        let mut c = Clock::new(window, len);
        if now >= c.modulus || sweep >= len.max(1) {
            return Err(LoadError::Invalid(format!("clock at {now}, sweep {sweep}")));
        }
        c.now = now;
        c.sweep = sweep;
        Ok(c)
    }
}

impl Clock {
    /// Whether `code` is one this clock stores: 0 (empty) or 1..=T.
    pub fn valid_code(&self, code: u64) -> bool {
        code <= self.modulus
    }

    /// Cells the clock sweeps.
    pub fn len(&self) -> u64 {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_and_bits() {
        assert_eq!(stamp_bits(1), 2);
        assert_eq!(stamp_bits(2), 2);
        assert_eq!(stamp_bits(3), 3);
        // ⌈log2 2w⌉, not the bits of w + 1 (cargo mutants): 9 takes 4 bits
        assert_eq!(stamp_bits(5), 4);
        assert_eq!(stamp_bits(1 << 16), 17);
        let mut c = Clock::new(4, 10);
        let first = c.tick();
        assert_eq!(c.age(first), Some(0));
        assert!(c.live(first));
        for _ in 0..3 {
            c.tick();
        }
        assert_eq!(c.age(first), Some(3));
        assert!(c.live(first));
        c.tick();
        assert!(!c.live(first));
        assert!(!c.live(0));
        // T = 7, T - W = 3: ceil(10 / 3) = 4 cells per arrival
        assert_eq!(c.rate(), 4);
        let v: Vec<u64> = c.sweep().chain(c.sweep()).chain(c.sweep()).collect();
        assert_eq!(v, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1]);
    }
}
