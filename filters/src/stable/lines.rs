//! The Stable Bloom filter's cache lines, counted on the filter
//! ([`StableBloomFilter::lines_read`]) and in theory
//! ([`StableTheory::lines_at`]).
//!
//! The m cells of d bits are packed in one array; a query derives its K
//! distinct cells one at a time and stops at the first zero. A cell reads
//! one line, or two when it straddles a boundary, and a cell is zero with
//! probability z_t ([`StableTheory::zero_fraction_at`]), so a
//! never-inserted key's query reads
//! [`one_array_query_lines`](crate::lines::one_array_query_lines) at fill
//! 1 - z_t. The filter has no window, so no positive query's lines are
//! given. An insertion decrements P cells (random places, about a line
//! each) and sets K: about P + K lines.

use super::theory::StableTheory;
use super::StableBloomFilter;
use crate::hash::index;
use crate::lines::{one_array_bound, one_array_query_lines, unless_shared, LineSet, Lines};

impl StableBloomFilter {
    /// The answer to a query for `key` and the distinct 64-byte lines
    /// [`contains`](crate::Filter::contains) reads for it.
    pub fn lines_read(&self, key: u64) -> (bool, u32) {
        let mut lines = LineSet::default();
        let mut seen: Vec<u64> = Vec::with_capacity(self.k as usize);
        let (d, mut i) = (self.d as u64, 0u64);
        while seen.len() < self.k as usize {
            let j = index(key, i, self.m);
            i += 1;
            if seen.contains(&j) {
                continue;
            }
            lines.touch_field(0, j * d, d);
            if self.cell(j) == 0 {
                return (false, lines.count());
            }
            seen.push(j);
        }
        (true, lines.count())
    }
}

impl StableTheory {
    /// Expected lines after t insertions from empty (module docs); the
    /// query figure NaN when the cells are so few that shared lines could
    /// move it by over 0.01.
    pub fn lines_at(&self, t: u64) -> Lines {
        self.lines_at_zeros(self.zero_fraction_at(t))
    }

    /// [`lines_at`](Self::lines_at) at the stable point.
    pub fn lines(&self) -> Lines {
        self.lines_at_zeros(self.zero_fraction())
    }

    fn lines_at_zeros(&self, zeros: f64) -> Lines {
        let fill = 1.0 - zeros;
        let (negative, _) = one_array_query_lines(fill, self.k, self.d, self.m);
        let lines = Lines {
            insert: (self.p + self.k as u64) as f64,
            shift: 0.0,
            query_negative: negative,
            query_positive: f64::NAN,
        };
        unless_shared(lines, one_array_bound(self.k, self.d, self.m))
    }
}

#[cfg(test)]
mod tests {
    use super::StableBloomFilter;
    use crate::hash::mix64;
    use crate::testing::Tally;
    use crate::Filter;

    /// Counted lines of never-inserted keys against the theory at the
    /// filter's age, with cells that never straddle (d = 4) and that do
    /// (d = 3), over several fills.
    #[test]
    fn counted_lines_match_the_theory() {
        for (m, d, k, p) in [(400_000u64, 4u32, 6u32, 20u64), (300_000, 3, 5, 12)] {
            let (mut neg, mut theory, mut runs) = (Tally::default(), 0.0, 0.0);
            for run in 0..8u64 {
                let mut f = StableBloomFilter::new(crate::StableShape {
                    cells: m,
                    cell_bits: d,
                    hashes: k,
                    decrements: p,
                })
                .unwrap()
                .with_seed(run);
                let n = 200_000 + run * 7_000;
                for t in 0..n {
                    f.insert(mix64(t ^ run << 40));
                }
                theory += f.theory().lines_at(n).query_negative;
                runs += 1.0;
                for i in 0..50_000u64 {
                    let key = mix64(u64::MAX - i - run * 50_000);
                    let (yes, lines) = f.lines_read(key);
                    assert_eq!(yes, f.contains(key));
                    neg.add(lines);
                }
            }
            let theory = theory / runs;
            println!(
                "m {m} d {d} K {k} P {p}: {:.4} ± {:.4} lines, theory {theory:.4}",
                neg.mean(),
                neg.se()
            );
            let bound = crate::lines::one_array_bound(k, d, m);
            assert!(
                (neg.mean() - theory).abs() <= 4.0 * neg.se() + bound,
                "{} against {theory}",
                neg.mean()
            );
        }
    }
}
