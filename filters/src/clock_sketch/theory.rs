//! The theory of Clock-sketch's Bloom filter (see the module above for the
//! structure), exact in the pointer's schedule; the FPR of a key's k cells
//! in one shared array takes them as set independently, the Bloom filter's
//! usual approximation.
//!
//! **Pointer schedule.** With D = 2^s - 1 (a full clock) and R = (D - 1)·m
//! decrements per window of W insertions, the pointer has made
//! Q(t) = ⌊t·R/W⌋ decrements after t insertions; the q-th (q = 0, 1, ...) is
//! of cell q mod m at insertion T(q) = ⌈(q + 1)·W/R⌉. An insertion moves the
//! pointer first, then sets its cells.
//!
//! **What a cell holds.** A cell is non-zero after insertion t when a key
//! was set in it after its D-th most recent decrement q*: it holds the
//! N = t - T(q*) + 1 insertions from T(q*) on (N = t before it has been
//! decremented D times). Since q* = last - R and T(q) - T(q - R) = W
//! exactly, N = W + 1 + u with u = t - T(last) the insertions since the
//! pointer last passed the cell.
//!
//! **The phase.** The j-th most recently decremented cell (j = 1..m) has
//! u_j = ⌊(x + j - 1)·W/R⌋, x = frac(t·R/W): every cell's N depends on the
//! moment only through x, and grows with it. So the FPR is non-decreasing
//! in x: the worst moment is the one whose t·R mod W is largest,
//! W - gcd(W, R), and the period is W / gcd(W, R).
//!
//! **Queries.** A never-inserted key finds a cell of span N non-zero with
//! probability 1 - (1 - 1/m)^(k·N); its k cells are uniform over the array,
//! so P(yes) = (1 - meanⱼ (1 - 1/m)^(k·Nⱼ))^k. A key of age a is in the
//! cells with N > a.

use crate::half_sliding::theory::{gcd, Presence};
use crate::sliding_sketch::theory::least_from;

/// One configuration: window W, k cells per key, s-bit clocks, m cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClockBloomTheory {
    /// Window W (insertions).
    pub w: u64,
    /// Cells set and read per key.
    pub k: u32,
    /// Bits per clock.
    pub s: u32,
    /// Cells.
    pub m: u64,
}

/// Most moments of a period the averages evaluate.
pub const MAX_PHASES: u64 = 64;

/// Largest window [`sizing`] sizes: a moment costs O(W).
pub const MAX_EXACT_WINDOW: u64 = 1 << 24;

impl ClockBloomTheory {
    /// D - 1 = 2^s - 2: passes of the pointer per window.
    fn passes(&self) -> u64 {
        (1u64 << self.s) - 2
    }

    /// R: decrements per window.
    fn rate(&self) -> u128 {
        self.passes() as u128 * self.m as u128
    }

    /// Q(t): decrements after insertion t.
    pub fn decrements(&self, t: u64) -> u128 {
        t as u128 * self.rate() / self.w as u128
    }

    /// T(q): the insertion at which decrement q is made.
    pub fn decrement_time(&self, q: u128) -> u64 {
        ((q + 1) * self.w as u128).div_ceil(self.rate()) as u64
    }

    /// W + ⌈W/(2^s - 2)⌉: a cell holds at most this many insertions, so no
    /// key this old or older is reported but by a false positive.
    pub fn longest(&self) -> u64 {
        self.w + self.w.div_ceil(self.passes())
    }

    /// W / gcd(W, R): the state repeats, cells rotated.
    pub fn period(&self) -> u64 {
        let r = (self.rate() % self.w as u128) as u64;
        self.w / gcd(self.w, r)
    }

    /// N: the insertions cell p holds after insertion t.
    pub fn held(&self, p: u64, t: u64) -> u64 {
        let (q, m, full) = (
            self.decrements(t),
            self.m as u128,
            self.passes() as u128 + 1,
        );
        let p = p as u128;
        let d = if q > p { (q - 1 - p) / m + 1 } else { 0 };
        if d < full {
            return t;
        }
        let first = p + (d - full) * m;
        t - self.decrement_time(first) + 1
    }

