//! The line APBF with insertions and queries from many threads at once:
//! [`ConcurrentLineApbf`], whose `insert`, `contains` and `advance` take
//! `&self`. Every insertion and query still touches one 64-byte line.
//!
//! # How it stays correct
//!
//! A line is eight atomic words. One atomic word holds the generation's
//! state: its *phase* (the generation number modulo (k + l)·2^15, which
//! gives both the physical lane of the newest slice and the generation
//! modulo 2^15 that lines are stamped with) and the insertions counted in
//! it. An insertion claims its place with one `fetch_add` on that word (the
//! time trigger only reads it), exactly as [`ConcurrentApbf`]'s do. A shift
//! takes the shift lock and publishes the next phase: it touches no line.
//!
//! Clearing stays lazy, as in [`LineApbf`]: lane 31 of a line holds, in
//! its low 15 bits, the generation the line is clean up to, and in its top
//! bit a lock. An insertion that finds its line behind its generation
//! takes the line's lock (one compare-and-swap on the line's last word),
//! clears the lanes retired since the stamp *as of the newest generation*
//! (read again under the lock, so that an insertion stalled in an old
//! generation never clears a live lane), and releases the lock with the new
//! stamp in the same compare-and-swap. Other insertions into that line wait
//! for that one line's update; a query never waits and never writes: it
//! reads the line's eight words and masks out the lanes its stamp says are
//! pending, as the sequential filter does.
//!
//! # The guarantee
//!
//! As [`ConcurrentApbf`]'s: a key whose insertion returned before a query
//! began is reported, as long as fewer than l shifts have completed between
//! the insertion's claim and the end of the query (for the count trigger,
//! while the key is among the last w = l g insertions; for the time
//! trigger, while it is younger than T = lτ; for the hybrid trigger, while
//! ⌊age/τ⌋ + ⌊later insertions/g⌋ < l). The lanes a clean clears are the
//! ones retired since the line's stamp, which such a key does not use, and
//! a stamp only moves forward, so a query masks out none of the key's
//! lanes. Single-threaded, every answer is the sequential filter's (tested
//! against [`LineApbf`] and [`OnTime`](crate::OnTime)`<LineApbf>`). An insertion that
//! stalls for more than l + 1 generations between its claim and its writes
//! may set bits in a newer generation than its own: that can only add false
//! positives.
//!
//! Every [`SWEEP`] generations the shift that begins one cleans every line
//! (each under its lock, as an insertion would), so that the 15-bit stamp
//! never wraps; the next shift waits for it, insertions and queries do not.
//!
//! [`ConcurrentApbf`]: crate::ConcurrentApbf

use super::{lane_words, low_bits, position, positions, rotl, simd, Runs, SWEEP};
use super::{LineApbf, LineApbfShape, MAX_SLICES};
use crate::apbf::shared_clock::{SharedClock, Shift};
use crate::hash::{fastrange, KeyHasher};
use crate::lines::Line;
use crate::timewindow::Trigger;
use crate::ParamError;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering::*};

/// A line APBF shared by many threads (see the module documentation for
/// what it guarantees under concurrent shifts).
///
/// ```
/// use bloomlab_filters::{ConcurrentLineApbf, Target};
/// use std::sync::Arc;
/// let f: ConcurrentLineApbf = Target::window(10_000).fpr(1e-3).seed(7).build().unwrap();
/// let f = Arc::new(f);
/// let writers: Vec<_> = (0..4u64)
///     .map(|t| {
///         let f = Arc::clone(&f);
///         std::thread::spawn(move || {
///             for i in 0..1000u64 {
///                 f.insert(&format!("evt-{t}-{i}"));
///             }
///         })
///     })
///     .collect();
/// writers.into_iter().for_each(|w| w.join().unwrap());
/// assert!(f.contains("evt-3-999"));
/// ```
#[derive(Debug)]
pub struct ConcurrentLineApbf {
    k: u32,
    l: u32,
    g: u64,
    line_count: u64,
    lines: Box<[AtomicLine]>,
    /// The phase (top 20 bits) and the insertions claimed in the generation.
    state: AtomicU64,
    /// Insertions in the generation under the time trigger (whose claims
    /// only read `state`).
    timed_count: AtomicU64,
    inserted: AtomicU64,
    runs: Runs,
    simd: bool,
    /// The trigger, the clock and the shift lock.
    clock: SharedClock,
    hasher: KeyHasher,
}

