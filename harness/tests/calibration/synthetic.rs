//! The passes against a query-counting Coin (which metric runs which
//! pass), a design whose answers follow its phase (the worst-phase
//! alignment), and one that takes a known time per operation (the timing
//! columns).

use super::*;
use bloomlab_filters::Instrumented;

/// A `Coin` that counts the queries made of it.
struct Counted(Coin, std::sync::Arc<std::sync::atomic::AtomicU64>);

impl Filter for Counted {
    fn insert(&mut self, key: u64) {
        self.0.insert(key)
    }
    fn contains(&self, key: u64) -> bool {
        self.1.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.0.contains(key)
    }
    fn memory_bits(&self) -> u64 {
        self.0.memory_bits()
    }
    fn name(&self) -> &'static str {
        "counted"
    }
}

impl Instrumented for Counted {
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        self.1.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.0.contains_probes(key)
    }
    fn zero_fraction(&self) -> Option<f64> {
        Some(0.25)
    }
}

/// Measures a counted `Coin` (window 256, slack 64, remembering 300 keys,
/// p = 0.05) for `metrics` alone: the row and the queries made.
fn measure_counted(metrics: &[Metric]) -> (Row, u64) {
    let queries = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let q = queries.clone();
    let build = move |_seed: u64| -> anyhow::Result<Built> {
        let mut geometry = Geometry::exact(256, true);
        geometry.slack = 64;
        Ok(Built {
            filter: Some(Box::new(Counted(Coin::new(300, 0.05, 3), q.clone()))),
            summary: None,
            geometry,
            resolved: Vec::new(),
            theory: Theory {
                scalars: [
                    (bloomlab_harness::metrics::columns::col::FPR, 0.05),
                    (bloomlab_harness::metrics::columns::col::FNR, 0.0),
                ]
                .into_iter()
                .collect(),
                ..Theory::default()
            },
        })
    };
    let mut built = build(0).unwrap();
    let mut rng = Pcg64::seed_from_u64(5);
    let stream = KeyStream::new(&WorkloadSpec::Distinct, None, &mut rng);
    let metrics: BTreeSet<Metric> = metrics.iter().copied().collect();
    let row = bloomlab_harness::passes::membership::measure(
        &mut built,
        stream,
        rng,
        &metrics,
        &quick(),
        &build,
    )
    .unwrap()
    .row;
    (row, queries.load(std::sync::atomic::Ordering::Relaxed))
}

#[test]
fn each_metric_runs_only_its_own_pass() {
    let has = |r: &Row, c: &str| r.get(c).is_some();
    // the FPR pass: never-inserted keys and expired ones, in both phases
    let (fpr, q) = measure_counted(&[Metric::Fpr]);
    let (n, expired) = (num(&fpr, "fpr_queries"), num(&fpr, "fpr_expired_queries"));
    assert_eq!(q as f64, 2.0 * (n + expired));
    assert!(!has(&fpr, "fnr") && !has(&fpr, "probes_negative") && !has(&fpr, "npws_peak"));
    // the FNR pass: the window's keys only
    let (fnr, q) = measure_counted(&[Metric::Fnr]);
    assert_eq!(q as f64, num(&fnr, "fnr_queries"));
    assert!(!has(&fnr, "fpr") && !has(&fnr, "memory_bits"));
    // probes: the never-inserted keys, without the expired ones
    let (acc, q) = measure_counted(&[Metric::Accesses]);
    assert_eq!(q as f64, 2.0 * n);
    assert!(has(&acc, "probes_negative") && !has(&acc, "fpr") && !has(&acc, "fnr"));
    // PWS: every key of the slack, each phase of each round
    let (npws, q) = measure_counted(&[Metric::Npws]);
    assert_eq!(q, 2 * 40 * 64);
    assert!(has(&npws, "npws_avg") && !has(&npws, "fpr"));
    // the zero fraction: the filter's own figure, and no query
    let (zeros, q) = measure_counted(&[Metric::ZeroFraction]);
    assert_eq!((num(&zeros, "zero_fraction"), q), (0.25, 0));
    // a design without one has no column
    let coin = measure(256, 0, 256, 0.0, &quick(), &[Metric::ZeroFraction]);
    assert!(!has(&coin, "zero_fraction") && !has(&coin, "zero_fraction_ci_low"));
    // the ratio to the theory
    assert_eq!(num(&fpr, "fpr_ratio"), num(&fpr, "fpr") / 0.05);
    // memory: no query at all, and no other column
    let (mem, q) = measure_counted(&[Metric::Memory]);
    assert_eq!(q, 0);
    assert_eq!(num(&mem, "memory_bits"), 64.0 * 300.0);
    assert!(!has(&mem, "fpr") && !has(&mem, "zero_fraction") && !has(&mem, "insert_ns"));
}

