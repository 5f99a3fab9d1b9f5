//! The time-limited Bloom filter at a moment, for a Poisson arrival
//! process of cumulative mean Λ (expected keys by a time).
//!
//! **The bits, given the bookkeeping: exact.** A slice of m bits with c
//! insertions has a given bit set with probability 1 - (1 - 1/m)^c (0 once
//! it has expired), and a never-inserted key is reported when k consecutive
//! slices match: the APBF's [`match_probability`]. A key inserted at u is
//! in the k slices that were newest then, d slides ago: they match for sure
//! while unexpired. Tested against simulation given the filter's own
//! bookkeeping.
//!
//! **The bookkeeping: simulated.** The slices' sizes follow the rate each
//! generation measures, a generation's size the smallest room left among
//! the k newest slices, and both feed back into the next generations: a
//! fluid run (the j-th key at Λ⁻¹(j)) keeps too few slices (37.5 against a
//! measured 42.2 in this module's test, FPR 1.2x too high), because the
//! noise in the measured rates makes the slices unequal and the smallest
//! room ends the generations early. So the model runs the filter's own
//! bookkeeping ([`super::control`]) on [`REPLICAS`] independent Poisson
//! streams of its own (seeded, separate from any run's), a generation at a
//! time: in Λ-space the arrivals are a unit-rate Poisson process, so a
//! generation of g keys ends a Gamma(g) step after the last and the next
//! slide comes an Exp(1) step later; Λ⁻¹ gives the times. The FPR and
//! P(yes) are the means over the replicas of the exact values given each
//! replica's bookkeeping. The replicas' own spread is the model's sampling
//! error ([`TlbfMoment::fpr_se`]).

use super::control::Control;
use super::Tlbf;
use crate::apbf::theory::match_probability;
use crate::hash::mix64;
use std::collections::VecDeque;
use std::sync::OnceLock;

/// Bisection steps of Λ⁻¹.
const STEPS: u32 = 64;

/// Independent bookkeeping runs the model averages over.
pub const REPLICAS: usize = 64;

/// A seeded stream of uniforms (a counter through [`mix64`]).
#[derive(Debug, Clone)]
struct Stream(u64);

