//! The Sliding Bloom filter's theory, exact under independent uniform
//! hashing (see the module above for the structure).
//!
//! **Sweep schedule.** With L = k·m cells, the clock has swept
//! C(t) = ⌊t·L / W⌋ cells after t insertions, so cell p (0-based, in sweep
//! order) is swept for the c-th time (c = 0, 1, ...) at the insertion
//! s_c(p) = ⌈(c·L + p + 1)·W / L⌉, exactly W insertions apart. A sweep
//! moves future to now and drops the old now; an insertion sweeps first,
//! then sets its bits.
//!
//! **What a cell holds.** After insertion t, the cell holds the keys
//! inserted from the sweep before its last one, s_b, to t: N(p, t) =
//! t - s_b + 1 keys (all t keys before its second sweep). In steady state
//! (t ≥ 2W) W + 1 ≤ N ≤ 2W. A key is in a given cell with probability 1/m,
//! so the cell is set by them with probability 1 - (1 - 1/m)^N.
//!
//! **FPR at a moment.** A never-inserted key reads one uniform cell per
//! array: FPR(t) = ∏ᵢ (1/m) Σⱼ (1 - (1 - 1/m)^N(i·m + j, t)). In steady
//! state the arrays' spans of N tile [W + 1, 2W] and shift by one array
//! every W/k insertions, so FPR(t) repeats with period about W/k: the worst
//! phase over one period (all of its moments when W/k ≤ [`MAX_PHASES`], an
//! even grid of them otherwise) is the design's FPR, their mean its
//! average.
//!
//! **A key of age a** (a = 0: the latest insertion), inserted at s = t - a,
//! is still in array i's cell p when s ≥ s_b(p, t), that is N(p, t) > a;
//! otherwise the cell is set only by other keys. P(yes | age a) = ∏ᵢ (1/m)
//! Σⱼ [N > a ? 1 : 1 - (1 - 1/m)^N]: 1 for a ≤ W, the FPR for a ≥ 2W.
//!
//! The sums over a array's cells run over the distinct values of N with
//! their counts (⌊s·L/W⌋ - ⌊(s - 1)·L/W⌋ cells share a sweep time s), so a
//! moment costs O(min(L, W + k)).

/// One configuration: k arrays of m cells, window W.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SlidingBloomTheory {
    /// Arrays.
    pub k: u32,
    /// Cells per array.
    pub m: u64,
    /// Window W.
    pub w: u64,
}

/// Most moments of a period the worst-phase and average FPR evaluate.
pub const MAX_PHASES: u64 = 64;

/// Largest window the exact theory sizes or evaluates for the harness:
/// a moment costs O(W), so a sizing at 2^24 takes about 15 s. Above it,
/// build with explicit (k, m) ([`SlidingBloom::new`](super::SlidingBloom::new)).
pub const MAX_EXACT_WINDOW: u64 = 1 << 24;

impl SlidingBloomTheory {
    fn cells(&self) -> u64 {
        self.k as u64 * self.m
    }

    /// N(p, t): the insertions cell p covers after insertion t.
    pub fn held(&self, p: u64, t: u64) -> u64 {
        self.since_sweep(p, t, 1)
    }

    /// The insertions after insertion t since cell p's sweep `back` sweeps
    /// before its last (0: the last; all t when it has not been swept that
    /// often). The sweep numbered u = c·L + p + 1 happens at insertion
    /// ⌈u·W / L⌉.
    pub(crate) fn since_sweep(&self, p: u64, t: u64, back: u128) -> u64 {
        let (l, w) = (self.cells() as u128, self.w as u128);
        let swept = (t as u128 * l) / w;
        let p = p as u128;
        if swept < p + 1 {
            return t;
        }
        let last = (swept - p - 1) / l;
        if last < back {
            return t;
        }
        let s = (((last - back) * l + p + 1) * w).div_ceil(l) as u64;
        t - s + 1
    }

