//! The membership pass: its metrics, defined once.
//!
//! One *point* is measured as follows. The filter is warmed up with w + s +
//! margin insertions (steady state: every slice has cycled) and aligned to the
//! worst phase (insertions ≡ 0 mod period, just before a shift). Then each of
//! `rounds` rounds measures at the worst phase, advances a uniformly random
//! u ∈ 1..=period insertions and measures at that (random) phase, then advances
//! to the worst phase ⌈(w + s)/period⌉ periods after the round began. So
//! "worst" figures are at the phase the paper's F describes, "avg" figures are
//! unbiased averages over phases, and consecutive rounds see filter states that
//! share no inserted key: the per-round samples are independent, which the
//! intervals over rounds (PWS, probes) assume. (Spacing rounds one period apart
//! instead leaves k + l - 1 slices shared between rounds; the PWS intervals were
//! then visibly too narrow.)
//!
//! * `fpr` — share of yes answers to never-inserted keys, worst phase, with a
//!   Clopper-Pearson interval at `ci_level`; `fpr_avg` the same at random
//!   phases, with a Student-t interval over the per-round rates (the phase
//!   sampling is part of its error); `fpr_expired` on inserted keys of age in (w + s, w + s + margin],
//!   worst phase.
//!   Queries are spread evenly over rounds (filter states) so that the
//!   state-to-state variation of the fill averages out; the binomial interval
//!   ignores that variation, which is valid while the number of states is large
//!   against the relative spread of the per-state FPR (documented in README).
//! * `fnr` — share of no answers on keys of age <= w (random ages, plus age w
//!   itself each round for designs that guarantee the window, at both
//!   phases); 0 for windowed designs. For designs without a window (Stable
//!   Bloom), w is a window of interest and the theory is the mean FNR over
//!   ages 1..=w.
//! * `zero_fraction` — fraction of zero cells, per round (both phases), normal
//!   interval over rounds.
//! * `convergence` — from empty filters: zero fraction and FPR at log-spaced
//!   insertion counts, over `rounds` independent runs (written to
//!   `<name>_convergence.csv`).
//! * `probes_negative` — mean probes (slice accesses) of negative queries that
//!   answered no, worst phase, with a Student-t interval over the per-round means
//!   (queries within one filter state share its fill, so per-query intervals
//!   would be too narrow at tens of millions of queries).
//! * `npws_peak` / `npws_avg` (designs with a slack) — PWS = number of yes answers over the keys of
//!   ages w+1 ..= w+s (the slack zone), per round, at the worst / random phase;
//!   NPWS = PWS / w; Student-t interval over rounds. Ages whose key was inserted
//!   again more recently (non-distinct streams) are skipped.
//! * `profile` — P(yes | age) over ages 1 ..= w + s + margin in buckets, at the
//!   worst and random phases, with Clopper-Pearson intervals.
//! * `memory` — `memory_bits`, bits per window element, and the ratio to the
//!   information-theoretic log2(1/ε) bits per element at the theoretical ε.
//! * `speed` — ns per insert / positive query (age <= w) / negative query,
//!   timed over `speed_ops` operations after the rounds; not deterministic.
//! * `batched` — ns per negative query answered by `contains_many` over
//!   `speed_ops` keys at once (`query_neg_batched_ns`): designs that override
//!   it overlap their cache misses; the others loop over `contains`.
//! * `tail` — per-insertion cost over `tail_ops` insertions after the rounds:
//!   slot reads reported by the design (`insert_probes_mean`, `_p99`, `_p999`,
//!   `max_probes`; deterministic) and wall time of each insertion
//!   (`insert_mean_ns`, `insert_p99_ns`, `insert_p999_ns`, `insert_max_ns`;
//!   each includes one `Instant::now()` pair, about 20-40 ns here, and the
//!   maximum catches whatever else the machine did).
//!
//! Every measured figure with a theoretical value gets `<name>_theory`,
//! `<name>_ratio` (measured / theory) and, with an interval, `<name>_theory_in_ci`.
//!
//! The code: this module (warm-up, rounds at the worst and a random phase,
//! then one function per metric turning the accumulators into columns),
//! [`plan`] (the pass's time scales, work and memory), `convergence.rs`,
//! `history.rs`, and the [`Pass`](crate::passes::Pass) in `pass.rs`.

