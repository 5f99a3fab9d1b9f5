//! The measurement metrics of sliding-window summaries (SWAMP and its
//! baselines), scored against exact ground truth.
//!
//! One point is measured as follows. An [`ExactWindow`] follows the stream
//! (warmed with W arrivals). Each of `rounds` rounds builds a fresh summary
//! (a new seed, so SWAMP's fingerprints and the sketches' hashes are
//! independent between rounds), replays the exact window's W keys into it,
//! then feeds it `arrivals` further arrivals together with the exact window
//! (W when `arrivals` is 0), and at the end of the round reads its estimates.
//!
//! * `count` — on-arrival error (the WCSS and SWAMP papers' measure): every
//!   arrival of the round queries the arriving key's frequency;
//!   `count_rmse` = √(mean squared error), with an interval from the
//!   Student-t interval of the per-round mean squared errors;
//!   `count_mean_error` the mean signed error (positive: over-estimates);
//!   `count_underestimates` the number of estimates below the truth (0 for
//!   SWAMP and WCSS). Theory (SWAMP): √ of the mean over arrivals of the
//!   expected squared error given the window.
//! * `distinct` — at the end of each round: `distinct_true` (mean D),
//!   `distinct_estimate` (the design's point estimate; `distinct_mle` too for
//!   SWAMP) and `distinct_rel_rmse` = √(mean ((D̂ - D)/D)²) (its interval
//!   [`mean_square_ci`]'s, one squared error a round), with the same for
//!   `distinct_lb` where the design has a lower bound
//!   (`distinct_lb_above_truth` counts violations). Theory (SWAMP): E\[Z\] and
//!   the MLE's relative standard deviation, and `fpr_theory_at_distinct_true`,
//!   the exact FPR at the measured D (the membership metrics' `fpr_theory` is
//!   for a window of W distinct keys, an upper bound on streams with
//!   repeats).
//!
//! `colliding_pairs_expected` (SWAMP) is D(D-1)/2M at the mean D: the pairs
//! of flows per round whose fingerprints coincide, the only source of error.
//! Below about one per round, errors are rare events and a few rounds may
//! see none, so a measured mean can sit below its expectation with an
//! interval that excludes it.
//!
//! The count theory is an expectation dominated by rare events: a light flow
//! sharing a fingerprint with one of the heaviest flows (probability about
//! D/M per round) costs it the heavy flow's whole count. Flow j contributes
//! in proportion to f_j² to the expected squared error, so
//! `heavy10_f2_share` (the ten heaviest flows' share of Σ f², mean over
//! rounds) says how much of the expectation rides on those few events. When rounds × D/M
//! is small, most runs see none of these and the measured RMSE falls far
//! below the expectation; `count_rmse_theory_in_ci` is then false for a
//! known reason (the README quantifies it). `tests/swamp_vs_simulation.rs`
//! checks the formula where such collisions are frequent.
//! * `entropy` — at the end of each round: `entropy_true`, `entropy`
//!   (the estimate), `entropy_error` = mean (H - Ĥ) in bits with a Student-t
//!   interval over rounds, `entropy_rel_error` = mean |H - Ĥ|/H. Theory
//!   (SWAMP): the pairwise-collision expectation given each round's window.
//! * `memory` (when no membership metric is measured alongside):
//!   `memory_bits` is the summary's mean size at the end of the rounds
//!   (sketches whose size varies report their current size), and
//!   `bits_per_element` per window arrival; otherwise that mean is reported
//!   as `summary_bits` beside the filter's `memory_bits`.

use crate::designs::Built;
use crate::designs::EstimateTheory;
use crate::metrics::columns::{col, Col};
use crate::metrics::stats::mean_square_ci;
use crate::metrics::{Figure, Part, TheoryColumns};
use crate::metrics::{Row, Value, Welford, MAP_ENTRY};
use crate::passes::{PassOutput, PointRun, Settings, Work};
use crate::spec::{MeasureSpec, Metric};
use crate::workload::KeyStream;
use bloomlab_filters::{
    DistinctEstimator, EntropyEstimator, ExactWindow, FrequencyEstimator, WindowSummary,
};
use rand::Rng;
use rand_pcg::Pcg64;
use std::collections::BTreeSet;

/// The summary pass: count, distinct and entropy estimates over the
/// window, against the exact window (module docs).
pub struct SummaryPass;

