//! The Age-Partitioned Bloom filter (Shtul, Baquero, Almeida 2020).
//!
//! k + l slices of m = ⌈k g / ln 2⌉ bits in a circular buffer; every g
//! insertions the oldest slice is zeroed and becomes the newest (a *shift*); an
//! insertion sets one bit in each of the k newest slices; a query looks for k
//! consecutive matching slices with the paper's backwards-jumping Algorithm 1.
//!
//! **Guarantee given here**: no false negatives for the last **w = l g**
//! insertions, and slack **s = k g** (after w + s insertions an element is
//! reported no more often than a never-inserted one). The guarantee actually
//! oscillates between l g + 1 and (l + 1) g insertions with the phase; some
//! public implementations promise (l + 1) g, which fails just after each shift
//! (tested in this crate's conformance suite). See [`theory`] for the
//! derivations of FPR, age profile, NPWS and query cost.
//!
//! Each physical slice of the buffer keeps one hash function for its lifetime
//! (position b uses index `hash::index(key, b, m)`), so a key finds its bits
//! after they have shifted.

pub mod blocked;
mod cost;
pub mod line;
pub mod lines;
mod query;
pub(crate) mod shared_clock;
mod simd;
mod sizing;
pub mod theory;
pub mod timed;
pub mod timed_theory;

use crate::bits::BitArray;
use crate::error::{check_bits, check_nonzero};
use crate::hash::index;
use crate::{Filter, ParamError, SlidingFilter};

pub(crate) use query::{algorithm1, algorithm1_after_middle, has_run, middle_hits};
pub use sizing::{choose, KlRule, DEFAULT_MAX_L, MAX_L_WITH_SLACK};

/// Whether queries can use the AVX-512 probes: the processor has them, and
/// k + l <= 64 and m < 2^32.
fn use_simd(k: u32, l: u32, m: u64) -> bool {
    crate::cpu::avx512() && vector_shape(k, l, m)
}

/// Whether an APBF of this shape can take the AVX-512 query: k + l <= 64
/// (one mask word) and m < 2^32 (32-bit index halves).
fn vector_shape(k: u32, l: u32, m: u64) -> bool {
    k.checked_add(l).is_some_and(|h| h <= 64) && m < 1 << 32
}

/// An Age-Partitioned Bloom filter over a count-based sliding window.
#[derive(Debug, Clone)]
pub struct Apbf {
    k: u32,
    l: u32,
    g: u64,
    m: u64,
    bits: BitArray,
    /// Physical position of logical slice s_0.
    base: u32,
    /// Insertions in the current generation, 0..=g.
    count: u64,
    inserted: u64,
    /// Whether queries use the AVX-512 probes: the processor has them, and
    /// k + l <= 64 and m < 2^32 (one mask word, 32-bit index halves).
    simd: bool,
}

/// The shape of a [`Apbf`]: what [`Apbf::new`] takes, each paper letter
/// by a word (see [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ApbfShape {
    /// Hash functions: the bits or cells a key sets and a query reads (`k`).
    pub hashes: u32,
    /// Slices beyond the `hashes` a key is written to (`l`).
    pub extra_slices: u32,
    /// Insertions per generation (`g`).
    pub generation: u64,
}

