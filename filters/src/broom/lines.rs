//! The broom filter's reads in 64-byte lines: a query counted on the table,
//! and its expectation under uniform hashing.
//!
//! **What a query reads.** The table keeps seven arrays, each counted from
//! its own line 0 ([`crate::lines`]): the `occupied`, `shifted`,
//! `continuation` and ghost bits (512 slots a line), the r-bit remainders,
//! the 64-bit adaptivity words (8 a line) and their 8-bit lengths (64 a
//! line). A query of quotient h reads `occupied[h]`; when h has a run it
//! reads `shifted` back from h to s, the last slot at or before h whose
//! entry is unshifted (or which is empty); `occupied` over s + 1 ..= h to
//! count the runs before h's; `continuation` from s + 1 to j, the start of
//! h's run; then for each entry of the run its remainder, adaptivity word
//! and length and ghost bit, and the continuation bit of the slot after it
//! (which ends the run). A negative query reads the whole run, unless a
//! false match stops it first.
//!
//! **The layout at load α.** The layout is the greedy one of the cluster
//! (the table module), a function of the multiset of stored
//! quotients alone, whatever the order of insertions and removals; with
//! uniform hashing over S slots the quotients' counts c_i tend to
//! independent Poisson(α) draws, α = entries / S (ghosts included). Let
//! Q_i be the entries of quotients below i stored at i or after: Q_{i+1} =
//! max(Q_i + c_i - 1, 0), a queue whose stationary law π follows from
//! the level-crossing recursion π_j·a_0 = π_0·Ā_{j+1} + Σ_{0<i<j} π_i·Ā_{j-i+1}
//! (a_k Poisson, Ā_k its tail), from π_0 = (1 - α)·e^α (the empty slots are
//! 1 - α of them, and slot i is empty exactly when Q_i = 0 and c_i = 0).
//! Slot i's entry is shifted exactly when Q_i > 0, so with B = h - s, the
//! run of Q > 0 ending at h, the query reads shifted over B + 1 slots,
//! occupied over max(B, 1), continuation over B + Q_h + L, and the run's
//! arrays over L = c_h slots. B and Q_h depend on the counts before h, L
//! on h's alone. E\[B\] = Σ_{b ≥ 1} P(Q > 0 at the b slots ending at h), the
//! mass of π restricted to Q > 0 and carried forward through the queue
//! with Q = 0 removed. The sums come out at E\[Q\] = α²/(2(1 - α)) and
//! E\[B\] = α²/(2(1 - α)²) (equal to 1e-9, tested), 4.05 and 40.5 at α =
//! 0.9, which [`overflow`] uses (the sums take seconds near α = 1): a
//! negative query at the default load reads about 40 slots of `shifted`
//! back.
//!
//! **Lines of a range.** n consecutive b-bit fields starting at a field
//! uniform modulo the line (h, hence j = h + Q_h, is uniform and
//! independent of the counts) span 1 + (n·b - g)/512 lines in expectation,
//! g = gcd(b, 512): 1 + (n - 1)/512 for a bit array. Every count above is
//! linear in n, so the expectation needs only E\[B\], E\[Q\], E\[L | L ≥ 1\] =
//! α / (1 - e^{-α}) and P(L ≥ 1) = 1 - e^{-α}.
//!
//! Left out: the stop at a false match (a negative query's run is cut
//! short with probability at most the FPR, about 2^-r·α per key), the
//! finite table (the counts are multinomial, not Poisson: O(1/S)), and a
//! cluster that wraps round the end of the table.

use super::{Entry, QuotientTable};
use crate::lines::{LineSet, Lines, LINE_BITS};

/// The arrays, numbered for [`LineSet`].
const OCCUPIED: u64 = 0;
const SHIFTED: u64 = 1;
const CONTINUATION: u64 = 2;
const GHOST: u64 = 3;
const REMAINDER: u64 = 4;
const ADAPTIVITY: u64 = 5;
const LENGTH: u64 = 6;

impl QuotientTable {
    /// Counts the lines of bit array `array` over slots `from ..= to`,
    /// going round the end of the table when `from > to`.
    fn touch_slots(&self, lines: &mut LineSet, array: u64, from: u64, to: u64) {
        let mut range = |a: u64, b: u64| {
            for line in a / LINE_BITS..=b / LINE_BITS {
                lines.touch(array, line * LINE_BITS);
            }
        };
        if from <= to {
            range(from, to);
        } else {
            range(from, self.slots - 1);
            range(0, to);
        }
    }

