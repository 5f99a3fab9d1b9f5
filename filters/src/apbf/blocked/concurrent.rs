//! The blocked APBF with insertions and queries from many threads at once:
//! [`ConcurrentApbf`], whose `insert`, `contains` and `advance` take `&self`.
//!
//! # How it stays correct
//!
//! The words are atomics: an insertion ORs the key's bit into k words of its
//! block, a query loads the k + l words of its block. One atomic word holds
//! the generation's state, the physical position of the newest slice (the
//! base) and the insertions counted in the generation. An insertion claims
//! its place with one `fetch_add` on that word: the base it gets back is the
//! generation it belongs to, and it writes there. A shift (the insertion
//! that finds the generation full, or an `advance` that finds τ gone) takes
//! a lock that only shifts take, clears the oldest slice (one word per
//! block) and only then publishes the new base, so that an insertion into
//! the new generation never writes before the clear. An insertion that
//! claimed the old base while the shift ran writes into the old
//! generation's k slices, none of which is the slice being cleared (l >= 1):
//! it is as if it had come just before the shift.
//!
//! # The guarantee
//!
//! A key whose insertion returned before a query began is reported, as long
//! as fewer than l shifts have completed between the insertion's claim and
//! the end of the query: for the count trigger, while the key is among the
//! last w = l g insertions (as for [`BlockedApbf`]); for the time trigger,
//! while it is younger than T = lτ; for the hybrid trigger, while
//! ⌊age/τ⌋ + ⌊later insertions/g⌋ < l. Queries never block insertions and
//! never see a torn slice that drops such a key: the only words cleared are
//! those of the oldest slice, which such a key does not need. Single-threaded,
//! every answer is the sequential filter's (tested against [`BlockedApbf`]
//! and [`OnTime`]`<BlockedApbf>`). An insertion that stalls for more than
//! l + 1 generations between its claim and its writes may set bits in a
//! newer generation than its own: that can only add false positives.
//!
//! Shifts serialise on a lock (a few microseconds every g insertions, for
//! clearing B words); insertions and queries take no lock.

use super::{key_bit, mask, multipliers, BlockedApbf, BlockedApbfShape, MAX_SLICES};
use crate::apbf::shared_clock::{SharedClock, Shift};
use crate::hash::{fastrange, KeyHasher};
use crate::timewindow::{OnTime, Trigger};
use crate::ParamError;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering::*};

/// What a filter holds beside its shape, as plain numbers: an empty
/// filter's, a snapshot's (`persist`), a loaded file's.
struct State {
    words: Vec<u64>,
    base: u64,
    count: u64,
    inserted: u64,
    start: u64,
    now: u64,
}

const COUNT_BITS: u32 = 56;
const COUNT_MASK: u64 = (1 << COUNT_BITS) - 1;

fn pack(base: u64, count: u64) -> u64 {
    base << COUNT_BITS | count
}

fn unpack(state: u64) -> (u64, u64) {
    (state >> COUNT_BITS, state & COUNT_MASK)
}

/// A blocked Age-Partitioned Bloom filter shared by many threads (see the
/// module documentation for what it guarantees under concurrent shifts).
///
/// ```
/// use bloomlab_filters::{ConcurrentApbf, Target};
/// use std::sync::Arc;
/// let f: ConcurrentApbf = Target::window(10_000).fpr(1e-3).seed(7).build().unwrap();
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
pub struct ConcurrentApbf {
    k: u32,
    l: u32,
    g: u64,
    blocks: u64,
    words: Box<[AtomicU64]>,
    mult: Box<[u64; MAX_SLICES as usize]>,
    simd: bool,
    /// The base (top 8 bits) and the insertions in the generation.
    state: AtomicU64,
    inserted: AtomicU64,
    /// The trigger, the clock and the shift lock.
    clock: SharedClock,
    hasher: KeyHasher,
}

impl ConcurrentApbf {
    /// An empty filter of `shape` (as [`BlockedApbf::new`] takes it), its
    /// generations ended every g insertions (a window of l g insertions),
    /// keys hashed with seed 0 (see [`with_seed`](Self::with_seed)).
    pub fn new(shape: BlockedApbfShape) -> Result<Self, ParamError> {
        let (k, l, g, blocks) = shape.resolve()?;
        Self::with_shift(k, l, g, blocks, Shift::Count, 0)
    }

