//! The Forgetful Bloom filter: future, present and N past filters over a
//! ring of partitioned Bloom segments (see the module docs of
//! [`super`] and [`super::theory`]).

use super::{half_full, theory, Ring};
use crate::error::{check_nonzero, check_probability};
use crate::Instrumented;
use crate::{Filter, ParamError, SlidingFilter};

/// Largest number of past filters (the FPR computation enumerates 2^(N+2)
/// subsets).
pub const MAX_PAST: u32 = 14;

/// The Forgetful Bloom filter: future, present and N past filters; inserts go
/// to future and present; a key is reported if two consecutive filters both
/// contain it; every g insertions the oldest past filter is dropped and a new
/// future one starts. Window N g, slack 2 g.
#[derive(Debug, Clone)]
pub struct ForgetfulBloom {
    pub(super) ring: Ring,
}

/// The shape of a [`ForgetfulBloom`]: what [`ForgetfulBloom::new`] takes, each paper letter
/// by a word (see [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ForgetfulBloomShape {
    /// Past filters kept beside the current and future ones (`past`).
    pub past_filters: u32,
    /// Hash functions: the bits or cells a key sets and a query reads (`k`).
    pub hashes: u32,
    /// Insertions per generation (`g`).
    pub generation: u64,
    /// Bits in each slice (`m`).
    pub bits_per_slice: u64,
}

impl ForgetfulBloom {
    /// N past filters, each filter k slices of m bits, generation g.
    pub fn new(shape: ForgetfulBloomShape) -> Result<Self, ParamError> {
        Ok(ForgetfulBloom {
            ring: ring_of(shape)?,
        })
    }

    /// Window >= `window` at worst-phase FPR <= `fpr`: g = ⌈window / N⌉, each
    /// filter half full at its two generations, k the smallest meeting `fpr`
    /// by [`theory::forgetful_fpr`].
    pub(crate) fn with_fpr(window: u64, fpr: f64, past: u32) -> Result<Self, ParamError> {
        Self::new(sized("forgetful", window, fpr, past, Self::sizing)?)
    }

    /// The (k, g, m) the [`Target`](crate::build::Target) sizing uses, without allocating;
    /// None if no k <= 64 (or no N <= 14) meets `fpr`.
    pub fn sizing(window: u64, fpr: f64, past: u32) -> Option<(u32, u64, u64)> {
        sizing_over(window, fpr, past, past as u64, theory::forgetful_fpr)
    }

    /// Past filters N.
    pub fn past(&self) -> u32 {
        self.ring.segs.len() as u32 - 2
    }
    /// Slices per filter.
    pub fn k(&self) -> u32 {
        self.ring.k()
    }
    /// Bits per slice.
    pub fn m(&self) -> u64 {
        self.ring.m()
    }
    /// Generation size.
    pub fn g(&self) -> u64 {
        self.ring.g
    }

    /// Theoretical FPR at phase φ.
    pub fn theory_fpr(&self, phase: u64) -> f64 {
        theory::forgetful_fpr(self.past(), self.k(), self.g(), self.m(), phase)
    }

    /// P(yes) by switch count j = 0..=N+1 at phase φ (beyond: the FPR).
    pub fn theory_presence_by_shift(&self, phase: u64) -> Vec<f64> {
        (0..=self.past() as u64 + 1)
            .map(|j| {
                theory::forgetful_presence(self.past(), self.k(), self.g(), self.m(), phase, j)
            })
            .chain(std::iter::once(self.theory_fpr(phase)))
            .collect()
    }
}

/// The ring of N + 2 filters of a Forgetful filter's `shape` (the paper's
/// or the code's), N in 1..=[`MAX_PAST`].
pub(super) fn ring_of(shape: ForgetfulBloomShape) -> Result<Ring, ParamError> {
    let ForgetfulBloomShape {
        past_filters: past,
        hashes: k,
        generation: g,
        bits_per_slice: m,
    } = shape;
    if past == 0 || past > MAX_PAST {
        return Err(ParamError::OutOfRange {
            name: "past",
            value: past.to_string(),
            expected: "between 1 and 14",
        });
    }
    Ring::new(past as usize + 2, k, g, m)
}

/// A Forgetful filter's sizing: (window, fpr, past) to its (k, g, m), if
/// any k <= 64 meets the fpr.
pub(super) type Sizing = fn(u64, f64, u32) -> Option<(u32, u64, u64)>;