/// The summary pass's own generator.
const SALT: u64 = 0x5EED_E571_3A7E_0001;

impl crate::passes::Pass for SummaryPass {
    fn metrics(&self) -> &'static [Metric] {
        &[Metric::Count, Metric::Distinct, Metric::Entropy]
    }

    fn takes(&self, built: &Built) -> bool {
        built.summary.is_some()
    }

    fn plan(&self, built: &Built, s: &Settings) -> Work {
        let m = &s.measure;
        let w = built.geometry.window;
        let arrivals = if m.arrivals > 0 { m.arrivals } else { w };
        let rounds = m.rounds as f64;
        Work {
            inserts: rounds * (w + arrivals) as f64,
            queries: rounds * arrivals as f64,
            copies: 0,
            // the exact window: keys in a ring and their counts
            bytes: vec![("exact window", w.saturating_mul(8 + MAP_ENTRY))],
        }
    }

    fn run(&self, p: &mut PointRun<'_>) -> anyhow::Result<PassOutput> {
        let mut rng = p.pass_rng(SALT);
        let stream = p.stream(&mut rng);
        let plan = p.plan;
        let rebuild = move |seed: u64| plan.design.build(seed);
        let s = &plan.settings;
        let row = measure(
            &p.built,
            stream,
            rng,
            &s.metrics,
            &s.measure,
            &rebuild,
            p.reports_memory,
        )?;
        Ok(PassOutput {
            row,
            tables: Vec::new(),
        })
    }
}

/// A measured figure with its interval and, where the theory has it, the
/// theoretical value and whether the interval holds it.
fn interval(row: &mut Row, name: Col, x: f64, ci: (f64, f64), theory: Option<f64>) {
    row.figure(Figure::new(name, x, ci).theory(theory, TheoryColumns::Verdict));
}

/// The interval of a root mean square from that of the mean square.
fn root((a, b): (f64, f64)) -> (f64, f64) {
    (a.max(0.0).sqrt(), b.max(0.0).sqrt())
}

/// The `count` metric's accumulators: on-arrival squared and signed errors.
#[derive(Default)]
struct Counts {
    mse: Welford,
    signed: Welford,
    mse_theory: f64,
    under: u64,
    heavy: Welford,
    /// This round's sums.
    sq: f64,
    th: f64,
    err: f64,
}

impl Counts {
    /// One arrival of `k`, already recorded in `s` and `exact`.
    fn arrival(
        &mut self,
        s: &dyn WindowSummary,
        exact: &ExactWindow,
        k: u64,
        theory: Option<&dyn EstimateTheory>,
    ) {
        let freq = s.as_frequency().expect("the capability was checked");
        let f = exact.frequency(k);
        let e = freq.frequency(k) as f64 - f as f64;
        self.under += (e < 0.0) as u64;
        self.sq += e * e;
        self.err += e;
        if let Some(t) = theory {
            self.th += t.count_mse(exact.len(), exact.second_moment(), f);
        }
    }

    fn end_round(&mut self, exact: &ExactWindow, arrivals: u64) {
        // the ten heaviest flows' share of sum f^2, which is their share
        // of SWAMP's expected squared error
        let mut f2: Vec<u64> = exact.counts().map(|c| c * c).collect();
        let k = f2.len().saturating_sub(10);
        if k > 0 {
            f2.select_nth_unstable(k);
        }
        self.heavy
            .add(f2[k..].iter().sum::<u64>() as f64 / exact.second_moment());
        self.mse.add(self.sq / arrivals as f64);
        self.signed.add(self.err / arrivals as f64);
        self.mse_theory += self.th / arrivals as f64;
        (self.sq, self.th, self.err) = (0.0, 0.0, 0.0);
    }

    fn columns(&self, row: &mut Row, arrivals: u64, rounds: u64, level: f64, theory: bool) {
        row.push(col::COUNT_ARRIVALS, Value::Int(arrivals * rounds));
        let t = theory.then(|| (self.mse_theory / rounds as f64).sqrt());
        interval(
            row,
            col::COUNT_RMSE,
            self.mse.mean().sqrt(),
            root(self.mse.ci(level)),
            t,
        );
        row.num(col::COUNT_MEAN_ERROR, self.signed.mean());
        row.num(col::HEAVY10_F2_SHARE, self.heavy.mean());
        row.push(col::COUNT_UNDERESTIMATES, Value::Int(self.under));
    }
}

