//! The adversary's pass against a filter whose false positives are a fixed
//! set known by hash, logging every insertion, query and fix: the warm-up,
//! the replays, the fresh draws, the insertions between queries and every
//! column of the row are recomputed from the log.

use super::*;
use bloomlab_filters::AdaptiveFilter;
use bloomlab_filters::Instrumented;
use bloomlab_harness::metrics::{binomial_ci, info_bound_ratio, Value, Welford};
use bloomlab_harness::passes::adversary;
use bloomlab_harness::spec::AdversarySpec;
use bloomlab_harness::workload::Trace;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Event {
    Insert(u64),
    Query(u64, bool),
    Fix(u64),
}

type Log = Arc<Mutex<Vec<Event>>>;

/// Yes iff a hash of the key falls below p (and it was not fixed); adaptive
/// on request: a fix makes the key answer no, costs 2 remote accesses and
/// 3 adaptivity bits; an insertion costs one remote access.
struct Oracle {
    p: f64,
    adaptive: bool,
    fixed: HashSet<u64>,
    inserted: u64,
    log: Log,
}

impl Filter for Oracle {
    fn insert(&mut self, key: u64) {
        self.inserted += 1;
        self.log.lock().unwrap().push(Event::Insert(key));
    }
    fn contains(&self, key: u64) -> bool {
        let yes = !self.fixed.contains(&key)
            && (mix64(key ^ 0xAD) as f64) < self.p * 18446744073709551616.0;
        self.log.lock().unwrap().push(Event::Query(key, yes));
        yes
    }
    fn memory_bits(&self) -> u64 {
        1234
    }
    fn name(&self) -> &'static str {
        "oracle"
    }
}

impl Instrumented for Oracle {
    fn as_adaptive(&mut self) -> Option<&mut dyn AdaptiveFilter> {
        if self.adaptive {
            Some(self)
        } else {
            None
        }
    }
}

impl AdaptiveFilter for Oracle {
    fn adapt(&mut self, key: u64) -> bool {
        self.log.lock().unwrap().push(Event::Fix(key));
        self.fixed.insert(key)
    }
    fn remote_accesses(&self) -> u64 {
        2 * self.fixed.len() as u64 + self.inserted
    }
    fn adaptivity_bits(&self) -> u64 {
        3 * self.fixed.len() as u64
    }
    fn stored(&self) -> u64 {
        self.inserted
    }
}

const P: f64 = 0.02;

/// One attack on an `Oracle` (window 200, slack 50, period 7); the row and
/// the log.
fn attack(spec: &AdversarySpec, adaptive: bool) -> (Row, Vec<Event>) {
    let (row, log) = attack_on(spec, adaptive, None);
    (row.unwrap(), log)
}

/// As [`attack`], inserting and querying the keys of `trace` if given.
fn attack_on(
    spec: &AdversarySpec,
    adaptive: bool,
    trace: Option<&std::sync::Arc<Trace>>,
) -> (anyhow::Result<Row>, Vec<Event>) {
    let log: Log = Arc::new(Mutex::new(Vec::new()));
    let mut geometry = Geometry::exact(200, true);
    geometry.slack = 50;
    geometry.period = 7;
    let mut built = Built {
        filter: Some(Box::new(Oracle {
            p: P,
            adaptive,
            fixed: HashSet::new(),
            inserted: 0,
            log: log.clone(),
        })),
        summary: None,
        geometry,
        resolved: Vec::new(),
        theory: Theory {
            scalars: vec![(bloomlab_harness::metrics::columns::col::FPR, P)],
            ..Theory::default()
        },
    };
    let mut rng = Pcg64::seed_from_u64(31);
    let workload = match trace {
        Some(_) => WorkloadSpec::Trace(bloomlab_harness::trace::TraceSource {
            path: "unused".into(),
            format: bloomlab_harness::trace::TraceFormat::Lines,
            time_column: None,
        }),
        None => WorkloadSpec::Distinct,
    };
    let stream = KeyStream::new(&workload, trace.cloned(), &mut rng);
    let row = adversary::measure(
        &mut built,
        stream,
        rng,
        spec,
        trace.map(|t| t.as_ref()),
        0.95,
        true,
    );
    let log = log.lock().unwrap().clone();
    (row, log)
}

/// The queries' (key, answer), and the insertions made before each query
/// (index 0: the warm-up).
fn split(log: &[Event]) -> (Vec<(u64, bool)>, Vec<u64>) {
    let (mut queries, mut inserts) = (Vec::new(), vec![0u64]);
    for e in log {
        match *e {
            Event::Insert(_) => *inserts.last_mut().unwrap() += 1,
            Event::Query(k, y) => {
                queries.push((k, y));
                inserts.push(0);
            }
            Event::Fix(_) => {}
        }
    }
    (queries, inserts)
}

