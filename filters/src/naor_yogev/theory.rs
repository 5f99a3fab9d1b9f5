//! Sizing and theory of the Naor-Yogev sliding Bloom filter
//! (Naor, Yogev, *Tight Bounds for Sliding Bloom Filters*, arXiv:1304.5872;
//! the displayed formulas of our copy were lost in extraction and are re-derived here from the text).
//!
//! # Generations, window and slack
//!
//! Insertions are grouped in generations of g; the generation counter ℓ
//! advances when the g+1-th insertion of a generation arrives (lazily, at the
//! start of that insertion, as the APBF shifts). An entry carries the
//! generation of its latest insertion and is *active* while ℓ is at most c
//! generations ahead of it. A key inserted as the last of its generation has
//! age 1 after its insertion and is deactivated by the (cg + 1)-th insertion
//! after it: it is reported at ages 1 ..= cg + 1. A key inserted first in its
//! generation is deactivated by the ((c + 1)g)-th insertion after it: it is
//! reported up to age (c + 1)g and never beyond. Hence, for a window n,
//!
//!   g = ⌈(n - 1)/c⌉ (at least 1),  window n guaranteed (cg + 1 >= n),
//!   slack s = (c + 1)g - n,
//!
//! which for n = cg is s = g = n/c, the paper's slack. The
//! number of active keys is cg + φ at phase φ (keys in the current generation),
//! at most N = (c + 1)g = n + s: the dictionary's capacity, the paper's
//! n' = n(1 + 1/c).
//!
//! # False positives
//!
//! Fingerprints are uniform on \[R\] with R = B·2^r (B buckets, r remainder
//! bits). A never-inserted key x is reported iff h(x) is the fingerprint of an
//! active key. With D distinct fingerprints among the N_φ = cg + φ active
//! keys, P(yes) = D/R, and E\[D\] = R(1 - (1 - 1/R)^N_φ), so
//!
//!   FPR(φ) = 1 - (1 - 1/R)^(cg + φ)  <=  N_φ / R,
//!
//! exactly, for a distinct stream (the paper's union bound N/R <= ε is its
//! upper bound). The worst phase is φ = g. The sizing takes the smallest R
//! with FPR(g) <= ε. A key older than n + s is inactive; it is reported only
//! through a collision, with the same probability FPR(φ).
//!
//! # Memory
//!
//! 4B slots of r + 1 + t bits: the remainder, one bit saying which of its two
//! buckets the entry is in (so that (bucket, bit, remainder) determines the
//! fingerprint exactly: without it, partial-key cuckoo hashing would merge the
//! fingerprints (q, r) and (q', r) whose buckets are swapped, doubling the
//! FPR), and a t-bit tag holding the generation mod 2c + 2 plus one code for
//! an empty slot, t = ⌈log2(2c + 3)⌉. B is at least N / (4α) for a maximum
//! load α; among all r, the sizing takes the one with least memory
//! (B = max(⌈N/(4α)⌉, ⌈R_min/2^r⌉)). Against the paper's bound
//! n log2(1/ε) + n max(log2 log2(1/ε), log2(n/m)), the per-element excess
//! comes from: the load 1/α; the bucket bit; log2(4α·R/(Bε·2^r)) bits of
//! quotienting and rounding (the succinct dictionary the paper assumes stores
//! about log2(1/ε) + log2 e bits per key); the tag's log2(2c + 3) against
//! log2 c; and the n/c extra keys of the last generation.
//!
//! # Choice of c
//!
//! The paper's space is about n(1 + 1/c)(log2(1/ε) + log2(2c + 2)) bits;
//! setting its derivative in c to zero gives c/ln 2 = log2(1/ε) + 1 +
//! log2(c + 1), i.e. the fixed point c* = ln(2(c* + 1)/ε) ([`c_paper`]): c grows
//! like ln(1/ε). The slack then forces c >= about n/m. [`Sizing::new`] takes
//! the c with the least exact memory among those whose slack is within m
//! (searching upwards from the smallest such c), which lands next to
//! max(c*, n/m), moved by the integer steps of t.

use crate::error::{check_nonzero, check_probability, ParamError, MAX_BITS};

/// Slots per bucket.
pub const BUCKET_SLOTS: u64 = 4;

/// Default maximum load of the cuckoo table (4-slot buckets, two choices,
/// random-walk insertion and a stash; see the crate README for the measured
/// insertion tails at this load).
pub const DEFAULT_MAX_LOAD: f64 = 0.9;

/// Largest c the automatic choice considers beyond its smallest feasible c.
const C_SEARCH: u64 = 1024;

