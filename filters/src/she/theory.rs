//! The theory of SHE's Bloom filter (see the module above for the
//! structure), exact in the groups' schedule; the FPR of a key's k bits in
//! one shared array takes them as set independently, the Bloom filter's
//! usual approximation, and leaves out the timestamp's aliasing (a group
//! untouched for a whole phase, [`SheTheory::untouched_phase`]).
//!
//! **The schedule.** Group j (of G = m/g) flips when t + o_j reaches a
//! multiple of P, o_j = ⌊(W + P)·j/G⌋: its last flip after insertion t is
//! f = t - r_j, r_j = (t + o_j) mod P. It *flipped within the window*
//! when f > t + 1 - W, i.e. r_j < W - 1: its bits all count as one.
//! Otherwise it holds the N_j = r_j + 1 insertions since its flip
//! (W <= N_j <= P), each of which set k bits of the array uniformly.
//!
//! **Queries.** With c = (1 - 1/m)^k, a never-inserted key finds a bit of
//! a clean group with span N zero with probability c^N, so with
//! S(t) = Σ_clean c^(N_j), P(yes) = (1 - S(t)/G)^k. A key of age a is
//! in the clean groups with N_j > a.
//!
//! **Phases.** Everything depends on t only through t mod P, so the period
//! is P. S(t + 1) = c·S(t), corrected for the groups that flip (leave the
//! clean ones) or turn clean (N = W) at that step: one pass over a period
//! gives every moment's FPR, the worst and the mean ([`SheTheory::sweep`]).
//!
//! **The staggering.** The offsets spread over W + P, one period and W
//! more, so the groups whose offsets fall in [0, W) mod P are twice as
//! dense. At the moment those are all in their first W insertions after a
//! flip, 2W/(W + P) of the groups count as one, against W/P on average:
//! in the continuous limit the worst moment's empty share is P/(W + P)
//! of the average one ([`fpr_continuous`]).

use crate::half_sliding::theory::Presence;
use crate::sliding_sketch::theory::least_from;

/// One configuration: window W, k bits per key, m bits in groups of g,
/// phase P.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SheTheory {
    /// Window W (insertions).
    pub w: u64,
    /// Bits set and read per key.
    pub k: u32,
    /// Bits.
    pub m: u64,
    /// Bits per group.
    pub g: u64,
    /// Insertions per phase, P >= W.
    pub phase: u64,
}

/// Largest window [`sizing`] sizes: an evaluation costs O(P + G log G).
pub const MAX_EXACT_WINDOW: u64 = 1 << 24;

/// The worst moment of a period, its FPR and the FPR averaged over every
/// moment of the period.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sweep {
    /// The first moment of the period (from the steady state) with the
    /// highest FPR.
    pub worst_t: u64,
    /// Its FPR.
    pub worst: f64,
    /// The FPR averaged over the P moments of the period.
    pub mean: f64,
}

impl SheTheory {
    /// G: groups (timestamps).
    pub fn groups(&self) -> u64 {
        self.m / self.g
    }

    /// o_j: group j's offset ((W + P)·G fits in 64 bits, checked by the
    /// filter's constructor).
    pub fn offset(&self, j: u64) -> u64 {
        (self.w + self.phase) * j / self.groups()
    }

    /// Group j's phase bit after insertion t, and r_j, the insertions
    /// since its last flip: the group flipped within the window exactly
    /// when r_j < W - 1 (P >= W), at any t.
    #[inline]
    pub fn position(&self, j: u64, t: u64) -> (bool, u64) {
        let x = t + self.offset(j);
        ((x / self.phase) & 1 == 1, x % self.phase)
    }

    /// Group j's phase bit at insertion t (t may be at or below 0: the
    /// window's start before the W-th insertion).
    pub fn phase_bit(&self, j: u64, t: i128) -> bool {
        (t + self.offset(j) as i128).div_euclid(self.phase as i128) & 1 == 1
    }

