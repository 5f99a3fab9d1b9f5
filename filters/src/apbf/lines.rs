//! The APBF's cache lines: what an operation reads or writes of memory,
//! counted on the filter ([`Apbf::lines_read`]) and in theory
//! ([`ApbfTheory::lines`]).
//!
//! The k + l slices are m bits each, one after another in one bit array,
//! and a probe of a slice reads one bit of it: one line. A query follows
//! [`Apbf`]'s `contains`:
//!
//! - when l < k it reads the middle slices l .. k - 1 (every run of k
//!   covers them) and answers no if one misses; that happens with
//!   probability 1 - π, π the product of their fill ratios;
//! - otherwise (and always when l >= k) it finds a run of k either with
//!   Algorithm 1 resumed after the middle slices (which never probes a
//!   slice twice: after a miss its next run stops short of the last run's
//!   start), or, on processors with AVX-512, by reading all k + l slices.
//!
//! So a query's lines are the slices it reads, whose expectation comes from
//! Algorithm 1's cost table ([`super::theory::query_cost`]) started where
//! the middle slices leave it. Two probes share a line only when both fall
//! in the line across the boundary of two adjacent slices, with probability
//! at most (512 / m)² / 4 per adjacent pair; the theory counts a line per
//! slice read, which overstates the mean by at most (k + l)(512 / m)² / 4
//! (below 1e-5 lines from m = 2^18 bits at k + l = 46).
//!
//! An insertion writes one bit in each of the k newest slices (k lines);
//! the shift clears a slice, ⌈m / 512⌉ lines or one more, every g
//! insertions.

use super::cost::cost_from;
use super::theory::{shifts_at_age, ApbfTheory};
use super::Apbf;
use crate::lines::{LineSet, Lines, LINE_BITS};

/// How a query reads the slices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryPath {
    /// Algorithm 1 from slice l (the TLBF's query).
    Algorithm1,
    /// The middle slices l .. k - 1, then Algorithm 1 resumed after them
    /// (the APBF's query without AVX-512).
    MiddleThenAlgorithm1,
    /// The middle slices, then all k + l slices (the APBF's query with
    /// AVX-512).
    MiddleThenAll,
}

impl QueryPath {
    /// The path an APBF of k + l slices of m bits takes on this processor.
    pub fn of_apbf(k: u32, l: u32, m: u64) -> Self {
        if super::use_simd(k, l, m) {
            QueryPath::MiddleThenAll
        } else {
            QueryPath::MiddleThenAlgorithm1
        }
    }

    /// The path whose lines
    /// [`Instrumented::counted_lines`](crate::Instrumented::counted_lines)
    /// counts for an APBF on every processor: the one a processor with
    /// AVX-512 takes (the vector query when k + l <= 64 and m < 2^32, else
    /// [`QueryPath::MiddleThenAlgorithm1`]), so that a count, and the
    /// figures a benchmark harness derives from it, is the same on every
    /// machine. A processor without AVX-512 runs
    /// [`QueryPath::MiddleThenAlgorithm1`] with the same answers
    /// ([`Apbf::lines_read`] counts the path this processor takes).
    pub fn counted(k: u32, l: u32, m: u64) -> Self {
        if super::vector_shape(k, l, m) {
            QueryPath::MiddleThenAll
        } else {
            QueryPath::MiddleThenAlgorithm1
        }
    }
}

impl Apbf {
    /// The answer to a query for `key` and the distinct 64-byte lines
    /// [`contains`](crate::Filter::contains) reads for it (the module
    /// docs), on the path this processor takes.
    pub fn lines_read(&self, key: u64) -> (bool, u32) {
        self.lines_on_path(key, self.path())
    }

    /// The path this filter's queries take on this processor.
    pub fn path(&self) -> QueryPath {
        QueryPath::of_apbf(self.k, self.l, self.m)
    }