mod convergence;
mod history;
mod pass;
pub mod plan;

pub use convergence::ConvergenceRow;
pub use pass::MembershipPass;

use crate::designs::{Built, Theory};
use crate::metrics::stats::{binomial_ci, in_interval, Binomial, Welford};
use crate::metrics::{info_bound_ratio, Row, Value};
use crate::spec::{MeasureSpec, Metric};
use crate::workload::KeyStream;
use bloomlab_filters::Filter;
use convergence::measure_convergence;
use history::History;
use plan::MembershipPlan;
use rand::Rng;
use rand_pcg::Pcg64;
use std::collections::BTreeSet;
use std::hint::black_box;
use std::time::Instant;

/// One bucket of the measured age profile.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileRow {
    /// "worst" or "avg".
    pub phase: &'static str,
    /// First age in the bucket.
    pub age_lo: u64,
    /// Last age in the bucket.
    pub age_hi: u64,
    /// Yes answers.
    pub yes: u64,
    /// Queries.
    pub n: u64,
    /// The bucket's P(yes) in each round (one filter state each).
    pub rounds: Welford,
    /// Theoretical P(yes) averaged over the bucket's ages.
    pub theory: f64,
}

/// Everything measured at one point.
#[derive(Default)]
pub struct PointResult {
    /// The scalar row (without the point's identifying columns).
    pub row: Row,
    /// The age profile, when requested.
    pub profile: Vec<ProfileRow>,
    /// The convergence curve, when requested.
    pub convergence: Vec<ConvergenceRow>,
}

/// The filter, its key stream and its history.
pub(super) struct Runner<'a> {
    f: &'a mut (dyn Filter + Send),
    stream: KeyStream,
    rng: Pcg64,
    hist: History,
}

impl Runner<'_> {
    fn step(&mut self) {
        let key = self.stream.next_key(&mut self.rng);
        self.f.insert(key);
        self.hist.push(key);
    }
    fn advance(&mut self, n: u64) {
        for _ in 0..n {
            self.step();
        }
    }
}

/// Per-phase accumulators.
#[derive(Default)]
struct PhaseStats {
    fpr: Binomial,
    /// Per-round FPR, for the phase-averaged figure.
    fpr_rounds: Welford,
    expired: Binomial,
    probes: Welford,
    pws: Welford,
    profile: Vec<Binomial>,
    /// Each bucket's P(yes) per round: the spread between filter states.
    profile_rounds: Vec<Welford>,
}

