//! The HSS-BF's theory, exact under independent uniform hashing (see the
//! module above for the structure).
//!
//! **Clock schedule.** With L = k·m cells and R = (k - lo)·m cells cleared
//! per cycle of C insertions, the clock has cleared Q(t) = ⌊t·R / C⌋ cells
//! after t insertions; the q-th clearing (q = 0, 1, ...) is of cell q mod L
//! at insertion ⌈(q + 1)·C / R⌉. An insertion moves the clock first, then
//! sets its cells.
//!
//! **What a cell holds.** After insertion t, a cell last cleared at
//! insertion s holds the keys inserted from s to t: N = t - s + 1 of them
//! (N = t if it was never cleared). A key of age a (a = 0: the latest) is in
//! it when N > a; a never-inserted key finds it set with probability
//! 1 - q^N, q = 1 - 1/m.
//!
//! **A query at moment t** reads the lo arrays after the clock's array
//! c = (Q(t) mod L) / m, in order. Each of them was cleared in one pass of
//! the clock, so its cells' N fall as the cell index rises. So
//! P(yes | age a) = ∏ᵢ (1/m) Σⱼ [N > a ? 1 : 1 - q^N] over the queried
//! arrays i and their cells j, and the FPR is its limit for ages beyond
//! every N. Between two moments at which the clock enters a new array,
//! the queried arrays are not cleared, every N grows and so does the FPR:
//! the worst phase is the moment before the clock enters an array
//! ([`transitions`](HalfSlidingTheory::transitions)).
//!
//! **Period.** Q(t + C) = Q(t) + (k - lo)·m, so the state repeats (arrays
//! relabelled) every C insertions, and every C/(k - lo) when k - lo
//! divides C: the period is C / gcd(C, k - lo).

use crate::sliding_sketch::theory::least_from;

/// One configuration: k arrays of m cells, lo queried, cycle C.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HalfSlidingTheory {
    /// Arrays.
    pub k: u32,
    /// Arrays read per query.
    pub lo: u32,
    /// Cells per array.
    pub m: u64,
    /// Insertions per (k - lo)·m cells cleared.
    pub cycle: u64,
}

/// Most moments of a period the averages evaluate.
pub const MAX_PHASES: u64 = 64;

/// Largest guaranteed window [`sizing`] sizes: a moment costs O(lo·m).
pub const MAX_EXACT_WINDOW: u64 = 1 << 24;

/// P(yes | age) after one moment, as steps: from age `from` on (until the
/// next step) the value is `p`. The first step is (0, 1), the last one's
/// value is the FPR of a never-inserted key.
#[derive(Debug, Clone, PartialEq)]
pub struct Presence {
    steps: Vec<(u64, f64)>,
}

impl Presence {
    /// From steps (age from which the value holds, value), the first at age
    /// 0, ages rising.
    pub(crate) fn from_steps(steps: Vec<(u64, f64)>) -> Self {
        debug_assert!(steps.first().is_some_and(|s| s.0 == 0));
        Presence { steps }
    }

    /// P(yes) for a key of age `a` (0: the latest insertion).
    pub fn at(&self, a: u64) -> f64 {
        let i = self.steps.partition_point(|s| s.0 <= a);
        self.steps[i - 1].1
    }

    /// P(yes) for a never-inserted key.
    pub fn fpr(&self) -> f64 {
        self.steps.last().map_or(1.0, |s| s.1)
    }

    /// Σ P(yes | a) over ages a in `from..to`.
    pub fn sum(&self, from: u64, to: u64) -> f64 {
        let mut total = 0.0;
        for (i, &(start, p)) in self.steps.iter().enumerate() {
            let end = self.steps.get(i + 1).map_or(u64::MAX, |s| s.0);
            let (a, b) = (start.max(from), end.min(to));
            if b > a {
                total += (b - a) as f64 * p;
            }
        }
        total
    }

    /// The curve over ages 0..=`max_age`.
    pub fn curve(&self, max_age: u64) -> Vec<f64> {
        (0..=max_age).map(|a| self.at(a)).collect()
    }
}

impl HalfSlidingTheory {
    fn cells(&self) -> u64 {
        self.k as u64 * self.m
    }

