//! The segmentation baselines named in the APBF paper's related work: a
//! jumping window of Bloom filters, double buffering (active + warm-up),
//! active-active (A2) buffering, and the Forgetful Bloom filter. Each is built
//! from partitioned Bloom segments sharing their hash functions, switches every
//! g insertions, and states the window and slack it guarantees; [`theory`]
//! derives their FPR and age profiles.

mod forgetful;
mod lines;
pub mod theory;
pub mod timed;

pub use forgetful::{ForgetfulBloom, MAX_PAST};

use crate::bloom::PartitionedBloomFilter;
use crate::error::{check_bits, check_nonzero, check_probability};
use crate::Instrumented;
use crate::{Filter, ParamError, SlidingFilter};
use std::f64::consts::LN_2;

/// A ring of equal segments, the newest at logical position 0.
#[derive(Debug, Clone)]
struct Ring {
    segs: Vec<PartitionedBloomFilter>,
    head: usize,
    g: u64,
    count: u64,
    inserted: u64,
}

impl Ring {
    fn new(n: usize, k: u32, g: u64, m: u64) -> Result<Ring, ParamError> {
        crate::error::check_hashes(k)?;
        check_nonzero("g", g)?;
        check_nonzero("m", m)?;
        check_bits(
            (n as u64)
                .checked_mul(k as u64)
                .and_then(|x| x.checked_mul(m)),
        )?;
        let seg = PartitionedBloomFilter::new(k, m)?;
        Ok(Ring {
            segs: vec![seg; n],
            head: 0,
            g,
            count: 0,
            inserted: 0,
        })
    }

    /// Index of segment i (< n) counted from the newest.
    #[inline]
    fn slot(&self, i: usize) -> usize {
        crate::window::ring_index(self.head as u64, i as u64, self.segs.len() as u64) as usize
    }

    /// `read` of the segments newest first until one answers yes: that
    /// answer and the sum of their counts (probes, lines).
    fn until_yes(&self, read: impl Fn(&PartitionedBloomFilter) -> (bool, u32)) -> (bool, u32) {
        let mut count = 0;
        for i in 0..self.segs.len() {
            let (yes, n) = read(self.at(i));
            count += n;
            if yes {
                return (true, count);
            }
        }
        (false, count)
    }

    fn at(&self, i: usize) -> &PartitionedBloomFilter {
        &self.segs[self.slot(i)]
    }

    fn at_mut(&mut self, i: usize) -> &mut PartitionedBloomFilter {
        let s = self.slot(i);
        &mut self.segs[s]
    }

    /// Starts a generation if the current one is full: the oldest segment is
    /// cleared and becomes the newest.
    fn before_insert(&mut self) {
        if self.count == self.g {
            self.switch();
        }
        self.count += 1;
        self.inserted += 1;
    }

    /// Starts a generation: the oldest segment is cleared and becomes the
    /// newest.
    fn switch(&mut self) {
        let n = self.segs.len();
        self.head = (self.head + n - 1) % n;
        self.segs[self.head].clear();
        self.count = 0;
    }

    fn bits(&self) -> u64 {
        self.segs.iter().map(|s| s.memory_bits()).sum()
    }

    fn k(&self) -> u32 {
        self.segs[0].k()
    }

    fn m(&self) -> u64 {
        self.segs[0].m()
    }
}

/// Bits per slice so that one slice is half full after `keys` keys.
fn half_full(keys: u64) -> u64 {
    ((keys as f64) / LN_2).ceil().max(1.0) as u64
}

/// Slices for a per-segment FPR `eps` at fill 1/2.
fn slices_for(eps: f64) -> u32 {
    (1.0 / eps).log2().ceil().max(1.0) as u32
}

/// A jumping window: n segments of one generation each; a query checks all.
#[derive(Debug, Clone)]
pub struct JumpingWindow {
    ring: Ring,
}

impl JumpingWindow {
    /// n >= 2 segments of k slices of m bits, generation g. Window (n-1) g,
    /// slack g.
    pub fn new(segments: u32, k: u32, g: u64, m: u64) -> Result<Self, ParamError> {
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
    /// let mut f = JumpingWindow::with_fpr(1000, 1e-2, 5).unwrap();
    /// f.insert(11);
    /// assert!(f.contains(11) && f.window() >= 1000);
    /// ```
    pub fn with_fpr(window: u64, fpr: f64, segments: u32) -> Result<Self, ParamError> {
        check_nonzero("window", window)?;
        check_probability("fpr", fpr)?;
        let (k, g, m) = Self::sizing(window, fpr, segments);
        Self::new(segments, k, g, m)
    }

    /// The (k, g, m) [`with_fpr`](Self::with_fpr) uses, without allocating.
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
        self.ring.until_yes(|seg| seg.contains_probes(key))
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
    inner: JumpingWindow,
}

impl A2Buffer {
    /// Two filters of k slices of m bits, generation g. Window g, slack g.
    pub fn new(k: u32, g: u64, m: u64) -> Result<Self, ParamError> {
        Ok(A2Buffer {
            inner: JumpingWindow::new(2, k, g, m)?,
        })
    }

