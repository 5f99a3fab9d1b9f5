//! The Sl-BF's cache lines, counted on the filter
//! ([`SlidingBloom::lines_read`]) and in theory
//! ([`SlidingBloomTheory::lines_at`]).
//!
//! The *future* and *now* bits are two bit arrays, each of k arrays of m
//! cells one after another. A query reads array i's cell in order until a
//! cell has neither bit; a cell is read as its future bit, then its now bit
//! only when the future bit is clear. So a probe of array i reads one line,
//! or two with probability 1 - fᵢ, fᵢ the share of array i's future bits
//! set; and it goes on to array i + 1 with probability aᵢ, the share of
//! cells with either bit. The future bit of cell p holds the keys since its
//! last sweep, N_f(p, t) of them; a cell holds N(p, t)
//! ([`SlidingBloomTheory::held`]); both are read off the sweep schedule, so
//! the expectations are exact under independent uniform hashing, up to the
//! lines two arrays share at a boundary (at most (512 / m)² / 4 per
//! adjacent pair reached, which the theory does not subtract).
//!
//! - A negative query: Σᵢ (∏_{j<i} aⱼ)(2 - fᵢ).
//! - A positive query, of a key of age a uniform in 1 ..= W: all k
//!   probes; array i's now bit is read when the key is not in the future
//!   bit (a > N_f) and no other key is, (1 - min(N_f, W)/W)(1 - 1/m)^N_f.
//! - An insertion sets k future bits, and the sweep moves k·m / W cells per
//!   insertion, two bits each: 2 k m / (512 W) lines per insertion apart.

use super::theory::SlidingBloomTheory;
use super::{cells, SlidingBloom};
use crate::lines::{LineSet, Lines, LINE_BITS};

impl SlidingBloom {
    /// The answer to a query for `key` and the distinct 64-byte lines
    /// [`contains`](crate::Filter::contains) reads for it.
    pub fn lines_read(&self, key: u64) -> (bool, u32) {
        lines_read(&self.future, &self.now, self.k, self.m, key)
    }
}

/// The lines a query of the two-bit cells reads: each array's future bit,
/// and its now bit when the future bit is clear, until a cell has neither.
pub(super) fn lines_read(
    future: &crate::bits::BitArray,
    now: &crate::bits::BitArray,
    k: u32,
    m: u64,
    key: u64,
) -> (bool, u32) {
    let mut lines = LineSet::default();
    for i in 0..k {
        let c = cells::cell(m, key, i);
        lines.touch(0, c);
        if future.get(c) {
            continue;
        }
        lines.touch(1, c);
        if !now.get(c) {
            return (false, lines.count());
        }
    }
    (true, lines.count())
}

impl SlidingBloomTheory {
    /// N_f(p, t): the insertions since cell p's last sweep, after
    /// insertion t (all t before its first).
    pub fn held_future(&self, p: u64, t: u64) -> u64 {
        self.since_sweep(p, t, 0)
    }

