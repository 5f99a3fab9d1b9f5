//! The HSS-BF's cache lines, counted on the filter
//! ([`HalfSliding::lines_read`]) and in theory
//! ([`HalfSlidingTheory::lines_at`]).
//!
//! The k arrays of m one-bit cells lie one after another in one bit array,
//! and a query reads one cell in each of the lo arrays after the clock's,
//! in order, until one is clear: one line per cell read. So a negative
//! query reads Σᵢ ∏_{j<i} fⱼ lines, fⱼ the share of the j-th queried
//! array's cells set ([`HalfSlidingTheory::fills`]); a positive one reads
//! lo. Two reads share a line only across the boundary of two adjacent
//! arrays, at most (512 / m)² / 4 per adjacent pair, which the theory does
//! not subtract. An insertion sets k cells (k lines) and the clock clears
//! (k - lo)·m cells per cycle of insertions, one after another:
//! (k - lo)·m / (512·cycle) lines per insertion apart.

use super::theory::HalfSlidingTheory;
use super::HalfSliding;
use crate::lines::{LineSet, Lines, LINE_BITS};

impl HalfSliding {
    /// The answer to a query for `key` and the distinct 64-byte lines
    /// [`contains`](crate::Filter::contains) reads for it.
    pub fn lines_read(&self, key: u64) -> (bool, u32) {
        let mut lines = LineSet::default();
        for i in self.queried() {
            let c = self.cell(key, i);
            lines.touch(0, c);
            if !self.bits.get(c) {
                return (false, lines.count());
            }
        }
        (true, lines.count())
    }
}

impl HalfSlidingTheory {
    /// Expected lines after insertion t (module docs), the query figures
    /// NaN when arrays are so small that shared lines could move them by
    /// over 0.01.
    pub fn lines_at(&self, t: u64) -> Lines {
        let (mut reach, mut negative) = (1.0, 0.0);
        for f in self.fills(t) {
            negative += reach;
            reach *= f;
        }
        let cleared = (self.k - self.lo) as f64 * self.m as f64;
        let lines = Lines {
            insert: self.k as f64,
            shift: cleared / (LINE_BITS as f64 * self.cycle as f64),
            query_negative: negative,
            query_positive: self.lo as f64,
        };
        let bound = crate::lines::shared_lines_bound(self.lo, self.m);
        crate::lines::unless_shared(lines, bound)
    }
}

#[cfg(test)]
mod tests {
    use super::HalfSliding;
    use crate::hash::mix64;
    use crate::{Filter, SlidingFilter};

    /// Counted lines of never-inserted keys and of the window's keys
    /// against the theory at two moments.
    #[test]
    fn counted_lines_match_the_theory() {
        for (k, lo, m, cycle, extra) in [
            (8u32, 4u32, 40_000u64, 30_000u64, 0u64),
            (8, 4, 40_000, 30_000, 11_000),
            (5, 2, 90_000, 50_000, 3_000),
        ] {
            let mut f = HalfSliding::new(crate::HalfSlidingShape {
                cycle,
                arrays: k,
                queried_arrays: lo,
                cells_per_array: m,
            })
            .unwrap();
            let n = 4 * cycle + extra;
            for t in 0..n {
                f.insert(mix64(t));
            }
            crate::lines::assert_lines(
                &format!("k {k} lo {lo} m {m} t {n}"),
                |key| f.lines_read(key),
                |key| f.contains(key),
                (n, Some(f.window())),
                f.theory().lines_at(n),
                crate::lines::shared_lines_bound(k, m),
            );
        }
    }
}