    /// The answer of a query of quotient `h` whose entries are tested by
    /// `matches`, and the distinct 64-byte lines it reads (module
    /// documentation): the path of [`run`](Self::run) searched by `any`.
    pub fn lines_read(&self, h: u64, matches: impl Fn(&Entry) -> bool) -> (bool, u32) {
        let mut lines = LineSet::default();
        lines.touch(OCCUPIED, h);
        let Some((s, j)) = self.run_bounds(h) else {
            return (false, lines.count());
        };
        self.touch_slots(&mut lines, SHIFTED, s, h);
        if s != h {
            self.touch_slots(&mut lines, OCCUPIED, self.next(s), h);
            self.touch_slots(&mut lines, CONTINUATION, self.next(s), j);
        }
        let r = self.rem.width() as u64;
        let mut p = j;
        loop {
            lines.touch_field(REMAINDER, p * r, r);
            lines.touch_field(ADAPTIVITY, p * 64, 64);
            lines.touch_field(LENGTH, p * 8, 8);
            lines.touch(GHOST, p);
            if matches(&self.entry_at(p, h)) {
                return (true, lines.count());
            }
            p = self.next(p);
            lines.touch(CONTINUATION, p);
            if !self.continuation.get(p) {
                return (false, lines.count());
            }
        }
    }
}

impl super::super::BroomFilter {
    /// The answer to a query for `key` and the distinct 64-byte lines
    /// [`contains`](Self::contains) reads for it (module documentation).
    pub fn lines_read(&self, key: u64) -> (bool, u32) {
        let (q, frac) = self.digits(key);
        self.table.lines_read(q, |e| self.matches(e, frac))
    }

    /// The lines of its operations at the table's load now (entries,
    /// ghosts included, over slots; see [`lines`]).
    pub fn lines(&self) -> Lines {
        lines(self.table.entries() as f64 / self.slots() as f64, self.r)
    }
}

impl super::super::Broom {
    /// The answer to a query for `key` and the distinct 64-byte lines
    /// [`contains`](crate::Filter::contains) reads for it.
    pub fn lines_read(&self, key: u64) -> (bool, u32) {
        self.filter().lines_read(key)
    }
}

/// The queue of overflows at load α (module documentation): P(Q = 0),
/// E\[Q\] and E\[B\].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Overflow {
    /// P(Q_h = 0): slot h's entry, if any, is unshifted.
    pub p_zero: f64,
    /// E\[Q_h\]: entries of earlier quotients at h or after, so h's run
    /// starts E\[Q\] slots on.
    pub mean_q: f64,
    /// E\[B\]: slots back from h to the last unshifted one.
    pub mean_b: f64,
}

/// Largest load the queue is evaluated at: its busy runs grow as
/// 1/(1 - α)², and the sums with them.
pub const MAX_LOAD: f64 = 0.98;

/// The overflow queue's figures at load `alpha` in (0, [`MAX_LOAD`]], None
/// outside: P(Q = 0) = (1 - α)·e^α, E\[Q\] = α²/(2(1 - α)) and E\[B\] =
/// E\[Q\]/(1 - α), the closed forms the queue's law and its busy runs sum
/// to (tested against those sums, which take seconds near α = 1, and
/// against a simulation).
pub fn overflow(alpha: f64) -> Option<Overflow> {
    if !(alpha > 0.0 && alpha <= MAX_LOAD) {
        return None;
    }
    let mean_q = alpha * alpha / (2.0 * (1.0 - alpha));
    Some(Overflow {
        p_zero: (1.0 - alpha) * alpha.exp(),
        mean_q,
        mean_b: mean_q / (1.0 - alpha),
    })
}

/// Expected lines of n consecutive `bits`-bit fields from a field uniform
/// modulo the line, for a mean n of `n` (module documentation).
fn range_lines(n: f64, bits: u64) -> f64 {
    let g = crate::half_sliding::theory::gcd(LINE_BITS, bits) as f64;
    1.0 + (n * bits as f64 - g) / LINE_BITS as f64
}

/// Expected lines of a negative query at load `alpha` (entries, ghosts
/// included, over slots) with `r`-bit remainders (module documentation);
/// NaN outside (0, [`MAX_LOAD`]].
pub fn query_negative_lines(alpha: f64, r: u32) -> f64 {
    let Some(o) = overflow(alpha) else {
        return f64::NAN;
    };
    let p_run = -(-alpha).exp_m1();
    let run = alpha / p_run;
    let with_run = range_lines(o.mean_b + o.p_zero, 1)
        + range_lines(o.mean_b + 1.0, 1)
        + range_lines(o.mean_b + o.mean_q + run, 1)
        + range_lines(run, 1)
        + range_lines(run, r as u64)
        + range_lines(run, 64)
        + range_lines(run, 8);
    (1.0 - p_run) + p_run * with_run
}