    /// Expected lines after insertion t (module docs), the query figures
    /// NaN when arrays are so small that shared lines could move them by
    /// over 0.01. From 2W on every cell has been swept twice, so its
    /// future bits hold N - W keys: the sums run over the distinct N of
    /// each array (as `spans` gives them), O(min(k·m, W + k)); before,
    /// cell by cell, O(k·m).
    pub fn lines_at(&self, t: u64) -> Lines {
        let q = 1.0 - 1.0 / self.m as f64;
        let ln_q = (-1.0 / self.m as f64).ln_1p();
        let (mf, w) = (self.m as f64, self.w);
        let (mut reach, mut negative, mut positive) = (1.0, 0.0, 0.0);
        for i in 0..self.k as u64 {
            let (mut future, mut any, mut now_read) = (0.0, 0.0, 0.0);
            let mut add = |nf: u64, n: u64, cells: f64, qf: f64, qn: f64| {
                future += cells * (1.0 - qf);
                any += cells * (1.0 - qn);
                now_read += cells * (1.0 - nf.min(w) as f64 / w as f64) * qf;
                let _ = n;
            };
            if t >= 2 * w {
                self.spans(t, i, |n, c| {
                    let nf = n - w;
                    let (qf, qn) = ((nf as f64 * ln_q).exp(), (n as f64 * ln_q).exp());
                    add(nf, n, c as f64, qf, qn);
                });
            } else {
                for p in i * self.m..(i + 1) * self.m {
                    let (nf, n) = (self.held_future(p, t), self.held(p, t));
                    add(nf, n, 1.0, q.powf(nf as f64), q.powf(n as f64));
                }
            }
            let (f, a) = (future / mf, any / mf);
            negative += reach * (2.0 - f);
            reach *= a;
            positive += 1.0 + now_read / mf;
        }
        let cells = (self.k as u64 * self.m) as f64;
        let lines = Lines {
            insert: self.k as f64,
            shift: 2.0 * cells / (LINE_BITS as f64 * w as f64),
            query_negative: negative,
            query_positive: positive,
        };
        crate::lines::unless_shared(lines, crate::lines::shared_lines_bound(self.k, self.m))
    }
}

#[cfg(test)]
mod tests {
    use crate::hash::mix64;
    use crate::sliding_sketch::theory::SlidingBloomTheory;
    use crate::sliding_sketch::SlidingBloom;
    use crate::Filter;

    /// From 2W on, the sums over each array's distinct N agree with the
    /// cell-by-cell sums (N_f = N - W in every cell).
    #[test]
    fn lines_by_spans_are_the_cell_by_cell_sums() {
        for (w, k, m) in [
            (1000u64, 4u32, 30_000u64),
            (5000, 3, 40_000),
            (777, 5, 25_000),
        ] {
            let th = SlidingBloomTheory { k, m, w };
            for t in [2 * w, 2 * w + 1, 2 * w + w / 3, 3 * w + 17] {
                let q = 1.0 - 1.0 / m as f64;
                for i in 0..k as u64 {
                    for p in i * m..(i + 1) * m {
                        assert_eq!(th.held_future(p, t) + w, th.held(p, t), "{w} {k} {m} {t}");
                    }
                }
                let fast = th.lines_at(t);
                // the cell-by-cell figure, as lines_at computed it before
                let mf = m as f64;
                let (mut reach, mut negative) = (1.0, 0.0);
                for i in 0..k as u64 {
                    let (mut future, mut any) = (0.0, 0.0);
                    for p in i * m..(i + 1) * m {
                        future += 1.0 - q.powf(th.held_future(p, t) as f64);
                        any += 1.0 - q.powf(th.held(p, t) as f64);
                    }
                    negative += reach * (2.0 - future / mf);
                    reach *= any / mf;
                }
                assert!(
                    (fast.query_negative - negative).abs() < 1e-9,
                    "{fast:?} {negative}"
                );
            }
        }
    }

    /// Counted lines of never-inserted keys and of every key in the window
    /// against the theory at that moment, at two phases of the sweep.
    #[test]
    fn counted_lines_match_the_theory() {
        for (w, k, m, extra) in [
            (50_000u64, 6u32, 60_000u64, 0u64),
            (50_000, 6, 60_000, 20_000),
            (30_000, 3, 100_000, 7_000),
        ] {
            let mut f = SlidingBloom::new(crate::SlidingBloomShape {
                window: w,
                arrays: k,
                cells_per_array: m,
            })
            .unwrap();
            let n = 3 * w + extra;
            for t in 0..n {
                f.insert(mix64(t));
            }
            crate::lines::assert_lines(
                &format!("W {w} k {k} m {m} t {n}"),
                |key| f.lines_read(key),
                |key| f.contains(key),
                (n, Some(w)),
                f.theory().lines_at(n),
                crate::lines::shared_lines_bound(k, m),
            );
        }
    }
}