/// Every size of one configuration, fixed at construction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sizing {
    /// Window n: every key of age <= n is reported.
    pub n: u64,
    /// Largest slack asked for (m).
    pub m: u64,
    /// Target FPR ε.
    pub eps: f64,
    /// Trade-off parameter c: generations per window.
    pub c: u64,
    /// Generation size g = ⌈(n - 1)/c⌉ (at least 1).
    pub g: u64,
    /// Tag values 2c + 2 (one more code marks an empty slot).
    pub tags: u64,
    /// Bits of a tag, ⌈log2(2c + 3)⌉.
    pub tag_bits: u32,
    /// Largest number of active keys, N = (c + 1)g = n + slack.
    pub capacity: u64,
    /// Buckets B.
    pub buckets: u64,
    /// Remainder bits r stored per slot.
    pub remainder_bits: u32,
    /// Maximum load α the table was sized for.
    pub max_load: f64,
}

/// The continuous optimum of the paper's space n(1 + 1/c)(log2(1/ε) +
/// log2(2c + 2)) over c, ignoring the slack: the fixed point of
/// c = ln(2(c + 1)/ε).
pub fn c_paper(eps: f64) -> f64 {
    let mut c = (1.0 / eps).ln().max(1.0);
    for _ in 0..100 {
        c = (2.0 * (c + 1.0) / eps).ln();
    }
    c
}

/// The paper's space bound n log2(1/ε) + n max(log2 log2(1/ε), log2(n/m)) in
/// bits (Theorems 1.1 and 1.2, up to lower-order terms).
pub fn space_bound_bits(n: u64, m: u64, eps: f64) -> f64 {
    let l = (1.0 / eps).log2();
    let (n, m) = (n as f64, m as f64);
    n * l + n * l.log2().max((n / m).log2())
}

/// g for window n and c.
pub(crate) fn generation(n: u64, c: u64) -> u64 {
    (n - 1).div_ceil(c).max(1)
}

/// Slack (c + 1)g - n of window n at c.
pub fn slack_of(n: u64, c: u64) -> u64 {
    (c + 1) * generation(n, c) - n
}

/// The sizing both generation-tagged designs share (this one and
/// `ny_pocket`): checks `n`, `m`, `eps` and `max_load`; with `c` given,
/// checks it (at most max(n, 2), slack within m) and sizes at it;
/// otherwise sizes at every feasible c from the smallest up to `search`
/// more and keeps the one with least `memory`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn size_generations<S>(
    n: u64,
    m: u64,
    eps: f64,
    c: Option<u64>,
    max_load: f64,
    search: u64,
    with_c: impl Fn(u64, u64, f64, u64, f64) -> Result<S, ParamError>,
    memory: impl Fn(&S) -> u64,
) -> Result<S, ParamError> {
    check_nonzero("n", n)?;
    check_nonzero("m", m)?;
    check_probability("eps", eps)?;
    if !(0.5..1.0).contains(&max_load) {
        return Err(ParamError::OutOfRange {
            name: "max_load",
            value: format!("{max_load}"),
            expected: "in [0.5, 1)",
        });
    }
    if n > MAX_BITS {
        return Err(ParamError::TooLarge {
            what: "window n",
            limit: format!("{MAX_BITS}"),
        });
    }
    if let Some(c) = c {
        check_nonzero("c", c)?;
        if c > n.max(2) {
            return Err(ParamError::OutOfRange {
                name: "c",
                value: c.to_string(),
                expected: "at most max(n, 2)",
            });
        }
        if slack_of(n, c) > m {
            return Err(ParamError::OutOfRange {
                name: "c",
                value: c.to_string(),
                expected: "large enough that the slack (c + 1)⌈(n - 1)/c⌉ - n is within m",
            });
        }
        return with_c(n, m, eps, c, max_load);
    }
    // slack >= (n - 1)/c - 1, so c >= (n - 1)/(m + 1) is necessary
    let lo = ((n - 1) / (m + 1)).max(1);
    let hi = lo.saturating_add(search).min(n.max(2));
    let mut best: Option<S> = None;
    let mut last_err = None;
    for c in lo..=hi {
        if slack_of(n, c) > m {
            continue;
        }
        match with_c(n, m, eps, c, max_load) {
            Ok(s) if best.as_ref().is_none_or(|b| memory(&s) < memory(b)) => best = Some(s),
            Ok(_) => {}
            Err(e) => last_err = Some(e),
        }
    }
    best.ok_or_else(|| {
        last_err.unwrap_or(ParamError::Unreachable {
            target: format!("slack <= {m} for window {n}"),
        })
    })
}

/// Bits of a value in 0..=x.
fn bits_for(x: u64) -> u32 {
    64 - x.leading_zeros()
}