    /// Calls `f(N, cells)` for the distinct N over array i's cells after
    /// insertion t (N(p, t) for p in i·m .. (i + 1)·m).
    pub(crate) fn spans(&self, t: u64, i: u64, mut f: impl FnMut(u64, u64)) {
        let (l, w) = (self.cells() as u128, self.w as u128);
        let (first, end) = (i * self.m, (i + 1) * self.m);
        let swept = (t as u128 * l) / w;
        // fewer cells than insertions per sweep, or an early moment:
        // cell by cell
        if w >= l || swept < 2 * l {
            for p in first..end {
                f(self.held(p, t), 1);
            }
            return;
        }
        // cells p < h were swept this cycle (last = ⌊C/L⌋), the others not
        // yet (last = ⌊C/L⌋ - 1); within each group s_b rises with p
        let (cycle, h) = (swept / l, (swept % l) as u64);
        let groups = [(first, end.min(h), cycle), (first.max(h), end, cycle - 1)];
        for (a, b, last) in groups {
            if a >= b {
                continue;
            }
            // u = (last - 1)·L + p + 1; s_b = ⌈u·W / L⌉
            let base = (last - 1) * l + 1;
            let (u0, u1) = (base + a as u128, base + b as u128 - 1);
            let (s0, s1) = ((u0 * w).div_ceil(l), (u1 * w).div_ceil(l));
            // u with ⌈u·W/L⌉ = s: ⌊(s-1)·L/W⌋ < u ≤ ⌊s·L/W⌋; the floors
            // kept incrementally (quotient and remainder of s·L by W)
            let (step_q, step_r) = (l / w, l % w);
            let mut below = (s0 - 1) * l / w;
            let mut rem = (s0 - 1) * l % w;
            for s in s0..=s1 {
                let mut upto = below + step_q;
                rem += step_r;
                if rem >= w {
                    rem -= w;
                    upto += 1;
                }
                let (lo, hi) = ((below + 1).max(u0), upto.min(u1));
                if hi >= lo {
                    f(t - s as u64 + 1, (hi - lo + 1) as u64);
                }
                below = upto;
            }
        }
    }

    /// Calls `f(N, cells, q^N)` for the distinct N over array i's cells
    /// after insertion t, q = 1 - 1/m: q^N by one multiplication from the
    /// last where N moves by one (the spans come in order of N, one apart,
    /// within each of two runs).
    fn spans_q(&self, t: u64, i: u64, mut f: impl FnMut(u64, u64, f64)) {
        let ln_q = (-1.0 / self.m as f64).ln_1p();
        let (q, inv_q) = (ln_q.exp(), (-ln_q).exp());
        let mut last: Option<(u64, f64)> = None;
        self.spans(t, i, |n, c| {
            let qn = match last {
                Some((m, qm)) if n + 1 == m => qm * inv_q,
                Some((m, qm)) if n == m + 1 => qm * q,
                _ => (n as f64 * ln_q).exp(),
            };
            last = Some((n, qn));
            f(n, c, qn);
        });
    }

    /// P(yes) after insertion t for a key of age `age` (0: the latest
    /// insertion), or for a never-inserted key (`age` None).
    pub fn presence_at(&self, t: u64, age: Option<u64>) -> f64 {
        let mut p = 1.0;
        for i in 0..self.k as u64 {
            let mut sum = 0.0;
            self.spans_q(t, i, |n, c, qn| {
                let set = match age {
                    Some(a) if n > a => 1.0,
                    _ => 1.0 - qn,
                };
                sum += set * c as f64;
            });
            p *= sum / self.m as f64;
        }
        p
    }

    /// The steady-state moments evaluated: one period of about W/k
    /// insertions from 2W (every moment, or [`MAX_PHASES`] of them).
    pub fn moments(&self) -> Vec<u64> {
        let period = self.w.div_ceil(self.k as u64).max(1);
        let n = period.min(MAX_PHASES);
        (0..n).map(|i| 2 * self.w + i * period / n).collect()
    }

    /// The FPR of a never-inserted key at each of the
    /// [`moments`](Self::moments), (moment, FPR).
    ///
    /// Memoized ([`crate::memo`]): at a window of millions a period takes
    /// a second or more, and the sizing's last check, the plan and the
    /// build each ask for the chosen theory's.
    pub fn phase_fprs(&self) -> Vec<(u64, f64)> {
        static MEMO: crate::memo::Memo<SlidingBloomTheory, Vec<(u64, f64)>> =
            crate::memo::Memo::new();
        MEMO.get_or(*self, || {
            self.moments()
                .into_iter()
                .map(|t| (t, self.presence_at(t, None)))
                .collect()
        })
    }

    /// Worst-phase FPR of a never-inserted key.
    pub fn fpr(&self) -> f64 {
        self.worst_moment().1
    }