    /// Window `window` at worst-phase FPR <= `fpr` (each filter at
    /// 1 - sqrt(1 - fpr), half full after `window` keys).
    pub fn with_fpr(window: u64, fpr: f64) -> Result<Self, ParamError> {
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

/// Double buffering: every insertion goes to the active and the warm-up
/// filter; queries read the active one; every g insertions the warm-up one
/// (holding the last g keys) becomes active and a cleared one the warm-up.
#[derive(Debug, Clone)]
pub struct DoubleBuffer {
    active: PartitionedBloomFilter,
    warm: PartitionedBloomFilter,
    g: u64,
    count: u64,
    inserted: u64,
}

impl DoubleBuffer {
    /// Two filters of k slices of m bits, generation g. Window g, slack g.
    pub fn new(k: u32, g: u64, m: u64) -> Result<Self, ParamError> {
        check_nonzero("g", g)?;
        check_bits(2u64.checked_mul(k as u64).and_then(|x| x.checked_mul(m)))?;
        let f = PartitionedBloomFilter::new(k, m)?;
        Ok(DoubleBuffer {
            active: f.clone(),
            warm: f,
            g,
            count: 0,
            inserted: 0,
        })
    }

    /// Window `window` at worst-phase FPR <= `fpr`: the active filter holds
    /// up to 2 w keys, so it is sized half full at 2 w.
    pub fn with_fpr(window: u64, fpr: f64) -> Result<Self, ParamError> {
        check_nonzero("window", window)?;
        check_probability("fpr", fpr)?;
        window.checked_mul(2).ok_or(ParamError::TooLarge {
            what: "window",
            limit: "2^63".into(),
        })?;
        let (k, g, m) = Self::sizing(window, fpr);
        Self::new(k, g, m)
    }

    /// The (k, g, m) [`with_fpr`](Self::with_fpr) uses, without allocating.
    pub fn sizing(window: u64, fpr: f64) -> (u32, u64, u64) {
        (slices_for(fpr), window, half_full(window.saturating_mul(2)))
    }

    /// Slices per filter.
    pub fn k(&self) -> u32 {
        self.active.k()
    }
    /// Bits per slice.
    pub fn m(&self) -> u64 {
        self.active.m()
    }
    /// Generation size (= window).
    pub fn g(&self) -> u64 {
        self.g
    }

    /// Theoretical FPR at phase φ: the active filter holds g + φ keys.
    pub fn theory_fpr(&self, phase: u64) -> f64 {
        theory::double_buffer_fpr(self.k(), self.g, self.m(), phase)
    }

    /// P(yes) by switch count: 1 for j <= 1, then the FPR.
    pub fn theory_presence_by_shift(&self, phase: u64) -> Vec<f64> {
        vec![1.0, 1.0, self.theory_fpr(phase)]
    }
}

impl DoubleBuffer {
    /// The warm-up filter becomes the active one and a cleared one the
    /// warm-up.
    fn switch(&mut self) {
        std::mem::swap(&mut self.active, &mut self.warm);
        self.warm.clear();
        self.count = 0;
    }

    /// Inserts into both filters, without a switch.
    fn write(&mut self, key: u64) {
        self.count += 1;
        self.inserted += 1;
        self.active.insert(key);
        self.warm.insert(key);
    }
}

impl Filter for DoubleBuffer {
    fn insert(&mut self, key: u64) {
        if self.count == self.g {
            self.switch();
        }
        self.write(key);
    }
    fn contains(&self, key: u64) -> bool {
        self.active.contains(key)
    }
    /// 2 k m bits plus 64 for the generation counter.
    fn memory_bits(&self) -> u64 {
        self.active.memory_bits() + self.warm.memory_bits() + 64
    }
    fn name(&self) -> &'static str {
        "double_buffer"
    }
}

impl crate::Instrumented for DoubleBuffer {
    fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
        Some(Self::lines_read(self, key))
    }
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        self.active.contains_probes(key)
    }
}

impl SlidingFilter for DoubleBuffer {
    fn window(&self) -> u64 {
        self.g
    }
    fn slack(&self) -> u64 {
        self.g
    }
    fn period(&self) -> u64 {
        self.g
    }
    fn inserted(&self) -> u64 {
        self.inserted
    }
}

crate::persist::codec_struct!(Ring {
    segs,
    head,
    g,
    count,
    inserted
});
crate::persist::codec_struct!(JumpingWindow { ring });
crate::persist::codec_struct!(A2Buffer { inner });
crate::persist::codec_struct!(DoubleBuffer {
    active,
    warm,
    g,
    count,
    inserted
});