    /// [`lines_read`](Self::lines_read) on the given path, whatever the
    /// processor (the path's reads are counted; the answer is the same on
    /// every path).
    pub fn lines_on_path(&self, key: u64, path: QueryPath) -> (bool, u32) {
        if path == QueryPath::MiddleThenAll && self.l >= self.k {
            // every slice is read: their misses overlap when all are asked
            // for first (a hint: the count and the answer are the same)
            for i in 0..self.slices() as usize {
                self.bits.prefetch(self.slot(key, i));
            }
        }
        let mut lines = LineSet::default();
        let mut bit = |i: usize| {
            let pos = self.slot(key, i);
            lines.touch(0, pos);
            self.bits.get(pos)
        };
        let answer = match path {
            QueryPath::Algorithm1 => super::algorithm1(self.k, self.l, &mut bit).0,
            QueryPath::MiddleThenAlgorithm1 => {
                super::middle_hits(self.k, self.l, &mut bit)
                    && super::algorithm1_after_middle(self.k, self.l, &mut bit)
            }
            QueryPath::MiddleThenAll => {
                super::middle_hits(self.k, self.l, &mut bit) && {
                    let mut all = 0u64;
                    for i in 0..self.slices() as usize {
                        all |= (bit(i) as u64) << i;
                    }
                    super::has_run(all, self.k)
                }
            }
        };
        (answer, lines.count())
    }
}

/// Expected lines a query reads when slice i matches with probability
/// `q[i]`, independently, and a probe of it reads `cost[i]` lines (0 for a
/// slice a query skips), on `path`. `None` when Algorithm 1's cost table is
/// too large.
pub fn query_lines(q: &[f64], cost: &[f64], k: u32, path: QueryPath) -> Option<f64> {
    let l = q.len() as u32 - k;
    let middle = |q: &[f64]| -> (f64, f64) {
        let range = l.min(k) as usize..k as usize;
        (cost[range.clone()].iter().sum(), q[range].iter().product())
    };
    Some(match path {
        QueryPath::Algorithm1 => {
            let (_, no, yes) = cost_from(q, cost, k, l, l as usize, 0)?;
            no + yes
        }
        QueryPath::MiddleThenAlgorithm1 => {
            let (lines, pi) = middle(q);
            let start = k.max(l) as usize;
            let (_, no, yes) = cost_from(q, cost, k, l, start, k.saturating_sub(l) as usize)?;
            lines + pi * (no + yes)
        }
        QueryPath::MiddleThenAll => {
            let (lines, pi) = middle(q);
            let all: f64 = cost.iter().sum();
            lines + pi * (all - lines)
        }
    })
}

impl ApbfTheory {
    /// Expected lines at phase φ (1 ..= g) when queries take `path`.
    /// `None` when Algorithm 1's cost table is too large
    /// ([`super::theory::MAX_COST_STATES`]) or when slices are so small
    /// that the lines they share could move the mean by over 0.01
    /// ([`shared_bound`](Self::shared_bound)); the positive query's NaN when
    /// its l + 1 tables together are too large.
    pub fn lines(&self, phase: u64, path: QueryPath) -> Option<Lines> {
        if path == QueryPath::MiddleThenAll {
            return Some(self.lines_reading_all(phase));
        }
        if self.shared_bound() > 0.01 {
            return None;
        }
        let q = self.fills(phase);
        let ones = vec![1.0; q.len()];
        let negative = query_lines(&q, &ones, self.k, path)?;
        let (k, l) = (self.k as u64, self.l as u64);
        let positive = match path {
            // every key of the window matches the middle slices
            QueryPath::MiddleThenAll => (k + l) as f64,
            _ if (l + 1).saturating_mul((k + l) * k * k) > super::theory::MAX_COST_STATES => {
                f64::NAN
            }
            _ => self.positive_lines(&q, phase, path)?,
        };
        Some(Lines {
            insert: self.k as f64,
            shift: self.shift_lines() / self.g as f64,
            query_negative: negative,
            query_positive: positive,
        })
    }

    /// Expected lines of a query for a key of the window, its age uniform.
    fn positive_lines(&self, q: &[f64], phase: u64, path: QueryPath) -> Option<f64> {
        let ones = vec![1.0; q.len()];
        // a key inside the window has been shifted j <= l times; count the
        // window's ages by j
        let (g, w) = (self.g, self.window());
        let mut positive = 0.0;
        let mut age = 1;
        while age <= w {
            let j = shifts_at_age(age, phase, g);
            let last = (phase + j * g).min(w);
            let mut forced = q.to_vec();
            let end = (j + self.k as u64).min(forced.len() as u64);
            for x in &mut forced[j as usize..end as usize] {
                *x = 1.0;
            }
            positive += (last - age + 1) as f64 * query_lines(&forced, &ones, self.k, path)?;
            age = last + 1;
        }
        Some(positive / w as f64)
    }

    /// The path an APBF of this configuration takes on this processor.
    pub fn path(&self) -> QueryPath {
        QueryPath::of_apbf(self.k, self.l, self.m)
    }

