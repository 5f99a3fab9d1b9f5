//! The segmentation baselines named in the APBF paper's related work: a
//! jumping window of Bloom filters, double buffering (active + warm-up),
//! active-active (A2) buffering, and the Forgetful Bloom filter. Each is built
//! from partitioned Bloom segments sharing their hash functions, switches every
//! g insertions, and states the window and slack it guarantees; [`theory`]
//! derives their FPR and age profiles.

mod double_buffer;
mod forgetful;
mod forgetful_code;
mod jumping;
mod lines;
pub mod theory;
pub mod timed;

pub use double_buffer::{DoubleBuffer, DoubleBufferShape};
pub use forgetful::{ForgetfulBloom, ForgetfulBloomShape, MAX_PAST};
pub use forgetful_code::ForgetfulCode;
pub use jumping::{A2Buffer, A2BufferShape, JumpingWindow, JumpingWindowShape};

use crate::bloom::PartitionedBloomFilter;
use crate::error::{check_bits, check_nonzero};
use crate::{Filter, ParamError};
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
        let seg = PartitionedBloomFilter::new(crate::PartitionedBloomShape {
            hashes: k,
            bits_per_slice: m,
        })?;
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
    fn until_yes(
        &self,
        mut read: impl FnMut(&PartitionedBloomFilter) -> (bool, u32),
    ) -> (bool, u32) {
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

    /// Hints a query of `key` to every segment (see
    /// [`Instrumented::prefetch_query`](crate::Instrumented::prefetch_query)).
    fn prefetch_query(&self, key: u64) {
        for seg in &self.segs {
            crate::Instrumented::prefetch_query(seg, key);
        }
    }

    fn at(&self, i: usize) -> &PartitionedBloomFilter {
        &self.segs[self.slot(i)]
    }

    fn at_mut(&mut self, i: usize) -> &mut PartitionedBloomFilter {
        let s = self.slot(i);
        &mut self.segs[s]
    }

    /// The next insertion's view, before it is made: the segment at
    /// position `i` once the switch it may start is done (the oldest, then
    /// cleared, becomes position 0), and the lines that switch clears (0
    /// without one).
    fn next_insert<'a>(&'a self) -> (impl Fn(usize) -> &'a PartitionedBloomFilter, u64) {
        let n = self.segs.len();
        let switch = self.count >= self.g;
        let at = move |i: usize| self.at(if switch { (i + n - 1) % n } else { i });
        let cleared = if switch {
            self.at(n - 1).lines_cleared()
        } else {
            0
        };
        (at, cleared)
    }

    /// Starts a generation if the current one is full: the oldest segment is
    /// cleared and becomes the newest.
    fn before_insert(&mut self) {
        if self.count >= self.g {
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

    /// A key's positions in the segments' slices, hashed once for all of
    /// them (every segment has the same shape).
    #[inline]
    fn positions(&self, key: u64) -> SlicePositions {
        SlicePositions::new(key, self.m())
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

crate::persist::codec_struct!(Ring {
    segs,
    head,
    g,
    count,
    inserted
});

impl Ring {
    /// The invariants of a loaded ring of `n` segments.
    pub(super) fn check(&self, n: std::ops::RangeInclusive<usize>) -> Result<(), String> {
        self.check_shape(n)?;
        crate::persist::ensure(self.count <= self.g, || format!("count {} > g", self.count))
    }

    /// The checks but the bound on the current segment's count, which a
    /// segment ended by time may pass.
    pub(super) fn check_shape(&self, n: std::ops::RangeInclusive<usize>) -> Result<(), String> {
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
        })
    }
}

/// A key's positions within the slices of partitioned filters of m bits
/// a slice, hashed once each as first asked and kept: the segments of a
/// ring share their shape, so a query over several of them hashes the key
/// once instead of once a segment (each segment's answer and probe count
/// are those of its own [`Instrumented::contains_probes`](crate::Instrumented::contains_probes)).
pub(crate) struct SlicePositions {
    key: u64,
    m: u64,
    known: usize,
    /// The first [`SlicePositions::KEPT`] positions (a negative query reads
    /// about two a segment); later ones are hashed each time.
    pos: [u64; SlicePositions::KEPT],
}

impl SlicePositions {
    const KEPT: usize = 8;

    /// The positions of `key` in slices of `m` bits.
    #[inline]
    pub(crate) fn new(key: u64, m: u64) -> Self {
        SlicePositions {
            key,
            m,
            known: 0,
            pos: [0; Self::KEPT],
        }
    }

    /// The position of the key in slice `i`: `index(key, i, m)`.
    #[inline]
    fn get(&mut self, i: usize) -> u64 {
        if i >= Self::KEPT {
            return crate::hash::index(self.key, i as u64, self.m);
        }
        while self.known <= i {
            self.pos[self.known] = crate::hash::index(self.key, self.known as u64, self.m);
            self.known += 1;
        }
        self.pos[i]
    }

    /// `f`'s answer and probes for the key (`f` has slices of `m` bits).
    #[inline]
    pub(crate) fn query(&mut self, f: &PartitionedBloomFilter) -> (bool, u32) {
        debug_assert_eq!(f.m(), self.m);
        f.contains_probes_by(|i| self.get(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::mix64;
    use crate::{Instrumented, SlidingFilter};

    #[test]
    fn a2_delegates_to_its_jumping_window() {
        let mut a = A2Buffer::new(crate::A2BufferShape {
            hashes: 4,
            generation: 100,
            bits_per_slice: 1024,
        })
        .unwrap();
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
        assert!(JumpingWindow::new(crate::JumpingWindowShape {
            segments: 1,
            hashes: 3,
            generation: 10,
            bits_per_slice: 10
        })
        .is_err());
        assert!(JumpingWindow::new(crate::JumpingWindowShape {
            segments: 3,
            hashes: 0,
            generation: 10,
            bits_per_slice: 10
        })
        .is_err());
        assert!(JumpingWindow::new(crate::JumpingWindowShape {
            segments: 3,
            hashes: 3,
            generation: 0,
            bits_per_slice: 10
        })
        .is_err());
        assert!(JumpingWindow::with_fpr(0, 0.1, 3).is_err());
        assert!(DoubleBuffer::with_fpr(10, 1.0).is_err());
        assert!(DoubleBuffer::with_fpr(u64::MAX, 0.1).is_err());
        assert!(A2Buffer::new(crate::A2BufferShape {
            hashes: 3,
            generation: 10,
            bits_per_slice: 0
        })
        .is_err());
        assert!(ForgetfulBloom::new(crate::ForgetfulBloomShape {
            past_filters: 0,
            hashes: 3,
            generation: 10,
            bits_per_slice: 10
        })
        .is_err());
        assert!(ForgetfulBloom::new(crate::ForgetfulBloomShape {
            past_filters: 15,
            hashes: 3,
            generation: 10,
            bits_per_slice: 10
        })
        .is_err());
        assert!(ForgetfulBloom::with_fpr(100, 1e-30, 3).is_err());
    }

    #[test]
    fn a2_refresh_keeps_a_queried_key_past_the_switch() {
        let mut f = A2Buffer::new(crate::A2BufferShape {
            hashes: 4,
            generation: 10,
            bits_per_slice: 50,
        })
        .unwrap();
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

    /// One key's positions, hashed once and shared by several partitioned
    /// filters of one shape (a ring's segments), give each filter the answer
    /// and probe count of its own query, past the positions kept and in any
    /// order of the filters.
    #[test]
    fn shared_slice_positions_answer_as_each_filter_does() {
        for k in [1u32, 3, 8, 9, 40] {
            let shape = crate::PartitionedBloomShape {
                hashes: k,
                bits_per_slice: 97,
            };
            let mut fs: Vec<_> = (0..4)
                .map(|_| PartitionedBloomFilter::new(shape).unwrap())
                .collect();
            for (j, f) in fs.iter_mut().enumerate() {
                for t in 0..(150 * j as u64) {
                    f.insert(mix64(t ^ (j as u64) << 32));
                }
            }
            let mut yes = 0;
            for t in 0..3000u64 {
                let key = mix64(t ^ 0x5EED);
                let mut at = SlicePositions::new(key, 97);
                for j in [2, 0, 3, 1, 2] {
                    let got = at.query(&fs[j]);
                    assert_eq!(got, fs[j].contains_probes(key), "k {k} filter {j} key {t}");
                    yes += got.0 as u32;
                }
            }
            assert!(yes > 0, "k {k}: no yes answer was compared");
        }
    }
}
