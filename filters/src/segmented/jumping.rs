//! The jumping window (n segments of one generation each) and active-active
//! (A2) buffering, its two-segment case with a refreshing query.

use super::{half_full, slices_for, theory, Ring};
use crate::error::{check_nonzero, check_probability};
use crate::Instrumented;
use crate::{Filter, ParamError, SlidingFilter};

/// A jumping window: n segments of one generation each; a query checks all.
#[derive(Debug, Clone)]
pub struct JumpingWindow {
    pub(super) ring: Ring,
}

/// The shape of a [`JumpingWindow`]: what [`JumpingWindow::new`] takes, each paper letter
/// by a word (see [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JumpingWindowShape {
    /// Segments (at least 2) (`segments`).
    pub segments: u32,
    /// Hash functions: the bits or cells a key sets and a query reads (`k`).
    pub hashes: u32,
    /// Insertions per generation (`g`).
    pub generation: u64,
    /// Bits in each slice (`m`).
    pub bits_per_slice: u64,
}

impl JumpingWindow {
    /// n >= 2 segments of k slices of m bits, generation g. Window (n-1) g,
    /// slack g.
    pub fn new(shape: JumpingWindowShape) -> Result<Self, ParamError> {
        let JumpingWindowShape {
            segments,
            hashes: k,
            generation: g,
            bits_per_slice: m,
        } = shape;
        if segments < 2 {
            return Err(ParamError::OutOfRange {
                name: "segments",
                value: segments.to_string(),
                expected: "at least 2",
            });
        }
        Ok(JumpingWindow {
            ring: Ring::new(segments as usize, k, g, m)?,
        })
    }

    /// Window >= `window` with worst-phase FPR <= `fpr`: g = ⌈window/(n-1)⌉,
    /// each segment at 1 - (1 - fpr)^(1/n), half full after g keys.
    ///
    /// ```
    /// use bloomlab_filters::segmented::JumpingWindow;
    /// use bloomlab_filters::{Filter, SlidingFilter};
    /// let mut f = bloomlab_filters::Target::window(1000).fpr(1e-2).segments(5).build::<JumpingWindow>().unwrap();
    /// f.insert(11);
    /// assert!(f.contains(11) && f.window() >= 1000);
    /// ```
    pub(crate) fn with_fpr(window: u64, fpr: f64, segments: u32) -> Result<Self, ParamError> {
        check_nonzero("window", window)?;
        check_probability("fpr", fpr)?;
        let (k, g, m) = Self::sizing(window, fpr, segments);
        Self::new(JumpingWindowShape {
            segments,
            hashes: k,
            generation: g,
            bits_per_slice: m,
        })
    }

    /// The (k, g, m) the [`Target`](crate::build::Target) sizing uses, without allocating.
    pub fn sizing(window: u64, fpr: f64, segments: u32) -> (u32, u64, u64) {
        let g = window.div_ceil(segments.max(2) as u64 - 1);
        // 1 - (1 - fpr)^(1/n), without the cancellation that makes it 0 for
        // fpr below about 1e-16
        let eps = -((-fpr).ln_1p() / segments.max(1) as f64).exp_m1();
        (slices_for(eps), g, half_full(g))
    }

    /// Segments n.
    pub fn segments(&self) -> u32 {
        self.ring.segs.len() as u32
    }
    /// Slices per segment.
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
        theory::jumping_fpr(self.segments(), self.k(), self.g(), self.m(), phase)
    }

    /// P(yes) by switch count j at phase φ: 1 while the key's segment lives
    /// (j <= n - 1), then the FPR.
    pub fn theory_presence_by_shift(&self, phase: u64) -> Vec<f64> {
        let mut v = vec![1.0; self.segments() as usize];
        v.push(self.theory_fpr(phase));
        v
    }
}

impl Filter for JumpingWindow {
    fn insert(&mut self, key: u64) {
        self.ring.before_insert();
        self.ring.at_mut(0).insert(key);
    }
    fn contains(&self, key: u64) -> bool {
        self.contains_probes(key).0
    }
    /// n k m bits plus 64 each for the head index and the generation counter.
    fn memory_bits(&self) -> u64 {
        self.ring.bits() + 128
    }
    fn name(&self) -> &'static str {
        "jumping"
    }
}

impl crate::Instrumented for JumpingWindow {
    fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
        Some(Self::lines_read(self, key))
    }
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        let mut at = self.ring.positions(key);
        self.ring.until_yes(|seg| at.query(seg))
    }
    fn prefetch_insert(&self, key: u64) {
        self.ring.at(0).prefetch_insert(key);
    }
    fn prefetch_query(&self, key: u64) {
        self.ring.prefetch_query(key);
    }
}