impl MembershipPlan<'_> {
    /// Accumulators for one phase kind.
    fn stats(&self) -> PhaseStats {
        let mut st = PhaseStats::default();
        if self.has(Metric::Profile) {
            let buckets = self.horizon.div_ceil(self.bucket) as usize;
            st.profile = vec![Binomial::default(); buckets];
            st.profile_rounds = vec![Welford::default(); buckets];
        }
        st
    }

    /// Everything measured in one filter state.
    fn phase(&self, r: &mut Runner, st: &mut PhaseStats, fnr: &mut Binomial) {
        if self.has(Metric::Fpr) || self.has(Metric::Accesses) {
            self.negatives(r, st);
        }
        if self.has(Metric::Fnr) && self.w > 0 {
            self.in_window(r, fnr);
        }
        if self.has(Metric::Fpr) && self.guaranteed && self.margin > 0 {
            self.expired(r, st);
        }
        if self.has(Metric::Npws) && self.s > 0 {
            let yes = (self.w + 1..=self.w + self.s)
                .filter_map(|a| r.hist.at_age(a))
                .filter(|&k| r.f.contains(k))
                .count();
            st.pws.add(yes as f64);
        }
        if self.has(Metric::Profile) {
            let mut round = vec![Binomial::default(); st.profile.len()];
            for age in 1..=self.horizon {
                if let Some(key) = r.hist.at_age(age) {
                    round[((age - 1) / self.bucket) as usize].add(r.f.contains(key));
                }
            }
            for ((all, rates), b) in st.profile.iter_mut().zip(&mut st.profile_rounds).zip(round) {
                all.x += b.x;
                all.n += b.n;
                if b.n > 0 {
                    rates.add(b.rate());
                }
            }
        }
    }

    /// Never-inserted keys: false positives, and probes of the negatives.
    fn negatives(&self, r: &mut Runner, st: &mut PhaseStats) {
        let (mut sum, mut n, mut fp) = (0u64, 0u64, 0u64);
        for _ in 0..self.per_round {
            let key = r.stream.negative(&mut r.rng);
            let (yes, probes) = r.f.contains_probes(key);
            st.fpr.add(yes);
            fp += yes as u64;
            if !yes {
                sum += probes as u64;
                n += 1;
            }
        }
        st.fpr_rounds.add(fp as f64 / self.per_round.max(1) as f64);
        if n > 0 {
            st.probes.add(sum as f64 / n as f64);
        }
    }

    /// Keys of age <= w: false negatives.
    fn in_window(&self, r: &mut Runner, fnr: &mut Binomial) {
        let w = self.w;
        let mut check = |age: u64, r: &mut Runner| {
            if let Some(key) = r.hist.at_age(age) {
                fnr.add(!r.f.contains(key));
            }
        };
        if self.guaranteed {
            check(w, r); // the oldest guaranteed key, every round
        }
        // Distinct ages, evenly spaced from a random offset: querying the
        // same key twice in one state would count one trial twice.
        let n = self.spec.age_samples.min(w);
        let offset = r.rng.random_range(0..w);
        for i in 0..n {
            check(1 + (offset + i * w / n) % w, r);
        }
    }

    /// Keys of age in (w + s, w + s + margin]: expired keys reported.
    fn expired(&self, r: &mut Runner, st: &mut PhaseStats) {
        let margin = self.margin;
        let n = self.spec.age_samples.min(margin);
        let offset = r.rng.random_range(0..margin);
        for i in 0..n {
            let age = self.w + self.s + 1 + (offset + i * margin / n) % margin;
            if let Some(key) = r.hist.at_age(age) {
                st.expired.add(r.f.contains(key));
            }
        }
    }
}

