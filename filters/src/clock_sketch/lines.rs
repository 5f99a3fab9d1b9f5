//! The Clock-sketch Bloom filter's cache lines, counted on the filter
//! ([`ClockBloom::lines_read`]) and in theory
//! ([`ClockBloomTheory::lines_at`]).
//!
//! The m clocks of s bits are packed one after another, clock i at bits
//! i·s .. i·s + s - 1, and a query reads its k clocks in order until one is
//! zero. A clock reads one line, or two when it straddles a line boundary
//! (the share σ of clocks that do: none when s divides 512). Its k cells are
//! anywhere in the one array, so a negative query reads
//! (1 + σ)·Σ_{i<k} fⁱ·(1 - 1/L)ⁱ lines, f = 1 - the share of cells a
//! never-inserted key finds zero and L the lines the clocks take (the i-th
//! clock's line is new with probability (1 - 1/L)ⁱ), and a positive one
//! (1 + σ)·Σ_{i<k} (1 - 1/L)ⁱ. That is exact when s divides 512 (σ = 0);
//! otherwise a straddling clock's second line may also be shared, which
//! the theory leaves out (at most σ·k² / L lines). An insertion reads and writes k
//! clocks, and the hand decrements (2^s - 2)·m / W clocks per insertion,
//! one after another: (2^s - 2)·m·s / (512·W) lines apart.

use super::theory::ClockBloomTheory;
use super::ClockBloom;
use crate::lines::{
    one_array_bound, one_array_query_lines, straddling_share, LineSet, Lines, LINE_BITS,
};

impl ClockBloom {
    /// The answer to a query for `key` and the distinct 64-byte lines
    /// [`contains`](crate::Filter::contains) reads for it.
    pub fn lines_read(&self, key: u64) -> (bool, u32) {
        lines_read(&self.clocks, self.k, self.m, key)
    }
}

/// The lines a query of the packed clocks reads, until a zero clock.
pub(super) fn lines_read(
    clocks: &crate::bits::PackedInts,
    k: u32,
    m: u64,
    key: u64,
) -> (bool, u32) {
    let mut lines = LineSet::default();
    let s = clocks.width() as u64;
    for i in 0..k {
        let c = crate::hash::index(key, i as u64, m);
        lines.touch_field(0, c * s, s);
        if clocks.get(c) == 0 {
            return (false, lines.count());
        }
    }
    (true, lines.count())
}

impl ClockBloomTheory {
    /// Expected lines after insertion t (module docs).
    pub fn lines_at(&self, t: u64) -> Lines {
        let per = 1.0 + straddling_share(self.s);
        let (negative, positive) = one_array_query_lines(self.fill_at(t), self.k, self.s, self.m);
        let decrements = ((1u64 << self.s) - 2) as f64 * self.m as f64 / self.w as f64;
        let lines = Lines {
            insert: per * self.k as f64,
            shift: decrements * self.s as f64 / LINE_BITS as f64,
            query_negative: negative,
            query_positive: positive,
        };
        crate::lines::unless_shared(lines, one_array_bound(self.k, self.s, self.m))
    }

    /// The share of cells a never-inserted key's cell finds nonzero after
    /// insertion t.
    pub fn fill_at(&self, t: u64) -> f64 {
        1.0 - self.empty_share(t)
    }
}

#[cfg(test)]
mod tests {
    use super::ClockBloom;
    use crate::hash::mix64;
    use crate::Filter;

    /// Counted lines of never-inserted keys and of the window's keys
    /// against the theory, with clocks that never straddle (s = 2) and
    /// that do (s = 3, 5).
    #[test]
    fn counted_lines_match_the_theory() {
        for (w, k, s, m, extra) in [
            (40_000u64, 6u32, 2u32, 400_000u64, 0u64),
            (40_000, 6, 3, 300_000, 9_000),
            (30_000, 4, 5, 200_000, 1_000),
        ] {
            let mut f = ClockBloom::new(crate::ClockBloomShape {
                window: w,
                hashes: k,
                cell_bits: s,
                cells: m,
            })
            .unwrap();
            let n = 5 * w + extra;
            for t in 0..n {
                f.insert(mix64(t));
            }
            crate::lines::assert_lines(
                &format!("k {k} s {s} m {m} t {n}"),
                |key| f.lines_read(key),
                |key| f.contains(key),
                (n, Some(w)),
                f.theory().lines_at(n),
                crate::lines::one_array_bound(k, s, m),
            );
        }
    }
}
