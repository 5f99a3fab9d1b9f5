//! The summaries' pass (`estimates::measure`: count, distinct, entropy and
//! memory) against a synthetic summary whose every answer is a known
//! function of the window it saw. It logs what it was asked and what it
//! answered, so each column is recomputed here from the log alone: a pass
//! that drops an arrival, averages the wrong quantity or mislabels a
//! column fails exactly.

use super::*;
use bloomlab_filters::{
    DistinctEstimator, EntropyEstimator, ExactWindow, FrequencyEstimator, WindowSummary,
};
use bloomlab_harness::designs::EstimateTheory;
use bloomlab_harness::metrics::Welford;
use bloomlab_harness::passes::summary as estimates;
use std::sync::{Arc, Mutex};

/// What one round's summary was asked and answered.
#[derive(Default, Clone)]
struct RoundLog {
    /// Per frequency query: the true count, the error answered, the theory's
    /// expected squared error at that moment.
    queries: Vec<(u64, f64, f64)>,
    /// At the end of the round (its distinct query): D, H, the ten heaviest
    /// flows' share of Σ f², the bits.
    end: Option<(f64, f64, f64, u64)>,
}

type Log = Arc<Mutex<Vec<RoundLog>>>;

/// Answers from its own exact window: frequency off by -1, 0 or +1 (by the
/// key's hash), D × 1.25 (as "mle"), a lower bound of 0.8 D, D or 1.1 D
/// by the round's number mod 3, H - 0.25; 64 bits per distinct key (or
/// 1000 whatever the window, with `fixed_bits`).
struct Skewed {
    exact: ExactWindow,
    round: usize,
    log: Log,
    caps: [bool; 3],
    fixed_bits: bool,
}

fn error_of(key: u64) -> i64 {
    (mix64(key ^ 7) % 3) as i64 - 1
}

fn heavy_share(exact: &ExactWindow) -> f64 {
    let mut f2: Vec<u64> = exact.counts().map(|c| c * c).collect();
    f2.sort_unstable_by(|a, b| b.cmp(a));
    f2.iter().take(10).sum::<u64>() as f64 / exact.second_moment()
}

impl WindowSummary for Skewed {
    fn record(&mut self, key: u64) {
        self.exact.record(key)
    }
    fn summary_window(&self) -> u64 {
        self.exact.summary_window()
    }
    fn summary_bits(&self) -> u64 {
        if self.fixed_bits {
            1000
        } else {
            64 * self.exact.distinct() as u64
        }
    }
    fn summary_name(&self) -> &'static str {
        "skewed"
    }
    fn as_frequency(&self) -> Option<&dyn FrequencyEstimator> {
        self.caps[0].then_some(self as &dyn FrequencyEstimator)
    }
    fn as_distinct(&self) -> Option<&dyn DistinctEstimator> {
        self.caps[1].then_some(self as &dyn DistinctEstimator)
    }
    fn as_entropy(&self) -> Option<&dyn EntropyEstimator> {
        self.caps[2].then_some(self as &dyn EntropyEstimator)
    }
}

impl FrequencyEstimator for Skewed {
    fn frequency(&self, key: u64) -> u64 {
        let f = self.exact.frequency(key);
        let answer = (f as i64 + error_of(key)).max(0) as u64;
        let (n, s2) = (self.exact.len() as f64, self.exact.second_moment());
        let theory = f as f64 / 2.0 + s2 / (n * 1000.0);
        self.log.lock().unwrap()[self.round]
            .queries
            .push((f, answer as f64 - f as f64, theory));
        answer
    }
    fn never_underestimates(&self) -> bool {
        false
    }
}

impl DistinctEstimator for Skewed {
    fn distinct(&self) -> f64 {
        let d = self.exact.distinct();
        let end = (
            d,
            self.exact.entropy(),
            heavy_share(&self.exact),
            self.summary_bits(),
        );
        self.log.lock().unwrap()[self.round].end = Some(end);
        1.25 * d
    }
    fn distinct_name(&self) -> &'static str {
        "mle"
    }
    fn distinct_lower_bound(&self) -> Option<f64> {
        let f = [0.8, 1.0, 1.1][self.round % 3];
        Some(f * self.exact.distinct())
    }
}