/// Expected lines of a query of a stored key at load `alpha`: the same
/// reads up to its run as a negative query's, then the run up to the key's
/// entry, which stops the query before the next slot's continuation bit.
/// The key's quotient holds it and Poisson(α) others, and its entry's
/// place in the run is taken as uniform over them (a run keeps its
/// entries in the order they were stored, and a key of the window is as
/// likely as any of the others to have been stored first): E\[place\] =
/// 1 + α/2, P(place = 1) = (1 - e^{-α})/α. The continuation bits read run
/// over B + Q + place - 1 slots, none when the run starts at h and the
/// key is its first entry. NaN outside (0, [`MAX_LOAD`]].
pub fn query_positive_lines(alpha: f64, r: u32) -> f64 {
    let Some(o) = overflow(alpha) else {
        return f64::NAN;
    };
    let place = 1.0 + alpha / 2.0;
    let first = -(-alpha).exp_m1() / alpha;
    // continuation: n = B + Q + place - 1 slots, n = 0 exactly when B = 0
    // (so Q = 0) and place = 1
    let read = 1.0 - o.p_zero * first;
    let n_cont = o.mean_b + o.mean_q + place - 1.0;
    let continuation = read + (n_cont - read) / LINE_BITS as f64;
    range_lines(o.mean_b + o.p_zero, 1)
        + range_lines(o.mean_b + 1.0, 1)
        + continuation
        + range_lines(place, 1)
        + range_lines(place, r as u64)
        + range_lines(place, 64)
        + range_lines(place, 8)
}

