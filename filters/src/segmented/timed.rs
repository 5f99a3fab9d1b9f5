//! The jumping window and double buffering over a window of time, through
//! [`OnTime`] (see [`crate::timewindow`] for the triggers and their
//! guarantees), and their theory for an arrival process.
//!
//! A jumping window of n segments keeps a key while at most n - 1 switches
//! have come since its generation began (T = (n - 1)τ, slack τ); double
//! buffering while at most one has (T = τ, slack τ).
//!
//! # Theory
//!
//! With the generation boundaries of [`crate::timewindow::theory`], segment
//! i of the jumping window holds generation i, Poisson with mean Λ_i; the
//! active filter of double buffering holds generations 0 and 1. A segment
//! of k slices of m bits holding N keys answers yes for a never-inserted key
//! with probability r^k, r = 1 - (1 - 1/m)^N, and the theory takes
//! E[r^k] ≈ (1 - e^(-Λ/m))^k: the k slices of one segment share its count,
//! so this leaves out a Jensen term of relative size about k²/(4m) (below
//! 0.2% for the sizes of the experiments). Segments hold disjoint keys, so
//! FPR = 1 - Π (1 - E[r_i^k]). A key shifted at most `kept` times is
//! reported; an older one is like a never-inserted key.

use super::{DoubleBuffer, JumpingWindow};
use crate::timewindow::theory::{generation_keys, shifts_since, Boundaries};
use crate::timewindow::{Generational, OnTime, Trigger};
use crate::Filter;

impl Generational for JumpingWindow {
    fn write(&mut self, key: u64) {
        self.ring.count += 1;
        self.ring.inserted += 1;
        self.ring.at_mut(0).insert(key);
    }
    fn next_generation(&mut self) {
        self.ring.switch()
    }
    fn in_generation(&self) -> u64 {
        self.ring.count
    }
    fn generation_size(&self) -> u64 {
        self.ring.g
    }
    fn kept(&self) -> u64 {
        self.segments() as u64 - 1
    }
    fn forgotten(&self) -> u64 {
        self.segments() as u64
    }
    fn insertions(&self) -> u64 {
        self.ring.inserted
    }
    fn timed_name(trigger: Trigger) -> &'static str {
        match trigger {
            Trigger::Time => "jumping_time",
            Trigger::Hybrid => "jumping_hybrid",
        }
    }
}

impl Generational for DoubleBuffer {
    fn write(&mut self, key: u64) {
        DoubleBuffer::write(self, key)
    }
    fn next_generation(&mut self) {
        self.switch()
    }
    fn in_generation(&self) -> u64 {
        self.count
    }
    fn generation_size(&self) -> u64 {
        self.g
    }
    fn kept(&self) -> u64 {
        1
    }
    fn forgotten(&self) -> u64 {
        2
    }
    fn insertions(&self) -> u64 {
        self.inserted
    }
    fn timed_name(trigger: Trigger) -> &'static str {
        match trigger {
            Trigger::Time => "double_buffer_time",
            Trigger::Hybrid => "double_buffer_hybrid",
        }
    }
}

/// Which segmented design a [`SegmentsTheory`] describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// A jumping window of this many segments.
    Jumping(u32),
    /// Double buffering.
    DoubleBuffer,
}

/// The time theory of a segmented design driven by [`OnTime`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SegmentsTheory {
    /// The design.
    pub layout: Layout,
    /// Slices per segment.
    pub k: u32,
    /// Bits per slice.
    pub m: u64,
    /// Where its generations begin.
    pub boundaries: Boundaries,
}

/// The expected state at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct SegmentsState {
    /// FPR of a never-inserted key.
    pub fpr: f64,
    /// Generation starts, newest first.
    pub starts: Vec<f64>,
    kept: u64,
}

impl SegmentsState {
    /// P(yes) for a key inserted at time `u`.
    pub fn presence(&self, u: f64) -> f64 {
        if shifts_since(&self.starts, u) <= self.kept {
            1.0
        } else {
            self.fpr
        }
    }
}

/// E[r^k] for a segment of Poisson(`keys`) keys (see the module docs).
fn segment_fpr(k: u32, m: u64, keys: f64) -> f64 {
    (-(-keys / m as f64).exp_m1()).powi(k as i32)
}

impl SegmentsTheory {
    /// The theory of a timed jumping window.
    pub fn jumping(f: &OnTime<JumpingWindow>) -> SegmentsTheory {
        let n = f.inner().segments();
        SegmentsTheory {
            layout: Layout::Jumping(n),
            k: f.inner().k(),
            m: f.inner().m(),
            boundaries: f.boundaries(),
        }
    }

    /// The theory of timed double buffering.
    pub fn double_buffer(f: &OnTime<DoubleBuffer>) -> SegmentsTheory {
        SegmentsTheory {
            layout: Layout::DoubleBuffer,
            k: f.inner().k(),
            m: f.inner().m(),
            boundaries: f.boundaries(),
        }
    }

