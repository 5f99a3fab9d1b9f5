//! SHE's Bloom filter over a window of time (`she_bloom_time`): the groups'
//! phases flip by time instead of by insertions, as SHE's clock does in
//! its time-based windows.
//!
//! Group j's phase at time τ is q_j(τ) = ⌊(τ + o_j)/P⌋, o_j = ⌊(T + P)·j/G⌋
//! (the count filter's staggering over T + P), with P >= T of time. An
//! insertion finding its group's 1-bit timestamp unlike its phase's parity
//! clears the group first; a query counts a bit as one when its group
//! flipped within the last T (q_j(τ - T) < q_j(τ)), and as zero when the
//! timestamp differs from the phase or the bit is unset.
//!
//! **What it guarantees.** A key at most T old is reported **whatever the
//! rate**: either its group flipped since (the bit counts as one) or it did
//! not, and then nothing cleared the group. **What it does not.** The 1-bit
//! timestamp cannot tell two flips from none: a group that no insertion
//! touches for a whole phase keeps its bits through the next flip, and a
//! lull of two phases brings back every group's stale bits. Over insertions
//! that takes a group missed by a phase of keys (about exp(-k·g·P/m)); over
//! time any lull does it, so keys older than the slack P - T come back as
//! the lull's phases flip. The theory ([`TimedSheBloom::theory_at`]) counts
//! it.
//!
//! # Theory at a moment
//!
//! Over Poisson arrivals of cumulative mean Λ, phase q of group j is left
//! untouched with probability u(q) = exp(-h·ΔΛ(q)), h = 1 - (1 - g/m)^k
//! the chance a key touches the group, independently of every other phase.
//! A query sees a bit of group j (in phase p, no flip within T) set exactly
//! when some key set it in a phase q ≡ p (mod 2) from which every phase of
//! the other parity up to p went untouched (a touch of the other parity
//! would have cleared the group, and the latest touch fixes the timestamp).
//! So with D the earliest such phase, P(D <= p - 2i) = ∏_{j<i} u(p - 1 -
//! 2j), and given D the bit is set with probability 1 - exp(-β·Σ ΔΛ(q)) over
//! the phases q = D, D + 2, ..., p, β = 1 - (1 - 1/m)^k (disjoint stretches
//! of a Poisson process are independent: exact but for the Bloom filter's
//! usual independence of a query's k bits).

use super::CODE_GROUP;
use crate::bits::BitArray;
use crate::error::{check_nonzero, check_probability};
use crate::hash::index;
use crate::{Filter, ParamError, TimedFilter};

/// SHE's Bloom filter on a clock of time: m bits in groups of g under
/// 1-bit timestamps, each group's phase flipping every P of time.
#[derive(Debug, Clone)]
pub struct TimedSheBloom {
    t: u64,
    k: u32,
    m: u64,
    g: u64,
    phase: u64,
    bits: BitArray,
    stamps: BitArray,
    /// The latest time advanced to.
    clock: u64,
}

/// The shape of a [`TimedSheBloom`]: what [`TimedSheBloom::new`] takes, each paper letter
/// by a word (see [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimedSheBloomShape {
    /// The window, in clock ticks (`t`).
    pub window_ticks: u64,
    /// Hash functions: the bits or cells a key sets and a query reads (`k`).
    pub hashes: u32,
    /// Bits of the bit array, in all (`m`).
    pub bits: u64,
    /// Bits per group (a divisor of `bits`) (`g`).
    pub group_bits: u64,
    /// The phase, in clock ticks (at least the window) (`phase`).
    pub phase_ticks: u64,
}

impl TimedSheBloom {
    /// m bits in groups of `g` (g divides m), k bits per key, a window of
    /// `t` time units and a phase of `phase` >= t.
    pub fn new(shape: TimedSheBloomShape) -> Result<Self, ParamError> {
        let TimedSheBloomShape {
            window_ticks: t,
            hashes: k,
            bits: m,
            group_bits: g,
            phase_ticks: phase,
        } = shape;
        check_nonzero("window time", t)?;
        crate::error::check_hashes(k)?;
        check_nonzero("m", m)?;
        check_nonzero("g", g)?;
        super::check_shape(t, m, g, phase)?;
        let mut f = TimedSheBloom {
            t,
            k,
            m,
            g,
            phase,
            bits: BitArray::new(m),
            stamps: BitArray::new(m / g),
            clock: 0,
        };
        for j in 0..m / g {
            let p = f.phase_of(j, 0) & 1 == 1;
            f.stamps.assign(j, p);
        }
        Ok(f)
    }