impl Sizing {
    /// Sizes a filter for window `n`, slack at most `m` and FPR at most `eps`;
    /// `c` given or chosen for least memory; `max_load` in [0.5, 1).
    pub fn new(
        n: u64,
        m: u64,
        eps: f64,
        c: Option<u64>,
        max_load: f64,
    ) -> Result<Sizing, ParamError> {
        size_generations(
            n,
            m,
            eps,
            c,
            max_load,
            C_SEARCH,
            Self::with_c,
            Sizing::memory_bits,
        )
    }

    fn with_c(n: u64, m: u64, eps: f64, c: u64, max_load: f64) -> Result<Sizing, ParamError> {
        let g = generation(n, c);
        let too_large = |what| ParamError::TooLarge {
            what,
            limit: format!("{MAX_BITS} bits"),
        };
        let capacity = (c + 1)
            .checked_mul(g)
            .filter(|&x| x <= MAX_BITS)
            .ok_or(too_large("capacity"))?;
        let tags = 2 * c + 2;
        let tag_bits = bits_for(tags);
        let r_min = min_range(capacity, eps);
        let min_buckets = (capacity as f64 / (BUCKET_SLOTS as f64 * max_load)).ceil();
        let mut best: Option<Sizing> = None;
        for r in 0..=(63 - tag_bits) {
            let b = min_buckets
                .max((r_min / 2f64.powi(r as i32)).ceil())
                .max(1.0);
            if b * BUCKET_SLOTS as f64 * (r + 1 + tag_bits) as f64 > MAX_BITS as f64 {
                continue;
            }
            let s = Sizing {
                n,
                m,
                eps,
                c,
                g,
                tags,
                tag_bits,
                capacity,
                buckets: b as u64,
                remainder_bits: r,
                max_load,
            };
            if best.is_none_or(|x| s.table_bits() < x.table_bits()) {
                best = Some(s);
            }
        }
        best.ok_or(too_large("table"))
    }

    /// Bits per slot: remainder, bucket bit, tag.
    pub fn slot_bits(&self) -> u32 {
        self.remainder_bits + 1 + self.tag_bits
    }

    /// Slots 4B.
    pub fn slots(&self) -> u64 {
        self.buckets * BUCKET_SLOTS
    }

    /// Bits of the slot table.
    pub fn table_bits(&self) -> u64 {
        self.slots() * self.slot_bits() as u64
    }

    /// Bits of a full fingerprint (bucket and remainder), as a stash entry
    /// stores it, plus its tag.
    pub fn stash_entry_bits(&self) -> u64 {
        (bits_for(self.buckets - 1) + self.remainder_bits + self.tag_bits) as u64
    }

    /// Memory of an empty-stash filter: the table plus four 64-bit words of
    /// state (generation, position in it, scan pointer, kick generator).
    pub fn memory_bits(&self) -> u64 {
        self.table_bits() + 4 * 64
    }

    /// Fingerprint range R = B·2^r.
    pub fn range(&self) -> f64 {
        self.buckets as f64 * 2f64.powi(self.remainder_bits as i32)
    }

    /// Slack (c + 1)g - n.
    pub fn slack(&self) -> u64 {
        self.capacity - self.n
    }

    /// Load of the table when N keys are active.
    pub fn load(&self) -> f64 {
        self.capacity as f64 / self.slots() as f64
    }

    /// Slots the background scan visits per insertion: 2, or more if the
    /// table has more than 2((c + 1)g - 1) slots. An entry deactivated at the
    /// start of some insertion must be deleted before its tag value comes
    /// round again, (c + 1)g insertions later; the scans of the (c + 1)g - 1
    /// insertions in between must cover the table.
    pub fn scan_per_insert(&self) -> u64 {
        self.slots().div_ceil(self.capacity - 1).max(2)
    }

    /// FPR at phase φ ∈ 1..=g in steady state: 1 - (1 - 1/R)^(cg + φ).
    pub fn fpr_at(&self, phase: u64) -> f64 {
        fpr_with(self.range(), self.c * self.g + phase)
    }

    /// FPR at the worst phase (φ = g).
    pub fn fpr(&self) -> f64 {
        self.fpr_at(self.g)
    }

    /// FPR averaged over phases 1..=g (closed form of the geometric sum).
    pub fn fpr_avg(&self) -> f64 {
        fpr_avg_over_phases(self.range(), self.c, self.g)
    }

    /// P(yes | age) at phase φ: 1 while the key's generation is active (age
    /// <= φ + cg), else the FPR.
    pub fn presence(&self, age: u64, phase: u64) -> f64 {
        presence_rule(age, phase, self.c, self.g, || self.fpr_at(phase))
    }

