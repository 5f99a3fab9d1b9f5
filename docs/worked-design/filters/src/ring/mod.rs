//! The fingerprint ring: the worked example of adding a design
//! (docs/extending.md; `scripts/worked-design` adds it to a scratch copy of
//! the repository and removes each of its places in turn).
//!
//! The last W keys' f-bit fingerprints in a ring, with a count per
//! fingerprint. A key of the window is always reported (slack 0); any other
//! key is reported when its fingerprint matches one of the window's, so for
//! D distinct fingerprints in the window the FPR is 1 - (1 - 2^-f)^D, at
//! most W / 2^f ([`fpr`]). Sized for an FPR ε: f = ⌈log2(W/ε)⌉.

use crate::build::{Build, Target};
use crate::error::check_nonzero;
use crate::hash::mix64;
use crate::persist::{Codec, LoadError, Reader, Writer};
use crate::{Filter, Instrumented, ParamError, SlidingFilter};
use std::collections::{HashMap, VecDeque};

/// Largest fingerprint, in bits.
pub const MAX_FINGERPRINT_BITS: u32 = 63;

/// The ring's FPR for `distinct` distinct fingerprints in the window:
/// 1 - (1 - 2^-f)^D.
pub fn fpr(fingerprint_bits: u32, distinct: f64) -> f64 {
    let miss = (-(0.5f64).powi(fingerprint_bits as i32)).ln_1p();
    -(distinct * miss).exp_m1()
}

/// The shape of a [`Ring`]: what [`Ring::new`] takes (see [`crate::build`]
/// for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RingShape {
    /// The window, in insertions (`W`).
    pub window: u64,
    /// Bits per fingerprint (`f`), 1..=63.
    pub fingerprint_bits: u32,
}

/// The last W keys' fingerprints in a ring, counted.
#[derive(Debug, Clone)]
pub struct Ring {
    window: u64,
    bits: u32,
    ring: VecDeque<u64>,
    counts: HashMap<u64, u32>,
    inserted: u64,
}

impl Ring {
    /// An empty ring of `shape`.
    pub fn new(shape: RingShape) -> Result<Self, ParamError> {
        check_nonzero("window", shape.window)?;
        if shape.window > 1 << 32 {
            return Err(ParamError::TooLarge {
                what: "window",
                limit: "2^32".into(),
            });
        }
        if !(1..=MAX_FINGERPRINT_BITS).contains(&shape.fingerprint_bits) {
            return Err(ParamError::OutOfRange {
                name: "fingerprint_bits",
                value: shape.fingerprint_bits.to_string(),
                expected: "1..=63",
            });
        }
        Ok(Ring {
            window: shape.window,
            bits: shape.fingerprint_bits,
            ring: VecDeque::new(),
            counts: HashMap::new(),
            inserted: 0,
        })
    }

    /// f: bits per fingerprint.
    pub fn fingerprint_bits(&self) -> u32 {
        self.bits
    }

    fn fingerprint(&self, key: u64) -> u64 {
        mix64(key ^ 0x52_494E_47) >> (64 - self.bits)
    }
}

impl Filter for Ring {
    fn insert(&mut self, key: u64) {
        let fp = self.fingerprint(key);
        self.ring.push_back(fp);
        *self.counts.entry(fp).or_insert(0) += 1;
        if self.ring.len() as u64 > self.window {
            let old = self.ring.pop_front().expect("a full ring");
            let c = self.counts.get_mut(&old).expect("a counted fingerprint");
            *c -= 1;
            if *c == 0 {
                self.counts.remove(&old);
            }
        }
        self.inserted += 1;
    }

    fn contains(&self, key: u64) -> bool {
        self.counts.contains_key(&self.fingerprint(key))
    }

    /// The ring (W fingerprints) and a count table of up to W entries
    /// (a fingerprint and a 32-bit count each), and the insertion count.
    fn memory_bits(&self) -> u64 {
        self.window * (2 * self.bits as u64 + 32) + 64
    }

    fn name(&self) -> &'static str {
        "ring"
    }
}

impl SlidingFilter for Ring {
    fn window(&self) -> u64 {
        self.window
    }
    fn slack(&self) -> u64 {
        0
    }
    fn inserted(&self) -> u64 {
        self.inserted
    }
}

impl Instrumented for Ring {}

impl Build for Ring {
    /// f = ⌈log2(W/ε)⌉, so that W / 2^f <= ε.
    fn build(t: &Target) -> Result<Self, ParamError> {
        let (w, e) = (t.count("ring")?, t.the_fpr()?);
        let f = (w as f64 / e).log2().ceil().max(1.0);
        if f > MAX_FINGERPRINT_BITS as f64 {
            return Err(ParamError::Unreachable {
                target: format!("ring fpr {e} at window {w} in 63-bit fingerprints"),
            });
        }
        let f = Ring::new(RingShape {
            window: w,
            fingerprint_bits: f as u32,
        })?;
        t.within_slack("ring", 0)?;
        Ok(f)
    }
}

// The saved form: the ring and the insertion count; the counts are
// rebuilt from the ring, so no saved file can make them disagree.
impl Codec for Ring {
    fn put(&self, w: &mut Writer) {
        (self.window, self.bits).put(w);
        self.ring.put(w);
        self.inserted.put(w);
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, LoadError> {
        let (window, bits) = <(u64, u32)>::get(r)?;
        let mut f = Ring::new(RingShape {
            window,
            fingerprint_bits: bits,
        })
        .map_err(|e| LoadError::Invalid(e.to_string()))?;
        f.ring = <VecDeque<u64> as Codec>::get(r)?;
        f.inserted = <u64 as Codec>::get(r)?;
        for &fp in &f.ring {
            *f.counts.entry(fp).or_insert(0) += 1;
        }
        Ok(f)
    }
}

impl crate::persist::sealed::Design for Ring {
    fn tag() -> String {
        "ring".into()
    }
    fn check(&self) -> Result<(), String> {
        crate::persist::ensure(
            self.ring.len() as u64 <= self.window
                && self.ring.iter().all(|&fp| fp >> self.bits == 0),
            || "a ring longer than its window, or a fingerprint too wide".into(),
        )
    }
}

crate::persist::persists!(Ring);