    fn rate(&self) -> u64 {
        (self.k - self.lo) as u64 * self.m
    }

    /// Q(t): cells cleared after insertion t.
    pub fn cleared(&self, t: u64) -> u128 {
        t as u128 * self.rate() as u128 / self.cycle as u128
    }

    /// The guaranteed window: every key among the last ⌊(k - lo - 1)·C /
    /// (k - lo)⌋ insertions is reported (0 when lo = k - 1).
    pub fn guaranteed(&self) -> u64 {
        let d = (self.k - self.lo) as u128;
        ((d - 1) * self.cycle as u128 / d) as u64
    }

    /// ⌈k·C/(k - lo)⌉: the most insertions a cell goes between clearings
    /// (no key older is reported but by a false positive).
    pub fn longest(&self) -> u64 {
        let d = (self.k - self.lo) as u128;
        (self.k as u128 * self.cycle as u128).div_ceil(d) as u64
    }

    /// Insertions after which the state repeats, arrays relabelled.
    pub fn period(&self) -> u64 {
        self.cycle / gcd(self.cycle, (self.k - self.lo) as u64)
    }

    /// The arrays a query reads after insertion t, in order.
    pub fn queried(&self, t: u64) -> Vec<u64> {
        let c = ((self.cleared(t) % self.cells() as u128) / self.m as u128) as u64;
        (1..=self.lo as u64)
            .map(|j| (c + j) % self.k as u64)
            .collect()
    }

    /// N: the insertions cell p holds after insertion t.
    pub fn held(&self, p: u64, t: u64) -> u64 {
        let (q, l) = (self.cleared(t), self.cells() as u128);
        let p = p as u128;
        if q <= p {
            return t;
        }
        let last = p + l * ((q - 1 - p) / l);
        let s = ((last + 1) * self.cycle as u128).div_ceil(self.rate() as u128) as u64;
        t - s + 1
    }

    /// Array i's cells' N after insertion t, as runs (N, cells) in cell
    /// order. An array the clock is not in was cleared in one pass, cell
    /// after cell, the q-th clearing at insertion ⌈(q + 1)·C/R⌉: when the
    /// clock clears fewer cells than one per insertion (C >= R) those are
    /// walked cell by cell with a quotient and a remainder; otherwise by
    /// clearing insertion, the cells cleared at insertion s being q + 1 in
    /// (⌊(s - 1)·R/C⌋, ⌊s·R/C⌋].
    pub(crate) fn held_runs(&self, t: u64, i: u64) -> Vec<(u64, u64)> {
        let (q, l, m) = (self.cleared(t), self.cells() as u128, self.m as u128);
        let first = (i * self.m) as u128;
        let last_of = |p: u128| (q > p).then(|| p + l * ((q - 1 - p) / l));
        let (a, b) = match (last_of(first), last_of(first + m - 1)) {
            (Some(a), Some(b)) if b == a + m - 1 => (a, b),
            _ => {
                return (0..self.m)
                    .map(|j| (self.held(i * self.m + j, t), 1))
                    .collect()
            }
        };
        let (c, r) = (self.cycle as u128, self.rate() as u128);
        let mut runs = Vec::new();
        if c >= r {
            let (step, extra) = (c / r, c % r);
            let num = (a + 1) * c;
            let mut s = num.div_ceil(r);
            let mut slack = s * r - num;
            for _ in 0..self.m {
                runs.push((t - s as u64 + 1, 1));
                if extra <= slack {
                    s += step;
                    slack -= extra;
                } else {
                    s += step + 1;
                    slack = r - (extra - slack);
                }
            }
        } else {
            let (s0, s1) = (((a + 1) * c).div_ceil(r), ((b + 1) * c).div_ceil(r));
            let (step, extra) = (r / c, r % c);
            // ⌊(s - 1)·R/C⌋ kept as a quotient and a remainder
            let mut below = (s0 - 1) * r / c;
            let mut rem = (s0 - 1) * r % c;
            for s in s0..=s1 {
                let mut upto = below + step;
                rem += extra;
                if rem >= c {
                    rem -= c;
                    upto += 1;
                }
                // q + 1 in (below, upto], q in [a, b]
                let (lo, hi) = ((below).max(a), (upto - 1).min(b));
                if hi >= lo {
                    runs.push((t - s as u64 + 1, (hi - lo + 1) as u64));
                }
                below = upto;
            }
        }
        runs
    }

