//! WCSS, Window Compact Space Saving (Ben Basat, Einziger, Friedman and
//! Kassner, INFOCOM 2016), the SWAMP paper's per-flow counting baseline, as we
//! implement it from its description.
//!
//! * The stream is cut into frames of W arrivals and each frame into k blocks
//!   of b = ⌈W/k⌉ arrivals (the last block of a frame may be shorter).
//! * A Space Saving instance with k counters counts the current frame and is
//!   reset when a frame starts. Space Saving over-estimates: a monitored
//!   flow's counter is at least its count in the frame.
//! * Each time a flow's counter reaches a multiple of b, an *overflow* of the
//!   flow is recorded in the current block. Overflows are kept for the blocks
//!   that overlap the window, and a table B counts them per flow.
//! * Query(x) = b·(B\[x\] + 2): the overflows say how many whole blocks' worth
//!   of arrivals x had in the window; the +2 covers the partial block at each
//!   end of the window.
//!
//! The guarantee the paper states, f ≤ f̂ ≤ f + εW for k = ⌈4/ε⌉, is what the
//! conformance suite checks (never below; the upper side is measured by the
//! counting experiment).
//!
//! Memory is the Space Saving counters (k × (identifier + count)), the
//! overflow records in the window (one identifier each) and B's entries
//! (identifier + count). Identifiers are counted at 32 bits, what an
//! implementation for IPv4 source flows stores; our keys are 64-bit hashes,
//! so this favours WCSS in the comparison with SWAMP.

use crate::error::{check_nonzero, check_probability};
use crate::summary::{FrequencyEstimator, WindowSummary};
use crate::ParamError;
use std::collections::{HashMap, VecDeque};

/// Bits per flow identifier in the memory account.
pub const ID_BITS: u64 = 32;

/// Space Saving with k counters: a min-heap of (count, key) with the heap
/// position of every monitored key.
#[derive(Debug, Clone)]
struct SpaceSaving {
    k: usize,
    heap: Vec<(u64, u64)>,
    pos: HashMap<u64, usize>,
}

impl SpaceSaving {
    fn new(k: usize) -> SpaceSaving {
        SpaceSaving {
            k,
            heap: Vec::with_capacity(k),
            pos: HashMap::with_capacity(k),
        }
    }

    fn clear(&mut self) {
        self.heap.clear();
        self.pos.clear();
    }

    /// Counts one arrival of `key`; returns its counter.
    fn add(&mut self, key: u64) -> u64 {
        let i = if let Some(&i) = self.pos.get(&key) {
            self.heap[i].0 += 1;
            i
        } else if self.heap.len() < self.k {
            // a count of 1 is the least there is: it rises to the root's
            // level past every parent with more
            self.heap.push((1, key));
            let mut i = self.heap.len() - 1;
            while i > 0 && self.heap[(i - 1) / 2].0 > 1 {
                let p = (i - 1) / 2;
                self.heap.swap(i, p);
                self.pos.insert(self.heap[i].1, i);
                i = p;
            }
            self.pos.insert(key, i);
            i
        } else {
            // replace the minimum: the newcomer inherits its count + 1
            let (c, old) = self.heap[0];
            self.pos.remove(&old);
            self.heap[0] = (c + 1, key);
            self.pos.insert(key, 0);
            0
        };
        let c = self.heap[i].0;
        self.sift_down(i);
        c
    }

    fn sift_down(&mut self, mut i: usize) {
        let n = self.heap.len();
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut m = i;
            if l < n && self.heap[l].0 < self.heap[m].0 {
                m = l;
            }
            if r < n && self.heap[r].0 < self.heap[m].0 {
                m = r;
            }
            if m == i {
                return;
            }
            self.heap.swap(i, m);
            self.pos.insert(self.heap[i].1, i);
            self.pos.insert(self.heap[m].1, m);
            i = m;
        }
    }
}

/// Window Compact Space Saving over the last W arrivals.
#[derive(Debug, Clone)]
pub struct Wcss {
    window: u64,
    k: u64,
    block: u64,
    ss: SpaceSaving,
    /// (block index, flow) of every overflow in the kept blocks.
    overflows: VecDeque<(u64, u64)>,
    counts: HashMap<u64, u64>,
    /// Arrivals so far.
    t: u64,
}

