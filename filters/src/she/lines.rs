//! The SHE-BF's cache lines, counted on the filter
//! ([`SheBloom::lines_read`]) and in theory ([`SheTheory::lines_at`]).
//!
//! The m bits and the G one-bit timestamps are two bit arrays. A query
//! takes the key's k bits in order; for each, the group's phase is
//! computed (no memory read), and:
//!
//! - a group that flipped within the window counts as one: no line read;
//! - otherwise the group's timestamp is read (one line of the timestamps);
//!   a timestamp behind the phase (no insertion since the flip) answers no;
//! - otherwise the bit is read (one line of the bits), and answers.
//!
//! A clean group j holds the N_j insertions since its flip
//! ([`SheTheory::held`]); no insertion touched it since with probability
//! u_j = (1 - g/m)^(k·N_j), and its bit for a never-inserted key is set
//! with probability 1 - c^(N_j), c = (1 - 1/m)^k. The timestamps are few
//! (G/512 lines), so the query's reads share lines often, and the theory
//! counts distinct lines: the k bits are independent uniform cells, so a
//! line λ is never read by a negative query with probability
//! Σ_{i<k} q_λⁱ·s_λ + q_λᵏ, q_λ the chance that one bit neither reads λ
//! nor stops the query and s_λ that it stops without reading λ; the
//! expected lines are Σ_λ (1 - that), over the timestamps' lines and the
//! bits'. A key of the window (its groups all touched, its bits set) reads
//! line λ with probability 1 - (1 - r_λ)^k, r_λ the chance one of its bits
//! reads it. This is exact under independent uniform hashing, as the FPR
//! is.
//!
//! An insertion reads and writes k bits and their timestamps (at most 2k
//! lines) and, at a group's first touch after its flip, clears its g bits
//! (within the bit's line when g divides 512).

use super::theory::SheTheory;
use super::SheBloom;
use crate::lines::{LineSet, Lines, LINE_BITS};

impl SheBloom {
    /// The answer to a query for `key` and the distinct 64-byte lines
    /// [`contains`](crate::Filter::contains) reads for it.
    pub fn lines_read(&self, key: u64) -> (bool, u32) {
        let t = self.inserted;
        let mut lines = LineSet::default();
        for i in 0..self.k {
            let c = self.cell(key, i);
            let j = self.group_of(c);
            let (now, since_flip) = self.position(j, t);
            if since_flip + 1 < self.w {
                continue;
            }
            lines.touch(0, j);
            if self.stamps.get(j) != now {
                return (false, lines.count());
            }
            lines.touch(1, c);
            if !self.bits.get(c) {
                return (false, lines.count());
            }
        }
        (true, lines.count())
    }
}

/// One line's chances for one bit of a query: it reads the line (`read`);
/// it reads it and the query goes on (`read_on`); of a key of the window,
/// it reads the line (`read_present`).
#[derive(Default, Clone, Copy)]
struct Chances {
    read: f64,
    read_on: f64,
    read_present: f64,
}

impl Chances {
    /// E[1{the line is read}] over a negative query of at most k bits,
    /// each going on with probability `on`, and over a positive one.
    fn expected(&self, on: f64, k: u32) -> (f64, f64) {
        let q = on - self.read_on;
        let stop = 1.0 - self.read - q;
        let (mut never, mut qi) = (0.0, 1.0);
        for _ in 0..k {
            never += qi * stop;
            qi *= q;
        }
        never += qi;
        let present = 1.0 - (1.0 - self.read_present).powi(k as i32);
        (1.0 - never, present)
    }
}

impl SheTheory {
    /// Expected lines after insertion t (module docs). O(G + m/512).
    pub fn lines_at(&self, t: u64) -> Lines {
        let (groups, g, m) = (self.groups(), self.g, self.m);
        let k = self.k as f64;
        let ln_u = k * (-(g as f64) / m as f64).ln_1p();
        let ln_c = k * (-1.0 / m as f64).ln_1p();
        // per group: (clean, P(touched), P(bit set)) for one of its cells
        let state: Vec<(bool, f64, f64)> = (0..groups)
            .map(|j| match self.span(j, t) {
                Some(n) => (
                    true,
                    1.0 - (n as f64 * ln_u).exp(),
                    1.0 - (n as f64 * ln_c).exp(),
                ),
                None => (false, 1.0, 1.0),
            })
            .collect();
        // a bit goes on: its group flipped within the window, or its bit is set
        let on = state.iter().map(|s| s.2).sum::<f64>() / groups as f64;
        let (mut negative, mut positive) = (0.0, 0.0);
        // the timestamps' lines: 512 groups each, a group a share 1/G
        for first in (0..groups).step_by(LINE_BITS as usize) {
            let mut x = Chances::default();
            for &(clean, _, set) in &state[first as usize..(first + LINE_BITS).min(groups) as usize]
            {
                if clean {
                    let share = 1.0 / groups as f64;
                    x.read += share;
                    x.read_on += share * set;
                    x.read_present += share;
                }
            }
            let (n, p) = x.expected(on, self.k);
            negative += n;
            positive += p;
        }
        // the bits' lines: 512 cells each, a cell a share 1/m
        for first in (0..m).step_by(LINE_BITS as usize) {
            let end = (first + LINE_BITS).min(m);
            let mut x = Chances::default();
            let mut c = first;
            while c < end {
                let j = c / g;
                let run = ((j + 1) * g).min(end) - c;
                let (clean, touched, set) = state[j as usize];
                if clean {
                    let share = run as f64 / m as f64;
                    x.read += share * touched;
                    x.read_on += share * set;
                    x.read_present += share;
                }
                c += run;
            }
            let (n, p) = x.expected(on, self.k);
            negative += n;
            positive += p;
        }
        Lines {
            insert: 2.0 * k,
            shift: 0.0,
            query_negative: negative,
            query_positive: positive,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SheBloom;
    use crate::hash::mix64;
    use crate::Filter;

    /// Counted lines of never-inserted keys and of the window's keys
    /// against the theory, at two moments and at the code's sizing, within
    /// 4 standard errors.
    #[test]
    fn counted_lines_match_the_theory() {
        for (w, k, m, g, phase, extra) in [
            (20_000u64, 4u32, 1u64 << 18, 64u64, 30_000u64, 0u64),
            (20_000, 4, 1 << 18, 64, 30_000, 17_000),
            (10_000, 8, 1 << 20, 128, 10_000, 3_000),
            (50_000, 12, 3 << 20, 64, 60_000, 20_000),
        ] {
            let mut f = SheBloom::new(crate::SheBloomShape {
                window: w,
                hashes: k,
                bits: m,
                group_bits: g,
                phase,
            })
            .unwrap();
            let n = 5 * phase + extra;
            for t in 0..n {
                f.insert(mix64(t));
            }
            crate::lines::assert_lines(
                &format!("W {w} k {k} m {m} g {g} t {n}"),
                |key| f.lines_read(key),
                |key| f.contains(key),
                (n, Some(w)),
                f.theory().lines_at(n),
                0.0,
            );
        }
    }
}