    /// The share of each queried array's cells set, after insertion t, in
    /// query order.
    pub fn fills(&self, t: u64) -> Vec<f64> {
        let ln_q = (-1.0 / self.m as f64).ln_1p();
        self.queried(t)
            .into_iter()
            .map(|i| {
                let runs = self.held_runs(t, i);
                let set: f64 = runs
                    .iter()
                    .map(|&(n, c)| -(n as f64 * ln_q).exp_m1() * c as f64)
                    .sum();
                set / self.m as f64
            })
            .collect()
    }

    /// FPR of a never-inserted key after insertion t.
    pub fn fpr_at(&self, t: u64) -> f64 {
        self.fills(t).iter().product()
    }

    /// P(yes | age) after insertion t, for every age.
    pub fn presence(&self, t: u64) -> Presence {
        let ln_q = (-1.0 / self.m as f64).ln_1p();
        let arrays = self.queried(t);
        // (N, queried array, q^N), in order of N
        let mut events: Vec<(u64, usize, f64)> = Vec::new();
        for (x, &i) in arrays.iter().enumerate() {
            for (n, c) in self.held_runs(t, i) {
                events.push((n, x, c as f64 * (n as f64 * ln_q).exp()));
            }
        }
        events.sort_by_key(|e| e.0);
        let mf = self.m as f64;
        let mut gone = vec![0.0f64; arrays.len()];
        let mut steps = vec![(0, 1.0)];
        let mut it = events.iter().peekable();
        while let Some(&&(n, _, _)) = it.peek() {
            while let Some(&&(n2, x, v)) = it.peek() {
                if n2 != n {
                    break;
                }
                gone[x] += v;
                it.next();
            }
            let p = gone.iter().map(|g| 1.0 - g / mf).product();
            steps.push((n, p));
        }
        Presence { steps }
    }

    /// Mean FNR over the keys of ages 0..`w` after insertion t (the last w
    /// insertions).
    pub fn fnr_at(&self, t: u64, w: u64) -> f64 {
        1.0 - self.presence(t).sum(0, w) / w as f64
    }

    /// Expected cells read by a never-inserted key's query that answers no,
    /// after insertion t: it stops at the first queried array whose cell is
    /// unset.
    pub fn probes_negative_at(&self, t: u64) -> f64 {
        let (mut reach, mut probes) = (1.0, 0.0);
        for (i, fill) in self.fills(t).into_iter().enumerate() {
            probes += (i + 1) as f64 * reach * (1.0 - fill);
            reach *= fill;
        }
        probes / (1.0 - reach)
    }

    /// The first steady moment: a multiple of the period at least twice
    /// [`longest`](Self::longest), when every cell has been cleared.
    fn steady(&self) -> u64 {
        let p = self.period();
        (2 * self.longest()).div_ceil(p) * p
    }

    /// The moments the averages evaluate: [`MAX_PHASES`] of one period
    /// from the steady state ([`moments_n`](Self::moments_n)).
    pub fn moments(&self) -> Vec<u64> {
        self.moments_n(MAX_PHASES)
    }

    /// `n` moments (at most the period's), at the midpoints of n equal
    /// parts of one period from the steady state: the midpoint rule, since
    /// the FNR falls steeply after each transition (a grid from the
    /// period's start overstated its mean by 10% at 16 moments).
    pub fn moments_n(&self, n: u64) -> Vec<u64> {
        let (t0, p) = (self.steady(), self.period());
        let n = p.min(n).max(1);
        (0..n).map(|i| t0 + (2 * i + 1) * p / (2 * n)).collect()
    }

