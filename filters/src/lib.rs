//! # bloomlab-filters
//!
//! Sliding-window approximate-membership filters, the baselines their papers
//! compare against, and next to each design its theory: the closed forms and
//! recursions for false-positive rate, slack, probability-weighted slack,
//! memory and query cost, derived from the papers and tested against
//! simulation.
//!
//! ## Using a filter
//!
//! Every design implements [`Filter`] (insert, contains, memory, name);
//! designs that forget implement [`SlidingFilter`] (a window of insertions)
//! or [`TimedFilter`] (a window of time, driven by
//! [`advance`](TimedFilter::advance)). [`Keyed`] takes keys of any `Hash`
//! type through a platform-stable hasher; every design saves and loads
//! through [`Persist`] (the crate's own checked format, see [`persist`]; with
//! the `serde` feature also `Serialize`/`Deserialize`); every design is
//! `Send + Sync`, and [`ConcurrentApbf`]
//! takes insertions and queries from many threads at once.
//!
//! A design is sized by [`Target`] from what the application knows (a
//! window and an FPR), or given its exact shape by `new` and a struct of
//! named fields ([`ApbfShape`], ...): [`build`] lists the words the shapes
//! use for the papers' letters.
//!
//! ```
//! use bloomlab_filters::{Apbf, ApbfShape, Keyed, Persist, SlidingFilter, Target};
//! let sized: Apbf = Target::window(7000).fpr(1e-3).build().unwrap();
//! let shaped = Apbf::new(ApbfShape { hashes: 10, extra_slices: 7, generation: 1000 }).unwrap();
//! assert!(sized.window() >= 7000); // (k, l) of fewest bits: (14, 32), g = 219
//! assert_eq!((shaped.window(), shaped.slack()), (7000, 10_000)); // l g, k g
//! let mut f = Keyed::new(sized, 7);
//! f.insert("alice");
//! assert!(f.contains("alice"));
//! assert!(f.filter().window() >= 7000); // guaranteed with no false negatives
//! let saved = f.to_bytes();
//! assert!(Keyed::<Apbf>::from_bytes(&saved).unwrap().contains("alice"));
//! ```
//!
//! `docs/adopting.md` in the repository walks through choosing a design
//! with `bloomlab plan`, building it, string keys, time, threads, saving
//! and upgrading; `examples/dedup.rs` (in this crate, `filters/examples/` in the repository) is the whole of it in one program.
//!
//! ## What the harness measures
//!
//! [`Instrumented`] holds what the bloomlab harness reads beside the
//! contract (probe counts, cell statistics). Sliding-window *measurement*
//! (per-flow frequency, distinct count, entropy) goes through the
//! capability traits of [`summary`]: SWAMP implements all three beside
//! [`Filter`], and its baselines ([`Wcss`], [`SlidingHll`], [`Swlc`]) the ones
//! they answer. Adaptive filters (the [`broom`] filter) also implement
//! [`AdaptiveFilter`], through which they learn of their false positives.
//!
//! The crate knows nothing of the harness: it depends on a hash (and, with
//! the `serde` feature, serde).

#![warn(missing_docs)]

/// The adopter's guide's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/adopting.md")]
mod adopting_guide {}

pub mod apbf;
pub(crate) mod bits;
pub mod bloom;
pub mod broom;
pub mod build;
pub(crate) mod clock;
pub mod clock_sketch;
pub(crate) mod cpu;
pub mod designs;
pub(crate) mod divide;
mod error;
pub mod half_sliding;
pub mod hash;
mod keyed;
pub mod lines;
pub mod memo;
pub mod naor_yogev;
pub mod ny_pocket;
pub mod persist;
pub mod segmented;
pub mod she;
pub mod sketches;
pub mod sliding_sketch;
pub mod stable;
pub mod summary;
pub mod swamp;
#[cfg(test)]
mod testing;
pub mod timewindow;
pub mod timing;
pub mod tlbf;
pub mod window;