    /// Whether group j flipped within the window after insertion t.
    pub fn flipped_in_window(&self, j: u64, t: u64) -> bool {
        let f = self.last_flip(j, t);
        f > t as i128 + 1 - self.w as i128
    }

    /// The insertion of group j's last flip at or before t (0 or below:
    /// none since the first insertion).
    fn last_flip(&self, j: u64, t: u64) -> i128 {
        let (p, o) = (self.phase as i128, self.offset(j) as i128);
        (t as i128 + o).div_euclid(p) * p - o
    }

    /// The insertions group j holds after insertion t: those since its
    /// last flip (all t before its first).
    pub fn held(&self, j: u64, t: u64) -> u64 {
        let f = self.last_flip(j, t).max(1) as u64;
        t + 1 - f
    }

    /// N_j for a clean group, `None` for one that flipped within the
    /// window.
    pub fn span(&self, j: u64, t: u64) -> Option<u64> {
        (!self.flipped_in_window(j, t)).then(|| self.held(j, t))
    }

    /// ln c, c = (1 - 1/m)^k: a bit untouched by one insertion.
    fn ln_c(&self) -> f64 {
        self.k as f64 * (-1.0 / self.m as f64).ln_1p()
    }

    /// S(t) = Σ over clean groups of c^(N_j).
    pub fn empty_sum(&self, t: u64) -> f64 {
        let ln_c = self.ln_c();
        (0..self.groups())
            .filter_map(|j| self.span(j, t))
            .map(|n| (n as f64 * ln_c).exp())
            .sum()
    }

    fn fpr_of(&self, s: f64) -> f64 {
        (1.0 - s / self.groups() as f64)
            .clamp(0.0, 1.0)
            .powi(self.k as i32)
    }

    /// FPR of a never-inserted key after insertion t.
    pub fn fpr_at(&self, t: u64) -> f64 {
        self.fpr_of(self.empty_sum(t))
    }

    /// P(yes | age) after insertion t, for every age.
    pub fn presence(&self, t: u64) -> Presence {
        let ln_c = self.ln_c();
        let mut spans: Vec<u64> = (0..self.groups()).filter_map(|j| self.span(j, t)).collect();
        spans.sort_unstable();
        let gf = self.groups() as f64;
        let mut gone = 0.0;
        let mut steps = vec![(0, 1.0)];
        let mut i = 0;
        while i < spans.len() {
            let n = spans[i];
            while i < spans.len() && spans[i] == n {
                gone += (n as f64 * ln_c).exp();
                i += 1;
            }
            steps.push((n, (1.0 - gone / gf).clamp(0.0, 1.0).powi(self.k as i32)));
        }
        Presence::from_steps(steps)
    }

    /// Expected bits read by a never-inserted key's query that answers no,
    /// after insertion t: it stops at the first bit counting as zero ((k +
    /// 1)/2, the limit, at a moment when every bit counts as one).
    pub fn probes_negative_at(&self, t: u64) -> f64 {
        let f = 1.0 - self.empty_sum(t) / self.groups() as f64;
        let (mut reach, mut probes) = (1.0, 0.0);
        for i in 1..=self.k {
            probes += i as f64 * reach * (1.0 - f);
            reach *= f;
        }
        if reach >= 1.0 {
            // every bit counts as one: the limit f -> 1 of the expectation
            return (self.k as f64 + 1.0) / 2.0;
        }
        probes / (1.0 - reach)
    }

    /// P: a group holds at most this many insertions, so no key this old
    /// or older is reported but by a false positive.
    pub fn longest(&self) -> u64 {
        self.phase
    }

    /// P: the period of the groups' schedule.
    pub fn period(&self) -> u64 {
        self.phase
    }

    /// The first steady moment, 2P: every group has flipped.
    pub fn steady(&self) -> u64 {
        2 * self.phase
    }