impl EntropyEstimator for Skewed {
    fn entropy(&self) -> f64 {
        self.exact.entropy() - 0.25
    }
}

/// Expected errors as simple known functions.
struct Known;

impl EstimateTheory for Known {
    fn count_mse(&self, n: u64, s2: f64, f: u64) -> f64 {
        f as f64 / 2.0 + s2 / (n as f64 * 1000.0)
    }
    fn distinct_lb(&self, d: f64) -> f64 {
        d - 1.0
    }
    fn distinct_sd(&self, d: f64) -> f64 {
        0.1 * d
    }
    fn entropy_error(&self, counts: &mut dyn Iterator<Item = u64>) -> f64 {
        counts.count() as f64 / 1000.0
    }
    fn fpr(&self, d: f64) -> f64 {
        d / 1e6
    }
    fn colliding_pairs(&self, d: f64) -> f64 {
        2.0 * d
    }
}

const W: u64 = 300;

/// Runs the pass over a Zipf stream (window 300, `arrivals` a round,
/// `rounds` rounds) for `metrics`; the row and the summaries' log.
fn run(
    metrics: &[Metric],
    caps: [bool; 3],
    arrivals: u64,
    rounds: u64,
) -> (anyhow::Result<Row>, Vec<RoundLog>) {
    run_with(metrics, caps, arrivals, rounds, false)
}

/// As [`run`], with the summary's bits fixed or not.
fn run_with(
    metrics: &[Metric],
    caps: [bool; 3],
    arrivals: u64,
    rounds: u64,
    fixed_bits: bool,
) -> (anyhow::Result<Row>, Vec<RoundLog>) {
    let log: Log = Arc::new(Mutex::new(Vec::new()));
    let l = log.clone();
    let build = move |_seed: u64| -> anyhow::Result<Built> {
        let mut rounds = l.lock().unwrap();
        rounds.push(RoundLog::default());
        Ok(Built {
            filter: None,
            summary: Some(Box::new(Skewed {
                exact: ExactWindow::new(W).unwrap(),
                round: rounds.len() - 1,
                log: l.clone(),
                caps,
                fixed_bits,
            })),
            geometry: Geometry::exact(W, true),
            resolved: Vec::new(),
            theory: Theory {
                estimates: Some(Box::new(Known)),
                ..Theory::default()
            },
        })
    };
    let built = build(0).unwrap();
    let mut rng = Pcg64::seed_from_u64(23);
    let zipf = WorkloadSpec::Zipf {
        universe: 400,
        exponent: 1.0,
    };
    let stream = KeyStream::new(&zipf, None, &mut rng);
    let spec = MeasureSpec {
        rounds,
        arrivals,
        ..MeasureSpec::default()
    };
    let metrics: BTreeSet<Metric> = metrics.iter().copied().collect();
    let row = estimates::measure(&built, stream, rng, &metrics, &spec, &build, true);
    let mut rounds = log.lock().unwrap().clone();
    rounds.remove(0); // the first build only gives the pass its design
    (row, rounds)
}

fn mean(x: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = x.collect();
    v.iter().sum::<f64>() / v.len() as f64
}

fn close(row: &Row, column: &str, want: f64) {
    near(row, column, want, 1e-9, 1e-9)
}

/// The interval holds the figure, and the theory flag says whether it
/// holds the theory.
fn interval_consistent(row: &Row, name: &str) {
    let (x, lo, hi) = (
        num(row, name),
        num(row, &format!("{name}_ci_low")),
        num(row, &format!("{name}_ci_high")),
    );
    assert!(lo <= x + 1e-12 && x <= hi + 1e-12, "{name}: {lo} {x} {hi}");
    let t = num(row, &format!("{name}_theory"));
    let inside = lo <= t && t <= hi;
    // a zero-width interval (every round measured the same) decides no
    // verdict: the flag is left out
    let want = (hi > lo).then_some(bloomlab_harness::metrics::Value::Bool(inside));
    assert_eq!(
        row.get(format!("{name}_theory_in_ci")),
        want.as_ref(),
        "{name}"
    );
}

