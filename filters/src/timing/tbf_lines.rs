//! The TBF's cache lines, counted on the filter
//! ([`TimingBloom::lines_read`]) and in theory ([`TimingBloom::lines`]).
//!
//! The k slices of s timestamp cells of b bits are packed one after
//! another, and a query reads the key's cell in each slice in order until
//! one is dead: one line per cell, two when the cell straddles a line
//! boundary (the share σ of b-bit cells that do). The live cells are those
//! a Bloom filter of the window's D distinct keys would set, so each slice's
//! cell is live with probability f = 1 - (1 - 1/s)^D, independently, and a
//! negative query reads (1 + σ)·Σ_{i<k} fⁱ lines
//! ([`partitioned_query_lines`]), a positive one (1 + σ)·k. Two reads share
//! a line only across a slice boundary, which the theory leaves out (at
//! most k·(512 / (s·b))² / 4). An insertion writes k cells, and the sweep
//! visits `rate` cells per arrival, one after another: rate·b / 512 lines
//! apart.

use super::TimingBloom;
use crate::lines::{partitioned_query_lines, straddling_share, LineSet, Lines, LINE_BITS};

impl TimingBloom {
    /// The answer to a query for `key` and the distinct 64-byte lines
    /// [`contains`](crate::Filter::contains) reads for it.
    pub fn lines_read(&self, key: u64) -> (bool, u32) {
        let mut lines = LineSet::default();
        let b = self.clock.bits() as u64;
        for i in 0..self.k {
            let c = self.cell(key, i);
            lines.touch(0, c * b);
            lines.touch(0, c * b + b - 1);
            if !self.clock.live(self.cells.get(c)) {
                return (false, lines.count());
            }
        }
        (true, lines.count())
    }

    /// Expected lines with `d` distinct keys in the window (module docs).
    pub fn lines(&self, d: f64) -> Lines {
        lines(self.k, self.s, self.clock.bits(), self.clock.rate(), d)
    }
}

/// Expected lines of a TBF of k slices of s cells of b bits, whose sweep
/// visits `rate` cells per arrival, with `d` distinct keys in the window;
/// the query figures NaN when slices are so small that shared lines could
/// move them by over 0.01.
pub fn lines(k: u32, s: u64, b: u32, rate: u64, d: f64) -> Lines {
    let fill = crate::bloom::fill_ratio(d, s as f64);
    let per = 1.0 + straddling_share(b);
    let lines = Lines {
        insert: per * k as f64,
        shift: (rate * b as u64) as f64 / LINE_BITS as f64,
        query_negative: partitioned_query_lines(fill, k, b),
        query_positive: per * k as f64,
    };
    let bound = crate::lines::shared_lines_bound(k, s * b as u64);
    crate::lines::unless_shared(lines, bound)
}

#[cfg(test)]
mod tests {
    use super::TimingBloom;
    use crate::hash::mix64;
    use crate::{Filter, SlidingFilter};

    /// Counted lines of never-inserted keys and of the window's keys
    /// against the theory, at b = 17 and 20 bits (cells straddle).
    #[test]
    fn counted_lines_match_the_theory() {
        for (w, k, s) in [(50_000u64, 6u32, 80_000u64), (1 << 19, 4, 600_000)] {
            let mut f = TimingBloom::new(crate::TimingBloomShape {
                window: w,
                hashes: k,
                cells_per_slice: s,
            })
            .unwrap();
            let n = 3 * w;
            for t in 0..n {
                f.insert(mix64(t));
            }
            let bits = s * f.clock.bits() as u64;
            crate::lines::assert_lines(
                &format!("W {w} k {k} s {s} b {}", f.clock.bits()),
                |key| f.lines_read(key),
                |key| f.contains(key),
                (n, Some(f.window())),
                f.lines(f.window() as f64),
                crate::lines::shared_lines_bound(k, bits),
            );
        }
    }
}