    /// Sized for a window of `t` time units at up to `rate` keys per time
    /// unit with worst-phase FPR <= `fpr`: the count filter's (k, m) for
    /// W = ⌈rate·t⌉ in groups of 64, its phase P·t/W in time
    /// ([`super::theory::sizing`]).
    ///
    /// ```
    /// use bloomlab_filters::she::TimedSheBloom;
    /// use bloomlab_filters::{Filter, TimedFilter};
    /// // ten seconds in ms, 2 keys per ms at most, 1% FPR
    /// let mut f = bloomlab_filters::Target::time(10_000.0, 2.0).fpr(0.01).build::<TimedSheBloom>().unwrap();
    /// f.advance(1_000);
    /// f.insert(3);
    /// f.advance(11_000);
    /// assert!(f.contains(3));
    /// ```
    pub(crate) fn with_fpr(t: u64, rate: f64, fpr: f64) -> Result<Self, ParamError> {
        let fpr = check_probability("fpr", fpr)?;
        let w = crate::sliding_sketch::sweep::keys(t, rate, super::theory::MAX_EXACT_WINDOW)?;
        let s = super::theory::sizing(w, fpr).ok_or_else(|| ParamError::Unreachable {
            target: format!("SHE-BF fpr {fpr} at window {w}"),
        })?;
        let phase = (s.phase as u128 * t as u128).div_ceil(w as u128);
        let phase = u64::try_from(phase).map_err(|_| ParamError::TooLarge {
            what: "phase in time units",
            limit: "2^64".into(),
        })?;
        Self::new(TimedSheBloomShape {
            window_ticks: t,
            hashes: s.k,
            bits: s.m,
            group_bits: CODE_GROUP,
            phase_ticks: phase.max(t),
        })
    }

    /// k: bits set and read per key.
    pub fn k(&self) -> u32 {
        self.k
    }

    /// m: bits.
    pub fn m(&self) -> u64 {
        self.m
    }

    /// g: bits per group.
    pub fn group(&self) -> u64 {
        self.g
    }

    /// P: the time a phase lasts.
    pub fn phase(&self) -> u64 {
        self.phase
    }

    fn groups(&self) -> u64 {
        self.m / self.g
    }

    /// o_j = ⌊(T + P)·j/G⌋: the count filter's staggering, with T and P
    /// in time ((T + P)·G fits in 64 bits, checked by the constructor).
    fn offset(&self, j: u64) -> u64 {
        let (w, k, m, g, phase) = (self.t, self.k, self.m, self.g, self.phase);
        super::theory::SheTheory { w, k, m, g, phase }.offset(j)
    }

    /// q_j(τ): group j's phase number at time τ (τ may be negative).
    fn phase_of(&self, j: u64, at: i128) -> i128 {
        (at + self.offset(j) as i128).div_euclid(self.phase as i128)
    }

    /// Whether group j flipped in (now - T, now].
    fn flipped(&self, j: u64, now: u64) -> bool {
        self.phase_of(j, now as i128 - self.t as i128) < self.phase_of(j, now as i128)
    }

    #[inline]
    fn cell(&self, key: u64, i: u32) -> u64 {
        index(key, i as u64, self.m)
    }

    /// The theory at time `now` for arrivals of cumulative mean `cum` (keys
    /// by a time), both in the filter's time units; time 0 is the clock's
    /// origin.
    pub fn theory_at(&self, now: f64, cum: &dyn Fn(f64) -> f64) -> SheMoment {
        let (m, g, k) = (self.m as f64, self.g as f64, self.k as i32);
        let h = 1.0 - (1.0 - g / m).powi(k);
        let beta = 1.0 - (1.0 - 1.0 / m).powi(k);
        let (p_len, t) = (self.phase as f64, self.t as f64);
        let groups = self.groups() as usize;
        let mut sums = GroupSums::new(groups);
        let mut fpr_sum = 0.0;
        let mut terms: Vec<(f64, f64)> = Vec::new();
        for j in 0..self.groups() {
            let o = self.offset(j) as f64;
            let p = ((now + o) / p_len).floor();
            let first = (o / p_len).floor();
            // flipped within the window: every bit counts as one
            if ((now - t + o) / p_len).floor() < p {
                fpr_sum += 1.0;
                sums.push_flipped();
                continue;
            }
            // ΔΛ of phase q, clipped to [0, now]
            let span = |q: f64| {
                let a = (q * p_len - o).max(0.0);
                let b = ((q + 1.0) * p_len - o).min(now);
                if b <= a {
                    0.0
                } else {
                    cum(b) - cum(a)
                }
            };
            // (P(D = p - 2i), Λ summed over the same-parity phases D..p)
            terms.clear();
            let (mut reach, mut sum) = (1.0, 0.0);
            let mut q = p;
            while q >= first && reach > 1e-15 {
                sum += span(q);
                let other = q - 1.0;
                let untouched = if other >= first {
                    (-h * span(other)).exp()
                } else {
                    0.0
                };
                terms.push((reach * (1.0 - untouched), sum));
                reach *= untouched;
                q -= 2.0;
            }
            let fill: f64 = terms
                .iter()
                .map(|&(w, s)| w * (1.0 - (-beta * s).exp()))
                .sum();
            fpr_sum += fill;
            sums.push_clean(fill, terms.iter().map(|&(w, _)| w));
        }
        SheMoment {
            k: self.k,
            phase_len: p_len,
            now,
            groups: self.groups(),
            span: self.t + self.phase,
            fpr_mean: fpr_sum / groups as f64,
            sums,
        }
    }
}