#[test]
fn summary_columns_are_what_the_summary_answered() {
    let all = [
        Metric::Count,
        Metric::Distinct,
        Metric::Entropy,
        Metric::Memory,
    ];
    let (arrivals, rounds) = (500u64, 6u64);
    let (row, log) = run(&all, [true; 3], arrivals, rounds);
    let row = row.unwrap();
    assert_eq!(log.len(), rounds as usize);
    for r in &log {
        assert_eq!(r.queries.len(), arrivals as usize, "one query an arrival");
        assert!(r.end.is_some());
    }
    // count: per-round means of the squared and signed errors, averaged
    let per_round = |f: &dyn Fn(&(u64, f64, f64)) -> f64| {
        mean(log.iter().map(|r| mean(r.queries.iter().map(f))))
    };
    close(&row, "count_arrivals", (arrivals * rounds) as f64);
    close(&row, "count_rmse", per_round(&|q| q.1 * q.1).sqrt());
    close(&row, "count_rmse_theory", per_round(&|q| q.2).sqrt());
    close(&row, "count_mean_error", per_round(&|q| q.1));
    let under = log
        .iter()
        .flat_map(|r| &r.queries)
        .filter(|q| q.1 < 0.0)
        .count();
    assert!(under > 0);
    close(&row, "count_underestimates", under as f64);
    interval_consistent(&row, "count_rmse");
    // the RMSE's interval is the root of the mean square's (Student-t over
    // the rounds' mean squares)
    let mut ms = Welford::default();
    for r in &log {
        ms.add(mean(r.queries.iter().map(|q| q.1 * q.1)));
    }
    let (lo, hi) = ms.ci(0.99);
    close(&row, "count_rmse_ci_low", lo.max(0.0).sqrt());
    close(&row, "count_rmse_ci_high", hi.sqrt());
    // distinct, entropy and memory: from the ends of the rounds
    let ends: Vec<(f64, f64, f64, u64)> = log.iter().map(|r| r.end.unwrap()).collect();
    let d = mean(ends.iter().map(|e| e.0));
    assert!(ends.iter().any(|e| e.0 != ends[0].0), "D varies by round");
    close(&row, "heavy10_f2_share", mean(ends.iter().map(|e| e.2)));
    close(&row, "summary_rounds", rounds as f64);
    close(&row, "colliding_pairs_expected", 2.0 * d);
    close(&row, "distinct_true", d);
    close(&row, "fpr_theory_at_distinct_true", d / 1e6);
    close(&row, "distinct_estimate", 1.25 * d);
    close(&row, "distinct_mle", 1.25 * d);
    close(&row, "distinct_rel_rmse", 0.25);
    close(&row, "distinct_rel_rmse_theory", 0.1);
    interval_consistent(&row, "distinct_rel_rmse");
    // the rounds are the second to last builds: round i is build i + 1
    let factor = |i: usize| [0.8, 1.0, 1.1][(i + 1) % 3];
    close(
        &row,
        "distinct_lb",
        mean(ends.iter().enumerate().map(|(i, e)| factor(i) * e.0)),
    );
    close(
        &row,
        "distinct_lb_theory",
        mean(ends.iter().map(|e| e.0 - 1.0)),
    );
    let sq = |i: usize| (factor(i) - 1.0f64).powi(2);
    close(
        &row,
        "distinct_lb_rel_rmse",
        mean((0..rounds as usize).map(sq)).sqrt(),
    );
    // above the truth only at 1.1 (a bound equal to D is not above it)
    close(&row, "distinct_lb_above_truth", (rounds / 3) as f64);
    interval_consistent(&row, "distinct_lb");
    let mut lb_ms = Welford::default();
    for i in 0..rounds as usize {
        lb_ms.add(sq(i));
    }
    // one squared error a round: the wider of the Student t interval and
    // the chi-square one (docs/metrics.md)
    let (lo, hi) = bloomlab_harness::metrics::stats::mean_square_ci(&lb_ms, 0.99);
    close(&row, "distinct_lb_rel_rmse_ci_low", lo.max(0.0).sqrt());
    close(&row, "distinct_lb_rel_rmse_ci_high", hi.sqrt());
    close(&row, "entropy_true", mean(ends.iter().map(|e| e.1)));
    close(&row, "entropy", mean(ends.iter().map(|e| e.1 - 0.25)));
    close(&row, "entropy_error", 0.25);
    close(
        &row,
        "entropy_error_theory",
        mean(ends.iter().map(|e| e.0 / 1000.0)),
    );
    close(
        &row,
        "entropy_rel_error",
        mean(ends.iter().map(|e| 0.25 / e.1)),
    );
    interval_consistent(&row, "entropy_error");
    let bits = mean(ends.iter().map(|e| e.3 as f64));
    close(&row, "memory_bits", bits);
    close(&row, "bits_per_element", bits / W as f64);
    let (lo, hi) = (
        num(&row, "memory_bits_ci_low"),
        num(&row, "memory_bits_ci_high"),
    );
    assert!(lo < bits && bits < hi);
    assert!(row.get("summary_bits").is_none());
}

