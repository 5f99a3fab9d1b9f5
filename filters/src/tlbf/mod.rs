//! The time-limited Bloom filter, TLBF (Rodrigues, Shtul, Baquero, Almeida,
//! "Time-limited Bloom Filter", ACM SAC 2023; extended version
//! arXiv:2306.06742), as its authors' reference Redis module builds it
//! (RedisBloom's AgePartitionedBF branch, `contrib/agingBloom.c`,
//! `APBF_insertTime`). The paper's text is not available here: this module
//! follows that code, and where it departs from it, says so.
//!
//! An APBF whose slices are not all alike. Each slice keeps its size, its
//! insertion count, the time of its last insertion and its hash index.
//! Insertions set one bit in each of the k newest slices; a query looks for
//! k consecutive slices with the key's bit set, over every slice, counting
//! as empty a slice whose last insertion is more than T old.
//!
//! **Generations end on a count.** A generation holds the most insertions
//! that fill none of the k newest slices past its capacity ⌊ln 2·m⌋ (half
//! its bits) by the time it leaves them. At its end the filter *slides*:
//!
//! 1. the next generation's target is the insertions that would last T/l at
//!    the last generation's rate, ⌈g·(T/l)/tbs⌉ + 1;
//! 2. slices beyond the first k + l whose last insertion is more than T old
//!    are retired;
//! 3. the oldest slice is dropped, unless it holds keys younger than T: then
//!    the filter grows by one slice instead;
//! 4. a new slice is put in front, sized to take k generations of the
//!    target size ([`control`]).
//!
//! So **no key younger than T is lost, whatever the rate**: a slice leaves
//! the filter only once its last insertion is more than T old, and a query
//! ignores a slice only then. A key is reported until T after its
//! generation's last insertion, and after that only as a false positive:
//! the slack is a generation's length, about T/l at a steady rate and
//! longer when the rate falls. The FPR stays near the APBF's F(k, l) while the rate changes
//! slowly (each slice is at most half full, and about l + k of them are
//! live); memory follows the rate: the slices are sized for the rate
//! measured, and a burst adds slices.
//!
//! **Departures from the reference code.** Time is the caller's clock (any
//! unit), not the system's milliseconds. Every insertion stamps the k
//! newest slices with its time, where the code stamps a slice only when it
//! leaves them: the stamps the slides read are the same (a slice's last
//! insertion is the one before it leaves), but the code's query never
//! expires the k newest slices, so after a lull of any length it still
//! reports the keys of the generation the lull interrupted. Here a query
//! ignores them after T, and a slice about to be written after more than
//! T without insertions is cleared first, so those keys stay gone once
//! traffic resumes. The first generation is measured from the first time
//! the filter is advanced to (the code's from its creation on the system
//! clock). A generation that took no time
//! (simultaneous keys) counts as one time unit, where the code divides by
//! zero, and the target is capped at [`MAX_GROWTH`] times the first
//! generation, so that a rate estimated from one burst cannot ask for an
//! unbounded slice. A generation has at least one insertion (the code's
//! counter would wrap at 0).
//!
//! The theory ([`theory`]) runs the same bookkeeping on fluid arrivals (the
//! j-th key at Λ⁻¹(j)) and takes the fills from the counts, as the other
//! time designs' theories take their generation boundaries.

pub mod control;
pub mod theory;

use crate::bits::BitArray;
use crate::error::{check_bits, check_nonzero, check_probability};
use crate::hash::index;
use crate::{Filter, ParamError, TimedFilter};
use control::Control;
use std::collections::VecDeque;

/// Largest target generation, as a multiple of the first.
pub const MAX_GROWTH: u64 = 64;

/// [`Tlbf::memory_at`] of a filter of (k, l, m₀, growth cap), from its
/// parameters alone.
pub fn memory_estimate(k: u32, l: u32, m0: u64, max_growth: u64, ratio: f64) -> u64 {
    let ratio = if ratio.is_finite() {
        ratio.max(1.0)
    } else {
        1.0
    };
    let cap = max_growth.max(1) as f64;
    let grow = ratio.min(cap);
    let slices = k as f64 + l as f64 * (ratio / cap).max(1.0);
    let bits = 2.0 * slices * (m0 as f64 * grow + META_BITS as f64) + 7.0 * 64.0;
    bits.min(u64::MAX as f64 / 2.0) as u64
}