impl ConcurrentLineApbf {
    /// An empty filter of `shape` (as [`LineApbf::new`] takes it), its
    /// generations ended every g insertions (a window of l g insertions),
    /// keys hashed with seed 0 (see [`with_seed`](Self::with_seed)).
    pub fn new(shape: LineApbfShape) -> Result<Self, ParamError> {
        Self::with_shift(shape, Shift::Count)
    }

    /// An empty filter of `shape` whose generations are ended by `trigger`
    /// with τ = `generation_ticks` clock ticks: every key younger than
    /// T = lτ is reported under [`Trigger::Time`] whatever the arrivals
    /// (see the module docs for [`Trigger::Hybrid`]). Most callers size it
    /// with [`Target`](crate::build::Target) instead.
    pub fn timed(
        shape: LineApbfShape,
        generation_ticks: u64,
        trigger: Trigger,
    ) -> Result<Self, ParamError> {
        let (k, l, _, _) = shape.resolve()?;
        let shift = Shift::timed(trigger, generation_ticks, k as u64 + l as u64)?;
        Self::with_shift(shape, shift)
    }

    /// The same filter hashing keys under `seed`: a secret seed keeps an
    /// adversary from choosing keys that collide.
    ///
    /// # Panics
    /// If the filter already holds keys (they were hashed under the old
    /// seed and would be lost).
    pub fn with_seed(mut self, seed: u64) -> Self {
        assert_eq!(
            *self.inserted.get_mut(),
            0,
            "with_seed on a filter that holds keys"
        );
        self.hasher = KeyHasher::new(seed);
        self
    }

    fn with_shift(shape: LineApbfShape, shift: Shift) -> Result<Self, ParamError> {
        let (k, l, g, lines) = shape.resolve()?;
        Self::check(k, l, g, lines)?;
        let empty = State {
            lines: vec![Line::default(); lines as usize],
            phase: 0,
            count: 0,
            inserted: 0,
            start: 0,
            now: 0,
        };
        Ok(Self::assemble(
            (k, l, g, lines),
            shift,
            KeyHasher::new(0),
            empty,
        ))
    }

    /// The sequential filter's checks, and g within [`MAX_CONCURRENT_G`].
    fn check(k: u32, l: u32, g: u64, lines: u64) -> Result<(), ParamError> {
        LineApbf::check_shape(k, l, g, lines)?;
        if g > MAX_CONCURRENT_G {
            return Err(ParamError::TooLarge {
                what: "g",
                limit: "2^43".into(),
            });
        }
        Ok(())
    }

    /// The filter of (k, l, g, L), checked by the caller, holding `state`:
    /// the one place the struct is put together (a new filter, a clone, a
    /// loaded one).
    fn assemble(
        (k, l, g, line_count): (u32, u32, u64, u64),
        shift: Shift,
        hasher: KeyHasher,
        state: State,
    ) -> Self {
        let lines = state
            .lines
            .iter()
            .map(|line| AtomicLine(line.0.map(AtomicU64::new)))
            .collect();
        let (claimed, timed) = match shift {
            Shift::Time(_) => (0, state.count),
            Shift::Count | Shift::Hybrid(_) => (state.count, 0),
        };
        ConcurrentLineApbf {
            k,
            l,
            g,
            line_count,
            lines,
            state: AtomicU64::new(pack(state.phase, claimed)),
            timed_count: AtomicU64::new(timed),
            inserted: AtomicU64::new(state.inserted),
            runs: Runs::of(k, l),
            simd: crate::cpu::avx2(),
            clock: SharedClock::new(shift, state.start, state.now),
            hasher,
        }
    }

    fn slices(&self) -> u32 {
        self.k + self.l
    }

    /// Generations modulo which the phase counts: (k + l)·2^15.
    fn period(&self) -> u64 {
        (self.slices() as u64) << EPOCH_BITS
    }

    fn line(&self, key: u64) -> &AtomicLine {
        &self.lines[fastrange(key, self.line_count) as usize]
    }

    /// Records `key` (any `Hash` type, through this filter's hasher).
    pub fn insert<T: Hash + ?Sized>(&self, key: &T) {
        self.insert_hash(self.hasher.hash(key))
    }

    /// Whether `key` is reported present.
    pub fn contains<T: Hash + ?Sized>(&self, key: &T) -> bool {
        self.contains_hash(self.hasher.hash(key))
    }