    /// An empty filter of `shape` whose generations are ended by `trigger`
    /// with τ = `generation_ticks` clock ticks: every key younger than
    /// T = lτ is reported under [`Trigger::Time`] whatever the arrivals
    /// (see the module docs for [`Trigger::Hybrid`]). Most callers size it
    /// with [`Target`](crate::build::Target) instead.
    pub fn timed(
        shape: BlockedApbfShape,
        generation_ticks: u64,
        trigger: Trigger,
    ) -> Result<Self, ParamError> {
        let (k, l, g, blocks) = shape.resolve()?;
        let shift = Shift::timed(trigger, generation_ticks, k as u64 + l as u64)?;
        Self::with_shift(k, l, g, blocks, shift, 0)
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

    pub(crate) fn with_shift(
        k: u32,
        l: u32,
        g: u64,
        blocks: u64,
        shift: Shift,
        seed: u64,
    ) -> Result<Self, ParamError> {
        let words = BlockedApbf::shape(k, l, g, blocks)? * 8;
        let empty = State {
            words: vec![0; words],
            base: 0,
            count: 0,
            inserted: 0,
            start: 0,
            now: 0,
        };
        let shape = (k, l, g, blocks);
        Ok(Self::assemble(shape, shift, KeyHasher::new(seed), empty))
    }

    /// The filter of `shape` (k, l, g, B), checked by the caller, holding
    /// `state`: the one place the struct is put together (a new filter, a
    /// clone, a loaded one).
    fn assemble(
        (k, l, g, blocks): (u32, u32, u64, u64),
        shift: Shift,
        hasher: KeyHasher,
        state: State,
    ) -> Self {
        ConcurrentApbf {
            k,
            l,
            g,
            blocks,
            words: state.words.into_iter().map(AtomicU64::new).collect(),
            mult: multipliers(),
            simd: crate::cpu::avx512(),
            state: AtomicU64::new(pack(state.base, state.count)),
            inserted: AtomicU64::new(state.inserted),
            clock: SharedClock::new(shift, state.start, state.now),
            hasher,
        }
    }

    /// Sized as [`BlockedApbf::sizing`] for a window of `window`
    /// insertions, generations ended on count. A window of time goes
    /// through [`Target::time`](crate::build::Target::time).
    pub(crate) fn with_fpr(window: u64, fpr: f64) -> Result<Self, ParamError> {
        Self::new(BlockedApbf::sizing(window, fpr)?.into())
    }

    fn slices(&self) -> u64 {
        self.k as u64 + self.l as u64
    }

    /// Records `key` (any `Hash` type, through this filter's hasher).
    pub fn insert<T: Hash + ?Sized>(&self, key: &T) {
        self.insert_hash(self.hasher.hash(key))
    }

    /// Whether `key` is reported present.
    pub fn contains<T: Hash + ?Sized>(&self, key: &T) -> bool {
        self.contains_hash(self.hasher.hash(key))
    }

    /// Records a key the caller hashed itself.
    pub fn insert_hash(&self, key: u64) {
        let by_count = self.clock.by_count();
        let base = loop {
            let (base, count) = unpack(self.state.fetch_add(1, AcqRel));
            if !(by_count && count >= self.g) {
                break base;
            }
            self.shift_full(base);
        };
        self.inserted.fetch_add(1, Relaxed);
        let start = fastrange(key, self.blocks) * self.slices();
        let slices = self.slices();
        for i in 0..self.k as u64 {
            let p = (base + i) % slices;
            let bit = key_bit(key, self.mult[p as usize]);
            self.words[(start + p) as usize].fetch_or(bit, Relaxed);
        }
    }

    /// Whether a key the caller hashed itself is reported present.
    pub fn contains_hash(&self, key: u64) -> bool {
        let (base, _) = unpack(self.state.load(Acquire));
        let slices = self.slices() as usize;
        let start = (fastrange(key, self.blocks) * self.slices()) as usize;
        let mut block = [0u64; MAX_SLICES as usize];
        for (b, w) in block[..slices]
            .iter_mut()
            .zip(&self.words[start..start + slices])
        {
            *b = w.load(Relaxed);
        }
        let physical = mask::physical(&block[..slices], &self.mult, key, self.simd);
        let doubled = physical as u128 | (physical as u128) << slices;
        let run = (doubled >> base) as u64 & (u64::MAX >> (64 - slices));
        crate::apbf::has_run(run, self.k)
    }

    /// Moves the clock to `now` (never back) and makes the shifts due by
    /// then, or waits for the thread making them: an insertion after this
    /// returns is in a generation begun within τ of `now`. Does nothing for
    /// count generations.
    pub fn advance(&self, now: u64) {
        self.clock.advance(now, self.slices(), || {
            self.shift_locked(|_| true);
        });
    }

    /// The shift an insertion that found generation `base` full makes (or
    /// finds made).
    fn shift_full(&self, base: u64) {
        let _guard = self.clock.lock();
        let g = self.g;
        if self.shift_locked(|(b, count)| b == base && count >= g) {
            self.clock.restart();
        }
    }

    /// Under the shift lock: clears the oldest slice and publishes it as the
    /// newest with no insertions, if `still` holds of the state; returns
    /// whether it shifted.
    fn shift_locked(&self, still: impl Fn((u64, u64)) -> bool) -> bool {
        let (base, count) = unpack(self.state.load(Acquire));
        if !still((base, count)) {
            return false;
        }
        let slices = self.slices();
        let newest = (base + slices - 1) % slices;
        let mut w = newest as usize;
        for _ in 0..self.blocks {
            self.words[w].store(0, Relaxed);
            w += slices as usize;
        }
        // insertions claiming the old base meanwhile are in the old
        // generation; the new one starts empty
        let mut cur = self.state.load(Acquire);
        while let Err(now) = self
            .state
            .compare_exchange_weak(cur, pack(newest, 0), AcqRel, Acquire)
        {
            cur = now;
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

    /// Blocks B.
    pub fn blocks(&self) -> u64 {
        self.blocks
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
    /// under the time trigger, whatever the arrivals (None for the count
    /// trigger; the hybrid's condition is in the module docs).
    pub fn window_time(&self) -> Option<u64> {
        self.tau().map(|t| self.l as u64 * t)
    }

    /// How much longer than T a key may still be reported: kτ (None for
    /// the count trigger).
    pub fn slack_time(&self) -> Option<u64> {
        self.tau().map(|t| self.k as u64 * t)
    }

    /// The slack over a window of insertions: k·g (count trigger), as
    /// [`BlockedApbf`]'s.
    pub fn slack(&self) -> u64 {
        self.k as u64 * self.g
    }

    /// The clock: the latest time it was advanced to.
    pub fn now(&self) -> u64 {
        self.clock.now()
    }

    /// When the current generation began (time triggers).
    pub fn generation_start(&self) -> u64 {
        self.clock.start()
    }

    /// Bits of state: the words, and 64 each for the state word, the clock
    /// and the generation's start.
    pub fn memory_bits(&self) -> u64 {
        self.words.len() as u64 * 64 + 3 * 64
    }

    /// The hasher keys go through.
    pub fn hasher(&self) -> KeyHasher {
        self.hasher
    }

    /// The sequential filter with the same state, for a count trigger (or
    /// the count-based filter under a time trigger's generations). Take it
    /// when no insertion is running: words written meanwhile may or may not
    /// be in it.
    pub fn to_blocked(&self) -> BlockedApbf {
        let mut f = BlockedApbf::new(crate::BlockedApbfShape {
            hashes: self.k,
            extra_slices: self.l,
            generation: self.g,
            blocks: Some(self.blocks),
        })
        .expect("a valid shape");
        for (d, s) in f.words_mut().iter_mut().zip(self.words.iter()) {
            *d = s.load(Acquire);
        }
        let (base, count) = unpack(self.state.load(Acquire));
        f.base = base as u32;
        f.count = count;
        f.inserted = self.inserted();
        f
    }

    /// For a time trigger, the sequential [`OnTime`] filter with the same
    /// state (see [`to_blocked`](Self::to_blocked)).
    pub fn to_on_time(&self) -> Option<OnTime<BlockedApbf>> {
        let trigger = self.trigger()?;
        let mut f = OnTime::wrap(self.to_blocked(), self.clock.tau_or_zero(), trigger)
            .expect("a valid shape");
        f.set_clock(self.clock.start(), self.clock.now());
        Some(f)
    }
}

/// The contract, for generic code: `insert` through `&mut self` (the
/// inherent `insert`, `contains` on `&self` take any `Hash` key).
impl crate::Filter for ConcurrentApbf {
    fn insert(&mut self, key: u64) {
        self.insert_hash(key)
    }
    fn contains(&self, key: u64) -> bool {
        self.contains_hash(key)
    }
    fn memory_bits(&self) -> u64 {
        ConcurrentApbf::memory_bits(self)
    }
    fn name(&self) -> &'static str {
        "concurrent_blocked_apbf"
    }
}

mod persist;

#[cfg(test)]
pub(crate) mod tests;