    /// Every moment of one period from the steady state, S(t) stepped from
    /// one moment to the next: the worst moment, its FPR and the mean FPR
    /// (`mean` false skips the mean, and its k-th powers).
    pub fn sweep(&self, mean: bool) -> Sweep {
        let (t0, p, w) = (self.steady(), self.phase, self.w);
        let c = self.ln_c().exp();
        let h = |r: u64| -> f64 {
            if r + 1 >= w {
                ((r + 1) as f64 * self.ln_c()).exp()
            } else {
                0.0
            }
        };
        // the steps d at which a group is at r = P - 1 (flips next) and at
        // r = W - 2 (turns clean next)
        // (groups in reverse: o_j grows with j, so r falls and both lists
        // come as a few ascending runs, one per wrap of r or of the step,
        // which the stable sort finds and merges in linear time)
        let (mut flips, mut cleans) = (Vec::new(), Vec::new());
        for j in (0..self.groups()).rev() {
            let r = (t0 + self.offset(j)) % p;
            flips.push((p - 1 + p - r) % p);
            if w >= 2 {
                cleans.push((w - 2 + p - r) % p);
            }
        }
        flips.sort();
        cleans.sort();
        let (on_flip, on_clean) = (h(0) - c * h(p - 1), if w >= 2 { h(w - 1) } else { 0.0 });
        let mut s = self.empty_sum(t0);
        let (mut fi, mut ci) = (0, 0);
        let (mut worst_s, mut worst_d, mut total) = (f64::INFINITY, 0, 0.0);
        for d in 0..p {
            if s < worst_s {
                (worst_s, worst_d) = (s, d);
            }
            if mean {
                total += self.fpr_of(s);
            }
            s *= c;
            while fi < flips.len() && flips[fi] == d {
                s += on_flip;
                fi += 1;
            }
            while ci < cleans.len() && cleans[ci] == d {
                s += on_clean;
                ci += 1;
            }
        }
        Sweep {
            worst_t: t0 + worst_d,
            worst: self.fpr_of(worst_s),
            mean: total / p as f64,
        }
    }

    /// The worst moment of the period from the steady state and its FPR.
    pub fn worst_moment(&self) -> (u64, f64) {
        let s = self.sweep(false);
        (s.worst_t, self.fpr_at(s.worst_t))
    }

    /// Worst-phase FPR of a never-inserted key.
    pub fn fpr(&self) -> f64 {
        self.worst_moment().1
    }

    /// FPR of a never-inserted key averaged over every moment of a period.
    pub fn fpr_avg(&self) -> f64 {
        self.sweep(true).mean
    }

    /// `n` moments (at most the period's), at the midpoints of n equal
    /// parts of one period from the steady state.
    pub fn moments_n(&self, n: u64) -> Vec<u64> {
        let (t0, p) = (self.steady(), self.period());
        let n = p.min(n).max(1);
        (0..n).map(|i| t0 + (2 * i + 1) * p / (2 * n)).collect()
    }

    /// The chance that a group receives no insertion in a whole phase,
    /// (1 - g/m)^(k·P): then its 1-bit timestamp aliases and its stale bits
    /// survive a flip (extra false positives the theory leaves out).
    pub fn untouched_phase(&self) -> f64 {
        (self.k as f64 * self.phase as f64 * (-(self.g as f64) / self.m as f64).ln_1p()).exp()
    }

    /// Payload bits: one per cell and one per group.
    pub fn payload_bits(&self) -> u64 {
        self.m + self.groups()
    }
}

/// The whole number of insertions of a phase α·W (at least W).
pub fn phase_of(w: u64, alpha: f64) -> u64 {
    ((alpha * w as f64).round() as u64).max(w)
}

