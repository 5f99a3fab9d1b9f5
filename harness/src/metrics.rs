//! Metrics, defined once.
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

use crate::designs::{Built, Geometry};
use crate::spec::{MeasureSpec, Metric};
use crate::workload::KeyStream;
use bloomlab_filters::Filter;
use rand::Rng;
use rand_pcg::Pcg64;
use statrs::distribution::{ContinuousCDF, Normal};
use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::hint::black_box;
use std::time::Instant;

/// A cell of a result row.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A number.
    Num(f64),
    /// A count.
    Int(u64),
    /// A flag.
    Bool(bool),
    /// Text.
    Text(String),
}

impl Value {
    /// The numeric value, if any.
    pub fn num(&self) -> Option<f64> {
        match *self {
            Value::Num(x) => Some(x),
            Value::Int(x) => Some(x as f64),
            _ => None,
        }
    }
}

impl Value {
    /// As JSON: counts stay integers, non-finite numbers become null.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Num(x) => {
                serde_json::Number::from_f64(*x).map_or(serde_json::Value::Null, Into::into)
            }
            Value::Int(x) => (*x).into(),
            Value::Bool(b) => (*b).into(),
            Value::Text(s) => s.clone().into(),
        }
    }
}

impl serde::Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

impl serde::Serialize for Row {
    /// A row serializes as a map, columns in order.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Num(x) if x.is_nan() => write!(f, ""),
            Value::Num(x) => write!(f, "{x}"),
            Value::Int(x) => write!(f, "{x}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Text(s) => write!(f, "{s}"),
        }
    }
}

/// One result row: ordered (column, value) pairs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Row(pub Vec<(String, Value)>);

impl Row {
    /// Appends a column.
    pub fn push(&mut self, name: impl Into<String>, v: Value) {
        self.0.push((name.into(), v));
    }
    /// Appends a number.
    pub fn num(&mut self, name: impl Into<String>, v: f64) {
        self.push(name, Value::Num(v));
    }
    /// Looks a column up.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
    /// A numeric column.
    pub fn get_num(&self, name: &str) -> Option<f64> {
        self.get(name).and_then(Value::num)
    }
}

/// Timing columns: excluded from determinism comparisons.
pub fn is_timing_column(name: &str) -> bool {
    name.ends_with("_ns")
}

/// Clopper-Pearson ("exact") interval for `x` successes in `n` trials.
///
/// The bounds solve I_p(x, n-x+1) = α/2 and I_p(x+1, n-x) = 1-α/2 for p, by
/// bisection on the regularised incomplete beta function (statrs's
/// `inverse_cdf` of Beta stalls for parameters like (4000, 2e7)).
pub fn binomial_ci(x: u64, n: u64, level: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let a = (1.0 - level) / 2.0;
    let (xf, nf) = (x as f64, n as f64);
    let lo = if x == 0 {
        0.0
    } else {
        beta_quantile(xf, nf - xf + 1.0, a)
    };
    let hi = if x == n {
        1.0
    } else {
        beta_quantile(xf + 1.0, nf - xf, 1.0 - a)
    };
    (lo, hi)
}

/// The q-quantile of Beta(a, b), by bisection (100 halvings: far below f64
/// resolution of any interval we print).
fn beta_quantile(a: f64, b: f64, q: f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if statrs::function::beta::beta_reg(a, b, mid) < q {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Two-sided normal quantile for `level`.
pub fn z_value(level: f64) -> f64 {
    Normal::new(0.0, 1.0)
        .unwrap()
        .inverse_cdf(1.0 - (1.0 - level) / 2.0)
}

/// Two-sided Student-t quantile for `level` with `df` degrees of freedom
/// (the normal quantile beyond 1000).
pub fn t_value(level: f64, df: u64) -> f64 {
    if df > 1000 {
        return z_value(level);
    }
    statrs::distribution::StudentsT::new(0.0, 1.0, df as f64)
        .expect("df >= 1")
        .inverse_cdf(1.0 - (1.0 - level) / 2.0)
}

/// Running mean and variance (Welford).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Welford {
    n: u64,
    mean: f64,
    m2: f64,
}

impl Welford {
    /// Adds an observation.
    pub fn add(&mut self, x: f64) {
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
    }
    /// The two samples pooled (Chan et al.).
    pub fn merge(a: &Welford, b: &Welford) -> Welford {
        let n = a.n + b.n;
        if n == 0 {
            return Welford::default();
        }
        let d = b.mean - a.mean;
        Welford {
            n,
            mean: a.mean + d * b.n as f64 / n as f64,
            m2: a.m2 + b.m2 + d * d * (a.n as f64 * b.n as f64) / n as f64,
        }
    }
    /// Observations so far.
    pub fn count(&self) -> u64 {
        self.n
    }
    /// The mean (NaN when empty).
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            f64::NAN
        } else {
            self.mean
        }
    }
    /// Student-t interval of the mean (n - 1 degrees of freedom: with the 3
    /// rounds of a large window, a normal quantile made intervals far too
    /// narrow).
    pub fn ci(&self, level: f64) -> (f64, f64) {
        if self.n < 2 {
            return (f64::NAN, f64::NAN);
        }
        let se = (self.m2 / (self.n - 1) as f64 / self.n as f64).sqrt();
        let t = t_value(level, self.n - 1);
        (self.mean - t * se, self.mean + t * se)
    }
}