/// The shape of a [`Wcss`]: what [`Wcss::new`] takes, each paper letter
/// by a word (see [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WcssShape {
    /// The window, in insertions (`w`).
    pub window: u64,
    /// Counters (`k`).
    pub counters: u64,
}

impl WcssShape {
    /// Window `window` with k = ⌈4/ε⌉ counters (at most the window), for
    /// error at most εW.
    pub fn for_error(window: u64, error: f64) -> Result<WcssShape, ParamError> {
        check_probability("eps", error)?;
        Ok(WcssShape {
            window,
            counters: ((4.0 / error).ceil() as u64).min(window),
        })
    }
}

impl Wcss {
    /// Window `w` with `k` counters (blocks per frame), 1 ≤ k ≤ w.
    ///
    /// ```
    /// use bloomlab_filters::{FrequencyEstimator, Wcss, WindowSummary};
    /// let mut s = Wcss::new(bloomlab_filters::WcssShape { window: 100, counters: 10 }).unwrap();
    /// for _ in 0..5 {
    ///     s.record(8);
    /// }
    /// assert!(s.frequency(8) >= 5); // never below the true window count
    /// ```
    pub fn new(shape: WcssShape) -> Result<Wcss, ParamError> {
        let WcssShape {
            window: w,
            counters: k,
        } = shape;
        check_nonzero("window", w)?;
        check_nonzero("counters", k)?;
        if k > w {
            return Err(ParamError::OutOfRange {
                name: "counters",
                value: k.to_string(),
                expected: "at most the window",
            });
        }
        Ok(Wcss {
            window: w,
            k,
            block: w.div_ceil(k),
            ss: SpaceSaving::new(k as usize),
            overflows: VecDeque::new(),
            counts: HashMap::new(),
            t: 0,
        })
    }

    /// Counters (blocks per frame).
    pub fn counters(&self) -> u64 {
        self.k
    }

    /// Block index of arrival position `p` (0-based): frames restart the
    /// block numbering's alignment, blocks never straddle a frame.
    fn block_of(&self, p: u64) -> u64 {
        (p / self.window) * self.k + (p % self.window) / self.block
    }
}

impl WindowSummary for Wcss {
    fn record(&mut self, key: u64) {
        let p = self.t;
        if p.is_multiple_of(self.window) {
            self.ss.clear();
        }
        let cur = self.block_of(p);
        let c = self.ss.add(key);
        if c.is_multiple_of(self.block) {
            self.overflows.push_back((cur, key));
            *self.counts.entry(key).or_insert(0) += 1;
        }
        self.t += 1;
        // drop blocks that no longer overlap the window [t - W, t - 1]
        if self.t > self.window {
            let oldest = self.block_of(self.t - self.window);
            while let Some(&(b, x)) = self.overflows.front() {
                if b >= oldest {
                    break;
                }
                self.overflows.pop_front();
                let n = self.counts.get_mut(&x).expect("counted overflow");
                *n -= 1;
                if *n == 0 {
                    self.counts.remove(&x);
                }
            }
        }
    }

    fn summary_window(&self) -> u64 {
        self.window
    }

    fn summary_bits(&self) -> u64 {
        let count_bits = (64 - self.window.leading_zeros()) as u64;
        self.k * (ID_BITS + count_bits)
            + self.overflows.len() as u64 * ID_BITS
            + self.counts.len() as u64 * (ID_BITS + count_bits)
            + 64
    }

    fn summary_name(&self) -> &'static str {
        "wcss"
    }

    fn as_frequency(&self) -> Option<&dyn FrequencyEstimator> {
        Some(self)
    }
}

impl FrequencyEstimator for Wcss {
    fn frequency(&self, key: u64) -> u64 {
        self.block * (self.counts.get(&key).copied().unwrap_or(0) + 2)
    }

    fn never_underestimates(&self) -> bool {
        true
    }
}

crate::persist::codec_struct!(SpaceSaving { k, heap, pos });
crate::persist::codec_struct!(Wcss {
    window,
    k,
    block,
    ss,
    overflows,
    counts,
    t
});