    /// FPR of a never-inserted key averaged over the phases.
    pub fn fpr_avg(&self) -> f64 {
        mean_fpr(&self.phase_fprs())
    }

    /// P(yes | age) averaged over the phases, for ages 0..=`max_age`.
    pub fn presence_by_age(&self, max_age: u64) -> Vec<f64> {
        let ts = self.moments();
        (0..=max_age)
            .map(|a| {
                ts.iter()
                    .map(|&t| self.presence_at(t, Some(a)))
                    .sum::<f64>()
                    / ts.len() as f64
            })
            .collect()
    }

    /// P(yes) after insertion t for keys of every age 0..=`max_age` (the
    /// curve [`presence_at`](Self::presence_at) gives age by age), in
    /// O(k·max_age + W + k): array i's share of cells still holding a key
    /// of age a is 1 - (1/m) Σ_{N ≤ a} c·q^N over its spans (N, c), so
    /// walking the ages in order adds each span once.
    pub fn presence_curve(&self, t: u64, max_age: u64) -> Vec<f64> {
        let k = self.k as usize;
        // (N, array, c·q^N), in order of N (the spans come in a few
        // monotone runs of N per array, which the stable sort merges)
        let mut events: Vec<(u64, usize, f64)> = Vec::new();
        for i in 0..k {
            self.spans_q(t, i as u64, |n, c, qn| events.push((n, i, c as f64 * qn)));
        }
        events.sort_by_key(|e| e.0);
        let mf = self.m as f64;
        let mut gone = vec![0.0f64; k];
        let mut next = events.iter().peekable();
        let mut product = 1.0;
        (0..=max_age)
            .map(|a| {
                let mut moved = false;
                while let Some(&&(n, i, v)) = next.peek() {
                    if n > a {
                        break;
                    }
                    gone[i] += v;
                    moved = true;
                    next.next();
                }
                if moved {
                    product = gone.iter().map(|g| 1.0 - g / mf).product();
                }
                product
            })
            .collect()
    }

    /// PWS after insertion t: the expected number of keys reported among
    /// those of the last 2W insertions that are not among the last W (the
    /// slack; ages W+1 ..= 2W counting the latest insertion as 1, as the
    /// rest of the crate does, that is `age` W ..= 2W - 1 here).
    pub fn pws_at(&self, t: u64) -> f64 {
        let curve = self.presence_curve(t, 2 * self.w - 1);
        curve[self.w as usize..].iter().sum()
    }

    /// Expected cells read by a never-inserted key's query that answers no,
    /// after insertion t: the query stops at the first array whose cell has
    /// neither bit, array i with probability ∏_{j<i} fⱼ·(1 - fᵢ), fⱼ the
    /// share of array j's cells set.
    pub fn probes_negative_at(&self, t: u64) -> f64 {
        let ln_q = (-1.0 / self.m as f64).ln_1p();
        let (mut reach, mut probes) = (1.0, 0.0);
        for i in 0..self.k as u64 {
            let mut set = 0.0;
            self.spans(t, i, |n, c| set += c as f64 * -(n as f64 * ln_q).exp_m1());
            let fill = set / self.m as f64;
            probes += (i + 1) as f64 * reach * (1.0 - fill);
            reach *= fill;
        }
        probes / (1.0 - reach)
    }

    /// The steady-state moment of the worst phase among
    /// [`moments`](Self::moments), and its FPR.
    pub fn worst_moment(&self) -> (u64, f64) {
        worst_fpr(&self.phase_fprs())
    }

    /// Payload bits: two per cell.
    pub fn payload_bits(&self) -> u64 {
        2 * self.cells()
    }
}

/// The worst of [`SlidingBloomTheory::phase_fprs`] (the first moment of
/// the highest FPR).
pub fn worst_fpr(phases: &[(u64, f64)]) -> (u64, f64) {
    phases
        .iter()
        .copied()
        .fold((0, f64::NEG_INFINITY), |a, b| if b.1 > a.1 { b } else { a })
}

/// The mean FPR of [`SlidingBloomTheory::phase_fprs`].
pub fn mean_fpr(phases: &[(u64, f64)]) -> f64 {
    phases.iter().map(|p| p.1).sum::<f64>() / phases.len() as f64
}