/// Measures one configuration. Deterministic given `rng`'s seed, except for
/// the `*_ns` timing columns. `rebuild(seed)` makes a fresh copy of the design
/// (for the convergence metric, which starts from empty filters).
pub fn measure(
    built: &mut Built,
    stream: KeyStream,
    mut rng: Pcg64,
    metrics: &BTreeSet<Metric>,
    spec: &MeasureSpec,
    rebuild: &dyn Fn(u64) -> anyhow::Result<Built>,
) -> anyhow::Result<PointResult> {
    let convergence = if metrics.contains(&Metric::Convergence) {
        measure_convergence(built, &stream, &mut rng, spec, rebuild)?
    } else {
        Vec::new()
    };
    let plan = MembershipPlan::new(built, metrics, spec);
    let distinct = stream.is_distinct();
    let theory = &built.theory;
    let Some(f) = built.filter.as_mut() else {
        return Err(anyhow::anyhow!(
            "{} is not a membership filter: only the count, distinct and entropy metrics apply",
            built
                .summary
                .as_ref()
                .map_or("this design", |s| s.summary_name())
        ));
    };
    let mut r = Runner {
        f: f.as_mut(),
        stream,
        rng,
        hist: History::new(plan.horizon, distinct),
    };

    let mut steps = crate::metrics::progress::Steps::new("rounds", spec.rounds);
    // Warm-up to steady state, aligned to the worst phase.
    r.advance(plan.warm.div_ceil(plan.period) * plan.period);
    let (mut worst, mut avg, mut fnr) = (plan.stats(), plan.stats(), Binomial::default());
    // the zero fraction: one observation per round, the mean of its two
    // states (the two states of a round are of one filter a phase apart,
    // not independent: counted as two, they made the interval too narrow)
    let mut zeros = Welford::default();
    let zero = |r: &Runner| {
        plan.has(Metric::ZeroFraction)
            .then(|| r.f.zero_fraction())
            .flatten()
    };
    for round in 0..spec.rounds {
        steps.done(round);
        plan.phase(&mut r, &mut worst, &mut fnr);
        let z = zero(&r);
        let u = r.rng.random_range(1..=plan.period);
        r.advance(u);
        plan.phase(&mut r, &mut avg, &mut fnr);
        if let (Some(a), Some(b)) = (z, zero(&r)) {
            zeros.add((a + b) / 2.0);
        }
        r.advance(plan.spacing - u);
    }

    let mut row = Row::default();
    row.push("rounds", Value::Int(spec.rounds));
    let level = spec.ci_level;
    if plan.has(Metric::Fpr) {
        fpr_columns(&mut row, theory, &worst, &avg, level);
    }
    if plan.has(Metric::Fnr) {
        row.push("fnr_queries", Value::Int(fnr.n));
        row.push("false_negatives", Value::Int(fnr.x));
        let ci = binomial_ci(fnr.x, fnr.n, level);
        with_theory(&mut row, theory, "fnr", fnr.rate(), ci);
    }
    if plan.has(Metric::Accesses) {
        let ci = worst.probes.ci_within(level, 0.0, f64::INFINITY);
        with_theory(&mut row, theory, "probes_negative", worst.probes.mean(), ci);
    }
    if plan.has(Metric::ZeroFraction) && zeros.count() > 0 {
        let z = zeros;
        with_theory(
            &mut row,
            theory,
            "zero_fraction",
            z.mean(),
            z.ci_within(level, 0.0, 1.0),
        );
    }
    if plan.has(Metric::Npws) && plan.s > 0 {
        npws_columns(&mut row, theory, &worst, &avg, plan.w, level);
    }
    if plan.has(Metric::Memory) {
        memory_columns(&mut row, theory, r.f.memory_bits(), plan.w);
    }
    if plan.has(Metric::Speed) {
        speed(&mut r, spec.speed_ops.max(1), plan.w, &mut row);
    }
    if plan.has(Metric::Batched) {
        batched(&mut r, spec.speed_ops.max(1), &mut row);
    }
    if plan.has(Metric::Tail) {
        tail(&mut r, spec.tail_ops.max(1), &mut row);
    }
    let profile = if plan.has(Metric::Profile) {
        profile_rows(&plan, theory, &worst, &avg)
    } else {
        Vec::new()
    };
    Ok(PointResult {
        row,
        profile,
        convergence,
    })
}

/// A measured figure with its interval and, where the theory has it, the
/// theoretical value, the ratio and whether the interval holds it.
fn with_theory(row: &mut Row, theory: &Theory, name: &str, x: f64, ci: (f64, f64)) {
    row.num(name, x);
    row.num(format!("{name}_ci_low"), ci.0);
    row.num(format!("{name}_ci_high"), ci.1);
    if let Some(t) = theory.get(name) {
        row.num(format!("{name}_theory"), t);
        if t != 0.0 {
            row.num(format!("{name}_ratio"), x / t);
        }
        if let Some(inside) = in_interval(t, ci) {
            row.push(format!("{name}_theory_in_ci"), Value::Bool(inside));
        }
    }
}