/// Bits of bookkeeping per slice (size, count, timestamp, hash index).
pub const META_BITS: u64 = 4 * 64;

/// The time-limited Bloom filter: APBF slices of varying sizes, a
/// generation ended by a count, the slices sized for the rate measured and
/// retired by time.
#[derive(Debug, Clone)]
pub struct Tlbf {
    ctl: Control,
    /// The slices' bits, newest first (parallel to `ctl.slices`).
    bits: VecDeque<BitArray>,
    /// The latest time advanced to.
    clock: u64,
}

/// The shape of a [`Tlbf`]: what [`Tlbf::new`] takes, each paper letter
/// by a word (see [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TlbfShape {
    /// Hash functions: the bits or cells a key sets and a query reads (`k`).
    pub hashes: u32,
    /// Slices beyond the `hashes` a key is written to (`l`).
    pub extra_slices: u32,
    /// The window, in clock ticks (`t`).
    pub window_ticks: u64,
    /// Bits in each slice at first (slices grow with the load) (`m0`).
    pub initial_bits_per_slice: u64,
}

impl Tlbf {
    /// k + l slices of `m0` bits at first, a window of `t` time units.
    pub fn new(shape: TlbfShape) -> Result<Self, ParamError> {
        let TlbfShape {
            hashes: k,
            extra_slices: l,
            window_ticks: t,
            initial_bits_per_slice: m0,
        } = shape;
        crate::error::check_hashes(k)?;
        check_nonzero("l", l as u64)?;
        check_nonzero("window time", t)?;
        if m0 < 2 * k as u64 {
            return Err(ParamError::OutOfRange {
                name: "m",
                value: m0.to_string(),
                expected: "at least 2k bits (a slice must take one insertion)",
            });
        }
        if t < 2 * l as u64 {
            return Err(ParamError::OutOfRange {
                name: "window time",
                value: format!("{t} clock ticks for l = {l}"),
                expected: "at least 2l ticks: the TLBF measures each generation's duration (about T/l) in whole ticks, and under 2 a generation its FPR runs far above the target; give the clock in a finer unit",
            });
        }
        check_bits(m0.checked_mul((k + l) as u64))?;
        check_bits(m0.checked_mul(2 * MAX_GROWTH))?;
        let ctl = Control::new(k, l, t, m0, MAX_GROWTH);
        let bits = ctl.slices.iter().map(|s| BitArray::new(s.size)).collect();
        Ok(Tlbf {
            ctl,
            bits,
            clock: 0,
        })
    }

    /// For keys at about `rate` per time unit over a window of `t`, at FPR
    /// about `fpr`: (k, l) as the count APBF chooses them
    /// ([`crate::apbf::choose`]), slices of m₀ = ⌈R·T·k/(l·ln 2)⌉
    /// bits at first (the reference code's high-level sizing, with the
    /// APBF's exact-fill choice of (k, l) in place of its table).
    ///
    /// ```
    /// use bloomlab_filters::tlbf::Tlbf;
    /// use bloomlab_filters::{Filter, TimedFilter};
    /// // ten minutes in ms, about 5 keys per ms, 0.1% FPR
    /// let mut f = bloomlab_filters::Target::time(600_000.0, 5.0).fpr(1e-3).build::<Tlbf>().unwrap();
    /// f.advance(1_000);
    /// f.insert(3);
    /// f.advance(601_000);
    /// assert!(f.contains(3));
    /// ```
    pub(crate) fn with_fpr(t: u64, rate: f64, fpr: f64) -> Result<Self, ParamError> {
        let fpr = check_probability("fpr", fpr)?;
        check_nonzero("window time", t)?;
        // a window of less than one key at that rate is sized for one
        let keys = (rate * t as f64).max(1.0);
        if !(rate > 0.0 && keys.is_finite()) {
            return Err(ParamError::Unreachable {
                target: format!("a window of {t} time units at rate {rate}"),
            });
        }
        let (k, l) = crate::apbf::choose(fpr, crate::apbf::KlRule::FewestBits)?;
        let m0 = (keys * k as f64 / (l as f64 * std::f64::consts::LN_2)).ceil();
        if m0 >= crate::MAX_BITS as f64 {
            return Err(ParamError::TooLarge {
                what: "slice bits",
                limit: format!("{}", crate::MAX_BITS),
            });
        }
        Self::new(TlbfShape {
            hashes: k,
            extra_slices: l,
            window_ticks: t,
            initial_bits_per_slice: (m0 as u64).max(2 * k as u64),
        })
    }