impl Apbf {
    /// An APBF with k slices written per insertion, l extra slices and
    /// generation size g. Window l g, slack k g.
    /// Sized from a window and an FPR instead, it is built by
    /// [`Target`](crate::build::Target):
    ///
    /// ```
    /// use bloomlab_filters::build::Target;
    /// use bloomlab_filters::{Apbf, ApbfShape, Filter, SlidingFilter};
    /// let f = Apbf::new(ApbfShape { hashes: 10, extra_slices: 7, generation: 1000 }).unwrap();
    /// assert_eq!((f.window(), f.slack()), (7000, 10_000));
    /// let mut g: Apbf = Target::window(10_000).fpr(1e-3).build().unwrap();
    /// assert!(g.window() >= 10_000);
    /// g.insert(42);
    /// assert!(g.contains(42));
    /// ```
    pub fn new(shape: ApbfShape) -> Result<Self, ParamError> {
        let ApbfShape {
            hashes: k,
            extra_slices: l,
            generation: g,
        } = shape;
        crate::error::check_hashes(k)?;
        check_nonzero("l", l as u64)?;
        check_nonzero("g", g)?;
        let slices = k.checked_add(l).ok_or(ParamError::TooLarge {
            what: "k + l",
            limit: "2^32 - 1".into(),
        })?;
        let m = check_bits(theory::slice_bits(k, g))?;
        let total = check_bits((slices as u64).checked_mul(m))?;
        Ok(Apbf {
            k,
            l,
            g,
            m,
            bits: BitArray::new(total),
            base: 0,
            count: 0,
            inserted: 0,
            simd: use_simd(k, l, m),
        })
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

    /// m: bits per slice.
    pub fn m(&self) -> u64 {
        self.m
    }

    /// The theory of this configuration.
    pub fn theory(&self) -> theory::ApbfTheory {
        theory::ApbfTheory {
            k: self.k,
            l: self.l,
            g: self.g,
            m: self.m,
        }
    }

    /// Number of slices k + l.
    fn slices(&self) -> u32 {
        self.k + self.l
    }

    /// Physical buffer position of logical slice i (< k + l).
    #[inline]
    fn position(&self, i: usize) -> u64 {
        crate::window::ring_index(self.base as u64, i as u64, self.slices() as u64)
    }

    /// The bit of logical slice i that `key` maps to.
    #[inline]
    fn slot(&self, key: u64, i: usize) -> u64 {
        let b = self.position(i);
        b * self.m + index(key, b, self.m)
    }

    #[inline]
    fn probe(&self, key: u64, i: usize) -> bool {
        self.bits.get(self.slot(key, i))
    }

    /// Writes `key` into the k newest slices and counts it, without a shift.
    #[inline]
    fn write(&mut self, key: u64) {
        self.count += 1;
        self.inserted += 1;
        for i in 0..self.k as usize {
            self.bits.set(self.slot(key, i));
        }
    }

    /// Algorithm 1's answer for a key that matches the middle slices
    /// l .. k - 1 (when l < k), from the AVX-512 probes: all k + l slices
    /// eight at a time into one mask, searched for a run of k by
    /// [`has_run`]. Reading every slice costs about what Algorithm 1's
    /// dependent probes do one at a time, but here the probes are vector
    /// lanes. (The middle slices stay scalar: three independent scalar
    /// probes answer sooner than a vector's chain of multiplies, which is
    /// what a negative query waits on.)
    ///
    /// # Safety
    ///
    /// The processor must have AVX-512F and AVX-512DQ, and k + l <= 64 and
    /// m < 2^32 (what `simd` records).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq")]
    unsafe fn runs_simd(&self, key: u64) -> bool {
        let h = self.slices();
        let words = self.bits.as_words();
        // SAFETY: the caller's conditions, with base < h
        let all = unsafe { simd::matches(words, key, self.base as u64, h, h as u64, self.m) };
        has_run(all, self.k)
    }

    /// Whether `key` holds k consecutive logical slices, given that it
    /// matches the middle ones: the vector probes where `simd`, else
    /// Algorithm 1 resumed after the middle slices.
    #[inline]
    fn runs_of_k(&self, key: u64) -> bool {
        #[cfg(target_arch = "x86_64")]
        if self.simd {
            // SAFETY: `simd` records that the processor has the features
            // and that k + l and m are within the vector probes' limits
            return unsafe { self.runs_simd(key) };
        }
        algorithm1_after_middle(self.k, self.l, |i| self.probe(key, i))
    }

    /// Ages the filter by one generation: zero s_{k+l-1} and make it s_0.
    fn shift(&mut self) {
        let h = self.slices();
        self.base = (self.base + h - 1) % h;
        let start = self.base as u64 * self.m;
        self.bits.clear_range(start, start + self.m);
        self.count = 0;
    }
}

impl Filter for Apbf {
    fn insert(&mut self, key: u64) {
        if self.count == self.g {
            self.shift();
        }
        self.write(key);
    }

    /// Algorithm 1's answer. When l < k, the slices l .. k - 1 that every
    /// run of k covers are read together first, and a miss among them
    /// (about 9 negative queries in 10 at (k, l) = (10, 7)) answers without
    /// the algorithm's dependent probes; the other keys go on to Algorithm 1,
    /// or on processors with AVX-512 to a mask of all k + l slices read as
    /// vector lanes. The answers are Algorithm 1's;
    /// [`contains_probes`](crate::Instrumented::contains_probes) counts the algorithm's
    /// own probes.
    fn contains(&self, key: u64) -> bool {
        middle_hits(self.k, self.l, |i| self.probe(key, i)) && self.runs_of_k(key)
    }