/// Prefix sums over the groups, in order, of what a query of a key of any
/// age reads of them: a key's P(yes) sums them over at most a few runs of
/// groups, not group by group (at T = 600 s and 5,000 keys a second the
/// filter has 3 million groups, and a moment's 200 probes took 1.8 s).
#[derive(Debug, Clone)]
struct GroupSums {
    /// Groups flipped within the window, among the first j.
    flipped: Vec<u64>,
    /// Σ fill over the clean groups among the first j.
    fill: Vec<f64>,
    /// tails[i - 1][j]: Σ over the clean groups among the first j of
    /// P(D <= p - 2i)·(1 - fill), P(D <= p - 2i) the chance the group
    /// still shows the keys of i same-parity phases back.
    tails: Vec<Vec<f64>>,
}

impl GroupSums {
    fn new(groups: usize) -> GroupSums {
        let mut flipped = Vec::with_capacity(groups + 1);
        flipped.push(0);
        let mut fill = Vec::with_capacity(groups + 1);
        fill.push(0.0);
        GroupSums {
            flipped,
            fill,
            tails: Vec::new(),
        }
    }

    fn push_flipped(&mut self) {
        let j = self.fill.len() - 1;
        self.flipped.push(self.flipped[j] + 1);
        self.fill.push(self.fill[j]);
        for t in &mut self.tails {
            t.push(t[j]);
        }
    }

    /// A clean group of `fill`, with P(D = p - 2i) for i = 0, 1, ...
    fn push_clean(
        &mut self,
        fill: f64,
        weights: impl DoubleEndedIterator<Item = f64> + ExactSizeIterator,
    ) {
        let j = self.fill.len() - 1;
        self.flipped.push(self.flipped[j]);
        self.fill.push(self.fill[j] + fill);
        let n = weights.len();
        while self.tails.len() + 1 < n {
            self.tails.push(vec![0.0; j + 1]);
        }
        // P(D <= p - 2i) = the weights from i on
        let mut tail = vec![0.0; n];
        let mut acc = 0.0;
        for (i, w) in weights.enumerate().rev() {
            acc += w;
            tail[i] = acc;
        }
        for (i, t) in self.tails.iter_mut().enumerate() {
            let x = tail.get(i + 1).copied().unwrap_or(0.0);
            t.push(t[j] + x * (1.0 - fill));
        }
    }
}

/// The theory of a [`TimedSheBloom`] at one moment.
#[derive(Debug, Clone)]
pub struct SheMoment {
    k: u32,
    /// P, the time a phase lasts.
    phase_len: f64,
    /// The moment.
    now: f64,
    /// G.
    groups: u64,
    /// T + P: the offsets' span.
    span: u64,
    /// The mean over groups of a bit seen set.
    fpr_mean: f64,
    sums: GroupSums,
}

impl SheMoment {
    /// o_j, as the filter staggers its groups.
    fn offset(&self, j: u64) -> f64 {
        (self.span * j / self.groups) as f64
    }

    /// The FPR at this moment: a uniform group's bit seen set, k times.
    pub fn fpr(&self) -> f64 {
        self.fpr_mean.powi(self.k as i32)
    }