    /// An estimate of the bits this filter holds (slices and bookkeeping)
    /// under traffic at up to `ratio` times the rate its first slices were
    /// sized for, for memory budgets: slices sized for min(`ratio`,
    /// [`MAX_GROWTH`]) times the first generation; above the cap,
    /// generations shorter than T/l, so about l·`ratio`/[`MAX_GROWTH`] of
    /// them within T besides the k newest; twice that, for the slices of an
    /// earlier rate that stay live for T after a change. Not a bound: a
    /// burst of simultaneous keys makes generations of no time at all.
    pub fn memory_at(&self, ratio: f64) -> u64 {
        let c = &self.ctl;
        memory_estimate(c.k, c.l, c.m0, c.max_growth, ratio)
    }

    /// k: slices written per insertion.
    pub fn k(&self) -> u32 {
        self.ctl.k
    }

    /// l: the slices beyond k the filter keeps at least.
    pub fn l(&self) -> u32 {
        self.ctl.l
    }

    /// The bookkeeping: slices' sizes, counts and timestamps.
    pub fn control(&self) -> &Control {
        &self.ctl
    }

    /// Slices now.
    pub fn slices(&self) -> usize {
        self.bits.len()
    }

    /// Probes of a query: the APBF's Algorithm 1 (from slice n - k, right
    /// on a match, back k on a miss), as the reference scans, over every
    /// slice, an expired one counting as empty.
    fn probe(&self, key: u64) -> (bool, u32) {
        let (k, now) = (self.ctl.k, self.clock);
        let bit = |i: usize| {
            let s = &self.ctl.slices[i];
            !self.ctl.expired(i, now) && self.bits[i].get(index(key, s.hash as u64, s.size))
        };
        // at least k + l slices: n - k >= l >= 1
        crate::apbf::algorithm1(k, (self.bits.len() - k as usize) as u32, bit)
    }

    /// The answer to a query for `key` and the distinct 64-byte lines of
    /// the slices' bits it reads: one per slice Algorithm 1 probes, none
    /// for an expired slice (answered as empty without reading it). The
    /// slices' bookkeeping, a few words each, is not counted. In theory:
    /// [`crate::apbf::lines::query_lines`] on the filter's fills, costing
    /// expired slices 0.
    pub fn lines_read(&self, key: u64) -> (bool, u32) {
        let (k, now) = (self.ctl.k, self.clock);
        let mut lines = crate::lines::LineSet::default();
        let bit = |i: usize| {
            let s = &self.ctl.slices[i];
            !self.ctl.expired(i, now) && {
                let pos = index(key, s.hash as u64, s.size);
                lines.touch(i as u64, pos);
                self.bits[i].get(pos)
            }
        };
        let yes = crate::apbf::algorithm1(k, (self.bits.len() - k as usize) as u32, bit).0;
        (yes, lines.count())
    }
}