    /// [`lines`](Self::lines) at the worst phase φ = g, on this processor's
    /// path.
    pub fn lines_worst(&self) -> Option<Lines> {
        self.lines(self.g, self.path())
    }

    /// [`lines`](Self::lines) at the worst phase φ = g on the
    /// [`QueryPath::counted`] path: what
    /// [`Instrumented::counted_lines`](crate::Instrumented::counted_lines)
    /// counts, on every processor.
    pub fn lines_counted(&self) -> Option<Lines> {
        self.lines(self.g, QueryPath::counted(self.k, self.l, self.m))
    }

    /// [`lines`](Self::lines) on the vector path, exactly whatever m: the
    /// slices read are the middle ones, or all k + l with probability π, so
    /// the distinct lines of each set count the lines slices share (a line
    /// is read unless every probe missed it), averaged over the rotations.
    fn lines_reading_all(&self, phase: u64) -> Lines {
        let h = (self.k + self.l) as u64;
        let q = self.fills(phase);
        let all = self.all_lines();
        let negative = (0..h)
            .map(|base| self.reading_all_at(&q, base, all))
            .sum::<f64>()
            / h as f64;
        Lines {
            insert: self.k as f64,
            shift: self.shift_lines() / self.g as f64,
            query_negative: negative,
            query_positive: all,
        }
    }

    /// A negative query's lines on the vector path with logical slice i
    /// matching with probability `q[i]` and logical slice 0 at physical
    /// `base`; `all` is [`all_lines`](Self::all_lines).
    fn reading_all_at(&self, q: &[f64], base: u64, all: f64) -> f64 {
        let (k, l, h) = (self.k as u64, self.l as u64, (self.k + self.l) as u64);
        if l >= k {
            return all;
        }
        let pi: f64 = q[l as usize..k as usize].iter().product();
        let set: Vec<u64> = (l..k).map(|i| (base + i) % h).collect();
        (1.0 - pi) * self.distinct_lines(&set) + pi * all
    }

    /// Expected distinct lines of a probe in every slice.
    fn all_lines(&self) -> f64 {
        let h = (self.k + self.l) as u64;
        self.distinct_lines(&(0..h).collect::<Vec<_>>())
    }

    /// Expected distinct lines of one uniform probe in each physical slice
    /// of `set`: a probe per slice, less, for each line holding parts of
    /// two or more slices of the set, Σ shares - (1 - Π(1 - share)).
    fn distinct_lines(&self, set: &[u64]) -> f64 {
        let m = self.m;
        let mf = m as f64;
        let mut sorted = set.to_vec();
        sorted.sort_unstable();
        let in_set = |b: u64| sorted.binary_search(&b).is_ok();
        // lines holding a boundary between slices b - 1 and b
        let mut lines: Vec<u64> = sorted
            .iter()
            .flat_map(|&b| [b, b + 1])
            .filter(|&b| {
                b >= 1 && b < (self.k + self.l) as u64 && !(b * m).is_multiple_of(LINE_BITS)
            })
            .map(|b| b * m / LINE_BITS)
            .collect();
        lines.sort_unstable();
        lines.dedup();
        let saved: f64 = lines
            .into_iter()
            .map(|line| {
                let (lo, hi) = (line * LINE_BITS, (line + 1) * LINE_BITS);
                let shares: Vec<f64> = (lo / m..hi.div_ceil(m).min((self.k + self.l) as u64))
                    .filter(|&b| in_set(b))
                    .map(|b| (hi.min((b + 1) * m) - lo.max(b * m)) as f64 / mf)
                    .collect();
                let missed: f64 = shares.iter().map(|s| 1.0 - s).product();
                shares.iter().sum::<f64>() - (1.0 - missed)
            })
            .sum();
        set.len() as f64 - saved
    }

    /// The most the lines two slices share could lower a query's mean,
    /// (k + l)(512 / m)² / 4, which the theory leaves in.
    pub fn shared_bound(&self) -> f64 {
        crate::lines::shared_lines_bound(self.k + self.l, self.m)
    }

    /// Lines a shift clears, averaged over the k + l slice positions: the
    /// lines that bits b·m .. (b + 1)·m span.
    fn shift_lines(&self) -> f64 {
        let h = (self.k + self.l) as u64;
        let spanned: u64 = (0..h)
            .map(|b| ((b + 1) * self.m).div_ceil(LINE_BITS) - b * self.m / LINE_BITS)
            .sum();
        spanned as f64 / h as f64
    }
}