/// Answers every query yes exactly when its insertions are a multiple of
/// `period` (the worst phase), and takes at least `spin` to answer or
/// insert.
struct Phased {
    period: u64,
    inserted: u64,
    spin: std::time::Duration,
}

impl Phased {
    fn wait(&self) {
        let t0 = std::time::Instant::now();
        while t0.elapsed() < self.spin {
            std::hint::spin_loop();
        }
    }
}

impl Filter for Phased {
    fn insert(&mut self, _key: u64) {
        self.wait();
        self.inserted += 1;
    }
    fn contains(&self, _key: u64) -> bool {
        self.wait();
        self.inserted.is_multiple_of(self.period)
    }
    fn memory_bits(&self) -> u64 {
        64
    }
    fn name(&self) -> &'static str {
        "phased"
    }
}

impl Instrumented for Phased {}

fn measure_phased(spin_ns: u64, metrics: &[Metric], spec: &MeasureSpec) -> Row {
    let build = move |_seed: u64| -> anyhow::Result<Built> {
        let mut geometry = Geometry::exact(256, false);
        geometry.period = 64;
        Ok(Built {
            filter: Some(Box::new(Phased {
                period: 64,
                inserted: 0,
                spin: std::time::Duration::from_nanos(spin_ns),
            })),
            summary: None,
            geometry,
            resolved: Vec::new(),
            theory: Theory::default(),
        })
    };
    let mut built = build(0).unwrap();
    let mut rng = Pcg64::seed_from_u64(3);
    let stream = KeyStream::new(&WorkloadSpec::Distinct, None, &mut rng);
    let metrics: BTreeSet<Metric> = metrics.iter().copied().collect();
    bloomlab_harness::passes::membership::measure(&mut built, stream, rng, &metrics, spec, &build)
        .unwrap()
        .row
}

#[test]
fn every_round_is_measured_at_the_worst_phase() {
    // the warm-up ends on a multiple of the period and every round moves by
    // whole periods: every worst-phase query sees a multiple, and a random
    // phase u in 1..=64 does only when u = 64
    let r = measure_phased(0, &[Metric::Fpr], &quick());
    assert_eq!(num(&r, "fpr"), 1.0);
    let avg = num(&r, "fpr_avg");
    assert!(avg < 0.2, "{avg}");
}

#[test]
fn timings_are_per_operation() {
    // every operation takes at least 20 us: each ns/op column is at least
    // that, and (on a machine that is not stalled for seconds) not 50x more
    let spec = MeasureSpec {
        rounds: 1,
        speed_ops: 300,
        tail_ops: 300,
        ..quick()
    };
    let r = measure_phased(
        20_000,
        &[Metric::Speed, Metric::Batched, Metric::Tail],
        &spec,
    );
    for c in [
        "insert_ns",
        "query_pos_ns",
        "query_neg_ns",
        "query_neg_batched_ns",
        "insert_mean_ns",
    ] {
        let ns = num(&r, c);
        assert!((20_000.0..1e6).contains(&ns), "{c}: {ns} ns");
    }
    let (pos, neg) = (num(&r, "query_pos_ns"), num(&r, "query_neg_ns"));
    assert_eq!(num(&r, "query_ns"), (pos + neg) / 2.0);
    let (p99, p999, max) = (
        num(&r, "insert_p99_ns"),
        num(&r, "insert_p999_ns"),
        num(&r, "insert_max_ns"),
    );
    assert!(20_000.0 <= p99 && p99 <= p999 && p999 <= max && num(&r, "insert_mean_ns") <= max);
}

/// A filter whose zero fraction is 1/(1 + insertions) and which answers yes
/// to everything from its 100th insertion on; its inserted keys are logged
/// per build.
struct Filling {
    inserted: u64,
    build: usize,
    keys: std::sync::Arc<std::sync::Mutex<Vec<Vec<u64>>>>,
}