    /// Records a key the caller hashed itself: one line cleaned if it is
    /// behind, then the key's bits ORed into its k newest lanes.
    pub fn insert_hash(&self, key: u64) {
        let phase = self.claim();
        self.inserted.fetch_add(1, Relaxed);
        let n = self.slices();
        let line = self.line(key);
        let w7 = line.0[7].load(Acquire);
        if epoch(phase) != stamp_of(w7) {
            self.clean(line);
        }
        let (a, b) = positions(key);
        let base = base_of(phase, n);
        let mut bits = [0u64; 8];
        for i in 0..self.k {
            let p = if base + i >= n {
                base + i - n
            } else {
                base + i
            };
            bits[(p / 4) as usize] |= 1u64 << (16 * (p % 4) + position(a, b, p));
        }
        for (w, bits) in line.0.iter().zip(bits) {
            if bits != 0 {
                w.fetch_or(bits, Relaxed);
            }
        }
    }

    /// Whether a key the caller hashed itself is reported present: the
    /// key's line read once, its pending lanes masked out.
    pub fn contains_hash(&self, key: u64) -> bool {
        let (phase, _) = unpack(self.state.load(Acquire));
        let line = self.line(key);
        let words: [u64; 8] = std::array::from_fn(|w| line.0[w].load(Relaxed));
        let (a, b) = positions(key);
        let n = self.slices();
        let d = behind(epoch(phase), stamp_of(words[7]), n);
        self.runs
            .decide(self.hits(&words, a, b), base_of(phase, n), d)
    }

    /// The line's hits, on the AVX2 path where the processor has it.
    #[inline(always)]
    fn hits(&self, words: &[u64; 8], a: u64, b: u64) -> u32 {
        #[cfg(target_arch = "x86_64")]
        if self.simd {
            // SAFETY: `simd` is set only where AVX2 was detected.
            return unsafe { simd::avx2::hits(words, a, b) };
        }
        simd::hits_portable(words, a, b)
    }

    /// The phase an insertion belongs to: claimed by one `fetch_add` (the
    /// count and hybrid triggers, making the shift when the generation is
    /// full), read (the time trigger).
    fn claim(&self) -> u64 {
        if !self.clock.by_count() {
            self.timed_count.fetch_add(1, Relaxed);
            return unpack(self.state.load(Acquire)).0;
        }
        loop {
            let (phase, count) = unpack(self.state.fetch_add(1, AcqRel));
            if count < self.g {
                return phase;
            }
            self.shift_full(phase);
        }
    }

    /// Brings `line` up to the newest generation: under the line's lock,
    /// the lanes retired since its stamp cleared, and the stamp moved.
    /// Returns at once when the line is clean (or ahead); waits while
    /// another thread holds the lock.
    fn clean(&self, line: &AtomicLine) {
        let n = self.slices();
        let mut spins = 0u32;
        loop {
            let w7 = line.0[7].load(Acquire);
            let (phase, _) = unpack(self.state.load(Acquire));
            let d = behind(epoch(phase), stamp_of(w7), n);
            if d == 0 {
                return;
            }
            if w7 & LOCK != 0 {
                spins += 1;
                if spins.is_multiple_of(64) {
                    std::thread::yield_now();
                } else {
                    std::hint::spin_loop();
                }
                continue;
            }
            let locked = line.0[7].compare_exchange_weak(w7, w7 | LOCK, Acquire, Relaxed);
            if locked.is_err() {
                continue;
            }
            let stale = lane_words(rotl(low_bits(d), base_of(phase, n), n) as u32);
            for (w, c) in line.0[..7].iter().zip(stale) {
                if c != 0 {
                    w.fetch_and(!c, Relaxed);
                }
            }
            // lanes 28-30 may take ORs meanwhile: release by compare-and-swap
            let mut cur = w7 | LOCK;
            loop {
                let new = (cur & !stale[7] & !(STAMP | LOCK)) | epoch(phase) << STAMP_SHIFT;
                match line.0[7].compare_exchange_weak(cur, new, Release, Relaxed) {
                    Ok(_) => return,
                    Err(now) => cur = now,
                }
            }
        }
    }