impl Ring {
    /// The invariants of a loaded ring of `n` segments.
    pub(super) fn check(&self, n: std::ops::RangeInclusive<usize>) -> Result<(), String> {
        use crate::persist::{ensure, sealed::Design};
        ensure(n.contains(&self.segs.len()), || {
            format!("{} segments, not in {n:?}", self.segs.len())
        })?;
        let first = &self.segs[0];
        for s in &self.segs {
            s.check()?;
            ensure(s.k() == first.k() && s.m() == first.m(), || {
                "segments of different sizes".into()
            })?;
        }
        ensure(self.g >= 1, || "g is 0".into())?;
        ensure(self.head < self.segs.len(), || {
            format!("head {}", self.head)
        })?;
        ensure(self.count <= self.g, || format!("count {} > g", self.count))
    }
}

impl crate::persist::sealed::Design for JumpingWindow {
    fn tag() -> String {
        "jumping".into()
    }
    fn check(&self) -> Result<(), String> {
        self.ring.check(2..=usize::MAX)
    }
}

impl crate::persist::Persist for JumpingWindow {}

impl crate::persist::sealed::Design for A2Buffer {
    fn tag() -> String {
        "a2".into()
    }
    fn check(&self) -> Result<(), String> {
        self.inner.ring.check(2..=2)
    }
}

impl crate::persist::Persist for A2Buffer {}

impl crate::persist::sealed::Design for DoubleBuffer {
    fn tag() -> String {
        "double_buffer".into()
    }
    fn check(&self) -> Result<(), String> {
        use crate::persist::ensure;
        self.active.check()?;
        self.warm.check()?;
        ensure(
            self.active.k() == self.warm.k() && self.active.m() == self.warm.m(),
            || "filters of different sizes".into(),
        )?;
        ensure(self.g >= 1, || "g is 0".into())?;
        ensure(self.count <= self.g, || format!("count {} > g", self.count))
    }
}

impl crate::persist::Persist for DoubleBuffer {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::mix64;

    #[test]
    fn a2_delegates_to_its_jumping_window() {
        let mut a = A2Buffer::new(4, 100, 1024).unwrap();
        for t in 0..250u64 {
            a.insert(mix64(t));
        }
        let j = a.as_jumping();
        assert_eq!(
            (a.period(), a.window(), a.slack()),
            (j.period(), j.window(), j.slack())
        );
        assert_eq!(a.period(), 100);
        assert_eq!(a.name(), "a2");
        for t in 0..400u64 {
            let key = mix64(t);
            assert_eq!(a.contains_probes(key), j.contains_probes(key), "key {t}");
        }
        assert!((0..400u64).any(|t| !a.contains_probes(mix64(t)).0));
    }

    #[test]
    fn bad_parameters_are_rejected() {
        assert!(JumpingWindow::new(1, 3, 10, 10).is_err());
        assert!(JumpingWindow::new(3, 0, 10, 10).is_err());
        assert!(JumpingWindow::new(3, 3, 0, 10).is_err());
        assert!(JumpingWindow::with_fpr(0, 0.1, 3).is_err());
        assert!(DoubleBuffer::with_fpr(10, 1.0).is_err());
        assert!(DoubleBuffer::with_fpr(u64::MAX, 0.1).is_err());
        assert!(A2Buffer::new(3, 10, 0).is_err());
        assert!(ForgetfulBloom::new(0, 3, 10, 10).is_err());
        assert!(ForgetfulBloom::new(15, 3, 10, 10).is_err());
        assert!(ForgetfulBloom::with_fpr(100, 1e-30, 3).is_err());
    }

    #[test]
    fn a2_refresh_keeps_a_queried_key_past_the_switch() {
        let mut f = A2Buffer::new(4, 10, 50).unwrap();
        f.insert(mix64(1));
        for t in 2..=10 {
            f.insert(mix64(t));
        }
        for t in 11..=20 {
            f.insert(mix64(t));
        }
        // key 1 now only in active2; refreshing copies it into active1
        assert!(f.query_and_refresh(mix64(1)));
        for t in 21..=30 {
            f.insert(mix64(t));
        }
        assert!(f.contains(mix64(1)), "refreshed key lost at the switch");
    }

    #[test]
    fn sizing_meets_targets_in_theory() {
        let j = JumpingWindow::with_fpr(10_000, 0.01, 5).unwrap();
        assert!(j.window() >= 10_000 && j.theory_fpr(j.g()) <= 0.01);
        let d = DoubleBuffer::with_fpr(10_000, 0.01).unwrap();
        assert!(d.window() >= 10_000 && d.theory_fpr(d.g()) <= 0.01);
        let f = ForgetfulBloom::with_fpr(10_000, 0.01, 3).unwrap();
        assert!(f.window() >= 10_000 && f.theory_fpr(f.g()) <= 0.01);
    }
}