    /// Reads the slices l .. k - 1 of 16 keys at a time before answering
    /// any, so that those cache misses overlap; the keys that hit them all
    /// go on to Algorithm 1 (or the vector probes).
    fn contains_many(&self, keys: &[u64], out: &mut [bool]) {
        assert!(out.len() >= keys.len(), "out shorter than keys");
        const BATCH: usize = 16;
        for (chunk, out) in keys.chunks(BATCH).zip(out.chunks_mut(BATCH)) {
            let mut middle = [false; BATCH];
            for (m, &key) in middle.iter_mut().zip(chunk) {
                *m = middle_hits(self.k, self.l, |i| self.probe(key, i));
            }
            for ((o, &key), &m) in out.iter_mut().zip(chunk).zip(&middle) {
                *o = m && self.runs_of_k(key);
            }
        }
    }

    /// (k + l) m bits of slices, plus 64 bits each for the base index and the
    /// generation counter.
    fn memory_bits(&self) -> u64 {
        self.bits.len() + 2 * 64
    }

    fn name(&self) -> &'static str {
        "apbf"
    }
}

impl crate::Instrumented for Apbf {
    /// On [`lines::QueryPath::counted`] whatever the processor, so that
    /// the count is the same on every machine.
    fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
        Some(self.lines_on_path(key, lines::QueryPath::counted(self.k, self.l, self.m)))
    }
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        algorithm1(self.k, self.l, |i| self.probe(key, i))
    }
    /// The k newest slices' lines.
    fn prefetch_insert(&self, key: u64) {
        for i in 0..self.k as usize {
            self.bits.prefetch(self.slot(key, i));
        }
    }
    /// The slices Algorithm 1 reads while it misses (`query::miss_chain`).
    fn prefetch_query(&self, key: u64) {
        for i in query::miss_chain(self.k, self.l) {
            self.bits.prefetch(self.slot(key, i));
        }
    }
}

impl SlidingFilter for Apbf {
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

crate::persist::codec_struct!(Apbf { k, l, g, m, bits, base, count, inserted;
    simd = use_simd(k, l, m) });

impl crate::persist::sealed::Design for Apbf {
    fn tag() -> String {
        "apbf".into()
    }
    fn check(&self) -> Result<(), String> {
        use crate::persist::ensure;
        // the sizes `new` would allocate, computed without allocating them
        ensure(self.k >= 1 && self.l >= 1 && self.g >= 1, || {
            "k, l or g is 0".into()
        })?;
        let m = theory::slice_bits(self.k, self.g);
        let slices = self.k as u64 + self.l as u64;
        let total = m.and_then(|m| slices.checked_mul(m));
        ensure(Some(self.m) == m && Some(self.bits.len()) == total, || {
            format!(
                "{} bits for k = {}, g = {}",
                self.bits.len(),
                self.k,
                self.g
            )
        })?;
        ensure((self.base as u64) < slices, || {
            format!("base {}", self.base)
        })
        // no bound on count: a time trigger fills a generation past g
    }
}

crate::persist::persists!(Apbf);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::mix64;

    /// The accessors and the name report the configuration (mutants
    /// returning 0 or 1 from `g`, or "" from `name`, passed every other
    /// test: found by cargo mutants).
    #[test]
    fn accessors_report_the_configuration() {
        let f = Apbf::new(crate::ApbfShape {
            hashes: 6,
            extra_slices: 5,
            generation: 37,
        })
        .unwrap();
        assert_eq!((f.k(), f.l(), f.g()), (6, 5, 37));
        let t = f.theory();
        assert_eq!((t.k, t.l, t.g, t.m), (6, 5, 37, f.m()));
        assert!(f.m() >= 37);
        let w = crate::Target::window(1000)
            .fpr(0.01)
            .extra_slices(7)
            .build::<Apbf>()
            .unwrap();
        assert_eq!((w.l(), w.g()), (7, 143));
        // the name the harness and the reports key on
        assert_eq!(f.name(), "apbf");
    }

    #[test]
    fn bad_parameters_are_rejected() {
        assert_eq!(
            Apbf::new(crate::ApbfShape {
                hashes: 0,
                extra_slices: 1,
                generation: 1
            })
            .unwrap_err(),
            ParamError::Zero { name: "k" }
        );
        assert_eq!(
            Apbf::new(crate::ApbfShape {
                hashes: 1,
                extra_slices: 0,
                generation: 1
            })
            .unwrap_err(),
            ParamError::Zero { name: "l" }
        );
        assert_eq!(
            Apbf::new(crate::ApbfShape {
                hashes: 1,
                extra_slices: 1,
                generation: 0
            })
            .unwrap_err(),
            ParamError::Zero { name: "g" }
        );
        assert!(Apbf::new(crate::ApbfShape {
            hashes: u32::MAX,
            extra_slices: 1,
            generation: 1
        })
        .is_err());
        assert!(Apbf::new(crate::ApbfShape {
            hashes: 10,
            extra_slices: 10,
            generation: u64::MAX
        })
        .is_err());
        assert!(Apbf::new(crate::ApbfShape {
            hashes: 10,
            extra_slices: 10,
            generation: 1 << 40
        })
        .is_err());
        assert!(crate::Target::window(1000)
            .fpr(0.0)
            .build::<Apbf>()
            .is_err());
        assert!(crate::Target::window(1000)
            .fpr(1.5)
            .build::<Apbf>()
            .is_err());
        assert!(crate::Target::window(0).fpr(0.1).build::<Apbf>().is_err());
        assert!(crate::Target::window(1000)
            .fpr(1e-300)
            .build::<Apbf>()
            .is_err());
    }