/// The continuous approximation of the worst-phase FPR (N spread evenly
/// over [W, 2W] across the cells): used only to choose k and bracket m.
fn fpr_continuous(k: u32, m: u64, w: u64) -> f64 {
    let lambda = -(w as f64) * (-1.0 / m as f64).ln_1p();
    // mean of e^{-λ(1+u)} for u uniform on [a, b] ⊂ [0, 1)
    let mean = |a: f64, b: f64| {
        ((-lambda * (1.0 + a)).exp() - (-lambda * (1.0 + b)).exp()) / (lambda * (b - a))
    };
    let kf = k as f64;
    (0..8)
        .map(|d| {
            let delta = d as f64 / 8.0 / kf;
            (0..k)
                .map(|j| {
                    let a = j as f64 / kf + delta;
                    let b = a + 1.0 / kf;
                    let miss = if b <= 1.0 {
                        mean(a, b)
                    } else {
                        (mean(a, 1.0) * (1.0 - a) + mean(0.0, b - 1.0) * (b - 1.0)) * kf
                    };
                    1.0 - miss
                })
                .product::<f64>()
        })
        .fold(0.0, f64::max)
}

/// The (k, m) whose exact worst-phase FPR is at most `fpr` over a window
/// of `w`, with the fewest cells for its k: k is the continuous
/// approximation's choice (fewest cells there; the exact optimum can be a
/// neighbour with almost the same cells), m the least meeting the exact
/// theory, bracketed around the approximation's.
///
/// Memoized ([`crate::memo`]): the exact search takes seconds at a window
/// of millions, and a plan asks for the same sizing several times.
pub fn sizing(w: u64, fpr: f64) -> Option<(u32, u64)> {
    static MEMO: crate::memo::Memo<(u64, u64), Option<(u32, u64)>> = crate::memo::Memo::new();
    MEMO.get_or((w, fpr.to_bits()), || sizing_exact(w, fpr))
}

/// The search behind [`sizing`], uncached.
fn sizing_exact(w: u64, fpr: f64) -> Option<(u32, u64)> {
    if w == 0 || w > MAX_EXACT_WINDOW || !(fpr > 0.0 && fpr < 1.0) {
        return None;
    }
    let kmax = (2 * (1.0 / fpr).log2().ceil() as u32 + 2).min(64);
    let (_, k, m_c) = (1..=kmax)
        .filter_map(|k| {
            let m = least_from(2 * w / k as u64, &|m| fpr_continuous(k, m, w) <= fpr)?;
            Some((k as u64 * m, k, m))
        })
        .min()?;
    // the worst phase moves little with m: bisect on the worst moments
    // found so far (one or two evaluations per step instead of a period's),
    // then check the whole period, adding its worst moment on a miss; the
    // least m meeting a subset of the moments is at most the answer, and
    // the loop ends at an m whose whole period meets the target
    let theory = |m| SlidingBloomTheory { k, m, w };
    let worst_moment = |m| theory(m).worst_moment().0;
    let mut moments = vec![worst_moment(m_c)];
    let mut m = m_c;
    for _ in 0..16 {
        m = least_from(m, &|m| {
            let th = theory(m);
            moments.iter().all(|&t| th.presence_at(t, None) <= fpr)
        })?;
        if theory(m).fpr() <= fpr {
            return Some((k, m));
        }
        moments.push(worst_moment(m));
    }
    least_from(m, &|m| theory(m).fpr() <= fpr).map(|m| (k, m))
}

/// The least m meeting `meets` (monotone), searched from `start`: a
/// bracket widened geometrically from a 1/512 step, then bisection.
pub(crate) fn least_from(start: u64, meets: &dyn Fn(u64) -> bool) -> Option<u64> {
    let start = start.max(1);
    let mut step = (start / 512).max(1);
    let (mut lo, mut hi);
    if meets(start) {
        hi = start;
        loop {
            lo = hi.saturating_sub(step);
            if lo == 0 || !meets(lo) {
                break;
            }
            hi = lo;
            step = step.saturating_mul(2);
        }
    } else {
        lo = start;
        loop {
            hi = lo.checked_add(step).filter(|&h| h <= 1 << 36)?;
            if meets(hi) {
                break;
            }
            lo = hi;
            step = step.saturating_mul(2);
        }
    }
    // lo fails (or is 0), hi meets
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if meets(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}