/// The keys inserted, in order.
fn inserted_keys(log: &[Event]) -> Vec<u64> {
    log.iter()
        .filter_map(|e| match e {
            Event::Insert(k) => Some(*k),
            _ => None,
        })
        .collect()
}

fn yes_in(q: &[(u64, bool)]) -> u64 {
    q.iter().filter(|x| x.1).count() as u64
}

fn exact(row: &Row, column: &str, want: f64) {
    near(row, column, want, 1e-12, 1.0)
}

#[test]
fn a_still_filter_s_attack_is_counted_from_what_it_answered() {
    // 3001 queries in 4 windows of 750: the last takes the remainder
    let spec = AdversarySpec {
        queries: 3001,
        windows: 4,
        replay_every: 4,
        ..AdversarySpec::default()
    };
    let (row, log) = attack(&spec, false);
    let (q, inserts) = split(&log);
    assert_eq!(q.len(), 3001);
    // warm-up: w + s + max(w/4, period), in whole periods; then nothing
    assert_eq!(inserts[0], 301);
    assert!(inserts[1..].iter().all(|&n| n == 0));
    let inserted: HashSet<u64> = inserted_keys(&log).into_iter().collect();
    let (mut found, mut fresh) = (HashSet::new(), HashSet::new());
    let (mut order, mut next) = (Vec::new(), 0usize);
    let mut replays = 0;
    for (i, &(k, yes)) in q.iter().enumerate() {
        let n = i as u64 + 1;
        if n.is_multiple_of(4) && !found.is_empty() {
            // a replay: the false positives found so far, round robin from
            // the second; each still one
            next = (next + 1) % order.len();
            assert_eq!(k, order[next], "query {n}");
            assert!(yes, "query {n}");
            replays += 1;
        } else {
            assert!(fresh.insert(k), "query {n}: a fresh key is new");
            assert!(!inserted.contains(&k), "query {n}: never inserted");
        }
        if yes && found.insert(k) {
            order.push(k);
        }
    }
    assert!(
        replays > 600 && found.len() > 20,
        "{replays} {}",
        found.len()
    );
    let first = q.iter().position(|x| x.1).unwrap() + 1;
    exact(&row, "first_false_positive_at", first as f64);
    exact(&row, "false_positives_found", found.len() as f64);
    exact(&row, "adversary_fpr", yes_in(&q) as f64 / 3001.0);
    exact(&row, "first_window_fpr", yes_in(&q[..750]) as f64 / 750.0);
    let last = yes_in(&q[2250..]);
    exact(&row, "sustained_fpr", last as f64 / 751.0);
    let ci = binomial_ci(last, 751, 0.95);
    exact(&row, "sustained_fpr_ci_low", ci.0);
    exact(&row, "sustained_fpr_ci_high", ci.1);
    let theory = 0.25 + 0.75 * P;
    exact(&row, "sustained_fpr_theory", theory);
    let inside = ci.0 <= theory && theory <= ci.1;
    assert_eq!(
        row.get("sustained_fpr_theory_in_ci"),
        Some(&Value::Bool(inside))
    );
    assert_eq!(row.get("adaptive"), Some(&Value::Bool(false)));
    assert!(row.get("sustained_fpr_bound").is_none() && row.get("false_positives_fixed").is_none());
    exact(&row, "adversary_queries", 3001.0);
    exact(&row, "replay_every", 4.0);
    exact(&row, "replay_fraction", 0.25);
    exact(&row, "inserts_per_query", 0.0);
    exact(&row, "pool", 0.0);
    exact(&row, "memory_bits", 1234.0);
    exact(&row, "bits_per_element", 1234.0 / 200.0);
    exact(
        &row,
        "info_bound_ratio",
        info_bound_ratio(1234.0 / 200.0, P),
    );
}