    #[test]
    fn memory_is_exact() {
        let f = Apbf::new(crate::ApbfShape {
            hashes: 10,
            extra_slices: 7,
            generation: 1000,
        })
        .unwrap();
        assert_eq!(f.m(), 14427);
        assert_eq!(f.memory_bits(), 17 * 14427 + 128);
    }

    #[test]
    fn query_agrees_with_the_definition() {
        // After every insertion, Algorithm 1 must answer exactly "some j in 0..=l
        // has s_j .. s_{j+k-1} all matching".
        let mut f = Apbf::new(crate::ApbfShape {
            hashes: 3,
            extra_slices: 4,
            generation: 5,
        })
        .unwrap();
        for t in 0..500u64 {
            f.insert(mix64(t));
            for q in 0..60u64 {
                let key = mix64(q * 7 + 3);
                let spec =
                    (0..=f.l as usize).any(|j| (j..j + f.k as usize).all(|i| f.probe(key, i)));
                assert_eq!(f.contains(key), spec);
            }
        }
    }

    #[test]
    fn algorithm_1_resumed_after_the_middle_slices_is_algorithm_1() {
        // every pattern of matching slices in which the middle ones match
        for (k, l) in [
            (10, 2),
            (4, 3),
            (3, 2),
            (1, 1),
            (2, 6),
            (5, 5),
            (3, 0),
            (6, 1),
        ] {
            let h = k + l;
            let middle: u32 = (l..k).map(|i| 1 << i).sum();
            let mut cases = 0;
            for pattern in 0u32..1 << h {
                if pattern & middle != middle {
                    continue;
                }
                let bit = |i: usize| pattern >> i & 1 == 1;
                let resumed = algorithm1_after_middle(k, l, |i| {
                    assert!(i < h as usize, "k {k} l {l}: slice {i}");
                    bit(i)
                });
                assert_eq!(resumed, algorithm1(k, l, bit).0, "k {k} l {l} {pattern:b}");
                cases += 1;
            }
            assert_eq!(cases, 1 << (h - (k.saturating_sub(l))));
        }
    }

    #[test]
    fn the_middle_slices_decide_as_algorithm_1() {
        // `contains` and `contains_many` (middle slices first) against
        // Algorithm 1 alone: l < k, l = k - 1, l >= k and k = 1
        for (k, l, g) in [
            (10, 7, 20),
            (4, 3, 5),
            (3, 2, 4),
            (1, 1, 3),
            (2, 6, 4),
            (5, 5, 3),
        ] {
            let mut f = Apbf::new(crate::ApbfShape {
                hashes: k,
                extra_slices: l,
                generation: g,
            })
            .unwrap();
            let (mut yes, mut no) = (0, 0);
            for t in 0..(k + l) as u64 * g * 3 {
                f.insert(mix64(t));
                let keys: Vec<u64> = (0..40u64)
                    .map(|q| {
                        if q % 2 == 0 {
                            mix64(t.saturating_sub(q))
                        } else {
                            mix64(q << 40 | t)
                        }
                    })
                    .collect();
                let mut many = vec![false; keys.len()];
                f.contains_many(&keys, &mut many);
                for (&key, &m) in keys.iter().zip(&many) {
                    let expected = algorithm1(f.k, f.l, |i| f.probe(key, i)).0;
                    assert_eq!(
                        (f.contains(key), m),
                        (expected, expected),
                        "k {k} l {l} t {t}"
                    );
                    if expected {
                        yes += 1;
                    } else {
                        no += 1;
                    }
                }
            }
            assert!(yes > 0 && no > 0, "k {k} l {l}: {yes} yes, {no} no");
        }
    }

    #[test]
    fn with_fpr_meets_its_target_in_theory() {
        let f = crate::Target::window(10_000)
            .fpr(1e-3)
            .build::<Apbf>()
            .unwrap();
        assert!(f.window() >= 10_000);
        assert!(f.theory().fpr() <= 1e-3 * 1.01);
    }
}