pub use apbf::blocked::concurrent::ConcurrentApbf;
pub use apbf::blocked::{BlockedApbf, BlockedApbfShape};
pub use apbf::line::{ConcurrentLineApbf, LineApbf, LineApbfShape};
pub use apbf::timed::TimedApbf;
pub use apbf::{Apbf, ApbfShape};
pub use bloom::{BloomFilter, BloomShape, PartitionedBloomFilter, PartitionedBloomShape};
pub use broom::{Broom, BroomFilter, BroomShape};
pub use build::{Build, Target};
pub use error::{ParamError, MAX_BITS, MAX_HASHES};
pub use keyed::Keyed;
pub use naor_yogev::{NaorYogev, NaorYogevShape};
pub use ny_pocket::{NyPocket, NyPocketShape};
pub use persist::{LoadError, Persist};
pub use sketches::{SlidingHll, SlidingHllShape, Swlc, SwlcShape, Wcss, WcssShape};
pub use stable::{StableBloomFilter, StableShape};
pub use summary::{
    DistinctEstimator, EntropyEstimator, ExactWindow, FrequencyEstimator, WindowSummary,
};
pub use swamp::{Swamp, SwampShape};
pub use timewindow::{Generational, OnTime, Trigger};
pub use timing::{
    Swbf, SwbfShape, TimedSwbf, TimedSwbfShape, TimedTbf, TimedTbfShape, TimingBloom,
    TimingBloomShape,
};
// The root re-exports every design the crate ships (`for_each_design!` lists
// them) with its shape, the traits, and the builder; theories, sizings and
// helpers stay in each design's module.
pub use clock_sketch::{ClockBloom, ClockBloomShape, TimedClockBloom, TimedClockBloomShape};
pub use half_sliding::{HalfSliding, HalfSlidingShape, TimedHalfSliding, TimedHalfSlidingShape};
pub use segmented::{
    A2Buffer, A2BufferShape, DoubleBuffer, DoubleBufferShape, ForgetfulBloom, ForgetfulBloomShape,
    ForgetfulCode, JumpingWindow, JumpingWindowShape,
};
pub use she::{SheBloom, SheBloomShape, TimedSheBloom, TimedSheBloomShape};
pub use sliding_sketch::{
    SlidingBloom, SlidingBloomShape, TimedSlidingBloom, TimedSlidingBloomShape,
};
pub use tlbf::{Tlbf, TlbfShape};

/// An approximate-membership filter over 64-bit key hashes.
pub trait Filter {
    /// Records one arrival of `key`.
    fn insert(&mut self, key: u64);

    /// Whether `key` is reported present. Never changes the filter.
    fn contains(&self, key: u64) -> bool;

    /// Exact bits of the state a faithful implementation needs: payload plus
    /// mutable metadata (counters, indices), each metadata word counted at
    /// 64 bits. Fixed parameters (k, l, g, m) are code, not state, and are not
    /// counted; neither is `Vec` capacity slack.
    fn memory_bits(&self) -> u64;

    /// Short name of the design (`"apbf"`, `"bloom"`, ...).
    fn name(&self) -> &'static str;

    /// Batched queries: writes `contains(keys[i])` to `out[i]`. Designs
    /// whose queries miss the cache override it to issue a batch's first
    /// memory reads together, so that the misses overlap (memory-level
    /// parallelism); the answers are always those of `contains`.
    ///
    /// # Panics
    /// If `out` is shorter than `keys`.
    fn contains_many(&self, keys: &[u64], out: &mut [bool]) {
        assert!(out.len() >= keys.len(), "out shorter than keys");
        for (o, &k) in out.iter_mut().zip(keys) {
            *o = self.contains(k);
        }
    }
}