impl Filter for Tlbf {
    /// Slides first if the generation is full, then sets the key's bit in
    /// the k newest slices; the insertion's time is the clock's.
    fn insert(&mut self, key: u64) {
        let now = self.clock;
        if let Some(s) = self.ctl.before_insert(now) {
            for _ in 0..s.retired + s.dropped_last as usize {
                self.bits.pop_back();
            }
            self.bits.push_front(BitArray::new(s.size));
        }
        // a slice about to be written whose last insertion is more than T
        // old holds only keys older than T: cleared, so that stamping it
        // now does not bring them back (a lull's interrupted generation
        // came back whole at the first insertion after it). Every insertion
        // stamps the k newest slices together, so the (k-1)-th, stamped
        // unless empty, says whether any expired: one test an insertion.
        let k = self.ctl.k as usize;
        if self.ctl.expired(k - 1, now) {
            for i in 0..k {
                if self.ctl.expired(i, now) {
                    self.bits[i] = BitArray::new(self.ctl.slices[i].size);
                    self.ctl.forget(i);
                }
            }
        }
        for i in 0..self.ctl.k as usize {
            let s = &self.ctl.slices[i];
            self.bits[i].set(index(key, s.hash as u64, s.size));
        }
        self.ctl.after_insert(1, now);
    }

    fn contains(&self, key: u64) -> bool {
        self.probe(key).0
    }

    /// The slices' bits, [`META_BITS`] of bookkeeping per slice, and 64
    /// bits each for k and l, T, the growth cap, the first generation, the
    /// counter, the generation size and the clock.
    fn memory_bits(&self) -> u64 {
        let bits: u64 = self.ctl.slices.iter().map(|s| s.size).sum();
        bits + META_BITS * self.bits.len() as u64 + 7 * 64
    }

    fn name(&self) -> &'static str {
        "tlbf"
    }
}

impl crate::Instrumented for Tlbf {
    fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
        Some(Self::lines_read(self, key))
    }
    /// The answer and the slices read.
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        self.probe(key)
    }

    fn as_timed(&mut self) -> Option<&mut dyn TimedFilter> {
        Some(self)
    }
}

impl TimedFilter for Tlbf {
    /// Moves the clock: slices expire by it (a query ignores them); they
    /// are removed at the next slide.
    /// The first time a filter that has taken no key is advanced to is
    /// its creation: the first generation's rate is measured from it (a
    /// clock that does not start at 0, Unix milliseconds say, made the
    /// first generation look 2^41 ms long and shrank every later one).
    fn advance(&mut self, now: u64) {
        if self.ctl.untouched() {
            self.ctl.start_at(now);
        }
        self.clock = self.clock.max(now);
    }

    fn now(&self) -> u64 {
        self.clock
    }

    fn window_time(&self) -> u64 {
        self.ctl.t
    }

    /// ⌈T/l⌉: a key is reported until T after its generation's last
    /// insertion, and a generation lasts about T/l at a steady rate. Not a
    /// bound: a generation lasts longer when the rate falls, and its first
    /// keys are then reported longer.
    fn slack_time(&self) -> u64 {
        self.ctl.t.div_ceil(self.ctl.l as u64)
    }
}

crate::persist::codec_struct!(Tlbf { ctl, bits, clock });

impl crate::persist::sealed::Design for Tlbf {
    fn tag() -> String {
        "tlbf".into()
    }
    fn check(&self) -> Result<(), String> {
        let c = &self.ctl;
        let n = c.slices.len();
        let sizes_match = n == self.bits.len()
            && c.slices
                .iter()
                .zip(&self.bits)
                .all(|(s, b)| s.size == b.len() && s.size >= 1 && s.hash < c.k.max(1));
        crate::persist::ensure(
            (1..=crate::MAX_HASHES).contains(&c.k)
                && c.l >= 1
                && c.t >= 2 * c.l as u64
                && (1..=MAX_GROWTH).contains(&c.max_growth)
                && c.m0 >= 2 * c.k as u64
                && c.largest() <= crate::MAX_BITS
                && c.first >= 1
                && n as u64 >= c.k as u64 + c.l as u64
                && sizes_match
                && c.counter <= c.gen_size
                && c.gen_size >= 1,
            || {
                format!(
                    "{n} slices ({} with bits) for k = {}, l = {}",
                    self.bits.len(),
                    c.k,
                    c.l
                )
            },
        )
    }
}

crate::persist::persists!(Tlbf);

#[cfg(test)]
mod tests;