/// The `distinct` metric's accumulators.
#[derive(Default)]
struct Distinct {
    est: Welford,
    rel: Welford,
    lb: Welford,
    lb_rel: Welford,
    lb_above: u64,
    lb_theory: Welford,
    sd_theory: Welford,
    name: &'static str,
}

impl Distinct {
    fn end_round(&mut self, s: &dyn WindowSummary, d: f64, theory: Option<&dyn EstimateTheory>) {
        let de = s.as_distinct().expect("the capability was checked");
        self.name = de.distinct_name();
        let est = de.distinct();
        self.est.add(est);
        self.rel.add(((est - d) / d).powi(2));
        if let Some(l) = de.distinct_lower_bound() {
            self.lb.add(l);
            self.lb_rel.add(((l - d) / d).powi(2));
            self.lb_above += (l > d) as u64;
        }
        if let Some(t) = theory {
            self.lb_theory.add(t.distinct_lb(d));
            self.sd_theory.add(t.distinct_sd(d) / d);
        }
    }

    fn columns(&self, row: &mut Row, d: f64, level: f64, theory: Option<&dyn EstimateTheory>) {
        row.num(col::DISTINCT_TRUE, d);
        if let Some(t) = theory {
            row.num(col::FPR_THEORY_AT_DISTINCT_TRUE, t.fpr(d));
        }
        row.num(col::DISTINCT_ESTIMATE, self.est.mean());
        if self.name != "estimate" {
            row.num(format!("distinct_{}", self.name), self.est.mean());
        }
        let (rel, ci) = (
            self.rel.mean().sqrt(),
            root(mean_square_ci(&self.rel, level)),
        );
        let t = theory.map(|_| self.sd_theory.mean());
        interval(row, col::DISTINCT_REL_RMSE, rel, ci, t);
        if self.lb.count() > 0 {
            let t = theory.map(|_| self.lb_theory.mean());
            interval(
                row,
                col::DISTINCT_LB,
                self.lb.mean(),
                self.lb.ci_within(level, 0.0, f64::INFINITY),
                t,
            );
            let (rel, ci) = (
                self.lb_rel.mean().sqrt(),
                root(mean_square_ci(&self.lb_rel, level)),
            );
            interval(row, col::DISTINCT_LB_REL_RMSE, rel, ci, None);
            row.push(col::DISTINCT_LB_ABOVE_TRUTH, Value::Int(self.lb_above));
        }
    }
}

/// The `entropy` metric's accumulators.
#[derive(Default)]
struct Entropy {
    truth: Welford,
    est: Welford,
    err: Welford,
    rel: Welford,
    theory: Welford,
}

impl Entropy {
    fn end_round(
        &mut self,
        s: &dyn WindowSummary,
        exact: &ExactWindow,
        theory: Option<&dyn EstimateTheory>,
    ) {
        let he = s.as_entropy().expect("the capability was checked");
        let (h, est) = (exact.entropy(), he.entropy());
        self.truth.add(h);
        self.est.add(est);
        self.err.add(h - est);
        self.rel.add((h - est).abs() / h);
        if let Some(t) = theory {
            self.theory.add(t.entropy_error(&mut exact.counts()));
        }
    }

    fn columns(&self, row: &mut Row, level: f64, theory: bool) {
        row.num(col::ENTROPY_TRUE, self.truth.mean());
        row.num(col::ENTROPY, self.est.mean());
        let t = theory.then(|| self.theory.mean());
        interval(
            row,
            col::ENTROPY_ERROR,
            self.err.mean(),
            self.err.ci(level),
            t,
        );
        row.num(col::ENTROPY_REL_ERROR, self.rel.mean());
    }
}

/// The metrics this pass measures: those asked for where the design has the
/// capability (a spec may mix WCSS, which only counts, with distinct-count
/// sketches); none at all is an error.
fn answered<'a>(
    summary: &'a (dyn WindowSummary + Send),
    metrics: &'a BTreeSet<Metric>,
) -> anyhow::Result<impl Fn(Metric) -> bool + 'a> {
    let able = move |m: Metric| match m {
        Metric::Count => summary.as_frequency().is_some(),
        Metric::Distinct => summary.as_distinct().is_some(),
        Metric::Entropy => summary.as_entropy().is_some(),
        _ => true,
    };
    let has = move |m: Metric| metrics.contains(&m) && able(m);
    if ![Metric::Count, Metric::Distinct, Metric::Entropy]
        .into_iter()
        .any(has)
    {
        return Err(anyhow::anyhow!(
            "{} answers none of the requested summary metrics",
            summary.summary_name()
        ));
    }
    Ok(has)
}