/// The shape `sizing` gives for (`window`, `fpr`, `past`) after checking
/// them, or why there is none (`design` names it).
pub(super) fn sized(
    design: &str,
    window: u64,
    fpr: f64,
    past: u32,
    sizing: Sizing,
) -> Result<ForgetfulBloomShape, ParamError> {
    check_nonzero("window", window)?;
    check_probability("fpr", fpr)?;
    check_nonzero("past", past as u64)?;
    let (k, g, m) = sizing(window, fpr, past).ok_or_else(|| ParamError::Unreachable {
        target: format!("{design} fpr {fpr} with {past} past filters and k <= 64"),
    })?;
    Ok(ForgetfulBloomShape {
        past_filters: past,
        hashes: k,
        generation: g,
        bits_per_slice: m,
    })
}

/// A Forgetful filter's (k, g, m) for a window of `spans` generations: g =
/// ⌈window / spans⌉, each filter half full at its two generations, k the
/// smallest whose worst-phase `fpr_at(past, k, g, m, g)` meets `fpr`.
pub(super) fn sizing_over(
    window: u64,
    fpr: f64,
    past: u32,
    spans: u64,
    fpr_at: fn(u32, u32, u64, u64, u64) -> f64,
) -> Option<(u32, u64, u64)> {
    if past == 0 || past > MAX_PAST {
        return None;
    }
    let g = window.div_ceil(spans);
    let m = half_full(g.saturating_mul(2));
    let k = (1..=64u32).find(|&k| fpr_at(past, k, g, m, g) <= fpr)?;
    Some((k, g, m))
}

impl Filter for ForgetfulBloom {
    fn insert(&mut self, key: u64) {
        self.ring.before_insert();
        self.ring.at_mut(0).insert(key);
        self.ring.at_mut(1).insert(key);
    }
    fn contains(&self, key: u64) -> bool {
        self.contains_probes(key).0
    }
    /// (N + 2) k m bits plus 64 each for the head index and the counter.
    fn memory_bits(&self) -> u64 {
        self.ring.bits() + 128
    }
    fn name(&self) -> &'static str {
        "forgetful"
    }
}

impl crate::Instrumented for ForgetfulBloom {
    fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
        Some(Self::lines_read(self, key))
    }
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        let n = self.ring.segs.len();
        let mut probes = 0;
        let mut at = self.ring.positions(key);
        let mut prev = {
            let (y, p) = at.query(self.ring.at(0));
            probes += p;
            y
        };
        for i in 1..n {
            let (y, p) = at.query(self.ring.at(i));
            probes += p;
            if y && prev {
                return (true, probes);
            }
            prev = y;
        }
        (false, probes)
    }
    fn prefetch_insert(&self, key: u64) {
        self.ring.at(0).prefetch_insert(key);
        self.ring.at(1).prefetch_insert(key);
    }
    fn prefetch_query(&self, key: u64) {
        self.ring.prefetch_query(key);
    }
}

impl SlidingFilter for ForgetfulBloom {
    fn window(&self) -> u64 {
        self.past() as u64 * self.g()
    }
    fn slack(&self) -> u64 {
        2 * self.g()
    }
    fn period(&self) -> u64 {
        self.g()
    }
    fn inserted(&self) -> u64 {
        self.ring.inserted
    }
}

crate::persist::codec_struct!(ForgetfulBloom { ring });

impl crate::persist::sealed::Design for ForgetfulBloom {
    fn tag() -> String {
        "forgetful".into()
    }
    fn check(&self) -> Result<(), String> {
        self.ring.check(3..=MAX_PAST as usize + 2)
    }
}

crate::persist::persists!(ForgetfulBloom);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::mix64;

    #[test]
    fn probes_name_and_the_largest_past() {
        let mut f = ForgetfulBloom::with_fpr(3000, 0.01, 3).unwrap();
        for k in 0..5000u64 {
            f.insert(mix64(k));
        }
        let most = (f.past() + 2) * f.k();
        for k in 4000..9000u64 {
            let probes = f.contains_probes(mix64(k)).1;
            // at least one probe of the first filter, at most every slice
            // of every filter
            assert!((1..=most).contains(&probes), "key {k}: {probes} of {most}");
        }
        assert_eq!(f.name(), "forgetful");
        assert!(ForgetfulBloom::sizing(3000, 0.01, MAX_PAST).is_some());
        assert!(ForgetfulBloom::sizing(3000, 0.01, MAX_PAST + 1).is_none());
        assert!(ForgetfulBloom::new(crate::ForgetfulBloomShape {
            past_filters: MAX_PAST,
            hashes: 2,
            generation: 10,
            bits_per_slice: 64
        })
        .is_ok());
        assert!(ForgetfulBloom::new(crate::ForgetfulBloomShape {
            past_filters: MAX_PAST + 1,
            hashes: 2,
            generation: 10,
            bits_per_slice: 64
        })
        .is_err());
    }
}
