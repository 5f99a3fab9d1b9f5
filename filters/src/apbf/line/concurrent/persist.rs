//! The concurrent line APBF saved, loaded and turned into the sequential
//! filter: a consistent snapshot taken under the shift lock while other
//! threads write, and the invariants a loaded filter must hold.

use super::{
    base_of, epoch, sequential_line, stamp_of, unpack, ConcurrentLineApbf, COUNT_MASK, LOCK,
};
use crate::apbf::line::{lane_words, newest_words, LineApbf, MAX_SLICES, SWEEP};
use crate::apbf::shared_clock::Shift;
use crate::hash::KeyHasher;
use crate::lines::Line;
use crate::persist::{ensure, Codec, LoadError, Reader, Writer};
use crate::timewindow::OnTime;
use std::sync::atomic::Ordering::*;

/// What a filter holds beside its shape, as plain numbers: an empty
/// filter's, a snapshot's (`persist`), a loaded file's.
pub(crate) struct State {
    pub(crate) lines: Vec<Line>,
    pub(crate) phase: u64,
    pub(crate) count: u64,
    pub(crate) inserted: u64,
    pub(crate) start: u64,
    pub(crate) now: u64,
}

impl ConcurrentLineApbf {
    /// The state, copied under the shift lock: no generation begins while
    /// it is read, so every key whose insertion returned before the copy
    /// began is in it (later insertions may or may not be, and only add
    /// bits). A line whose clean is under way is copied with its old stamp
    /// (its lock dropped), whose pending lanes the copy masks out as the
    /// original does. The clock is the one of the last completed shift.
    pub(super) fn snapshot(&self) -> State {
        let _guard = self.clock.lock();
        let (phase, claimed) = unpack(self.state.load(Acquire));
        let lines = self
            .lines
            .iter()
            .map(|line| Line(std::array::from_fn(|w| line.0[w].load(Acquire))))
            .map(|mut line| {
                line.0[7] &= !LOCK;
                line
            })
            .collect();
        let (start, now) = self.clock.snapshot();
        State {
            lines,
            phase,
            // insertions that claimed a place meanwhile and were counted
            // past g before their shift: at most g in the copy
            count: match self.clock.shift() {
                Shift::Count | Shift::Hybrid(_) => claimed.min(self.g),
                Shift::Time(_) => self.timed_count.load(Acquire),
            },
            inserted: self.inserted(),
            start,
            now,
        }
    }

    /// The sequential filter with the same state, for a count trigger (or
    /// the count-based filter under a time trigger's generations). Take it
    /// when no insertion is running: lines written meanwhile may or may not
    /// be in it. Its generation number is the phase (the generation modulo
    /// (k + l)·2^15), which gives the same slices and stamps.
    pub fn to_line(&self) -> LineApbf {
        let s = self.snapshot();
        let n = self.slices();
        let mut f = LineApbf::new(crate::LineApbfShape {
            hashes: self.k,
            extra_slices: self.l,
            generation: self.g,
            lines: Some(self.line_count),
        })
        .expect("a valid shape");
        for (d, line) in f.lines.iter_mut().zip(&s.lines) {
            *d = sequential_line(line, s.phase);
        }
        f.base = base_of(s.phase, n);
        f.newest = newest_words(self.k, self.l, f.base);
        f.generation = s.phase;
        f.count = s.count;
        f.inserted = s.inserted;
        f
    }

    /// For a time trigger, the sequential [`OnTime`] filter with the same
    /// state (see [`to_line`](Self::to_line)).
    pub fn to_on_time(&self) -> Option<OnTime<LineApbf>> {
        let trigger = self.trigger()?;
        let tau = self.clock.tau_or_zero();
        let mut f = OnTime::wrap(self.to_line(), tau, trigger).expect("a valid shape");
        let (start, now) = {
            let _guard = self.clock.lock();
            self.clock.snapshot()
        };
        f.set_clock(start, now);
        Some(f)
    }
}

/// A consistent copy, taken as [`Persist::to_bytes`](crate::Persist) takes
/// it: safe while other threads write (see the module docs).
impl Clone for ConcurrentLineApbf {
    fn clone(&self) -> Self {
        let shape = (self.k, self.l, self.g, self.line_count);
        Self::assemble(shape, self.clock.shift(), self.hasher, self.snapshot())
    }
}

impl Codec for ConcurrentLineApbf {
    /// A consistent snapshot, taken while other threads may insert, query
    /// and advance: `to_bytes` needs no pause of the writers.
    fn put(&self, w: &mut Writer) {
        let s = self.snapshot();
        (self.k, self.l).put(w);
        (self.g, self.line_count).put(w);
        self.clock.shift().put(w);
        self.hasher.seed().put(w);
        s.lines.put(w);
        (s.phase, s.count).put(w);
        s.inserted.put(w);
        (s.start, s.now).put(w);
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, LoadError> {
        let (k, l): (u32, u32) = Codec::get(r)?;
        let (g, line_count): (u64, u64) = Codec::get(r)?;
        let shift = Shift::get(r)?;
        let seed = u64::get(r)?;
        let lines = Vec::<Line>::get(r)?;
        let (phase, count): (u64, u64) = Codec::get(r)?;
        let inserted = u64::get(r)?;
        let (start, now): (u64, u64) = Codec::get(r)?;
        Self::check(k, l, g, line_count).map_err(|e| LoadError::Invalid(e.to_string()))?;
        if lines.len() as u64 != line_count || phase >= ((k + l) as u64) << super::EPOCH_BITS {
            return Err(LoadError::Invalid("lines or phase out of shape".into()));
        }
        // a count trigger's claims are packed in the state word
        if !matches!(shift, Shift::Time(_)) && count > COUNT_MASK {
            return Err(LoadError::Invalid("count out of range".into()));
        }
        let state = State {
            lines,
            phase,
            count,
            inserted,
            start,
            now,
        };
        let shape = (k, l, g, line_count);
        Ok(Self::assemble(shape, shift, KeyHasher::new(seed), state))
    }
}

impl crate::persist::sealed::Design for ConcurrentLineApbf {
    fn tag() -> String {
        "concurrent_line_apbf".into()
    }
    fn check(&self) -> Result<(), String> {
        self.clock.check(self.k, self.l, self.g)?;
        let n = self.slices();
        let (phase, _) = unpack(self.state.load(Relaxed));
        // every stamp at most the generations since the last sweep behind
        // (and never ahead), no line locked, and no bit in a lane no slice
        // owns (n .. 30)
        let since_sweep = phase % SWEEP;
        let unused = lane_words(((1u64 << MAX_SLICES) - (1u64 << n)) as u32);
        for (i, line) in self.lines.iter().enumerate() {
            let words: [u64; 8] = std::array::from_fn(|w| line.0[w].load(Relaxed));
            let stamp = stamp_of(words[7]);
            let d = epoch(phase).wrapping_sub(stamp) & super::EPOCH_MASK;
            ensure(d <= since_sweep && words[7] & LOCK == 0, || {
                format!("line {i}: stamp {stamp} at phase {phase}")
            })?;
            ensure(words.iter().zip(unused).all(|(w, u)| w & u == 0), || {
                format!("line {i}: bits in lanes past k + l = {n}")
            })?;
        }
        Ok(())
    }
}

// Saves a consistent snapshot, taken while other threads may write (see
// `Codec` above); loads as an idle filter.
crate::persist::persists!(ConcurrentLineApbf);