#[test]
fn an_adaptive_filter_is_told_of_every_false_positive() {
    // half an insertion per query, fresh keys from a pool of 400, a replay
    // every third query
    let spec = AdversarySpec {
        queries: 2000,
        windows: 2,
        replay_every: 3,
        pool: 400,
        inserts_per_query: 0.5,
        ..AdversarySpec::default()
    };
    let (row, log) = attack(&spec, true);
    let (q, inserts) = split(&log);
    assert_eq!(q.len(), 2000);
    for (i, &n) in inserts.iter().enumerate().skip(1).take(1999) {
        // between queries i and i + 1: floor((i+1)/2) - floor(i/2)
        let i = i as u64;
        assert_eq!(n, i.div_ceil(2) - i / 2, "before query {}", i + 1);
    }
    // every yes is fixed at once; a fixed key answers no ever after
    let mut fixed = HashSet::new();
    for (i, e) in log.iter().enumerate() {
        match *e {
            Event::Query(k, true) => {
                assert_eq!(log[i + 1], Event::Fix(k));
                assert!(!fixed.contains(&k));
            }
            Event::Fix(k) => assert!(fixed.insert(k)),
            _ => {}
        }
    }
    let distinct: HashSet<u64> = q.iter().map(|x| x.0).collect();
    assert!(distinct.len() <= 400, "fresh keys come from the pool");
    let yes = yes_in(&q);
    assert!(yes >= 2 && fixed.len() as u64 == yes, "{yes}");
    exact(&row, "false_positives_fixed", yes as f64);
    exact(&row, "false_positives_found", yes as f64);
    let ops = 2000.0 + 1000.0;
    // the attack's accesses only, not the warm-up's
    exact(
        &row,
        "remote_accesses_per_op",
        (2.0 * yes as f64 + 1000.0) / ops,
    );
    let stored = 301 + 1000;
    exact(
        &row,
        "adaptivity_bits_per_element",
        3.0 * yes as f64 / stored as f64,
    );
    // the largest at a window's end: after query 1000 or 2000
    let at = |n: usize| {
        let fixed = yes_in(&q[..n]) as f64;
        3.0 * fixed / (301 + n / 2) as f64
    };
    exact(
        &row,
        "adaptivity_bits_per_element_max",
        at(1000).max(at(2000)),
    );
    let last = yes_in(&q[1000..]);
    let ci = binomial_ci(last, 1000, 0.95);
    exact(&row, "sustained_fpr", last as f64 / 1000.0);
    exact(&row, "sustained_fpr_bound", P);
    assert_eq!(
        row.get("sustained_fpr_within_bound"),
        Some(&Value::Bool(ci.0 <= P))
    );
    assert_eq!(row.get("adaptive"), Some(&Value::Bool(true)));
    assert!(row.get("sustained_fpr_theory").is_none());
    exact(&row, "inserts_per_query", 0.5);
    exact(&row, "pool", 400.0);
}

#[test]
fn runs_combine_into_means_maxima_and_a_spread_interval() {
    let row = |fpr: f64, max: f64, mem: u64| {
        let mut r = Row::default();
        r.num("sustained_fpr", fpr);
        r.num("sustained_fpr_ci_low", 0.0);
        r.num("sustained_fpr_ci_high", 1.0);
        r.num("sustained_fpr_bound", 0.15);
        r.push("sustained_fpr_within_bound", Value::Bool(true));
        r.num("sustained_fpr_theory", 0.2);
        r.push("sustained_fpr_theory_in_ci", Value::Bool(false));
        r.num("adaptivity_bits_per_element_max", max);
        r.push("memory_bits", Value::Int(mem));
        r.push("adaptive", Value::Bool(true));
        r
    };
    let rows = vec![row(0.18, 2.0, 64), row(0.2, 5.0, 64), row(0.22, 3.0, 64)];
    let c = adversary::combine(rows, 0.95);
    assert_eq!(c.get("adversary_runs"), Some(&Value::Int(3)));
    exact(&c, "sustained_fpr", 0.2);
    exact(&c, "adaptivity_bits_per_element_max", 5.0);
    assert_eq!(c.get("memory_bits"), Some(&Value::Int(64)));
    let mut w = Welford::default();
    for x in [0.18, 0.2, 0.22] {
        w.add(x);
    }
    let ci = w.ci_within(0.95, 0.0, 1.0);
    assert!(ci.0 > 0.15 && ci.0 < 0.2 && ci.1 > 0.2, "{ci:?}");
    exact(&c, "sustained_fpr_ci_low", ci.0);
    exact(&c, "sustained_fpr_ci_high", ci.1);
    // the verdicts are recomputed on the runs' interval
    assert_eq!(
        c.get("sustained_fpr_within_bound"),
        Some(&Value::Bool(false))
    );
    assert_eq!(
        c.get("sustained_fpr_theory_in_ci"),
        Some(&Value::Bool(true))
    );
    // one run is its own row
    let one = adversary::combine(vec![row(0.4, 1.0, 8)], 0.95);
    exact(&one, "sustained_fpr", 0.4);
    assert!(one.get("adversary_runs").is_none());
}