impl Stream {
    fn uniform(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        ((mix64(self.0) >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    fn exp(&mut self) -> f64 {
        -self.uniform().ln()
    }

    fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    /// Gamma(a, 1) for a >= 1 (Marsaglia and Tsang); the sum of a
    /// exponentials below 16.
    fn gamma(&mut self, a: u64) -> f64 {
        if a < 16 {
            return (0..a).map(|_| self.exp()).sum();
        }
        let d = a as f64 - 1.0 / 3.0;
        let c = 1.0 / (9.0 * d).sqrt();
        loop {
            let x = self.normal();
            let v = (1.0 + c * x).powi(3);
            if v <= 0.0 {
                continue;
            }
            let u = self.uniform();
            if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
                return d * v;
            }
        }
    }
}

/// One replica: the bookkeeping on one Poisson stream.
#[derive(Debug, Clone)]
struct Replica {
    ctl: Control,
    rng: Stream,
    /// Λ of the latest arrival taken into the bookkeeping.
    at: f64,
    /// Λ of the next event, drawn and beyond the latest moment: the
    /// current generation's last arrival (`counter > 0`), or the arrival
    /// that slides (`counter == 0`).
    next: Option<f64>,
    /// Times of the slides, newest first.
    slides: VecDeque<f64>,
}

/// The model of a filter's bookkeeping: [`REPLICAS`] runs, resumable at a
/// later moment of the same arrival process.
#[derive(Debug, Clone)]
pub struct Model {
    start: Control,
    replicas: Vec<Replica>,
    /// Λ of the latest moment asked and that moment: a later call resumes
    /// when its Λ agrees there.
    checkpoint: Option<(f64, f64)>,
    /// Time lower bound for Λ⁻¹ (the latest moment).
    floor: f64,
}

/// The filter at one moment, over the model's replicas.
#[derive(Debug, Clone)]
pub struct TlbfMoment {
    k: u32,
    /// T and the moment, in time units.
    t: f64,
    now: f64,
    states: Vec<State>,
}

/// One replica's slices at a moment.
#[derive(Debug, Clone)]
struct State {
    /// Match probability of each slice for a never-inserted key, newest
    /// first (0 for an expired slice).
    fills: Vec<f64>,
    /// Whether each slice has expired.
    expired: Vec<bool>,
    /// Slide times, newest first.
    slides: Vec<f64>,
    bits: u64,
    /// [`TlbfMoment::presence`]'s value for this replica by the key's
    /// slides `d` (index) and youth (0 old, 1 young), set when first asked:
    /// the value depends on nothing else, and a moment is asked it for
    /// hundreds of keys (the time pass's probes) over k + l + 1 values of
    /// d. (`OnceLock`, so that a moment stays `Sync` as it was.)
    presence: Vec<[OnceLock<f64>; 2]>,
}

impl State {
    /// P(yes) in this replica for a key `d` slides old, `young` or not:
    /// its k slices from the d-th match unless expired (and not young).
    fn presence(&self, k: u32, d: usize, young: bool) -> f64 {
        *self.presence[d.min(self.presence.len() - 1)][young as usize].get_or_init(|| {
            let mut q = self.fills.clone();
            for i in d..(d + k as usize).min(q.len()) {
                if young || !self.expired[i] {
                    q[i] = 1.0;
                }
            }
            match_probability(&q, k)
        })
    }
}

impl TlbfMoment {
    fn mean(&self, f: impl Fn(&State) -> f64) -> f64 {
        self.states.iter().map(f).sum::<f64>() / self.states.len() as f64
    }

    /// The FPR: P(k consecutive slices match), averaged over the replicas.
    pub fn fpr(&self) -> f64 {
        self.mean(|s| match_probability(&s.fills, self.k))
    }

    /// The standard error of [`fpr`](Self::fpr) from the replicas' spread.
    pub fn fpr_se(&self) -> f64 {
        let m = self.fpr();
        let n = self.states.len() as f64;
        let var = self.mean(|s| (match_probability(&s.fills, self.k) - m).powi(2));
        (var / (n - 1.0).max(1.0)).sqrt()
    }

    /// P(yes) for a key inserted at time `u`: its k slices (the newest at
    /// u, d slides ago) match unless expired or gone. The key's own
    /// insertion stamps them at u, so they are live while u is at most T
    /// old (a replica's own last arrival before u may be older).
    pub fn presence(&self, u: f64) -> f64 {
        let young = u + self.t >= self.now;
        self.mean(|s| {
            let d = s.slides.iter().take_while(|&&x| x > u).count();
            s.presence(self.k, d, young)
        })
    }

    /// Slices at this moment, averaged over the replicas.
    pub fn slices(&self) -> f64 {
        self.mean(|s| s.fills.len() as f64)
    }

    /// Bits of the slices, averaged over the replicas.
    pub fn bits(&self) -> f64 {
        self.mean(|s| s.bits as f64)
    }
}

/// Λ⁻¹(x) in [lo, hi].
fn inverse(x: f64, lo: f64, hi: f64, cum: &dyn Fn(f64) -> f64) -> f64 {
    let (mut lo, mut hi) = (lo, hi);
    for _ in 0..STEPS {
        let mid = 0.5 * (lo + hi);
        if cum(mid) < x {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

impl Replica {
    /// Takes every event up to Λ(now) into the bookkeeping; `lo` bounds
    /// the events' times from below.
    fn run_to(&mut self, now: f64, total: f64, lo: f64, cum: &dyn Fn(f64) -> f64) {
        loop {
            let x = self.next.take().unwrap_or_else(|| {
                self.at
                    + if self.ctl.counter == 0 {
                        self.rng.exp()
                    } else {
                        self.rng.gamma(self.ctl.counter)
                    }
            });
            if x > total {
                // beyond this moment: its time is found when reached
                self.next = Some(x);
                return;
            }
            let t = inverse(x, lo, now, cum);
            self.at = x;
            if self.ctl.counter == 0 {
                self.ctl.before_insert(t.round() as u64);
                // positions past the slices hold no key: no need to count
                // slides further back
                self.slides.push_front(t);
                self.slides.truncate(self.ctl.slices.len() + 1);
                // the sliding arrival is the generation's first key
                self.ctl.after_insert(1, t.round() as u64);
            } else {
                let g = self.ctl.counter;
                self.ctl.after_insert(g, t.round() as u64);
            }
        }
    }

    /// The slices at `now`: the current generation's keys so far counted by
    /// their expectation given where it ends.
    fn state(&self, now: f64, total: f64, cum: &dyn Fn(f64) -> f64) -> State {
        let mut ctl = self.ctl.clone();
        let mut extra = 0.0;
        if ctl.counter > 0 {
            if let Some(end) = self.next {
                // g - 1 keys before the generation's last, uniform in Λ
                // between the previous arrival and it
                let left = ctl.counter as f64 - 1.0;
                let share = ((total - self.at) / (end - self.at)).clamp(0.0, 1.0);
                extra = left * share;
                if extra >= 1.0 {
                    // the latest of them: about one key before Λ(now)
                    let t = inverse(total - 1.0, 0.0, now, cum);
                    ctl.after_insert(0, t.round() as u64);
                }
            }
        }
        let now_t = now.round() as u64;
        let k = ctl.k as usize;
        let mut fills = Vec::with_capacity(ctl.slices.len());
        let mut expired = Vec::with_capacity(ctl.slices.len());
        for (i, s) in ctl.slices.iter().enumerate() {
            let gone = ctl.expired(i, now_t);
            let c = s.count as f64 + if i < k { extra } else { 0.0 };
            let p = 1.0 - (1.0 - 1.0 / s.size as f64).powf(c);
            fills.push(if gone { 0.0 } else { p });
            expired.push(gone);
        }
        State {
            presence: (0..=fills.len()).map(|_| Default::default()).collect(),
            fills,
            expired,
            slides: self.slides.iter().copied().collect(),
            bits: ctl.slices.iter().map(|s| s.size).sum(),
        }
    }
}

impl Model {
    /// The model of `f`'s bookkeeping as it was built (fresh).
    pub fn new(f: &Tlbf) -> Model {
        let c = f.control();
        let start = Control::new(c.k, c.l, c.t, c.m0, c.max_growth);
        Model {
            replicas: Vec::new(),
            start,
            checkpoint: None,
            floor: 0.0,
        }
    }

    fn restart(&mut self) {
        self.replicas = (0..REPLICAS as u64)
            .map(|r| Replica {
                ctl: self.start.clone(),
                rng: Stream(mix64(0x71BF ^ r << 20)),
                at: 0.0,
                next: None,
                slides: VecDeque::new(),
            })
            .collect();
        self.floor = 0.0;
    }

    /// The filter at time `now` for arrivals of cumulative mean `cum`;
    /// resumes the runs if `now` is not before the last call's moment and
    /// `cum` agrees there, else starts again.
    pub fn moment(&mut self, now: f64, cum: &dyn Fn(f64) -> f64) -> TlbfMoment {
        let resume = matches!(self.checkpoint, Some((t, c)) if now >= t && cum(t) == c);
        if !resume || self.replicas.is_empty() {
            self.restart();
        }
        let total = cum(now);
        self.checkpoint = Some((now, total));
        let lo = self.floor;
        for r in &mut self.replicas {
            r.run_to(now, total, lo, cum);
        }
        self.floor = now;
        TlbfMoment {
            k: self.start.k,
            t: self.start.t as f64,
            now,
            states: self
                .replicas
                .iter()
                .map(|r| r.state(now, total, cum))
                .collect(),
        }
    }
}

#[cfg(test)]
mod memo_tests {
    use super::*;

    /// A moment's remembered values keep it `Send` and `Sync`, as it was
    /// before it remembered them (a compile error otherwise).
    #[test]
    fn a_moment_is_still_send_and_sync() {
        fn shared<T: Send + Sync>() {}
        shared::<TlbfMoment>();
    }

    /// A moment's memoised presence equals the recursion on the forced
    /// fills computed afresh, to the bit, for keys of every slide count
    /// (older than every slide too), young and old, asked twice.
    #[test]
    fn presence_is_the_recursion_it_remembers() {
        let f = Tlbf::with_fpr(100_000, 0.01, 0.01).unwrap();
        let cum = |x: f64| 0.01 * x.max(0.0);
        let mut model = Model::new(&f);
        let at = model.moment(450_000.0, &cum);
        let fresh = |u: f64| {
            let young = u + at.t >= at.now;
            at.states
                .iter()
                .map(|s| {
                    let d = s.slides.iter().take_while(|&&x| x > u).count();
                    let mut q = s.fills.clone();
                    for i in d..(d + at.k as usize).min(q.len()) {
                        if young || !s.expired[i] {
                            q[i] = 1.0;
                        }
                    }
                    match_probability(&q, at.k)
                })
                .sum::<f64>()
                / at.states.len() as f64
        };
        let mut below_one = 0;
        for pass in 0..2 {
            for step in 0..=460 {
                let u = 1_000.0 * step as f64 - 5_000.0;
                let (got, want) = (at.presence(u), fresh(u));
                assert_eq!(got.to_bits(), want.to_bits(), "pass {pass}, u = {u}");
                below_one += (want < 1.0) as usize;
            }
        }
        // old keys whose slices expired are asked too, not only sure ones
        assert!(below_one > 0);
    }
}
