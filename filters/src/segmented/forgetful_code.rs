//! The Forgetful Bloom filter as the Sliding Sketches authors' code builds
//! it (`src/Membership/forget_bloom.cpp` in the sliding-sketch/Sliding-Sketch
//! repository, class `Forget_Bloom`), where it departs from the Forgetful
//! filter's own paper ([`super::ForgetfulBloom`]):
//!
//! - **conditional insert** (`Forget_Bloom::Init`): a key is written into
//!   the future and present filters only when a query for it answers no. A
//!   key found (in the window, by a false positive, or in the oldest filter
//!   alone) is not refreshed, so on a stream with repeats a key can leave
//!   the filter while its last arrival is younger than the window;
//! - **single-filter answers** (`Forget_Bloom::Query`): yes if the future
//!   filter alone matches, or two consecutive filters from the present on,
//!   or the oldest filter alone. The oldest-alone rule keeps a key one
//!   generation longer: window (N + 1) g and slack g instead of N g and 2 g;
//! - **shifts every W/9** (`Forget_Bloom::Update`, `time * (BLOOM_NUM - 1) /
//!   CYCLE`): with the code's ten filters, a generation of W/9 arrivals,
//!   counted over every arrival whether it inserted or not. Here the
//!   generation is g arrivals, an integer; the code's W/9 is not.
//!
//! Both keep N + 2 filters of partitioned Bloom slices over the same ring
//! (the code's filters are standard Bloom filters of k hash functions over
//! one bit array each; bloomlab keeps one partitioned layout for both, so
//! that the two differ in the rules above only).

use super::forgetful::{ring_of, sized, sizing_over};
use super::{theory, ForgetfulBloomShape, Ring, MAX_PAST};
use crate::{Filter, Instrumented, ParamError, SlidingFilter};

/// The Sliding Sketches code's Forgetful Bloom filter (module docs): N past
/// filters, a present and a future one; a key is inserted only if a query
/// for it answers no; yes if the future filter, two consecutive filters
/// from the present on, or the oldest filter matches; every g arrivals the
/// oldest filter is dropped and a new future one starts. Window (N + 1) g
/// for a key that was inserted, slack g; no window for a repeated key.
#[derive(Debug, Clone)]
pub struct ForgetfulCode {
    pub(super) ring: Ring,
}

impl ForgetfulCode {
    /// N past filters, each filter k slices of m bits, generation g (the
    /// shape of a [`super::ForgetfulBloom`]).
    pub fn new(shape: ForgetfulBloomShape) -> Result<Self, ParamError> {
        Ok(ForgetfulCode {
            ring: ring_of(shape)?,
        })
    }

    /// Window >= `window` at worst-phase FPR <= `fpr` (by its theory, on
    /// new keys): g = ⌈window / (N + 1)⌉, each filter half full at its
    /// two generations, k the smallest meeting `fpr`.
    pub(crate) fn with_fpr(window: u64, fpr: f64, past: u32) -> Result<Self, ParamError> {
        Self::new(sized("forgetful_code", window, fpr, past, Self::sizing)?)
    }

    /// The (k, g, m) the [`Target`](crate::build::Target) sizing uses,
    /// without allocating; None if no k <= 64 (or no N <= 14) meets `fpr`.
    pub fn sizing(window: u64, fpr: f64, past: u32) -> Option<(u32, u64, u64)> {
        sizing_over(
            window,
            fpr,
            past,
            past as u64 + 1,
            theory::forgetful_code_fpr,
        )
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
    /// Generation size, in arrivals.
    pub fn g(&self) -> u64 {
        self.ring.g
    }

    /// The code's `Init`: the generation may switch first (the code's
    /// `Query` calls `Update`), then `key` is written only if the filter
    /// does not already answer yes for it. Whether it was written.
    pub fn insert_if_absent(&mut self, key: u64) -> bool {
        self.ring.before_insert();
        let absent = !self.contains(key);
        if absent {
            self.ring.at_mut(0).insert(key);
            self.ring.at_mut(1).insert(key);
        }
        absent
    }

    /// Theoretical FPR at phase φ when every arrival is a new key
    /// ([`theory::forgetful_code_fpr`]): an upper bound, since a key found
    /// at its arrival is not written and the filters fill less.
    pub fn theory_fpr(&self, phase: u64) -> f64 {
        theory::forgetful_code_fpr(self.past(), self.k(), self.g(), self.m(), phase)
    }

    /// P(yes) by switch count j = 0..=N+2 at phase φ for a key that was
    /// written (beyond N + 1: the FPR), under the same model.
    pub fn theory_presence_by_shift(&self, phase: u64) -> Vec<f64> {
        (0..=self.past() as u64 + 2)
            .map(|j| {
                theory::forgetful_code_presence(self.past(), self.k(), self.g(), self.m(), phase, j)
            })
            .collect()
    }
}

impl Filter for ForgetfulCode {
    /// [`ForgetfulCode::insert_if_absent`].
    fn insert(&mut self, key: u64) {
        self.insert_if_absent(key);
    }
    fn contains(&self, key: u64) -> bool {
        self.contains_probes(key).0
    }
    /// (N + 2) k m bits plus 64 each for the head index and the counter.
    fn memory_bits(&self) -> u64 {
        self.ring.bits() + 128
    }
    fn name(&self) -> &'static str {
        "forgetful_code"
    }
}