#[test]
fn a_query_trace_skips_the_keys_of_the_window() {
    // the filter is filled from a 1000-line trace and the attack queries
    // the same trace in order from a random line: the last w + s = 250
    // insertions are members, never queried
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keys.txt");
    let text: String = (0..1000).map(|i| format!("k{i}\n")).collect();
    std::fs::write(&path, text).unwrap();
    let trace = std::sync::Arc::new(Trace::load(&path, 3).unwrap());
    let spec = AdversarySpec {
        queries: 1500,
        windows: 3,
        replay_every: 0,
        ..AdversarySpec::default()
    };
    let (row, log) = attack_on(&spec, false, Some(&trace));
    let row = row.unwrap();
    let inserted = inserted_keys(&log);
    let members: HashSet<u64> = inserted[inserted.len() - 250..].iter().copied().collect();
    let (q, _) = split(&log);
    assert_eq!(q.len(), 1500);
    let line: std::collections::HashMap<u64, usize> = trace
        .keys()
        .iter()
        .enumerate()
        .map(|(i, &k)| (k, i))
        .collect();
    let mut skipped_between = 0;
    for (i, &(k, _)) in q.iter().enumerate() {
        assert!(!members.contains(&k), "query {i} asks a member");
        if i > 0 {
            // the next line that is not a member
            let mut at = (line[&q[i - 1].0] + 1) % 1000;
            while members.contains(&trace.keys()[at]) {
                at = (at + 1) % 1000;
                skipped_between += 1;
            }
            assert_eq!(at, line[&k], "query {i}");
        }
    }
    // no replays: every query fresh, the theory the filter's own FPR
    exact(&row, "replay_fraction", 0.0);
    exact(&row, "sustained_fpr_theory", P);
    let skipped = num(&row, "query_trace_members_skipped") as u64;
    assert!(skipped_between >= 250, "a full cycle passes the window");
    assert!(
        (skipped_between..=skipped_between + 250).contains(&skipped),
        "{skipped} against {skipped_between} between queries"
    );
    // a trace the window holds entirely leaves nothing to query
    let small = dir.path().join("small.txt");
    std::fs::write(&small, "a\nb\nc\n").unwrap();
    let small = std::sync::Arc::new(Trace::load(&small, 3).unwrap());
    let (row, _) = attack_on(&spec, false, Some(&small));
    let e = row.unwrap_err().to_string();
    assert!(
        e.contains("every key of the query trace is in the window"),
        "{e}"
    );
}

#[test]
fn point_parameters_shape_the_attack() {
    let base = AdversarySpec::default();
    let params: std::collections::BTreeMap<String, f64> = [
        ("replay_every", 3.0),
        ("queries", 500.0),
        ("pool", 7.0),
        ("inserts_per_query", 0.5),
        ("query_zipf", 1.2),
        ("k", 4.0),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let (a, rest) = adversary::point_attack(&base, &params).unwrap();
    assert_eq!((a.replay_every, a.queries, a.pool), (3, 500, 7));
    assert_eq!((a.inserts_per_query, a.zipf), (0.5, 1.2));
    assert_eq!(
        rest.into_iter().collect::<Vec<_>>(),
        [("k".to_string(), 4.0)]
    );
    for bad in [2.5, -1.0, 9007199254740992.0] {
        let p = [("pool".to_string(), bad)].into_iter().collect();
        let e = adversary::point_attack(&base, &p).unwrap_err().to_string();
        assert!(
            e.contains("pool") && e.contains("whole number"),
            "{bad}: {e}"
        );
    }
    let ok = [("pool".to_string(), 9007199254740991.0)]
        .into_iter()
        .collect();
    assert!(adversary::point_attack(&base, &ok).is_ok());
    // the spec's own checks name the point parameter
    let p = [("queries".to_string(), 0.0)].into_iter().collect();
    let e = adversary::point_attack(&base, &p).unwrap_err().to_string();
    assert!(e.contains("parameter queries"), "{e}");
    let p = [("query_zipf".to_string(), -1.0)].into_iter().collect();
    let e = adversary::point_attack(&base, &p).unwrap_err().to_string();
    assert!(e.contains("parameter query_zipf"), "{e}");
}

#[test]
fn pool_draws_follow_their_zipf_law() {
    // 50 pool keys by a Zipf law of exponent 1: rank 1 takes 1/H_50 = 22.2%
    // of the fresh queries, and every draw is a pool key
    let spec = AdversarySpec {
        queries: 4000,
        windows: 1,
        replay_every: 0,
        pool: 50,
        zipf: 1.0,
        ..AdversarySpec::default()
    };
    let (_, log) = attack(&spec, false);
    let (q, _) = split(&log);
    let mut count: std::collections::HashMap<u64, u64> = Default::default();
    for &(k, _) in &q {
        *count.entry(k).or_default() += 1;
    }
    assert!(count.len() <= 50 && count.len() >= 45, "{}", count.len());
    let top = *count.values().max().unwrap() as f64 / 4000.0;
    let h50: f64 = (1..=50).map(|r| 1.0 / r as f64).sum();
    assert!(
        (top - 1.0 / h50).abs() < 0.03,
        "{top} against {}",
        1.0 / h50
    );
}