    /// Moves the clock to `now` (never back) and makes the shifts due by
    /// then, or waits for the thread making them: an insertion after this
    /// returns is in a generation begun within τ of `now`. Does nothing for
    /// count generations.
    pub fn advance(&self, now: u64) {
        self.clock.advance(now, self.slices() as u64, || {
            self.shift_locked(|_| true);
        });
    }

    /// The shift an insertion that found generation `phase` full makes (or
    /// finds made).
    fn shift_full(&self, phase: u64) {
        let _guard = self.clock.lock();
        let g = self.g;
        if self.shift_locked(|(p, count)| p == phase && count >= g) {
            self.clock.restart();
        }
    }

    /// Under the shift lock: publishes the next phase with no insertions,
    /// if `still` holds of the state, and sweeps every line when the new
    /// generation is a multiple of [`SWEEP`]; returns whether it shifted.
    fn shift_locked(&self, still: impl Fn((u64, u64)) -> bool) -> bool {
        let (phase, count) = unpack(self.state.load(Acquire));
        if !still((phase, count)) {
            return false;
        }
        let next = (phase + 1) % self.period();
        // insertions claiming the old phase meanwhile are in the old
        // generation; the new one starts empty
        self.state.swap(pack(next, 0), AcqRel);
        self.timed_count.store(0, Relaxed);
        if next.is_multiple_of(SWEEP) {
            for line in self.lines.iter() {
                self.clean(line);
            }
        }
        true
    }

    /// Insertions so far.
    pub fn inserted(&self) -> u64 {
        self.inserted.load(Relaxed)
    }

    /// The window: l g insertions for count generations, lτ time units
    /// otherwise.
    pub fn window(&self) -> u64 {
        self.clock.window(self.l, self.g)
    }

    /// The slack over a window of insertions: k·g (count trigger).
    pub fn slack(&self) -> u64 {
        self.k as u64 * self.g
    }

    /// k: slices a key is written to.
    pub fn k(&self) -> u32 {
        self.k
    }

    /// l: generations a key is kept for (the window is l generations).
    pub fn l(&self) -> u32 {
        self.l
    }

    /// g: insertions a generation is sized for (and, for the count and
    /// hybrid triggers, the most it holds).
    pub fn g(&self) -> u64 {
        self.g
    }

    /// L: 64-byte lines.
    pub fn line_count(&self) -> u64 {
        self.line_count
    }

    /// τ: the longest a generation lasts, in clock ticks (None for the
    /// count trigger).
    pub fn tau(&self) -> Option<u64> {
        self.clock.tau()
    }

    /// What ends a generation besides g insertions: None for count
    /// generations, else the trigger (with τ, [`tau`](Self::tau)).
    pub fn trigger(&self) -> Option<Trigger> {
        self.clock.trigger()
    }

    /// T = lτ: every key younger than this (in clock ticks) is reported
    /// under the time trigger (None for the count trigger).
    pub fn window_time(&self) -> Option<u64> {
        self.tau().map(|t| self.l as u64 * t)
    }

    /// The clock: the latest time it was advanced to.
    pub fn now(&self) -> u64 {
        self.clock.now()
    }

    /// When the current generation began (time triggers).
    pub fn generation_start(&self) -> u64 {
        self.clock.start()
    }

    /// Bits of state: 512 per line, and 64 each for the state word, the
    /// time trigger's count, the clock and the generation's start.
    pub fn memory_bits(&self) -> u64 {
        self.line_count * 512 + 4 * 64
    }

    /// The hasher keys go through.
    pub fn hasher(&self) -> KeyHasher {
        self.hasher
    }

    /// The theory of this configuration (the sequential filter's).
    pub fn theory(&self) -> super::LineTheory {
        super::LineTheory {
            k: self.k,
            l: self.l,
            g: self.g,
            lines: self.line_count,
        }
    }
}

/// The contract, for generic code: `insert` through `&mut self` (the
/// inherent `insert`, `contains` on `&self` take any `Hash` key).
impl crate::Filter for ConcurrentLineApbf {
    fn insert(&mut self, key: u64) {
        self.insert_hash(key)
    }
    fn contains(&self, key: u64) -> bool {
        self.contains_hash(key)
    }
    fn memory_bits(&self) -> u64 {
        ConcurrentLineApbf::memory_bits(self)
    }
    fn name(&self) -> &'static str {
        "concurrent_line_apbf"
    }
}

mod persist;
use persist::State;
mod word;
pub use word::MAX_CONCURRENT_G;
use word::*;

#[cfg(test)]
mod tests;
