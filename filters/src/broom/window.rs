//! The broom filter run over an exact sliding window: each arrival inserts
//! its key and deletes the key leaving the window.

use super::{BroomFilter, BroomShape, Remote};
use crate::{AdaptiveFilter, ExactWindow, Filter, FrequencyEstimator, ParamError, SlidingFilter};

/// The broom filter over a sliding window of the last `window` arrivals:
/// the filter with its remote dictionary and the window's arrival queue
/// (the application's side). Each arrival inserts its key (a repeat of a
/// key still in the window refreshes it) and deletes the key whose last
/// arrival leaves the window, so the stored set is exactly the window's
/// distinct keys: no false negatives and no slack. The filter has
/// capacity `window`.
#[derive(Debug, Clone)]
pub struct Broom {
    local: BroomFilter,
    remote: Remote,
    arrivals: ExactWindow,
    inserted: u64,
    refused: u64,
}

impl Broom {
    /// Over a window of `shape.capacity` arrivals, the filter of `shape`.
    ///
    /// ```
    /// use bloomlab_filters::build::Target;
    /// use bloomlab_filters::{Broom, Filter};
    /// let mut f: Broom = Target::window(1000).fpr(1e-2).seed(7).build().unwrap();
    /// f.insert(21);
    /// assert!(f.contains(21));
    /// ```
    pub fn new(shape: BroomShape) -> Result<Self, ParamError> {
        Ok(Broom::from_filter(BroomFilter::new(shape)?))
    }

    /// Window `w` at FPR at most `eps` (the sizing [`Target`](crate::build::Target)
    /// gives).
    pub(crate) fn with_fpr(w: u64, eps: f64) -> Result<Self, ParamError> {
        Ok(Broom::from_filter(BroomFilter::with_fpr(w, eps)?))
    }

    /// The same filter with its hash functions salted by `seed`
    /// ([`BroomFilter::with_seed`]).
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.local = self.local.with_seed(seed);
        self
    }

    /// Wraps a filter; its capacity is the window.
    pub fn from_filter(local: BroomFilter) -> Self {
        Broom {
            arrivals: ExactWindow::new(local.capacity()).expect("capacity >= 1"),
            local,
            remote: Remote::new(),
            inserted: 0,
            refused: 0,
        }
    }

    /// The local filter.
    pub fn filter(&self) -> &BroomFilter {
        &self.local
    }

    /// The remote dictionary.
    pub fn remote(&self) -> &Remote {
        &self.remote
    }

    /// Insertions the filter refused (the table full of ghosts); each would
    /// be a false negative. The conformance tests require zero.
    pub fn refused(&self) -> u64 {
        self.refused
    }
}

impl Filter for Broom {
    fn insert(&mut self, key: u64) {
        self.inserted += 1;
        // the key leaving the window goes first, so at most n are stored
        if let Some(old) = self.arrivals.push(key) {
            self.local.delete(old, &mut self.remote);
        }
        let first = self.arrivals.frequency(key) == 1;
        if first && self.local.insert(key, &mut self.remote).is_err() {
            self.refused += 1;
        }
    }

    fn contains(&self, key: u64) -> bool {
        self.local.contains(key)
    }

    fn memory_bits(&self) -> u64 {
        self.local.memory_bits()
    }

    fn name(&self) -> &'static str {
        "broom"
    }
}

impl crate::Instrumented for Broom {
    fn as_adaptive(&mut self) -> Option<&mut dyn AdaptiveFilter> {
        Some(self)
    }
    fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
        Some(self.lines_read(key))
    }
}

impl SlidingFilter for Broom {
    fn window(&self) -> u64 {
        self.local.capacity()
    }

    fn slack(&self) -> u64 {
        0
    }

    fn inserted(&self) -> u64 {
        self.inserted
    }
}

impl AdaptiveFilter for Broom {
    fn adapt(&mut self, key: u64) -> bool {
        self.local.adapt(key, &mut self.remote)
    }

    fn remote_accesses(&self) -> u64 {
        self.remote.accesses()
    }

    fn adaptivity_bits(&self) -> u64 {
        self.local.adaptivity_bits()
    }

    fn stored(&self) -> u64 {
        self.local.len()
    }
}
crate::persist::codec_struct!(Broom {
    local,
    remote,
    arrivals,
    inserted,
    refused
});

impl crate::persist::sealed::Design for Broom {
    fn tag() -> String {
        "broom".into()
    }
    fn check(&self) -> Result<(), String> {
        use crate::persist::ensure;
        self.local.check()?;
        self.remote.check()?;
        self.arrivals.check()?;
        ensure(
            crate::WindowSummary::summary_window(&self.arrivals) == self.local.capacity(),
            || "an arrival window other than the filter's capacity".into(),
        )?;
        self.local.check_with(&self.remote)?;
        // the stored set is the window's distinct keys (no false negative,
        // no key the window has left)
        let mut live = 0u64;
        for (key, s) in self.remote.elems.iter() {
            if matches!(s, super::remote::Stored::Live(_)) {
                live += 1;
                ensure(self.arrivals.frequency(key) > 0, || {
                    format!("element {key:#x} stored but not in the window")
                })?;
            }
        }
        ensure(
            live == crate::DistinctEstimator::distinct(&self.arrivals) as u64,
            || "window keys with no stored element".into(),
        )
    }
}

crate::persist::persists!(Broom);