impl SlidingFilter for JumpingWindow {
    fn window(&self) -> u64 {
        (self.segments() as u64 - 1) * self.g()
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

/// Active-active (A2) buffering: insert into active1, query active1 and
/// active2; every g insertions active2 := active1 and active1 := empty.
/// Through [`Filter::contains`] (read-only) it is a jumping window of two
/// segments; [`A2Buffer::query_and_refresh`] adds the paper's copy of a key
/// found only in active2 into active1.
#[derive(Debug, Clone)]
pub struct A2Buffer {
    pub(super) inner: JumpingWindow,
}

/// The shape of a [`A2Buffer`]: what [`A2Buffer::new`] takes, each paper letter
/// by a word (see [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct A2BufferShape {
    /// Hash functions: the bits or cells a key sets and a query reads (`k`).
    pub hashes: u32,
    /// Insertions per generation (`g`).
    pub generation: u64,
    /// Bits in each slice (`m`).
    pub bits_per_slice: u64,
}

impl A2Buffer {
    /// Two filters of k slices of m bits, generation g. Window g, slack g.
    pub fn new(shape: A2BufferShape) -> Result<Self, ParamError> {
        let A2BufferShape {
            hashes: k,
            generation: g,
            bits_per_slice: m,
        } = shape;
        Ok(A2Buffer {
            inner: JumpingWindow::new(crate::JumpingWindowShape {
                segments: 2,
                hashes: k,
                generation: g,
                bits_per_slice: m,
            })?,
        })
    }

    /// Window `window` at worst-phase FPR <= `fpr` (each filter at
    /// 1 - sqrt(1 - fpr), half full after `window` keys).
    pub(crate) fn with_fpr(window: u64, fpr: f64) -> Result<Self, ParamError> {
        Ok(A2Buffer {
            inner: JumpingWindow::with_fpr(window, fpr, 2)?,
        })
    }

    /// The read-only view as a two-segment jumping window.
    pub fn as_jumping(&self) -> &JumpingWindow {
        &self.inner
    }

    /// The paper's query: a key found only in active2 is copied into active1,
    /// so it survives the next switch. The copy is not counted toward
    /// active1's generation, so refreshing queries raise active1's fill, and
    /// the FPR, above [`theory::jumping_fpr`].
    pub fn query_and_refresh(&mut self, key: u64) -> bool {
        if self.inner.ring.at(0).contains(key) {
            return true;
        }
        if self.inner.ring.at(1).contains(key) {
            self.inner.ring.at_mut(0).insert(key);
            return true;
        }
        false
    }
}

impl Filter for A2Buffer {
    fn insert(&mut self, key: u64) {
        self.inner.insert(key)
    }
    fn contains(&self, key: u64) -> bool {
        self.inner.contains(key)
    }
    fn memory_bits(&self) -> u64 {
        self.inner.memory_bits()
    }
    fn name(&self) -> &'static str {
        "a2"
    }
}

impl crate::Instrumented for A2Buffer {
    fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
        Some(Self::lines_read(self, key))
    }
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        self.inner.contains_probes(key)
    }
    fn prefetch_insert(&self, key: u64) {
        self.inner.prefetch_insert(key);
    }
    fn prefetch_query(&self, key: u64) {
        self.inner.prefetch_query(key);
    }
}

impl SlidingFilter for A2Buffer {
    fn window(&self) -> u64 {
        self.inner.window()
    }
    fn slack(&self) -> u64 {
        self.inner.slack()
    }
    fn period(&self) -> u64 {
        self.inner.period()
    }
    fn inserted(&self) -> u64 {
        self.inner.inserted()
    }
}

crate::persist::codec_struct!(JumpingWindow { ring });
crate::persist::codec_struct!(A2Buffer { inner });

impl crate::persist::sealed::Design for JumpingWindow {
    fn tag() -> String {
        "jumping".into()
    }
    fn check(&self) -> Result<(), String> {
        self.ring.check(2..=usize::MAX)
    }
    fn check_on_time(&self) -> Result<(), String> {
        self.ring.check_shape(2..=usize::MAX)
    }
}

crate::persist::persists!(JumpingWindow);

impl crate::persist::sealed::Design for A2Buffer {
    fn tag() -> String {
        "a2".into()
    }
    fn check(&self) -> Result<(), String> {
        self.inner.ring.check(2..=2)
    }
}

crate::persist::persists!(A2Buffer);