    /// Every cell's N after insertion t, as runs (N, cells).
    pub fn held_runs(&self, t: u64) -> Vec<(u64, u64)> {
        let (q, m) = (self.decrements(t), self.m as u128);
        let full = self.passes() as u128 + 1;
        if q < full * m {
            // some cell not yet decremented D times: cell by cell
            return (0..self.m).map(|p| (self.held(p, t), 1)).collect();
        }
        let (w, r) = (self.w as u128, self.rate());
        let mut runs = Vec::new();
        if r < w {
            // fewer than one decrement per insertion: decrement by decrement
            for j in 1..=m {
                let u = t - self.decrement_time(q - j);
                runs.push((self.w + 1 + u, 1));
            }
        } else {
            // by insertion: decrements q + 1 in (⌊(s - 1)·R/W⌋, ⌊s·R/W⌋]
            let (first, last) = (
                self.decrement_time(q - m) as u128,
                self.decrement_time(q - 1) as u128,
            );
            for s in first..=last {
                let lo = ((s - 1) * r / w).max(q - m);
                let hi = (s * r / w).min(q);
                if hi > lo {
                    runs.push((self.w + 1 + t - s as u64, (hi - lo) as u64));
                }
            }
        }
        runs
    }

    /// meanⱼ (1 - 1/m)^(k·Nⱼ): the share of cells a never-inserted key's
    /// cell finds zero, after insertion t.
    pub(crate) fn empty_share(&self, t: u64) -> f64 {
        let ln_q = self.k as f64 * (-1.0 / self.m as f64).ln_1p();
        let sum: f64 = self
            .held_runs(t)
            .iter()
            .map(|&(n, c)| c as f64 * (n as f64 * ln_q).exp())
            .sum();
        sum / self.m as f64
    }

    /// FPR of a never-inserted key after insertion t.
    pub fn fpr_at(&self, t: u64) -> f64 {
        (1.0 - self.empty_share(t)).powi(self.k as i32)
    }

    /// P(yes | age) after insertion t, for every age.
    pub fn presence(&self, t: u64) -> Presence {
        let ln_q = self.k as f64 * (-1.0 / self.m as f64).ln_1p();
        let mut runs = self.held_runs(t);
        runs.sort_unstable_by_key(|r| r.0);
        let mf = self.m as f64;
        let mut gone = 0.0;
        let mut steps = vec![(0, 1.0)];
        let mut i = 0;
        while i < runs.len() {
            let n = runs[i].0;
            while i < runs.len() && runs[i].0 == n {
                gone += runs[i].1 as f64 * (n as f64 * ln_q).exp();
                i += 1;
            }
            steps.push((n, (1.0 - gone / mf).powi(self.k as i32)));
        }
        Presence::from_steps(steps)
    }

    /// Expected cells read by a never-inserted key's query that answers no,
    /// after insertion t: it stops at the first zero clock.
    pub fn probes_negative_at(&self, t: u64) -> f64 {
        let f = 1.0 - self.empty_share(t);
        let (mut reach, mut probes) = (1.0, 0.0);
        for i in 1..=self.k {
            probes += i as f64 * reach * (1.0 - f);
            reach *= f;
        }
        probes / (1.0 - reach)
    }

    /// The first steady moment: a multiple of the period at least twice
    /// [`longest`](Self::longest), when every cell has been decremented
    /// 2^s - 1 times.
    fn steady(&self) -> u64 {
        let p = self.period();
        (2 * self.longest()).div_ceil(p) * p
    }

    /// The worst moment of the period from the steady state and its FPR:
    /// the t whose t·R mod W is W - gcd(W, R) (the FPR grows with it; tested
    /// moment by moment).
    pub fn worst_moment(&self) -> (u64, f64) {
        let (t0, p) = (self.steady(), self.period());
        let t = if p == 1 {
            t0
        } else {
            let g = self.w / p;
            // t·(R/g) ≡ -1 (mod p)
            let r = ((self.rate() / g as u128) % p as u128) as u64;
            let x = (p - 1) as u128 * inverse(r, p) as u128 % p as u128;
            t0 + x as u64
        };
        (t, self.fpr_at(t))
    }