/// What the bloomlab harness measures beside the [`Filter`] contract: probe
/// counts, cell statistics and the ways in to the capability traits from a
/// `dyn` filter. Every design implements it; an application that only
/// inserts and queries never needs it.
pub trait Instrumented: Filter {
    /// Number of memory probes (bit or cell reads) a query for `key` makes,
    /// together with its answer. The default reports one probe.
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        (self.contains(key), 1)
    }

    /// Inserts `key` and reports how many cells (slots, stash entries) the
    /// insertion read, for designs whose insertion cost varies from one
    /// insertion to the next (dictionaries that displace entries); the
    /// harness measures its tail. The default inserts and reports `None`.
    fn insert_probes(&mut self, key: u64) -> Option<u32> {
        self.insert(key);
        None
    }

    /// The answer to a query for `key` and the distinct 64-byte lines it
    /// reads, for the designs that count them (each design's `lines_read`,
    /// beside its theory in [`lines`]). The default: not counted.
    fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
        let _ = key;
        None
    }

    /// A hint that `key` will be inserted soon: a design whose insertions
    /// miss the cache prefetches the lines an insertion of `key` would
    /// write now, so that a caller that hints a few keys ahead of the one
    /// it inserts overlaps their misses. A hint changes no state and no
    /// answer (a shift between the hint and the insertion only makes it
    /// miss); the default does nothing.
    fn prefetch_insert(&self, key: u64) {
        let _ = key;
    }

    /// A hint that `key` will be queried soon: as
    /// [`prefetch_insert`](Self::prefetch_insert), for the lines a query
    /// of `key` reads first. The default does nothing.
    fn prefetch_query(&self, key: u64) {
        let _ = key;
    }

    /// Fraction of cells (bits, counters) that are zero, for designs whose
    /// theory predicts it (the Stable Bloom filter's stable point). Scans the
    /// whole filter.
    fn zero_fraction(&self) -> Option<f64> {
        None
    }

    /// The filter as an [`AdaptiveFilter`], if it learns from its false
    /// positives. The default: it does not.
    fn as_adaptive(&mut self) -> Option<&mut dyn AdaptiveFilter> {
        None
    }

    /// The filter as a [`TimedFilter`], if its window is one of time. The
    /// default: it is not.
    fn as_timed(&mut self) -> Option<&mut dyn TimedFilter> {
        None
    }
}

/// A filter whose window is measured in time, not insertions: "was this key
/// seen in the last T?". Time is a `u64` in whatever unit the caller keeps
/// (the harness uses nanoseconds of simulated time, never the wall clock);
/// the filter is told the time with [`advance`](TimedFilter::advance) before
/// each insertion or query, and both then happen at that time.
pub trait TimedFilter: Filter {
    /// Moves the filter's clock to `now` and does the expiry due by then. A
    /// time earlier than the filter's clock changes nothing: time does not
    /// run backwards.
    fn advance(&mut self, now: u64);

    /// The filter's clock: the latest time it was advanced to.
    fn now(&self) -> u64;

    /// T: a key inserted less than T ago is reported, under the design's
    /// guarantee (see each design for when it holds).
    fn window_time(&self) -> u64;

    /// How much longer than T a key may still be reported.
    fn slack_time(&self) -> u64;
}

/// A filter that learns from its false positives (the broom filter): the
/// application, which checks its own set after a yes, reports each false
/// positive, and the filter fixes it. Reached from a `dyn Instrumented` through
/// [`Instrumented::as_adaptive`].
pub trait AdaptiveFilter: Filter {
    /// Tells the filter that its yes for `key` was wrong: the application
    /// checked its own set and `key` is not in it. The filter fixes the
    /// answer (for the broom filter, Extend) and returns whether it changed
    /// anything; a `key` that is a member, or that the filter already
    /// answers no for, changes nothing.
    fn adapt(&mut self, key: u64) -> bool;

    /// Accesses to the remote representation so far (reads and writes of
    /// the application's dictionary), all operations together.
    fn remote_accesses(&self) -> u64;

    /// Adaptivity bits currently stored (ghosts included).
    fn adaptivity_bits(&self) -> u64;

    /// Elements currently stored (ghosts excluded).
    fn stored(&self) -> u64;
}

/// A filter over a count-based sliding window, in the sense of the APBF paper:
/// an element among the last [`window`](SlidingFilter::window) insertions is
/// always reported; one inserted more than `window + slack` insertions ago is
/// reported no more often than a never-inserted element.
pub trait SlidingFilter: Filter {
    /// w: the number of most recent insertions guaranteed to be reported.
    fn window(&self) -> u64;

    /// s: how many insertions beyond the window an element may still be
    /// remembered.
    fn slack(&self) -> u64;

    /// Insertions after which the filter's expected state repeats: the
    /// generation size of segmented designs, 1 for designs that slide smoothly.
    /// Harnesses sample phases modulo this; phase `period` (a full generation,
    /// just before the next shift) is where the segmented designs' FPR peaks.
    fn period(&self) -> u64 {
        1
    }

    /// Total insertions so far.
    fn inserted(&self) -> u64;
}