/// Successes over trials.
#[derive(Debug, Clone, Copy, Default)]
struct Binomial {
    x: u64,
    n: u64,
}

impl Binomial {
    fn add(&mut self, yes: bool) {
        self.x += yes as u64;
        self.n += 1;
    }
    fn rate(&self) -> f64 {
        if self.n == 0 {
            f64::NAN
        } else {
            self.x as f64 / self.n as f64
        }
    }
}

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
    /// Theoretical P(yes) averaged over the bucket's ages.
    pub theory: f64,
}

/// The last `cap` insertions, to query keys by age.
struct History {
    ring: Vec<u64>,
    t: u64,
    /// key -> time of its last insertion (1-based); only for repeating streams.
    last: Option<HashMap<u64, u64>>,
}

impl History {
    fn new(cap: u64, distinct: bool) -> Self {
        History {
            ring: vec![0; cap as usize],
            t: 0,
            last: (!distinct).then(HashMap::new),
        }
    }
    fn push(&mut self, key: u64) {
        let cap = self.ring.len() as u64;
        let idx = (self.t % cap) as usize;
        if let Some(last) = &mut self.last {
            if self.t >= cap {
                let old = self.ring[idx];
                if last.get(&old) == Some(&(self.t - cap + 1)) {
                    last.remove(&old);
                }
            }
            last.insert(key, self.t + 1);
        }
        self.ring[idx] = key;
        self.t += 1;
    }
    /// The key whose most recent insertion was `age` insertions ago (1 = last).
    fn at_age(&self, age: u64) -> Option<u64> {
        let cap = self.ring.len() as u64;
        if age == 0 || age > self.t.min(cap) {
            return None;
        }
        let time = self.t - age + 1;
        let key = self.ring[((time - 1) % cap) as usize];
        match &self.last {
            Some(last) if last.get(&key) != Some(&time) => None,
            _ => Some(key),
        }
    }
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

struct Runner<'a> {
    f: &'a mut (dyn Filter + Send),
    stream: KeyStream,
    rng: Pcg64,
    hist: History,
    inserted: u64,
}