#[test]
fn the_pass_measures_what_was_asked_and_the_design_answers() {
    // arrivals 0 is one window a round; without memory the bits are
    // `summary_bits`
    let (row, log) = run(&[Metric::Count], [true; 3], 0, 3);
    let row = row.unwrap();
    assert!(log.iter().all(|r| r.queries.len() == W as usize));
    close(&row, "count_arrivals", 3.0 * W as f64);
    assert!(row.get("summary_bits").is_some() && row.get("memory_bits").is_none());
    assert!(row.get("distinct_true").is_none() && row.get("entropy").is_none());
    // a design that only counts answers the count of a mixed request
    let (row, _) = run(
        &[Metric::Count, Metric::Distinct],
        [true, false, false],
        50,
        2,
    );
    let row = row.unwrap();
    assert!(row.get("count_rmse").is_some() && row.get("distinct_true").is_none());
    // nor one that has no frequency estimate: no count columns, no query
    let (row, log) = run(
        &[Metric::Count, Metric::Distinct],
        [false, true, true],
        50,
        2,
    );
    let row = row.unwrap();
    assert!(row.get("count_rmse").is_none() && row.get("distinct_true").is_some());
    assert!(log.iter().all(|r| r.queries.is_empty()));
    // the same bits in every round: a mean with no interval
    let (row, _) = run_with(&[Metric::Distinct, Metric::Memory], [true; 3], 50, 3, true);
    let row = row.unwrap();
    assert_eq!(num(&row, "memory_bits"), 1000.0);
    assert!(row.get("memory_bits_ci_low").is_none() && row.get("memory_bits_ci_high").is_none());
    // distinct alone makes no frequency query
    let (row, log) = run(&[Metric::Distinct], [true; 3], 50, 2);
    assert!(row.unwrap().get("count_rmse").is_none());
    assert!(log.iter().all(|r| r.queries.is_empty()));
    // a request the design answers none of is refused, naming the design
    let (row, _) = run(&[Metric::Entropy], [true, true, false], 50, 2);
    let e = row.unwrap_err().to_string();
    assert!(e.contains("skewed answers none"), "{e}");
    use bloomlab_harness::passes::PassKind;
    let wants_summary =
        |m: &[Metric]| PassKind::wanted(&m.iter().copied().collect()).contains(&PassKind::Summary);
    assert!(!wants_summary(&[Metric::Fpr, Metric::Memory]));
    for m in [Metric::Count, Metric::Distinct, Metric::Entropy] {
        assert!(wants_summary(&[m]));
    }
}