impl Instrumented for ForgetfulCode {
    /// The code's order: the future filter, then each filter from the
    /// present on with the one after it, then the oldest alone (read
    /// once: a filter's answer is not read twice).
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        let n = self.ring.segs.len();
        let mut probes = 0;
        let mut at = self.ring.positions(key);
        let mut read = |i: usize| {
            let (y, p) = at.query(self.ring.at(i));
            probes += p;
            y
        };
        if read(0) {
            return (true, probes);
        }
        let mut prev = read(1);
        for i in 2..n {
            let y = read(i);
            if y && (prev || i == n - 1) {
                return (true, probes);
            }
            prev = y;
        }
        (false, probes)
    }
}

impl SlidingFilter for ForgetfulCode {
    /// (N + 1) g: a written key of generation j <= N is in filters j and
    /// j + 1, and one of generation N + 1 in the oldest alone.
    fn window(&self) -> u64 {
        (self.past() as u64 + 1) * self.g()
    }
    fn slack(&self) -> u64 {
        self.g()
    }
    fn period(&self) -> u64 {
        self.g()
    }
    fn inserted(&self) -> u64 {
        self.ring.inserted
    }
}

crate::persist::codec_struct!(ForgetfulCode { ring });

impl crate::persist::sealed::Design for ForgetfulCode {
    fn tag() -> String {
        "forgetful_code".into()
    }
    fn check(&self) -> Result<(), String> {
        self.ring.check(3..=MAX_PAST as usize + 2)
    }
}

crate::persist::persists!(ForgetfulCode);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::mix64;
    use crate::ForgetfulBloom;

    fn shape() -> ForgetfulBloomShape {
        ForgetfulBloomShape {
            past_filters: 3,
            hashes: 4,
            generation: 100,
            bits_per_slice: 400,
        }
    }

    /// On distinct keys the code's filter keeps every key it wrote for
    /// (N + 1) g arrivals, a generation longer than the paper's N g.
    #[test]
    fn a_written_key_is_kept_a_generation_longer_than_the_papers() {
        let mut code = ForgetfulCode::new(shape()).unwrap();
        let mut paper = ForgetfulBloom::new(shape()).unwrap();
        let (w_code, w_paper) = (code.window(), paper.window());
        assert_eq!((w_code, w_paper), (400, 300));
        let mut written = Vec::new();
        for t in 0..3000u64 {
            let key = mix64(t);
            paper.insert(key);
            if code.insert_if_absent(key) {
                written.push((t, key));
            }
            for &(at, k) in written.iter().rev().take_while(|(at, _)| t - at < w_code) {
                assert!(code.contains(k), "key of arrival {at} lost at {t}");
            }
        }
        // 3000 arrivals end a generation: arrivals 2500..2600 are four
        // switches old, in the oldest filter alone. The code's filter holds
        // every one it wrote; the paper's finds them only by chance
        let old: Vec<u64> = written
            .iter()
            .filter(|(at, _)| (2500..2600).contains(at))
            .map(|&(_, k)| k)
            .collect();
        assert!(old.len() > 50);
        assert!(old.iter().all(|&k| code.contains(k)));
        assert!(old.iter().filter(|&&k| paper.contains(k)).count() < old.len() / 2);
        assert_eq!(code.name(), "forgetful_code");
    }

    /// A repeated key is not written again, so it leaves the filter about
    /// (N + 2) g arrivals after its first arrival, however often it came
    /// since: a loss inside the window that the paper's filter never has
    /// (every 37 arrivals, so that it is not due at a switch, where it
    /// would be written again at once).
    #[test]
    fn a_key_repeated_within_the_window_is_lost() {
        let mut code = ForgetfulCode::new(shape()).unwrap();
        let mut paper = ForgetfulBloom::new(shape()).unwrap();
        let hot = mix64(u64::MAX);
        let mut lost_code = 0;
        for t in 0..2000u64 {
            for f in [&mut code as &mut dyn Filter, &mut paper] {
                f.insert(if t % 37 == 0 { hot } else { mix64(t) });
            }
            // the hot key arrived at most 37 arrivals ago
            assert!(paper.contains(hot), "the paper's filter lost it at {t}");
            lost_code += !code.contains(hot) as u32;
        }
        assert!(lost_code > 0, "the code's filter never lost the hot key");
    }

    #[test]
    fn bad_shapes_are_rejected() {
        for past in [0, MAX_PAST + 1] {
            assert!(ForgetfulCode::new(ForgetfulBloomShape {
                past_filters: past,
                ..shape()
            })
            .is_err());
        }
        assert!(ForgetfulCode::new(ForgetfulBloomShape {
            generation: 0,
            ..shape()
        })
        .is_err());
    }
}