/// The reference code's α for W distinct keys per window: with
/// Q = (1 - 1/g)^(W·k·(g + 1)/m), the root in (0, 50) of
/// Q^x·(x·ln Q - 1) + Q = 0, by its bisection.
pub fn code_alpha(w: u64, k: u32, m: u64, g: u64) -> f64 {
    let q = (1.0 - 1.0 / g as f64).powf(w as f64 * k as f64 * (g + 1) as f64 / m as f64);
    let (mut lo, mut hi) = (0.0f64, 50.0f64);
    while hi - lo > 1e-7 {
        let x = (lo + hi) / 2.0;
        if q.powf(x) * (q.ln() * x - 1.0) + q > 0.0 {
            hi = x;
        } else {
            lo = x;
        }
    }
    lo
}

/// The continuous approximation of the worst-phase FPR (offsets and spans
/// continuous): at the worst moment the doubly dense offsets have all
/// flipped within the window, and the empty share is
/// (e^(-bW) - e^(-bP)) / (b·(W + P)), b = -ln c.
pub fn fpr_continuous(w: u64, k: u32, m: u64, phase: u64) -> f64 {
    let b = -(k as f64) * (-1.0 / m as f64).ln_1p();
    let (w, p) = (w as f64, phase as f64);
    let empty = ((-b * w).exp() - (-b * p).exp()) / (b * (w + p));
    (1.0 - empty).powi(k as i32)
}

/// A configuration chosen by [`sizing`] (groups of 64).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizing {
    /// Bits per key.
    pub k: u32,
    /// Bits (a multiple of 64).
    pub m: u64,
    /// Insertions per phase.
    pub phase: u64,
}

/// The (k, P, m) of fewest bits (m + m/64) whose worst-phase FPR is at most
/// `fpr` over a window of `w` insertions, in groups of 64, trading at most
/// 1% of the bits for fewer probes: (k, P) the continuous approximation's
/// choice (P = α·W, α on a 1% grid from 1 to 64; the fewest k whose bits
/// are within 1% of the least over k <= 128, where the bits are flat in
/// k), m the least whole number of groups meeting the exact theory,
/// bracketed around the approximation's.
///
/// Memoized ([`crate::memo`]): the exact search takes seconds at a window
/// of millions, and a plan asks for the same sizing several times.
pub fn sizing(w: u64, fpr: f64) -> Option<Sizing> {
    static MEMO: crate::memo::Memo<(u64, u64), Option<Sizing>> = crate::memo::Memo::new();
    MEMO.get_or((w, fpr.to_bits()), || sizing_exact(w, fpr))
}

/// The search behind [`sizing`], uncached.
fn sizing_exact(w: u64, fpr: f64) -> Option<Sizing> {
    let g = super::CODE_GROUP;
    if w == 0 || w > MAX_EXACT_WINDOW || !(fpr > 0.0 && fpr < 1.0) {
        return None;
    }
    // per k, the (P, m) of fewest bits
    let mut per_k: Vec<(u64, Sizing)> = Vec::new();
    for k in 1..=128 {
        let mut best: Option<(u64, Sizing)> = None;
        let mut alpha = 1.0f64;
        while alpha <= 64.0 {
            let phase = phase_of(w, alpha);
            alpha *= 1.01;
            let Some(groups) =
                least_from(w / g + 1, &|gs| fpr_continuous(w, k, gs * g, phase) <= fpr)
            else {
                continue;
            };
            let bits = groups * (g + 1);
            if best.is_none_or(|b| bits < b.0) {
                let m = groups * g;
                best = Some((bits, Sizing { k, m, phase }));
            }
        }
        per_k.extend(best);
    }
    let least = per_k.iter().map(|b| b.0).min()?;
    // the bits are flat in k near the optimum: the fewest k within 1%
    let best = per_k
        .into_iter()
        .find(|b| b.0 as f64 <= 1.01 * least as f64);
    let s = best?.1;
    let groups = least_from(s.m / g, &|gs| {
        SheTheory {
            w,
            k: s.k,
            m: gs * g,
            g,
            phase: s.phase,
        }
        .fpr()
            <= fpr
    })?;
    Some(Sizing { m: groups * g, ..s })
}