    /// PWS at phase φ: expected yes answers over ages n + 1 ..= n + s.
    pub fn pws_at(&self, phase: u64) -> f64 {
        pws_rule(
            self.n,
            self.slack(),
            self.c,
            self.g,
            phase,
            self.fpr_at(phase),
        )
    }

    /// Expected slots a negative query reads with an empty stash: 8, or 4
    /// when both buckets of the fingerprint coincide (probability 1/B).
    pub fn probes_negative(&self) -> f64 {
        2.0 * BUCKET_SLOTS as f64 - BUCKET_SLOTS as f64 / self.buckets as f64
    }
}

/// The FPR 1 - (1 - 1/R)^(cg + φ) averaged over phases φ = 1..=g, in
/// closed form: with x = 1 - 1/R the mean of x^(cg + φ) is
/// x^(cg+1) (1 - x^g) R / g. (Shared with `ny_pocket`, R = 1/p.)
pub(crate) fn fpr_avg_over_phases(range: f64, c: u64, g: u64) -> f64 {
    let lx = (-1.0 / range).ln_1p();
    let sum = ((c * g + 1) as f64 * lx).exp() * -(g as f64 * lx).exp_m1() * range / g as f64;
    1.0 - sum
}

/// P(yes | age) at phase φ under the generations rule: 1 while the key's
/// generation is active (age <= φ + cg), else `fpr()`.
pub(crate) fn presence_rule(age: u64, phase: u64, c: u64, g: u64, fpr: impl Fn() -> f64) -> f64 {
    if age <= phase + c * g {
        1.0
    } else {
        fpr()
    }
}

/// PWS at phase φ under the generations rule: expected yes answers over
/// ages n + 1 ..= n + s, 1 for each still-active age and `fpr` for the rest.
pub(crate) fn pws_rule(n: u64, s: u64, c: u64, g: u64, phase: u64, fpr: f64) -> f64 {
    let (lo, hi) = (n + 1, n + s);
    if hi < lo {
        return 0.0;
    }
    let active_to = (phase + c * g).min(hi);
    let active = active_to.saturating_sub(lo - 1).min(hi - lo + 1);
    active as f64 + (hi - lo + 1 - active) as f64 * fpr
}

/// 1 - (1 - 1/R)^k.
fn fpr_with(range: f64, k: u64) -> f64 {
    fpr_of_match(1.0 / range, k)
}

/// 1 - (1 - p)^k: the FPR of k stored fingerprints each matching a
/// never-inserted key with probability p (shared with `ny_pocket`).
pub(crate) fn fpr_of_match(p: f64, k: u64) -> f64 {
    -(k as f64 * (-p).ln_1p()).exp_m1()
}

/// Largest per-fingerprint match probability p with 1 - (1 - p)^N <= ε:
/// 1 - (1 - ε)^(1/N) (shared with `ny_pocket`).
pub(crate) fn max_match(capacity: u64, eps: f64) -> f64 {
    -((-eps).ln_1p() / capacity as f64).exp_m1()
}

/// Smallest R with 1 - (1 - 1/R)^N <= ε: R >= 1 / (1 - (1 - ε)^(1/N)).
fn min_range(capacity: u64, eps: f64) -> f64 {
    let r = (1.0 / max_match(capacity, eps)).ceil();
    // guard the rounding of the closed form
    if fpr_with(r, capacity) > eps {
        r + 1.0
    } else {
        r
    }
}

crate::persist::codec_struct!(Sizing {
    n,
    m,
    eps,
    c,
    g,
    tags,
    tag_bits,
    capacity,
    buckets,
    remainder_bits,
    max_load
});

#[cfg(test)]
mod tests {
    use super::*;

    /// The generations rule: sure while the key's generation is active
    /// (age <= φ + cg), the FPR after; PWS its sum over the slack's ages.
    #[test]
    fn presence_and_pws_by_the_generations_rule() {
        let (c, g, fpr) = (3u64, 10u64, 0.01);
        for phase in 1..=g {
            for age in 1..80 {
                let want = if age <= phase + c * g { 1.0 } else { fpr };
                assert_eq!(presence_rule(age, phase, c, g, || fpr), want);
            }
            for (n, s) in [(25u64, 0u64), (25, 1), (25, 20), (10, 60), (60, 5)] {
                let want: f64 = (n + 1..=n + s)
                    .map(|a| presence_rule(a, phase, c, g, || fpr))
                    .sum();
                let got = pws_rule(n, s, c, g, phase, fpr);
                assert!(
                    (got - want).abs() < 1e-12,
                    "phase {phase} n {n} s {s}: {got} {want}"
                );
            }
        }
    }