impl Filter for Filling {
    fn insert(&mut self, key: u64) {
        self.inserted += 1;
        self.keys.lock().unwrap()[self.build].push(key);
    }
    fn contains(&self, _key: u64) -> bool {
        self.inserted >= 100
    }
    fn memory_bits(&self) -> u64 {
        1
    }
    fn name(&self) -> &'static str {
        "filling"
    }
}

impl Instrumented for Filling {
    fn zero_fraction(&self) -> Option<f64> {
        Some(1.0 / (1.0 + self.inserted as f64))
    }
}

#[test]
fn convergence_rows_are_counted_at_log_spaced_checkpoints_from_empty() {
    let keys = std::sync::Arc::new(std::sync::Mutex::new(Vec::<Vec<u64>>::new()));
    let k = keys.clone();
    let build = move |_seed: u64| -> anyhow::Result<Built> {
        let build = {
            let mut keys = k.lock().unwrap();
            keys.push(Vec::new());
            keys.len() - 1
        };
        let mut geometry = Geometry::exact(64, false);
        geometry.warmup = Some(400);
        Ok(Built {
            filter: Some(Box::new(Filling {
                inserted: 0,
                build,
                keys: k.clone(),
            })),
            summary: None,
            geometry,
            resolved: Vec::new(),
            theory: Theory {
                convergence: Some(Box::new(|t| (t as f64 / 1000.0, 1.0 - t as f64 / 1000.0))),
                ..Theory::default()
            },
        })
    };
    let mut built = build(0).unwrap();
    let mut rng = Pcg64::seed_from_u64(7);
    let stream = KeyStream::new(&WorkloadSpec::Distinct, None, &mut rng);
    let spec = MeasureSpec {
        rounds: 3,
        convergence_points: 9,
        convergence_queries: 50,
        ..MeasureSpec::default()
    };
    let metrics: BTreeSet<Metric> = [Metric::Convergence].into_iter().collect();
    let rows = bloomlab_harness::passes::membership::measure(
        &mut built, stream, rng, &metrics, &spec, &build,
    )
    .unwrap()
    .convergence;
    // 9 points from 1 to 1.5 x 400 = 600, log-spaced: 600^(i/8), rounded
    let mut want: Vec<u64> = (0..9)
        .map(|i| 600f64.powf(i as f64 / 8.0).round() as u64)
        .collect();
    want.dedup();
    assert_eq!(rows.iter().map(|r| r.t).collect::<Vec<_>>(), want);
    assert_eq!(want.last(), Some(&600));
    for r in &rows {
        assert_eq!(r.zeros.count(), 3, "t {}", r.t);
        assert!(
            (r.zeros.mean() - 1.0 / (1.0 + r.t as f64)).abs() < 1e-12,
            "t {}",
            r.t
        );
        assert_eq!(r.n, 150, "t {}", r.t);
        assert_eq!(r.fp, if r.t >= 100 { 150 } else { 0 }, "t {}", r.t);
        assert_eq!(r.zero_theory, r.t as f64 / 1000.0);
        assert_eq!(r.fpr_theory, 1.0 - r.t as f64 / 1000.0);
    }
    // three fresh filters (after the one the pass was given), each filled
    // from empty to the last checkpoint with a fresh stream
    let keys = keys.lock().unwrap();
    assert_eq!(keys.len(), 4);
    for run in &keys[1..] {
        assert_eq!(run.len(), 600);
    }
    assert_ne!(keys[1], keys[2]);
    // a design without the theory is refused
    let mut coin = Built {
        filter: Some(Box::new(Coin::new(1, 0.5, 1))),
        summary: None,
        geometry: Geometry::exact(64, false),
        resolved: Vec::new(),
        theory: Theory::default(),
    };
    let mut rng = Pcg64::seed_from_u64(7);
    let stream = KeyStream::new(&WorkloadSpec::Distinct, None, &mut rng);
    let e = bloomlab_harness::passes::membership::measure(
        &mut coin, stream, rng, &metrics, &spec, &build,
    )
    .err()
    .unwrap();
    assert!(e.to_string().contains("no convergence theory"), "{e}");
}
