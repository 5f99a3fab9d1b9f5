//! Sliding linear counting (SWLC), the one-bit variant of the sliding
//! HyperLogLog ([`super::hll`], whose register hashing it shares).
//!
//! When the small-range correction is always active (the SWAMP paper's
//! settings), only whether a register is zero matters, so one bit per
//! register suffices; over a sliding window that bit is "written within the
//! last W arrivals", i.e. one timestamp per register. The estimate is
//! D̂ = m ln(m/V), V the registers with no live timestamp (capped at m ln m
//! when V = 0). With D distinct keys in the window, E\[V\] = m(1 - 1/m)^D
//! exactly: the same occupancy law as SWAMP's Z. Memory: m timestamps.

use super::hll::{check_registers, check_sketch, linear_count, register_of, SALT};
use crate::clock::Clock;
use crate::error::check_nonzero;
use crate::hash::mix64;
use crate::summary::{DistinctEstimator, WindowSummary};
use crate::ParamError;

/// Sliding linear counting: one wraparound timestamp per register.
#[derive(Debug, Clone)]
pub struct Swlc {
    stamps: crate::bits::PackedInts,
    p: u32,
    clock: Clock,
    salt: u64,
}

/// The shape of a [`Swlc`]: what [`Swlc::new`] takes, each paper letter
/// by a word (see [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SwlcShape {
    /// The window, in insertions (`w`).
    pub window: u64,
    /// Registers (a power of two, 16..=2^24) (`m`).
    pub registers: u64,
}

impl Swlc {
    /// Window `w`, `m` registers (a power of two, 16..=2^24).
    pub fn new(shape: SwlcShape) -> Result<Swlc, ParamError> {
        let SwlcShape {
            window: w,
            registers: m,
        } = shape;
        check_nonzero("window", w)?;
        let p = check_registers(m)?;
        let clock = Clock::new(w, m);
        Ok(Swlc {
            stamps: crate::bits::PackedInts::new(m, clock.bits()),
            p,
            clock,
            salt: SALT,
        })
    }

    /// The same sketch hashing under another seed.
    pub fn with_seed(mut self, seed: u64) -> Swlc {
        self.salt = mix64(seed ^ SALT);
        self
    }

    /// Registers with no live timestamp (V).
    pub fn empty_registers(&self) -> u64 {
        (0..self.stamps.len())
            .filter(|&j| !self.clock.live(self.stamps.get(j)))
            .count() as u64
    }
}

impl WindowSummary for Swlc {
    fn record(&mut self, key: u64) {
        let code = self.clock.tick();
        self.stamps
            .set(register_of(key, self.p, self.salt).0 as u64, code);
        self.clock.clear_dead(&mut self.stamps);
    }

    fn summary_window(&self) -> u64 {
        self.clock.window()
    }

    fn summary_bits(&self) -> u64 {
        self.stamps.len() * self.clock.bits() as u64 + 128
    }

    fn summary_name(&self) -> &'static str {
        "swlc"
    }

    fn as_distinct(&self) -> Option<&dyn DistinctEstimator> {
        Some(self)
    }
}

impl DistinctEstimator for Swlc {
    fn distinct(&self) -> f64 {
        linear_count(self.stamps.len(), self.empty_registers())
    }
}

crate::persist::codec_struct!(Swlc {
    stamps,
    p,
    clock,
    salt
});

impl crate::persist::sealed::Design for Swlc {
    fn tag() -> String {
        "swlc".into()
    }
    fn check(&self) -> Result<(), String> {
        check_sketch(self.stamps.len(), self.p, &self.clock)?;
        crate::persist::ensure(self.stamps.width() == self.clock.bits(), || {
            "stamps of another width than the clock's".into()
        })
    }
}

crate::persist::persists!(Swlc);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sketches::hll::tests::{stream, window_of};

    #[test]
    fn swlc_counts_the_registers_no_window_key_wrote() {
        let (w, m) = (50u64, 64u64);
        let keys = stream(30 * w as usize, 400);
        // a seed sharing bits with the salt, so `seed ^ SALT` is not `seed | SALT`
        let mut f = Swlc::new(crate::SwlcShape {
            window: w,
            registers: m,
        })
        .unwrap()
        .with_seed(0x30);
        let salt = mix64(0x30 ^ SALT);
        for t in 0..keys.len() {
            f.record(keys[t]);
            let mut hit = vec![false; m as usize];
            for &k in window_of(&keys, t, w) {
                hit[register_of(k, 6, salt).0] = true;
            }
            let v = hit.iter().filter(|&&h| !h).count() as u64;
            assert_eq!(f.empty_registers(), v, "t {t}");
            assert_eq!(f.distinct(), linear_count(m, v), "t {t}");
        }
        let bits = crate::clock::stamp_bits(w) as u64;
        assert_eq!(f.summary_bits(), m * bits + 128);
        assert_eq!((f.summary_window(), f.summary_name()), (w, "swlc"));
        assert!(f.as_distinct().is_some());
    }
}
