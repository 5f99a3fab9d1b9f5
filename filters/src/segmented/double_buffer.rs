//! Double buffering: an active and a warm-up filter.

use super::{half_full, slices_for, theory};
use crate::bloom::PartitionedBloomFilter;
use crate::error::{check_bits, check_nonzero, check_probability};
use crate::{Filter, ParamError, SlidingFilter};

/// Double buffering: every insertion goes to the active and the warm-up
/// filter; queries read the active one; every g insertions the warm-up one
/// (holding the last g keys) becomes active and a cleared one the warm-up.
#[derive(Debug, Clone)]
pub struct DoubleBuffer {
    pub(super) active: PartitionedBloomFilter,
    pub(super) warm: PartitionedBloomFilter,
    pub(super) g: u64,
    pub(super) count: u64,
    pub(super) inserted: u64,
}

/// The shape of a [`DoubleBuffer`]: what [`DoubleBuffer::new`] takes, each paper letter
/// by a word (see [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DoubleBufferShape {
    /// Hash functions: the bits or cells a key sets and a query reads (`k`).
    pub hashes: u32,
    /// Insertions per generation (`g`).
    pub generation: u64,
    /// Bits in each slice (`m`).
    pub bits_per_slice: u64,
}

impl DoubleBuffer {
    /// Two filters of k slices of m bits, generation g. Window g, slack g.
    pub fn new(shape: DoubleBufferShape) -> Result<Self, ParamError> {
        let DoubleBufferShape {
            hashes: k,
            generation: g,
            bits_per_slice: m,
        } = shape;
        check_nonzero("g", g)?;
        check_bits(2u64.checked_mul(k as u64).and_then(|x| x.checked_mul(m)))?;
        let f = PartitionedBloomFilter::new(crate::PartitionedBloomShape {
            hashes: k,
            bits_per_slice: m,
        })?;
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
    pub(crate) fn with_fpr(window: u64, fpr: f64) -> Result<Self, ParamError> {
        check_nonzero("window", window)?;
        check_probability("fpr", fpr)?;
        window.checked_mul(2).ok_or(ParamError::TooLarge {
            what: "window",
            limit: "2^63".into(),
        })?;
        let (k, g, m) = Self::sizing(window, fpr);
        Self::new(DoubleBufferShape {
            hashes: k,
            generation: g,
            bits_per_slice: m,
        })
    }

    /// The (k, g, m) the [`Target`](crate::build::Target) sizing uses, without allocating.
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
    pub(super) fn switch(&mut self) {
        std::mem::swap(&mut self.active, &mut self.warm);
        self.warm.clear();
        self.count = 0;
    }

    /// Inserts into both filters, without a switch.
    pub(super) fn write(&mut self, key: u64) {
        self.count += 1;
        self.inserted += 1;
        self.active.insert(key);
        self.warm.insert(key);
    }
}

impl Filter for DoubleBuffer {
    fn insert(&mut self, key: u64) {
        if self.count >= self.g {
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
    fn prefetch_insert(&self, key: u64) {
        self.active.prefetch_insert(key);
        self.warm.prefetch_insert(key);
    }
    fn prefetch_query(&self, key: u64) {
        self.active.prefetch_query(key);
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

crate::persist::codec_struct!(DoubleBuffer {
    active,
    warm,
    g,
    count,
    inserted
});

impl crate::persist::sealed::Design for DoubleBuffer {
    fn tag() -> String {
        "double_buffer".into()
    }
    fn check(&self) -> Result<(), String> {
        self.check_on_time()?;
        crate::persist::ensure(self.count <= self.g, || format!("count {} > g", self.count))
    }
    fn check_on_time(&self) -> Result<(), String> {
        use crate::persist::ensure;
        self.active.check()?;
        self.warm.check()?;
        ensure(
            self.active.k() == self.warm.k() && self.active.m() == self.warm.m(),
            || "filters of different sizes".into(),
        )?;
        ensure(self.g >= 1, || "g is 0".into())
    }
}

crate::persist::persists!(DoubleBuffer);