/// `fpr` (worst phase), its alternative formulas, `fpr_avg`, `fpr_expired`.
fn fpr_columns(row: &mut Row, theory: &Theory, worst: &PhaseStats, avg: &PhaseStats, level: f64) {
    row.push("fpr_queries", Value::Int(worst.fpr.n));
    row.push("fpr_false_positives", Value::Int(worst.fpr.x));
    let ci = binomial_ci(worst.fpr.x, worst.fpr.n, level);
    with_theory(row, theory, "fpr", worst.fpr.rate(), ci);
    // alternative formulas for the worst-phase FPR, each scored against
    // the same interval: the paper's, and for the blocked APBF the
    // independent-slices approximation
    for alt in ["fpr_paper_formula", "fpr_independent"] {
        if let Some(p) = theory.get(alt) {
            row.num(alt, p);
            if let Some(inside) = in_interval(p, ci) {
                row.push(format!("{alt}_in_ci"), Value::Bool(inside));
            }
        }
    }
    // Over rounds, not queries: the FPR moves with the phase, and each
    // round sees one random phase, so the phase sampling is part of the
    // error (a binomial interval missed it for double buffering).
    let ci = avg.fpr_rounds.ci_within(level, 0.0, 1.0);
    with_theory(row, theory, "fpr_avg", avg.fpr.rate(), ci);
    let expired = worst.expired;
    if expired.n > 0 {
        row.push("fpr_expired_queries", Value::Int(expired.n));
        let ci = binomial_ci(expired.x, expired.n, level);
        with_theory(row, theory, "fpr_expired", expired.rate(), ci);
    }
}

/// `npws_peak` (worst phase) and `npws_avg` (random phase).
fn npws_columns(
    row: &mut Row,
    theory: &Theory,
    worst: &PhaseStats,
    avg: &PhaseStats,
    w: u64,
    level: f64,
) {
    let scale = |(a, b): (f64, f64)| (a / w as f64, b / w as f64);
    let (mean, ci) = (
        worst.pws.mean() / w as f64,
        scale(worst.pws.ci_within(level, 0.0, f64::INFINITY)),
    );
    with_theory(row, theory, "npws_peak", mean, ci);
    if let Some(p) = theory.get("npws_peak_paper_formula") {
        row.num("npws_peak_paper_formula", p);
    }
    let (mean, ci) = (
        avg.pws.mean() / w as f64,
        scale(avg.pws.ci_within(level, 0.0, f64::INFINITY)),
    );
    with_theory(row, theory, "npws_avg", mean, ci);
}

/// `memory_bits`, bits per window element and the ratios to the bounds.
fn memory_columns(row: &mut Row, theory: &Theory, bits: u64, w: u64) {
    row.push("memory_bits", Value::Int(bits));
    let bpe = bits as f64 / w as f64;
    row.num("bits_per_element", bpe);
    if let Some(t) = theory.get("bits_per_element") {
        row.num("bits_per_element_theory", t);
    }
    // SWAMP: the paper's figure with TinyTable, beside our table's
    if let Some(t) = theory.get("tinytable_bits_per_element") {
        row.num("tinytable_bits_per_element", t);
    }
    if let Some(p) = theory.get("fpr") {
        row.num("info_bound_ratio", info_bound_ratio(bpe, p));
    }
    if let Some(e) = theory.get("efficiency_vs_bloom") {
        row.num("efficiency_vs_bloom", e);
    }
    if let Some(bound) = theory.get("space_bound_bits") {
        row.num("space_bound_per_element", bound / w as f64);
        row.num("memory_over_bound", bits as f64 / bound);
    }
}

/// The `speed` metric: `n` insertions, then `n` positive (age <= w) and `n`
/// negative queries, each batch timed as a whole.
fn speed(r: &mut Runner, n: u64, w: u64, row: &mut Row) {
    let keys: Vec<u64> = (0..n).map(|_| r.stream.next_key(&mut r.rng)).collect();
    let t0 = Instant::now();
    for &k in &keys {
        r.f.insert(k);
    }
    let insert_ns = t0.elapsed().as_nanos() as f64 / n as f64;
    for &k in &keys {
        r.hist.push(k);
    }
    let pos: Vec<u64> = (0..n)
        .filter_map(|_| {
            let age = r.rng.random_range(1..=w);
            r.hist.at_age(age)
        })
        .collect();
    let neg: Vec<u64> = (0..n).map(|_| r.stream.negative(&mut r.rng)).collect();
    let time_queries = |keys: &[u64]| {
        let t0 = Instant::now();
        let mut yes = 0u64;
        for &k in keys {
            yes += r.f.contains(black_box(k)) as u64;
        }
        black_box(yes);
        t0.elapsed().as_nanos() as f64 / keys.len().max(1) as f64
    };
    let (pos_ns, neg_ns) = (time_queries(&pos), time_queries(&neg));
    row.num("insert_ns", insert_ns);
    row.num("query_pos_ns", pos_ns);
    row.num("query_neg_ns", neg_ns);
    row.num("query_ns", (pos_ns + neg_ns) / 2.0);
}