    #[test]
    fn a_stash_entry_holds_bucket_remainder_and_tag() {
        let f = super::super::NaorYogev::new(crate::NaorYogevShape {
            window: 3000,
            slack: 300,
            fpr: 0.01,
            generations: None,
            max_load: None,
        })
        .unwrap();
        let s = f.sizing();
        assert_eq!(
            s.stash_entry_bits(),
            (bits_for(s.buckets - 1) + s.remainder_bits + s.tag_bits) as u64
        );
    }

    /// The bound docs/space_bound.md quotes: 13.28 bits per key at
    /// ε = 1e-3 and m = n (log2 1000 + log2 log2 1000), and the n/m term
    /// when the slack is small.
    #[test]
    fn space_bound_per_key() {
        let n = 1u64 << 20;
        let per_key = space_bound_bits(n, n, 1e-3) / n as f64;
        let l = 1000f64.log2();
        assert!((per_key - (l + l.log2())).abs() < 1e-12);
        assert!((per_key - 13.28).abs() < 0.005, "{per_key}");
        let small = space_bound_bits(n, n / 64, 1e-3) / n as f64;
        assert!((small - (l + 6.0)).abs() < 1e-12, "{small}");
    }

    #[test]
    fn window_and_slack_follow_c() {
        // n = cg: slack g = n/c, the paper's n/c
        let s = Sizing::new(1024, 128, 0.01, Some(8), 0.9).unwrap();
        assert_eq!((s.g, s.slack(), s.capacity), (128, 128, 1152));
        // every feasible c keeps the slack within m, and c*g + 1 >= n
        for n in [1u64, 2, 7, 100, 1000] {
            for c in 1..=n.max(2) {
                let g = generation(n, c);
                assert!(c * g + 1 >= n);
                assert_eq!(slack_of(n, c), (c + 1) * g - n);
            }
        }
    }

    #[test]
    fn sizing_meets_the_target_with_least_memory() {
        for &eps in &[0.1, 1e-2, 1e-3, 1e-5] {
            for &(n, m) in &[(1 << 14, 1 << 8), (1 << 14, 1 << 14), (1000, 10)] {
                let s = Sizing::new(n, m, eps, None, DEFAULT_MAX_LOAD).unwrap();
                assert!(s.fpr() <= eps, "{s:?}");
                assert!(s.slack() <= m && s.load() <= DEFAULT_MAX_LOAD);
                // one bit less of remainder, at the same buckets, misses ε
                if s.remainder_bits > 0 {
                    let smaller = Sizing {
                        remainder_bits: s.remainder_bits - 1,
                        ..s
                    };
                    assert!(smaller.fpr() > eps || smaller.buckets < s.buckets);
                }
                // no feasible c nearby is cheaper
                for c in s.c.saturating_sub(3).max(1)..=s.c + 3 {
                    if let Ok(o) = Sizing::new(n, m, eps, Some(c), DEFAULT_MAX_LOAD) {
                        assert!(o.memory_bits() >= s.memory_bits());
                    }
                }
            }
        }
    }

    #[test]
    fn fpr_average_matches_the_sum() {
        let s = Sizing::new(3000, 100, 0.01, None, 0.9).unwrap();
        let direct = (1..=s.g).map(|p| s.fpr_at(p)).sum::<f64>() / s.g as f64;
        assert!(
            (s.fpr_avg() - direct).abs() < 1e-9 * direct,
            "{} {direct}",
            s.fpr_avg()
        );
        assert!(s.fpr_avg() < s.fpr());
    }

    #[test]
    fn paper_c_grows_like_ln_one_over_eps() {
        let c = c_paper(1e-2);
        assert!((c - (2.0 * (c + 1.0) / 1e-2).ln()).abs() < 1e-9);
        assert!(c_paper(1e-5) > c && c > 5.0);
    }

    #[test]
    fn bad_parameters() {
        assert!(Sizing::new(0, 1, 0.1, None, 0.9).is_err());
        assert!(Sizing::new(10, 0, 0.1, None, 0.9).is_err());
        assert!(Sizing::new(10, 1, 1.0, None, 0.9).is_err());
        assert!(Sizing::new(10, 1, 0.1, Some(0), 0.9).is_err());
        assert!(Sizing::new(100, 1, 0.1, Some(2), 0.9).is_err()); // slack 49 > 1
        assert!(Sizing::new(100, 1, 0.1, None, 0.4).is_err());
        assert!(Sizing::new(1 << 40, 1 << 40, 0.1, None, 0.9).is_err());
    }
}