    /// The expected state at time `now`.
    pub fn at(&self, now: f64, cum: &dyn Fn(f64) -> f64) -> SegmentsState {
        let starts = self.boundaries.starts(now, cum);
        let keys = generation_keys(&starts, now, cum);
        let (fpr, kept) = match self.layout {
            Layout::Jumping(n) => {
                // 1 - Π (1 - f_i), without cancellation at tiny f_i
                let log_none: f64 = keys[..n as usize]
                    .iter()
                    .map(|&x| (-segment_fpr(self.k, self.m, x)).ln_1p())
                    .sum();
                (-log_none.exp_m1(), n as u64 - 1)
            }
            Layout::DoubleBuffer => (segment_fpr(self.k, self.m, keys[0] + keys[1]), 1),
        };
        SegmentsState { fpr, starts, kept }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segmented::theory::{double_buffer_fpr, jumping_fpr};
    use crate::TimedFilter;

    /// A time generation that took more than g keys (a burst within one τ)
    /// saves and loads back, through the public API alone: the loaders
    /// used to refuse their own save (`count 600 > g`, issue 55).
    #[test]
    fn a_burst_above_g_saves_and_loads() {
        use crate::{Filter, Persist};
        let mut j = OnTime::wrap(
            JumpingWindow::new(crate::JumpingWindowShape {
                segments: 4,
                hashes: 7,
                generation: 500,
                bits_per_slice: 722,
            })
            .unwrap(),
            100,
            Trigger::Time,
        )
        .unwrap();
        let mut d = OnTime::wrap(
            DoubleBuffer::new(crate::DoubleBufferShape {
                hashes: 7,
                generation: 500,
                bits_per_slice: 1443,
            })
            .unwrap(),
            100,
            Trigger::Time,
        )
        .unwrap();
        for i in 0..600u64 {
            j.insert(crate::hash::mix64(i));
            d.insert(crate::hash::mix64(i));
        }
        let j2 = OnTime::<JumpingWindow>::from_bytes(&j.to_bytes()).unwrap();
        let d2 = OnTime::<DoubleBuffer>::from_bytes(&d.to_bytes()).unwrap();
        for i in 0..600u64 {
            assert!(j2.contains(crate::hash::mix64(i)) && d2.contains(crate::hash::mix64(i)));
        }
    }

    /// At a steady g keys per τ, the end of a generation is the
    /// count-based design just before a switch.
    #[test]
    fn a_steady_rate_of_g_per_tau_is_the_count_based_design() {
        let j = OnTime::wrap(
            JumpingWindow::new(crate::JumpingWindowShape {
                segments: 4,
                hashes: 7,
                generation: 1000,
                bits_per_slice: 1443,
            })
            .unwrap(),
            10,
            Trigger::Time,
        )
        .unwrap();
        let t = SegmentsTheory::jumping(&j);
        let s = t.at(99.999_999, &|x| 100.0 * x);
        assert_eq!(s.kept, 3, "n - 1 generations besides the current one");
        let want = jumping_fpr(4, 7, 1000, 1443, 1000);
        assert!((s.fpr / want - 1.0).abs() < 2e-3, "{} vs {want}", s.fpr);
        let d = OnTime::wrap(
            DoubleBuffer::new(crate::DoubleBufferShape {
                hashes: 7,
                generation: 1000,
                bits_per_slice: 2886,
            })
            .unwrap(),
            10,
            Trigger::Time,
        )
        .unwrap();
        let s = SegmentsTheory::double_buffer(&d).at(99.999_999, &|x| 100.0 * x);
        let want = double_buffer_fpr(7, 1000, 2886, 1000);
        assert!((s.fpr / want - 1.0).abs() < 2e-3, "{} vs {want}", s.fpr);
        assert_eq!(s.presence(80.5), 1.0);
        assert_eq!(s.presence(79.5), s.fpr);
    }

    #[test]
    fn windows_and_names() {
        let j = OnTime::wrap(
            JumpingWindow::new(crate::JumpingWindowShape {
                segments: 4,
                hashes: 7,
                generation: 1000,
                bits_per_slice: 1443,
            })
            .unwrap(),
            10,
            Trigger::Time,
        )
        .unwrap();
        assert_eq!((j.window_time(), j.slack_time()), (30, 10));
        assert_eq!(j.name(), "jumping_time");
        let d = OnTime::wrap(
            DoubleBuffer::new(crate::DoubleBufferShape {
                hashes: 7,
                generation: 1000,
                bits_per_slice: 2886,
            })
            .unwrap(),
            10,
            Trigger::Hybrid,
        )
        .unwrap();
        assert_eq!((d.window_time(), d.slack_time()), (10, 10));
        assert_eq!(d.name(), "double_buffer_hybrid");
        assert_eq!(d.memory_bits(), 2 * 7 * 2886 + 64 + 128);
    }

    /// The generational view of a jumping window: a write counts in the
    /// generation and in the insertions, a new generation restarts the
    /// count, and its size is the design's g.
    #[test]
    fn the_jumping_window_counts_its_generations() {
        let mut j = JumpingWindow::new(crate::JumpingWindowShape {
            segments: 4,
            hashes: 7,
            generation: 1000,
            bits_per_slice: 1443,
        })
        .unwrap();
        for i in 0..5u64 {
            j.write(i);
        }
        assert_eq!((j.in_generation(), j.insertions()), (5, 5));
        assert_eq!(j.generation_size(), 1000);
        j.next_generation();
        j.write(9);
        assert_eq!((j.in_generation(), j.insertions()), (1, 6));
        assert!(j.contains(9) && j.contains(3));
        assert_eq!((j.kept(), j.forgotten()), (3, 4));
        // and double buffering's
        let mut d = DoubleBuffer::new(crate::DoubleBufferShape {
            hashes: 7,
            generation: 1000,
            bits_per_slice: 2886,
        })
        .unwrap();
        for i in 0..7u64 {
            Generational::write(&mut d, i);
        }
        assert_eq!((d.in_generation(), d.insertions()), (7, 7));
        d.next_generation();
        Generational::write(&mut d, 99);
        assert_eq!((d.in_generation(), d.insertions()), (1, 8));
        assert_eq!((d.generation_size(), d.kept(), d.forgotten()), (1000, 1, 2));
    }
}