impl Runner<'_> {
    fn step(&mut self) {
        let key = self.stream.next_key(&mut self.rng);
        self.f.insert(key);
        self.hist.push(key);
        self.inserted += 1;
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
    zeros: Welford,
    fpr: Binomial,
    /// Per-round FPR, for the phase-averaged figure.
    fpr_rounds: Welford,
    expired: Binomial,
    probes: Welford,
    pws: Welford,
    profile: Vec<Binomial>,
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
    rebuild: &dyn Fn(u64) -> Result<Built, String>,
) -> Result<PointResult, String> {
    let has = |m: Metric| metrics.contains(&m);
    let convergence = if has(Metric::Convergence) {
        measure_convergence(built, &stream, &mut rng, spec, rebuild)?
    } else {
        Vec::new()
    };
    let theory = &built.theory;
    let Geometry {
        window: w,
        slack: s,
        period,
        guaranteed,
        ..
    } = built.geometry;
    let period = period.max(1);
    let margin = ((w as f64 * spec.margin) as u64).max(period);
    let horizon = built.geometry.horizon.unwrap_or(w + s + margin).max(w + s);
    let margin = horizon - w - s;
    let warm = built.geometry.warmup.unwrap_or(horizon).max(horizon);
    let spacing = built
        .geometry
        .spacing
        .unwrap_or((w + s).div_ceil(period).max(1) * period);
    let distinct = stream.is_distinct();
    let Some(f) = built.filter.as_mut() else {
        return Err(format!(
            "{} is not a membership filter: only the count, distinct and entropy metrics apply",
            built
                .summary
                .as_ref()
                .map_or("this design", |s| s.summary_name())
        ));
    };
    let f: &mut (dyn Filter + Send) = f.as_mut();
    let mut r = Runner {
        f,
        stream,
        rng,
        hist: History::new(horizon, distinct),
        inserted: 0,
    };
    let level = spec.ci_level;

    // Warm-up to steady state, aligned to the worst phase.
    r.advance(warm.div_ceil(period) * period);

    let fpr_queries = {
        let target = theory
            .get("fpr")
            .filter(|&p| p > 0.0)
            .map_or(spec.max_fpr_queries as f64, |p| spec.fpr_positives / p);
        (target as u64).clamp(spec.min_fpr_queries, spec.max_fpr_queries)
    };
    let per_round = fpr_queries.div_ceil(spec.rounds);
    let bucket = if spec.bucket > 0 {
        spec.bucket
    } else {
        (period / 8).max(1)
    };
    let n_buckets = horizon.div_ceil(bucket) as usize;

    let mut worst = PhaseStats::default();
    let mut avg = PhaseStats::default();
    if has(Metric::Profile) {
        worst.profile = vec![Binomial::default(); n_buckets];
        avg.profile = vec![Binomial::default(); n_buckets];
    }
    let mut fnr = Binomial::default();

    let measure_phase = |r: &mut Runner, st: &mut PhaseStats, fnr: &mut Binomial| {
        if has(Metric::Fpr) || has(Metric::Accesses) {
            let (mut sum, mut n, mut fp) = (0u64, 0u64, 0u64);
            for _ in 0..per_round {
                let key = r.stream.negative(&mut r.rng);
                let (yes, probes) = r.f.contains_probes(key);
                st.fpr.add(yes);
                fp += yes as u64;
                if !yes {
                    sum += probes as u64;
                    n += 1;
                }
            }
            st.fpr_rounds.add(fp as f64 / per_round.max(1) as f64);
            if n > 0 {
                st.probes.add(sum as f64 / n as f64);
            }
        }
        if has(Metric::Fnr) && w > 0 {
            let mut check = |age: u64, r: &mut Runner| {
                if let Some(key) = r.hist.at_age(age) {
                    fnr.add(!r.f.contains(key));
                }
            };
            if guaranteed {
                check(w, r); // the oldest guaranteed key, every round
            }
            // Distinct ages, evenly spaced from a random offset: querying the
            // same key twice in one state would count one trial twice.
            let n = spec.age_samples.min(w);
            let offset = r.rng.random_range(0..w);
            for i in 0..n {
                let age = 1 + (offset + i * w / n) % w;
                check(age, r);
            }
        }
        if has(Metric::Fpr) && guaranteed && margin > 0 {
            let n = spec.age_samples.min(margin);
            let offset = r.rng.random_range(0..margin);
            for i in 0..n {
                let age = w + s + 1 + (offset + i * margin / n) % margin;
                if let Some(key) = r.hist.at_age(age) {
                    st.expired.add(r.f.contains(key));
                }
            }
        }
        if has(Metric::ZeroFraction) {
            if let Some(z) = r.f.zero_fraction() {
                st.zeros.add(z);
            }
        }
        if has(Metric::Npws) && s > 0 {
            let yes = (w + 1..=w + s)
                .filter_map(|a| r.hist.at_age(a))
                .filter(|&k| r.f.contains(k))
                .count();
            st.pws.add(yes as f64);
        }
        if has(Metric::Profile) {
            for age in 1..=horizon {
                if let Some(key) = r.hist.at_age(age) {
                    st.profile[((age - 1) / bucket) as usize].add(r.f.contains(key));
                }
            }
        }
    };

    for _ in 0..spec.rounds {
        measure_phase(&mut r, &mut worst, &mut fnr);
        let u = r.rng.random_range(1..=period);
        r.advance(u);
        measure_phase(&mut r, &mut avg, &mut fnr);
        r.advance(spacing - u);
    }

    let mut row = Row::default();
    row.push("rounds", Value::Int(spec.rounds));
    let with_theory = |row: &mut Row, name: &str, x: f64, ci: (f64, f64)| {
        row.num(name, x);
        row.num(format!("{name}_ci_low"), ci.0);
        row.num(format!("{name}_ci_high"), ci.1);
        if let Some(t) = theory.get(name) {
            row.num(format!("{name}_theory"), t);
            if t != 0.0 {
                row.num(format!("{name}_ratio"), x / t);
            }
            row.push(
                format!("{name}_theory_in_ci"),
                Value::Bool(t >= ci.0 && t <= ci.1),
            );
        }
    };
    if has(Metric::Fpr) {
        row.push("fpr_queries", Value::Int(worst.fpr.n));
        row.push("fpr_false_positives", Value::Int(worst.fpr.x));
        let ci = binomial_ci(worst.fpr.x, worst.fpr.n, level);
        with_theory(&mut row, "fpr", worst.fpr.rate(), ci);
        // alternative formulas for the worst-phase FPR, each scored against
        // the same interval: the paper's, and for the blocked APBF the
        // independent-slices approximation
        for alt in ["fpr_paper_formula", "fpr_independent"] {
            if let Some(p) = theory.get(alt) {
                row.num(alt, p);
                row.push(format!("{alt}_in_ci"), Value::Bool(p >= ci.0 && p <= ci.1));
            }
        }
        // Over rounds, not queries: the FPR moves with the phase, and each
        // round sees one random phase, so the phase sampling is part of the
        // error (a binomial interval missed it for double buffering).
        with_theory(
            &mut row,
            "fpr_avg",
            avg.fpr.rate(),
            avg.fpr_rounds.ci(level),
        );
        let expired = worst.expired;
        if expired.n > 0 {
            row.push("fpr_expired_queries", Value::Int(expired.n));
            with_theory(
                &mut row,
                "fpr_expired",
                expired.rate(),
                binomial_ci(expired.x, expired.n, level),
            );
        }
    }
    if has(Metric::Fnr) {
        row.push("fnr_queries", Value::Int(fnr.n));
        row.push("false_negatives", Value::Int(fnr.x));
        with_theory(
            &mut row,
            "fnr",
            fnr.rate(),
            binomial_ci(fnr.x, fnr.n, level),
        );
    }
    if has(Metric::Accesses) {
        with_theory(
            &mut row,
            "probes_negative",
            worst.probes.mean(),
            worst.probes.ci(level),
        );
    }
    if has(Metric::ZeroFraction) && worst.zeros.count() > 0 {
        let z = Welford::merge(&worst.zeros, &avg.zeros);
        with_theory(&mut row, "zero_fraction", z.mean(), z.ci(level));
    }
    if has(Metric::Npws) && s > 0 {
        let scale = |(a, b): (f64, f64)| (a / w as f64, b / w as f64);
        with_theory(
            &mut row,
            "npws_peak",
            worst.pws.mean() / w as f64,
            scale(worst.pws.ci(level)),
        );
        if let Some(p) = theory.get("npws_peak_paper_formula") {
            row.num("npws_peak_paper_formula", p);
        }
        with_theory(
            &mut row,
            "npws_avg",
            avg.pws.mean() / w as f64,
            scale(avg.pws.ci(level)),
        );
    }
    if has(Metric::Memory) {
        let bits = r.f.memory_bits();
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
    if has(Metric::Speed) {
        let n = spec.speed_ops.max(1);
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

    if has(Metric::Batched) {
        let n = spec.speed_ops.max(1);
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

    if has(Metric::Tail) {
        tail(&mut r, spec.tail_ops.max(1), &mut row);
    }

    let mut profile = Vec::new();
    if has(Metric::Profile) {
        for (label, st) in [("worst", &worst), ("avg", &avg)] {
            for (b, c) in st.profile.iter().enumerate() {
                let lo = b as u64 * bucket + 1;
                let hi = ((b as u64 + 1) * bucket).min(horizon);
                let th = theory.profile.as_ref().map_or(f64::NAN, |p| {
                    (lo..=hi)
                        .map(|a| {
                            if label == "worst" {
                                p.worst(a)
                            } else {
                                p.avg(a)
                            }
                        })
                        .sum::<f64>()
                        / (hi - lo + 1) as f64
                });
                profile.push(ProfileRow {
                    phase: label,
                    age_lo: lo,
                    age_hi: hi,
                    yes: c.x,
                    n: c.n,
                    theory: th,
                });
            }
        }
    }
    Ok(PointResult {
        row,
        profile,
        convergence,
    })
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

/// One checkpoint of the convergence curve.
#[derive(Debug, Clone, PartialEq)]
pub struct ConvergenceRow {
    /// Insertions since the filter was empty.
    pub t: u64,
    /// Zero fraction over runs.
    pub zeros: Welford,
    /// False positives over all runs' queries.
    pub fp: u64,
    /// Queries.
    pub n: u64,
    /// Theoretical zero fraction at t.
    pub zero_theory: f64,
    /// Theoretical FPR at t.
    pub fpr_theory: f64,
}

/// Zero fraction and FPR from empty filters: `rounds` runs (fresh filter and
/// key stream each), measured at `convergence_points` log-spaced checkpoints
/// up to 1.5 x the design's warm-up (its time to reach the stable point).
fn measure_convergence(
    built: &Built,
    stream: &KeyStream,
    rng: &mut Pcg64,
    spec: &MeasureSpec,
    rebuild: &dyn Fn(u64) -> Result<Built, String>,
) -> Result<Vec<ConvergenceRow>, String> {
    let Some(curve) = built.theory.convergence.as_ref() else {
        return Err("metric convergence: this design has no convergence theory".into());
    };
    let end = (built.geometry.warmup.unwrap_or(1000) as f64 * 1.5).max(2.0);
    let n = spec.convergence_points.max(2);
    let mut ts: Vec<u64> = (0..n)
        .map(|i| end.powf(i as f64 / (n - 1) as f64).round() as u64)
        .collect();
    ts.dedup();
    let mut rows: Vec<ConvergenceRow> = ts
        .iter()
        .map(|&t| {
            let (zero_theory, fpr_theory) = curve(t);
            ConvergenceRow {
                t,
                zeros: Welford::default(),
                fp: 0,
                n: 0,
                zero_theory,
                fpr_theory,
            }
        })
        .collect();
    for _ in 0..spec.rounds {
        let mut b = rebuild(rng.random())?;
        let f = b
            .filter
            .as_mut()
            .ok_or("convergence needs a membership filter")?;
        let mut st = stream.fresh(rng);
        let mut t = 0u64;
        for row in rows.iter_mut() {
            while t < row.t {
                t += 1;
                f.insert(st.next_key(rng));
            }
            if let Some(z) = f.zero_fraction() {
                row.zeros.add(z);
            }
            for _ in 0..spec.convergence_queries {
                row.fp += f.contains(st.negative(rng)) as u64;
                row.n += 1;
            }
        }
    }
    Ok(rows)
}

/// Bits per element over log2(1/p), the information-theoretic bits per
/// element of a filter with FPR p.
pub fn info_bound_ratio(bits_per_element: f64, p: f64) -> f64 {
    bits_per_element / (1.0 / p).log2()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clopper_pearson_known_values() {
        // n = 10, x = 3, 95%: (0.0667, 0.6525) from standard tables.
        let (lo, hi) = binomial_ci(3, 10, 0.95);
        assert!(
            (lo - 0.06674).abs() < 1e-4 && (hi - 0.65245).abs() < 1e-4,
            "{lo} {hi}"
        );
        assert_eq!(binomial_ci(0, 10, 0.95).0, 0.0);
        assert_eq!(binomial_ci(10, 10, 0.95).1, 1.0);
        // large n, small p: close to the normal interval
        let (lo, hi) = binomial_ci(4000, 40_000_000, 0.99);
        let se = (1e-4f64 * (1.0 - 1e-4) / 4e7).sqrt();
        assert!((lo - (1e-4 - 2.5758 * se)).abs() / 1e-4 < 0.01, "{lo}");
        assert!((hi - (1e-4 + 2.5758 * se)).abs() / 1e-4 < 0.01, "{hi}");
        // extreme parameters stay fast and ordered
        let (lo, hi) = binomial_ci(3, 2_000_000_000, 0.99);
        assert!(0.0 < lo && lo < 1.5e-9 && hi > 1.5e-9 && hi < 1e-8);
    }

    #[test]
    fn t_quantiles() {
        assert!((t_value(0.99, 2) - 9.925).abs() < 1e-3);
        assert!((t_value(0.99, 149) - 2.609).abs() < 1e-3);
        assert!((t_value(0.99, 5000) - 2.5758).abs() < 1e-3);
    }

    #[test]
    fn history_skips_reinserted_keys() {
        let mut h = History::new(4, false);
        for k in [1, 2, 1, 3] {
            h.push(k);
        }
        assert_eq!(h.at_age(1), Some(3));
        assert_eq!(h.at_age(2), Some(1));
        assert_eq!(h.at_age(3), Some(2));
        assert_eq!(h.at_age(4), None); // 1 was inserted again since
        assert_eq!(h.at_age(5), None);
        h.push(9); // evicts the first 1, which is stale anyway
        assert_eq!(h.at_age(3), Some(1));
    }
}