/// Measures the summary metrics of one configuration; `rebuild(seed)` makes
/// a fresh copy of the design. Deterministic given `rng`'s seed.
pub fn measure(
    built: &Built,
    mut stream: KeyStream,
    mut rng: Pcg64,
    metrics: &BTreeSet<Metric>,
    spec: &MeasureSpec,
    rebuild: &dyn Fn(u64) -> anyhow::Result<Built>,
    memory_here: bool,
) -> anyhow::Result<Row> {
    let summary = built
        .summary
        .as_deref()
        .ok_or_else(|| anyhow::anyhow!("this design is not a measurement summary: the count, distinct and entropy metrics do not apply"))?;
    let has = answered(summary, metrics)?;
    let w = built.geometry.window;
    let theory = built.theory.estimates.as_deref();
    let arrivals = if spec.arrivals == 0 { w } else { spec.arrivals };
    let level = spec.ci_level;

    let mut exact = ExactWindow::new(w).map_err(|e| anyhow::anyhow!("{e}"))?;
    for _ in 0..w {
        exact.record(stream.next_key(&mut rng));
    }
    let (mut counts, mut entropy) = (Counts::default(), Entropy::default());
    let mut distinct = Distinct {
        name: "estimate",
        ..Distinct::default()
    };
    let (mut bits, mut d_all) = (Welford::default(), Welford::default());
    for _ in 0..spec.rounds {
        let mut b = rebuild(rng.random())?;
        let s = b
            .summary
            .as_mut()
            .ok_or_else(|| anyhow::anyhow!("rebuild lost the summary"))?;
        for k in exact.keys() {
            s.record(k);
        }
        for _ in 0..arrivals {
            let k = stream.next_key(&mut rng);
            s.record(k);
            exact.record(k);
            if has(Metric::Count) {
                counts.arrival(s.as_ref(), &exact, k, theory);
            }
        }
        if has(Metric::Count) {
            counts.end_round(&exact, arrivals);
        }
        let d = exact.distinct();
        d_all.add(d);
        if has(Metric::Distinct) {
            distinct.end_round(s.as_ref(), d, theory);
        }
        if has(Metric::Entropy) {
            entropy.end_round(s.as_ref(), &exact, theory);
        }
        bits.add(s.summary_bits() as f64);
    }

    let mut row = Row::default();
    row.push(col::SUMMARY_ROUNDS, Value::Int(spec.rounds));
    if let Some(t) = theory {
        row.num(
            col::COLLIDING_PAIRS_EXPECTED,
            t.colliding_pairs(d_all.mean()),
        );
    }
    if has(Metric::Count) {
        counts.columns(&mut row, arrivals, spec.rounds, level, theory.is_some());
    }
    if has(Metric::Distinct) {
        distinct.columns(&mut row, d_all.mean(), level, theory);
    }
    if has(Metric::Entropy) {
        entropy.columns(&mut row, level, theory.is_some());
    }
    size_columns(
        &mut row,
        &bits,
        w,
        level,
        has(Metric::Memory) && memory_here,
    );
    Ok(row)
}

/// The summary's size over the rounds: `memory_bits` (with its interval
/// where the rounds differ) and bits per element where this pass reports
/// `memory`, else `summary_bits`.
fn size_columns(row: &mut Row, bits: &Welford, w: u64, level: f64, memory: bool) {
    if memory {
        // a summary's size follows the stream: the mean over rounds, with
        // its interval where the rounds differ
        row.num(col::MEMORY_BITS, bits.mean());
        if bits.count() >= 2 {
            let (lo, hi) = bits.ci_within(level, 0.0, f64::INFINITY);
            if hi > lo {
                row.num(Part::CiLow.of(col::MEMORY_BITS), lo);
                row.num(Part::CiHigh.of(col::MEMORY_BITS), hi);
            }
        }
        row.num(col::BITS_PER_ELEMENT, bits.mean() / w as f64);
    } else {
        row.num(col::SUMMARY_BITS, bits.mean());
    }
}