impl crate::persist::sealed::Design for Wcss {
    fn tag() -> String {
        "wcss".into()
    }
    fn check(&self) -> Result<(), String> {
        use crate::persist::ensure;
        ensure(
            self.k >= 1 && self.k <= self.window && self.block == self.window.div_ceil(self.k),
            || {
                format!(
                    "window {}, {} counters, blocks of {}",
                    self.window, self.k, self.block
                )
            },
        )?;
        let ss = &self.ss;
        ensure(
            ss.k as u64 == self.k && ss.heap.len() <= ss.k && ss.pos.len() == ss.heap.len(),
            || "a heap of another size than its counters".into(),
        )?;
        for (&key, &i) in &ss.pos {
            ensure(ss.heap.get(i).is_some_and(|e| e.1 == key), || {
                "a heap position that does not hold its key".into()
            })?;
        }
        let mut counts = HashMap::new();
        for &(_, key) in &self.overflows {
            *counts.entry(key).or_insert(0u64) += 1;
        }
        ensure(counts == self.counts, || {
            "counts that are not the overflows'".into()
        })
    }
}

crate::persist::persists!(Wcss);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::mix64;

    #[test]
    fn space_saving_keeps_a_min_heap_with_positions() {
        // a skewed stream over 200 keys into 16 counters: after every
        // addition each counter is at most its children, and every
        // monitored key's recorded position is where it is
        let mut s = SpaceSaving::new(16);
        for t in 0..20_000u64 {
            let key = mix64(t) % (1 + mix64(t ^ 9) % 200);
            s.add(key);
            for (i, &(c, k)) in s.heap.iter().enumerate() {
                for child in [2 * i + 1, 2 * i + 2] {
                    if let Some(&(cc, _)) = s.heap.get(child) {
                        assert!(c <= cc, "step {t}: heap order at {i}");
                    }
                }
                assert_eq!(s.pos[&k], i, "step {t}");
            }
        }
        assert_eq!(s.heap.len(), 16);
    }

    /// WCSS written out from its definition for streams with at most k
    /// flows per frame, where Space Saving counts every flow exactly: an
    /// overflow at each multiple of b of a flow's count within its frame,
    /// kept while its block overlaps the window.
    struct Model {
        w: u64,
        k: u64,
        b: u64,
        t: u64,
        frame: HashMap<u64, u64>,
        overflows: Vec<(u64, u64)>,
    }

    impl Model {
        fn block(&self, p: u64) -> u64 {
            let frame = p / self.w;
            let within = p - frame * self.w;
            frame * self.k + within / self.b
        }

        fn record(&mut self, key: u64) {
            if self.t.is_multiple_of(self.w) {
                self.frame.clear();
            }
            let c = self.frame.entry(key).or_insert(0);
            *c += 1;
            if (*c).is_multiple_of(self.b) {
                let b = self.block(self.t);
                self.overflows.push((b, key));
            }
            self.t += 1;
        }

        fn live(&self) -> Vec<(u64, u64)> {
            let oldest = if self.t > self.w {
                self.block(self.t - self.w)
            } else {
                0
            };
            self.overflows
                .iter()
                .copied()
                .filter(|&(b, _)| b >= oldest)
                .collect()
        }

        fn estimate(&self, key: u64) -> u64 {
            let n = self.live().iter().filter(|&&(_, x)| x == key).count() as u64;
            self.b * (n + 2)
        }

        fn bits(&self) -> u64 {
            let live = self.live();
            let mut flows: Vec<u64> = live.iter().map(|&(_, x)| x).collect();
            flows.sort_unstable();
            flows.dedup();
            let cb = 64 - self.w.leading_zeros() as u64;
            self.k * (32 + cb) + live.len() as u64 * 32 + flows.len() as u64 * (32 + cb) + 64
        }
    }

    #[test]
    fn estimates_and_memory_match_the_definition_when_counts_are_exact() {
        // W = 100 with k = 7 counters: blocks of 15, the frame's last one of
        // 10. Each frame draws its (at most 7) flows from a pool of 20 that
        // changes, so overflows expire, reset with the frame and recur.
        for (w, k) in [(100u64, 7u64), (64, 8), (90, 3)] {
            let mut f = Wcss::new(crate::WcssShape {
                window: w,
                counters: k,
            })
            .unwrap();
            let mut m = Model {
                w,
                k,
                b: w.div_ceil(k),
                t: 0,
                frame: HashMap::new(),
                overflows: Vec::new(),
            };
            let mut max_live = 0;
            for t in 0..40 * w {
                let frame = t / w;
                let key = 100 * frame + mix64(t) % k.min(1 + mix64(frame) % 9);
                f.record(key);
                m.record(key);
                for q in 100 * frame.saturating_sub(2)..100 * frame + 9 {
                    assert_eq!(f.frequency(q), m.estimate(q), "w {w} k {k} t {t} key {q}");
                }
                assert_eq!(f.summary_bits(), m.bits(), "w {w} k {k} t {t}");
                max_live = max_live.max(m.live().len());
            }
            assert!(max_live >= 3, "w {w} k {k}: overflows are exercised");
        }
    }

    #[test]
    fn an_eviction_takes_the_minimum_and_its_count_plus_one() {
        let mut s = SpaceSaving::new(3);
        for key in [1, 1, 1, 2, 2, 3] {
            s.add(key);
        }
        // 3 holds the minimum (1): 4 replaces it with 2
        assert_eq!(s.add(4), 2);
        assert!(!s.pos.contains_key(&3));
        assert_eq!(s.heap[s.pos[&4]], (2, 4));
        // now 2 and 4 tie at 2; 1 keeps its 3 whatever is evicted
        assert_eq!(s.add(1), 4);
        assert_eq!(s.add(5), 3);
        assert_eq!(s.heap.len(), 3);
        s.clear();
        assert!(s.heap.is_empty() && s.pos.is_empty());
        assert_eq!(s.add(5), 1);
    }

    #[test]
    fn sizing_and_parameters() {
        assert_eq!(
            WcssShape::for_error(1000, 0.1)
                .and_then(Wcss::new)
                .unwrap()
                .counters(),
            40
        );
        assert_eq!(
            WcssShape::for_error(1000, 0.003)
                .and_then(Wcss::new)
                .unwrap()
                .counters(),
            1000
        );
        assert_eq!(
            WcssShape::for_error(10_000, 0.003)
                .and_then(Wcss::new)
                .unwrap()
                .counters(),
            1334
        );
        assert!(Wcss::new(crate::WcssShape {
            window: 10,
            counters: 11
        })
        .is_err());
        assert!(Wcss::new(crate::WcssShape {
            window: 10,
            counters: 10
        })
        .is_ok());
        assert!(
            Wcss::new(crate::WcssShape {
                window: 0,
                counters: 1
            })
            .is_err()
                && Wcss::new(crate::WcssShape {
                    window: 10,
                    counters: 0
                })
                .is_err()
        );
        assert!(WcssShape::for_error(10, 0.0).and_then(Wcss::new).is_err());
        let f = Wcss::new(crate::WcssShape {
            window: 100,
            counters: 7,
        })
        .unwrap();
        assert_eq!((f.summary_window(), f.summary_name()), (100, "wcss"));
        assert!(f.never_underestimates() && f.as_frequency().is_some());
    }

    #[test]
    fn the_heap_holds_while_it_fills_slowly() {
        // new keys arrive among repeats, so counters of every size are in
        // the heap when a newcomer (count 1) rises through it
        for seed in 0..300u64 {
            let k = 3 + (mix64(seed) % 18) as usize;
            let mut s = SpaceSaving::new(k);
            for t in 0..(8 * k as u64) {
                let key = mix64(seed ^ (t << 20)) % (1 + t / 6);
                s.add(key);
                for i in 1..s.heap.len() {
                    let parent = (i - 1) / 2;
                    assert!(s.heap[parent].0 <= s.heap[i].0, "seed {seed} t {t} at {i}");
                }
                for (i, &(_, key)) in s.heap.iter().enumerate() {
                    assert_eq!(s.pos[&key], i);
                }
            }
        }
    }

    #[test]
    fn memory_before_any_overflow_is_the_counters() {
        // k counters of a 32-bit identifier and a count of bits(W), plus a
        // word; no overflow recorded yet
        let f = Wcss::new(crate::WcssShape {
            window: 1000,
            counters: 40,
        })
        .unwrap();
        assert_eq!(f.summary_bits(), 40 * (32 + 10) + 64);
        let g = WcssShape::for_error(1 << 16, 0.01)
            .and_then(Wcss::new)
            .unwrap();
        assert_eq!(g.summary_bits(), 400 * (32 + 17) + 64);
    }
}