    /// P(yes) for a key inserted at time `u`: per bit, its own setting
    /// survives when its phase is still shown (D at or before it, same
    /// parity as now), else the others' fill. The groups fall into runs
    /// over which the phase now and the phase at `u` are both constant
    /// (the offsets grow with j), and each run is summed at once.
    pub fn presence(&self, u: f64) -> f64 {
        let phase_at = |at: f64, j: u64| ((at + self.offset(j)) / self.phase_len).floor();
        let g = self.groups;
        let mut total = 0.0;
        let mut a = 0u64;
        while a < g {
            let (p, qu) = (phase_at(self.now, a), phase_at(u, a));
            // the end of the run: the first group with either phase later
            let (mut lo, mut hi) = (a + 1, g);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if phase_at(self.now, mid) > p || phase_at(u, mid) > qu {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            let b = lo;
            let s = &self.sums;
            let (ja, jb) = (a as usize, b as usize);
            let flipped = (s.flipped[jb] - s.flipped[ja]) as f64;
            let fill = s.fill[jb] - s.fill[ja];
            total += if qu >= p {
                // inserted in this phase: nothing has cleared it
                (b - a) as f64
            } else if (p - qu).rem_euclid(2.0) == 0.0 {
                let i = ((p - qu) / 2.0) as usize;
                let shown = s.tails.get(i - 1).map_or(0.0, |t| t[jb] - t[ja]);
                flipped + fill + shown
            } else {
                flipped + fill
            };
            a = b;
        }
        (total / g as f64).powi(self.k as i32)
    }
}

impl Filter for TimedSheBloom {
    fn insert(&mut self, key: u64) {
        let now = self.clock;
        let mut buf = [0u64; crate::error::MAX_HASHES as usize];
        for &c in super::prefetched_cells(&self.bits, key, self.k, self.m, &mut buf) {
            let j = c / self.g;
            let parity = self.phase_of(j, now as i128) & 1 == 1;
            if self.stamps.get(j) != parity {
                self.bits.clear_range(j * self.g, (j + 1) * self.g);
                self.stamps.assign(j, parity);
            }
            self.bits.set(c);
        }
    }

    fn contains(&self, key: u64) -> bool {
        crate::Instrumented::contains_probes(self, key).0
    }

    /// One bit per cell and per group, plus 64 bits for the clock.
    fn memory_bits(&self) -> u64 {
        self.m + self.groups() + 64
    }

    fn name(&self) -> &'static str {
        "she_bloom_time"
    }
}

impl crate::Instrumented for TimedSheBloom {
    fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
        Some(Self::lines_read(self, key))
    }
    /// The answer and the bits read (stopping at the first that counts as
    /// zero).
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        let now = self.clock;
        for i in 0..self.k {
            let c = self.cell(key, i);
            let j = c / self.g;
            if self.flipped(j, now) {
                continue;
            }
            let parity = self.phase_of(j, now as i128) & 1 == 1;
            if self.stamps.get(j) != parity || !self.bits.get(c) {
                return (false, i + 1);
            }
        }
        (true, self.k)
    }

    fn as_timed(&mut self) -> Option<&mut dyn TimedFilter> {
        Some(self)
    }
}

impl TimedFilter for TimedSheBloom {
    /// Moves the clock (the groups are cleared lazily, by insertions).
    fn advance(&mut self, now: u64) {
        self.clock = self.clock.max(now);
    }

    fn now(&self) -> u64 {
        self.clock
    }

    fn window_time(&self) -> u64 {
        self.t
    }

    /// P - T while every group is touched in every phase; a lull of two
    /// phases brings stale keys back (see the module).
    fn slack_time(&self) -> u64 {
        self.phase - self.t
    }
}

crate::persist::codec_struct!(TimedSheBloom {
    t,
    k,
    m,
    g,
    phase,
    bits,
    stamps,
    clock
});

impl crate::persist::sealed::Design for TimedSheBloom {
    fn tag() -> String {
        "she_bloom_time".into()
    }
    fn check(&self) -> Result<(), String> {
        super::check_loaded(
            self.t,
            self.k,
            self.m,
            self.g,
            self.phase,
            self.bits.len(),
            self.stamps.len(),
        )
    }
}

crate::persist::persists!(TimedSheBloom);

#[cfg(test)]
#[path = "timed_tests.rs"]
mod tests;

impl TimedSheBloom {
    /// The answer to a query for `key` and the distinct 64-byte lines
    /// [`contains`](crate::Filter::contains) reads for it (as the
    /// count-based filter's, the phases on the clock of time).
    pub fn lines_read(&self, key: u64) -> (bool, u32) {
        let now = self.clock;
        let mut lines = crate::lines::LineSet::default();
        for i in 0..self.k {
            let c = self.cell(key, i);
            let j = c / self.g;
            if self.flipped(j, now) {
                continue;
            }
            lines.touch(0, j);
            let parity = self.phase_of(j, now as i128) & 1 == 1;
            if self.stamps.get(j) != parity {
                return (false, lines.count());
            }
            lines.touch(1, c);
            if !self.bits.get(c) {
                return (false, lines.count());
            }
        }
        (true, lines.count())
    }
}