/// The lines of the broom filter's operations at load `alpha`: a negative
/// query's and a positive one's; an insertion's is not derived (NaN).
pub fn lines(alpha: f64, r: u32) -> Lines {
    Lines {
        insert: f64::NAN,
        shift: f64::NAN,
        query_negative: query_negative_lines(alpha, r),
        query_positive: query_positive_lines(alpha, r),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The queue's law sums to 1 and its figures match a simulation of the
    /// recursion Q' = max(Q + c - 1, 0) over Poisson counts.
    #[test]
    fn the_overflow_queue_matches_its_simulation() {
        use rand::{Rng, SeedableRng};
        for alpha in [0.5, 0.8, 0.9] {
            let o = overflow(alpha).unwrap();
            let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
            let poisson = |rng: &mut rand_pcg::Pcg64| {
                // inversion
                let (mut k, mut p, u) = (0u64, (-alpha).exp(), rng.random::<f64>());
                let mut cdf = p;
                while u > cdf {
                    k += 1;
                    p *= alpha / k as f64;
                    cdf += p;
                }
                k
            };
            let n = 4_000_000u64;
            let (mut q, mut b) = (0u64, 0u64);
            let (mut zeros, mut sum_q, mut sum_b) = (0u64, 0u64, 0u64);
            for _ in 0..n {
                b = if q == 0 { 0 } else { b + 1 };
                zeros += (q == 0) as u64;
                sum_q += q;
                sum_b += b;
                let c = poisson(&mut rng);
                q = (q + c).saturating_sub(1);
            }
            let nf = n as f64;
            let (pz, mq, mb) = (zeros as f64 / nf, sum_q as f64 / nf, sum_b as f64 / nf);
            println!(
                "alpha {alpha}: P(Q=0) {pz:.4} ({:.4}), E[Q] {mq:.3} ({:.3}), E[B] {mb:.3} ({:.3})",
                o.p_zero, o.mean_q, o.mean_b
            );
            // the sums are correlated over busy runs: tolerances of a few
            // busy runs' worth
            assert!((pz - o.p_zero).abs() < 0.01, "{alpha}");
            assert!((mq / o.mean_q - 1.0).abs() < 0.05, "{alpha}");
            assert!((mb / o.mean_b - 1.0).abs() < 0.05, "{alpha}");
        }
        assert!(
            overflow(0.0).is_none() && overflow(0.99).is_none() && overflow(f64::NAN).is_none()
        );
    }

    /// The overflow queue's figures summed from its law (module
    /// documentation): the stationary law by level crossing, E\[B\] as the
    /// mass that stays above 0 for b slots, summed over b.
    fn overflow_by_sums(alpha: f64) -> Overflow {
        // Poisson(α) pmf and tails, to where they vanish
        let mut pmf = vec![(-alpha).exp()];
        while pmf.len() < 8 || *pmf.last().unwrap() > 1e-18 {
            let k = pmf.len() as f64;
            pmf.push(pmf.last().unwrap() * alpha / k);
        }
        let mut tail = vec![0.0; pmf.len() + 1];
        for k in (0..pmf.len()).rev() {
            tail[k] = tail[k + 1] + pmf[k];
        }
        let tail_at = |k: usize| tail.get(k).copied().unwrap_or(0.0);
        // stationary law by level crossing (all terms positive: stable)
        let p0 = (1.0 - alpha) * alpha.exp();
        let mut pi = vec![p0];
        let mut mass = p0;
        while 1.0 - mass > 1e-14 && pi.len() < 1_000_000 {
            let j = pi.len();
            let from = (j + 1).saturating_sub(tail.len()).max(1);
            let mut up = p0 * tail_at(j + 1);
            for (i, p) in pi.iter().enumerate().skip(from) {
                up += p * tail_at(j - i + 1);
            }
            let pj = up / pmf[0];
            pi.push(pj);
            mass += pj;
        }
        let mean_q = pi.iter().enumerate().map(|(j, p)| j as f64 * p).sum();
        // E[B]: the mass that has stayed above 0 for b slots, summed over b
        let mut v: Vec<f64> = pi.clone();
        v[0] = 0.0;
        let mut mean_b = 0.0;
        for _ in 0..10_000_000 {
            let alive: f64 = v.iter().sum();
            if alive < 1e-15 {
                break;
            }
            mean_b += alive;
            let mut next = vec![0.0; v.len() + pmf.len()];
            for (i, &x) in v.iter().enumerate().skip(1) {
                if x < 1e-300 {
                    continue;
                }
                for (c, &a) in pmf.iter().enumerate() {
                    next[i - 1 + c] += x * a;
                }
            }
            next[0] = 0.0;
            while next.len() > 1 && *next.last().unwrap() < 1e-300 {
                next.pop();
            }
            v = next;
        }
        Overflow {
            p_zero: p0,
            mean_q,
            mean_b,
        }
    }

    /// The numeric sums agree with the closed forms E\[Q\] = α²/(2(1 - α))
    /// and E\[B\] = α²/(2(1 - α)²).
    #[test]
    fn the_overflow_sums_have_closed_forms() {
        for alpha in [0.1, 0.5, 0.8, 0.9, 0.95] {
            let o = overflow_by_sums(alpha);
            let q = alpha * alpha / (2.0 * (1.0 - alpha));
            let b = q / (1.0 - alpha);
            assert!((o.mean_q / q - 1.0).abs() < 1e-9, "{alpha}: {o:?}");
            assert!((o.mean_b / b - 1.0).abs() < 1e-9, "{alpha}: {o:?}");
            assert!((o.p_zero - (1.0 - alpha) * alpha.exp()).abs() < 1e-15);
        }
    }

    /// Lines counted on a sliding-window broom filter at its default load
    /// (0.9) and below, after three windows, against the theory at the
    /// table's load, for never-inserted keys and for every key of the
    /// window; the bound covers the stop at a false match (at most the FPR
    /// bound times the run's lines). The standard error is over the
    /// queries of one table: another seed moves the mean by about as much
    /// again (seed 9: negative 4.7686 against 4.7687 at load 0.9, 4.3696
    /// against 4.3824 at 0.8; positive 7.1723 against 7.1741 and 6.8280
    /// against 6.8237, where seed 5 gives 7.1806 against 7.1748 and 6.8176
    /// against 6.8234: the signs change with the table).
    #[test]
    fn counted_lines_match_the_theory() {
        use crate::hash::mix64;
        use crate::Filter as _;
        for (w, load) in [(300_000u64, 0.9), (100_000, 0.8)] {
            let slots = crate::broom::BroomFilter::slots_for(w, load);
            let r = crate::broom::BroomFilter::remainder_bits_for(w, slots, 1e-3);
            let local = crate::broom::BroomFilter::new(crate::BroomShape {
                capacity: w,
                slots,
                remainder_bits: r,
                moves_per_adapt: 1,
            })
            .map(|f| f.with_seed(5))
            .unwrap();
            let mut f = crate::broom::Broom::from_filter(local);
            for t in 0..3 * w {
                f.insert(mix64(t));
            }
            let want = f.filter().lines();
            let alpha = f.filter().table.entries() as f64 / slots as f64;
            crate::lines::assert_lines(
                &format!(
                    "broom W {w} load {load} (entries {alpha:.4} of the slots, nominal {:.4}) r {r}",
                    query_negative_lines(load, r)
                ),
                |key| f.lines_read(key),
                |key| f.contains(key),
                (3 * w, Some(w)),
                want,
                8.0 * f.filter().fpr_bound(),
            );
        }
    }
}