/// The `batched` metric: `n` negative queries through `contains_many`.
fn batched(r: &mut Runner, n: u64, row: &mut Row) {
    let neg: Vec<u64> = (0..n).map(|_| r.stream.negative(&mut r.rng)).collect();
    let mut out = vec![false; neg.len()];
    let t0 = Instant::now();
    r.f.contains_many(black_box(&neg), &mut out);
    black_box(out.iter().filter(|&&x| x).count());
    row.num(
        "query_neg_batched_ns",
        t0.elapsed().as_nanos() as f64 / n as f64,
    );
}

/// The `tail` metric: `ops` insertions, each timed and (where the design
/// reports it) its slot reads counted; mean, p99, p99.9 and max of both.
fn tail(r: &mut Runner, ops: u64, row: &mut Row) {
    let keys: Vec<u64> = (0..ops).map(|_| r.stream.next_key(&mut r.rng)).collect();
    let mut probes = Vec::with_capacity(keys.len());
    let mut ns = Vec::with_capacity(keys.len());
    for &k in &keys {
        let t0 = Instant::now();
        let p = r.f.insert_probes(black_box(k));
        ns.push(t0.elapsed().as_nanos() as u64);
        if let Some(p) = p {
            probes.push(p as u64);
        }
        r.hist.push(k);
    }
    let quantile = |v: &mut Vec<u64>, q: f64| -> u64 {
        // nearest rank on the sorted sample
        let i = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1;
        v.select_nth_unstable(i);
        v[i]
    };
    if !probes.is_empty() {
        row.num(
            "insert_probes_mean",
            probes.iter().sum::<u64>() as f64 / probes.len() as f64,
        );
        row.push("insert_probes_p99", Value::Int(quantile(&mut probes, 0.99)));
        row.push(
            "insert_probes_p999",
            Value::Int(quantile(&mut probes, 0.999)),
        );
        row.push("max_probes", Value::Int(*probes.iter().max().unwrap()));
    }
    row.num(
        "insert_mean_ns",
        ns.iter().sum::<u64>() as f64 / ns.len() as f64,
    );
    row.num("insert_p99_ns", quantile(&mut ns, 0.99) as f64);
    row.num("insert_p999_ns", quantile(&mut ns, 0.999) as f64);
    row.num("insert_max_ns", *ns.iter().max().unwrap() as f64);
}

/// The age profile's buckets at both phase kinds, with the theory averaged
/// over each bucket's ages.
fn profile_rows(
    plan: &MembershipPlan,
    theory: &Theory,
    worst: &PhaseStats,
    avg: &PhaseStats,
) -> Vec<ProfileRow> {
    let mut profile = Vec::new();
    for (label, st) in [("worst", worst), ("avg", avg)] {
        for (b, (c, rounds)) in st.profile.iter().zip(&st.profile_rounds).enumerate() {
            let lo = b as u64 * plan.bucket + 1;
            let hi = ((b as u64 + 1) * plan.bucket).min(plan.horizon);
            let th = theory.profile.as_ref().map_or(f64::NAN, |p| {
                let at = |a| {
                    if label == "worst" {
                        p.worst(a)
                    } else {
                        p.avg(a)
                    }
                };
                (lo..=hi).map(at).sum::<f64>() / (hi - lo + 1) as f64
            });
            profile.push(ProfileRow {
                phase: label,
                age_lo: lo,
                age_hi: hi,
                yes: c.x,
                n: c.n,
                rounds: *rounds,
                theory: th,
            });
        }
    }
    profile
}