    /// Worst-phase FPR of a never-inserted key.
    pub fn fpr(&self) -> f64 {
        self.worst_moment().1
    }

    /// `n` moments (at most the period's), at the midpoints of n equal
    /// parts of one period from the steady state.
    pub fn moments_n(&self, n: u64) -> Vec<u64> {
        let (t0, p) = (self.steady(), self.period());
        let n = p.min(n).max(1);
        (0..n).map(|i| t0 + (2 * i + 1) * p / (2 * n)).collect()
    }

    /// FPR of a never-inserted key averaged over [`MAX_PHASES`] moments.
    pub fn fpr_avg(&self) -> f64 {
        let ts = self.moments_n(MAX_PHASES);
        ts.iter().map(|&t| self.fpr_at(t)).sum::<f64>() / ts.len() as f64
    }

    /// Payload bits: s per cell.
    pub fn payload_bits(&self) -> u64 {
        self.s as u64 * self.m
    }
}

/// The inverse of `a` modulo `n` (coprime, n >= 2).
fn inverse(a: u64, n: u64) -> u64 {
    let (mut r0, mut r1) = (n as i128, a as i128);
    let (mut t0, mut t1) = (0i128, 1i128);
    while r1 != 0 {
        let q = r0 / r1;
        (r0, r1) = (r1, r0 - q * r1);
        (t0, t1) = (t1, t0 - q * t1);
    }
    debug_assert_eq!(r0, 1, "{a} not invertible mod {n}");
    t0.rem_euclid(n as i128) as u64
}

/// A configuration chosen by [`sizing`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizing {
    /// Cells per key.
    pub k: u32,
    /// Bits per clock.
    pub s: u32,
    /// Cells.
    pub m: u64,
}

/// The continuous approximation of the FPR: u uniform in [0, W/(2^s - 2)).
fn fpr_continuous(w: u64, k: u32, s: u32, m: u64) -> f64 {
    let b = -(k as f64) * (-1.0 / m as f64).ln_1p();
    let span = w as f64 / ((1u64 << s) - 2) as f64;
    let empty = (-b * (w + 1) as f64).exp() * -(-b * span).exp_m1() / (b * span);
    (1.0 - empty).powi(k as i32)
}

/// The (k, s, m) of fewest bits whose worst-phase FPR is at most `fpr` over
/// a window of `w` insertions: (k, s) the continuous approximation's
/// choice (s in 2..=4; wider clocks only cost more), m the least meeting
/// the theory at its worst moment, bracketed around the approximation's.
///
/// Memoized ([`crate::memo`]): the exact search takes seconds at a window
/// of millions, and a plan asks for the same sizing several times.
pub fn sizing(w: u64, fpr: f64) -> Option<Sizing> {
    static MEMO: crate::memo::Memo<(u64, u64), Option<Sizing>> = crate::memo::Memo::new();
    MEMO.get_or((w, fpr.to_bits()), || sizing_exact(w, fpr))
}

/// The search behind [`sizing`], uncached.
fn sizing_exact(w: u64, fpr: f64) -> Option<Sizing> {
    if w == 0 || w > MAX_EXACT_WINDOW || !(fpr > 0.0 && fpr < 1.0) {
        return None;
    }
    let kmax = (2 * (1.0 / fpr).log2().ceil() as u32 + 4).min(64);
    let mut best: Option<(u64, Sizing)> = None;
    for s in 2..=4 {
        for k in 1..=kmax {
            let Some(m) = least_from(w, &|m| fpr_continuous(w, k, s, m) <= fpr) else {
                continue;
            };
            let bits = s as u64 * m;
            if best.is_none_or(|b| bits < b.0) {
                best = Some((bits, Sizing { k, s, m }));
            }
        }
    }
    let s = best?.1;
    let m = least_from(s.m, &|m| {
        ClockBloomTheory {
            w,
            k: s.k,
            s: s.s,
            m,
        }
        .fpr()
            <= fpr
    })?;
    Some(Sizing { m, ..s })
}