    /// The moments just before the clock enters a new array, over one
    /// period from the steady state: the candidates for the worst phase.
    pub fn transitions(&self) -> Vec<u64> {
        let (t0, p) = (self.steady(), self.period());
        let (r, c, m) = (self.rate() as u128, self.cycle as u128, self.m as u128);
        let first = self.cleared(t0) / m + 1;
        (first..)
            .map(|n| ((n * m * c).div_ceil(r)) as u64 - 1)
            .take_while(|&t| t < t0 + p)
            .collect()
    }

    /// The worst moment and its FPR: the worst of the
    /// [`transitions`](Self::transitions) (no other moment of the period is
    /// worse, tested moment by moment).
    ///
    /// Memoized ([`crate::memo`]): at a window of millions a period takes
    /// about a second, and the sizing, the plan and the build each ask.
    pub fn worst_moment(&self) -> (u64, f64) {
        static MEMO: crate::memo::Memo<HalfSlidingTheory, (u64, f64)> = crate::memo::Memo::new();
        MEMO.get_or(*self, || {
            self.transitions()
                .into_iter()
                .map(|t| (t, self.fpr_at(t)))
                .fold((0, f64::NEG_INFINITY), |a, b| if b.1 > a.1 { b } else { a })
        })
    }

    /// Worst-phase FPR of a never-inserted key.
    pub fn fpr(&self) -> f64 {
        self.worst_moment().1
    }

    /// FPR of a never-inserted key averaged over the phases.
    pub fn fpr_avg(&self) -> f64 {
        let ts = self.moments();
        ts.iter().map(|&t| self.fpr_at(t)).sum::<f64>() / ts.len() as f64
    }

    /// Payload bits: one per cell.
    pub fn payload_bits(&self) -> u64 {
        self.cells()
    }
}

pub(crate) fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// A configuration chosen by [`sizing`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizing {
    /// Arrays.
    pub k: u32,
    /// Arrays queried.
    pub lo: u32,
    /// Cells per array.
    pub m: u64,
    /// The cycle giving the guaranteed window.
    pub cycle: u64,
}

/// The cycle whose guaranteed window is at least `w` with k - lo = `d`
/// (d >= 2): ⌈w·d/(d - 1)⌉.
pub fn cycle_for(w: u64, d: u32) -> u64 {
    ((w as u128 * d as u128).div_ceil(d as u128 - 1)) as u64
}

/// The continuous approximation of the worst-phase FPR: the clock at the
/// end of its array, queried array j (1..=lo) holding (k - j + 1 - x)·T
/// keys at cell x ∈ [0, 1), T = C/(k - lo).
fn fpr_continuous(k: u32, lo: u32, m: u64, cycle: u64) -> f64 {
    let b = -(cycle as f64 / (k - lo) as f64) * (-1.0 / m as f64).ln_1p();
    (1..=lo)
        .map(|j| {
            let a = (k - j + 1) as f64;
            1.0 - (-a * b).exp() * b.exp_m1() / b
        })
        .product()
}

/// The (k, lo, m) of fewest cells whose exact worst-phase FPR is at most
/// `fpr` with a guaranteed window of at least `w` (k - lo >= 2): (k, lo)
/// the continuous approximation's choice, m the least meeting the exact
/// theory, bracketed around the approximation's.
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
    for k in 3..=kmax {
        for lo in 1..=k - 2 {
            let cycle = cycle_for(w, k - lo);
            let Some(m) = least_from(w, &|m| fpr_continuous(k, lo, m, cycle) <= fpr) else {
                continue;
            };
            let cells = k as u64 * m;
            if best.is_none_or(|b| cells < b.0) {
                best = Some((cells, Sizing { k, lo, m, cycle }));
            }
        }
    }
    let s = best?.1;
    let theory = |m| HalfSlidingTheory {
        k: s.k,
        lo: s.lo,
        m,
        cycle: s.cycle,
    };
    // bisect on the worst moments found so far, then check the period
    let mut moments = vec![theory(s.m).worst_moment().0];
    let mut m = s.m;
    for _ in 0..8 {
        m = least_from(m, &|m| {
            let th = theory(m);
            moments.iter().all(|&t| th.fpr_at(t) <= fpr)
        })?;
        let (t, worst) = theory(m).worst_moment();
        if worst <= fpr {
            return Some(Sizing { m, ..s });
        }
        moments.push(t);
    }
    None
}