#[cfg(test)]
mod tests {
    use super::QueryPath;
    use crate::hash::mix64;
    use crate::testing::Tally;
    use crate::{Apbf, Filter};

    /// Counted lines of never-inserted and recent keys against the theory
    /// at the filter's phase, on both query paths, within 4 standard errors
    /// plus the theory's stated bound on shared lines.
    /// The vector path's theory counts shared lines exactly: slices of
    /// 231 and 1155 bits, where several share a line. Given each state's
    /// own fills (small slices' fills are noisy), over the k + l rotations.
    #[test]
    fn small_slices_share_lines_on_the_vector_path() {
        for (k, l, g) in [(4u32, 2u32, 40u64), (10, 7, 80)] {
            let mut f = Apbf::new(crate::ApbfShape {
                hashes: k,
                extra_slices: l,
                generation: g,
            })
            .unwrap();
            let mut t = 0u64;
            let mut insert = |f: &mut Apbf, n: u64| {
                for _ in 0..n {
                    t += 1;
                    f.insert(mix64(t));
                }
            };
            insert(&mut f, (k + l + 3) as u64 * g);
            let th = f.theory();
            let (mut neg, mut theory, mut states) = (Tally::default(), 0.0, 0.0);
            for round in 0..10 * (k + l) as u64 {
                let q: Vec<f64> = (0..(k + l) as usize)
                    .map(|i| {
                        let b = f.position(i);
                        f.bits.count_ones_in(b * f.m, (b + 1) * f.m - 1) as f64 / f.m as f64
                    })
                    .collect();
                theory += th.reading_all_at(&q, f.base as u64, th.all_lines());
                states += 1.0;
                for i in 0..20_000u64 {
                    let key = mix64(u64::MAX - i - round * 20_000);
                    let (yes, lines) = f.lines_on_path(key, QueryPath::MiddleThenAll);
                    assert_eq!(yes, f.contains(key));
                    neg.add(lines);
                }
                insert(&mut f, g);
            }
            let theory = theory / states;
            println!(
                "(k, l) = ({k}, {l}), m = {}: {:.4} ± {:.4} lines, theory {theory:.4}",
                f.m(),
                neg.mean(),
                neg.se()
            );
            assert!(neg.agrees(theory), "{} against {theory}", neg.mean());
        }
    }

    #[test]
    fn counted_lines_match_the_theory() {
        for (k, l, g) in [(10u32, 7u32, 20_000u64), (4, 2, 40_000), (6, 12, 30_000)] {
            let mut f = Apbf::new(crate::ApbfShape {
                hashes: k,
                extra_slices: l,
                generation: g,
            })
            .unwrap();
            // steady state at the worst phase: k + l + 3 whole generations
            let n = (k + l + 3) as u64 * g;
            for t in 0..n {
                f.insert(mix64(t));
            }
            let (th, w) = (f.theory(), f.theory().window());
            let bound = th.shared_bound();
            for path in [
                QueryPath::Algorithm1,
                QueryPath::MiddleThenAlgorithm1,
                QueryPath::MiddleThenAll,
            ] {
                let want = th.lines(g, path).unwrap();
                let (mut neg, mut pos) = (Tally::default(), Tally::default());
                for i in 0..200_000u64 {
                    let key = mix64(u64::MAX - i);
                    let (yes, lines) = f.lines_on_path(key, path);
                    assert_eq!(yes, f.contains(key));
                    neg.add(lines);
                }
                // every age of the window once
                for age in 1..=w {
                    let (yes, lines) = f.lines_on_path(mix64(n - age), path);
                    assert!(yes, "a key inside the window");
                    pos.add(lines);
                }
                for (what, t, theory) in [
                    ("negative", &neg, want.query_negative),
                    ("positive", &pos, want.query_positive),
                ] {
                    println!(
                        "(k, l) = ({k}, {l}) {path:?} {what}: {:.4} ± {:.4} lines, theory {theory:.4}",
                        t.mean(),
                        t.se()
                    );
                    assert!(
                        (t.mean() - theory).abs() <= 4.0 * t.se() + bound + 1e-9,
                        "({k}, {l}) {path:?} {what}: {} ± {} against {theory}",
                        t.mean(),
                        t.se()
                    );
                }
            }
        }
    }
}
