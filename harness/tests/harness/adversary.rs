//! The summary metrics and the adversary: deterministic, scored against
//! the exact window, and refused when malformed.

use crate::{
    assert_numbers, bloomlab, json_line, opts, run, run_spec, same_rows_at_1_and_2_threads,
};
use bloomlab_harness::metrics::Value;
use bloomlab_harness::spec::Spec;
use bloomlab_harness::sweep;

const SUMMARY_SPEC: &str = r#"
name = "summaries"
seed = 11
metrics = ["count", "distinct", "entropy", "memory"]
workload = { kind = "zipf", universe = 5000, exponent = 1.0 }
[measure]
rounds = 6
[[sweep]]
design = "swamp"
grid = { window = [2048], fingerprint_bits = [12, 20], zipf = [0.8, 1.2] }
[[sweep]]
design = "wcss"
grid = { window = [2048], counters = [64] }
[[sweep]]
design = "swhll"
grid = { window = [2048], registers = [256] }
[[sweep]]
design = "swlc"
grid = { window = [2048], registers = [4096] }
"#;

#[test]
fn summary_metrics_are_deterministic_and_scored_against_the_exact_window() {
    let one = same_rows_at_1_and_2_threads(SUMMARY_SPEC);
    assert_eq!(one.rows.len(), 7);
    for r in &one.rows {
        let design = r.get("design").unwrap().to_string();
        assert!(r.get_num("memory_bits").unwrap() > 0.0, "{design}");
        let d = r.get_num("distinct_true");
        match design.as_str() {
            "swamp" => {
                assert_eq!(r.get_num("count_underestimates"), Some(0.0));
                assert!(r.get_num("distinct_lb").unwrap() <= d.unwrap());
                assert!(r.get_num("entropy").unwrap() <= r.get_num("entropy_true").unwrap());
                assert!(r.get_num("entropy_error_theory").is_some());
            }
            "wcss" => {
                assert_eq!(r.get_num("count_underestimates"), Some(0.0));
                assert!(r.get("distinct_true").is_none());
            }
            _ => assert!(r.get_num("distinct_rel_rmse").unwrap() < 0.5, "{design}"),
        }
    }
    // the zipf parameter reaches the stream: fewer distinct flows at 1.2
    let d = |z: f64| {
        one.rows
            .iter()
            .find(|r| r.get_num("target_zipf") == Some(z))
            .and_then(|r| r.get_num("distinct_true"))
            .unwrap()
    };
    assert!(d(1.2) < d(0.8));
}

const ADVERSARY_SPEC: &str = r#"
name = "attack"
seed = 5
metrics = ["adversary", "memory"]
[adversary]
queries = 40000
windows = 10
[[sweep]]
design = "apbf"
grid = { window = [4096], fpr = [0.02], replay_every = [0, 10, 1], inserts_per_query = [0, 0.5] }
[[sweep]]
design = "swamp"
grid = { window = [4096], fpr = [0.02], replay_every = [0, 10, 1], pool = [500] }
"#;

#[test]
fn adversary_replays_false_positives_deterministically() {
    let one = same_rows_at_1_and_2_threads(ADVERSARY_SPEC);
    assert_eq!(one.rows.len(), 9);
    for r in &one.rows {
        assert!(r.get_num("memory_bits").unwrap() > 0.0);
        let fpr = r.get_num("sustained_fpr").unwrap();
        let replay = r.get_num("target_replay_every").unwrap();
        if r.get_num("inserts_per_query") == Some(0.0) {
            // a still, non-adaptive filter: f + (1 - f)p
            assert_eq!(
                r.get("sustained_fpr_theory_in_ci"),
                Some(&Value::Bool(true)),
                "{r:?}"
            );
            if replay == 1.0 {
                assert_eq!(fpr, 1.0);
            }
        } else {
            assert!(r.get("sustained_fpr_theory").is_none());
        }
        if replay == 0.0 {
            assert!(fpr < 0.05, "{r:?}");
        }
    }
    // a bad attack is refused before anything runs
    let bad = ADVERSARY_SPEC.replace("windows = 10", "windows = 0");
    assert!(Spec::parse(&bad)
        .unwrap_err()
        .to_string()
        .contains("adversary"));
    let bad = ADVERSARY_SPEC.replace("pool = [500]", "pool = [0.5]");
    let spec = Spec::parse(&bad).unwrap();
    assert!(sweep::prepare(&spec, false, &sweep::Budget::unchecked())
        .err()
        .unwrap()
        .to_string()
        .contains("pool"));
}

#[test]
fn adversarial_workload_from_the_command_line() {
    let v = json_line(
        "measure naor-yogev --n 4096 --m 4096 --eps 0.01 --workload adversarial --rounds 5 --json",
    );
    let keys = [
        "sustained_fpr",
        "fpr_ci_low",
        "fpr_ci_high",
        "memory_bits",
        "insert_ns",
        "query_ns",
    ];
    assert_numbers(&v, &keys, "measure");
    assert_eq!(v["sustained_fpr"], 1.0); // every query replays once one is found
    let line = "measure apbf --k 4 --l 3 --workload adversarial --attack-queries 5";
    let (code, err) = run(bloomlab().args(line.split(' ')));
    assert_ne!(code, 0);
    assert!(
        err.contains("--attack-queries") && err.trim_end().lines().count() == 1,
        "{err}"
    );
}

const BROOM_SPEC: &str = r#"
name = "broom_attack"
seed = 9
metrics = ["adversary", "memory"]
[adversary]
queries = 60000
windows = 6
[[sweep]]
design = "broom"
grid = { window = [4096], fpr = [0.02], replay_every = [1, 10], inserts_per_query = [0, 1], pool = [0, 2000] }
[[sweep]]
design = "apbf"
grid = { window = [4096], fpr = [0.001], replay_every = [1], inserts_per_query = [0, 1] }
"#;

/// The broom filter under the replaying adversary, with and without
/// insertions (deletions from the window) and repeated query pools: its
/// sustained FPR stays within its bound while the APBF, with more memory,
/// answers yes to nearly every query (a fifth or more of them when the
/// window slides and found false positives age out); the figures are the same whatever the
/// thread count.
#[test]
fn broom_resists_the_replaying_adversary() {
    let one = same_rows_at_1_and_2_threads(BROOM_SPEC);
    assert_eq!(one.rows.len(), 10);
    let broom_bits = one.rows[0].get_num("memory_bits").unwrap();
    for r in &one.rows {
        let fpr = r.get_num("sustained_fpr").unwrap();
        if r.get("design") == Some(&Value::Text("broom".into())) {
            assert_eq!(r.get("adaptive"), Some(&Value::Bool(true)));
            assert_eq!(
                r.get("sustained_fpr_within_bound"),
                Some(&Value::Bool(true)),
                "{r:?}"
            );
            assert!(fpr < 0.03, "{r:?}");
            assert!(r.get_num("false_positives_fixed").unwrap() > 0.0);
            let per_op = r.get_num("remote_accesses_per_op").unwrap();
            assert!(per_op > 0.0 && per_op < 20.0, "{r:?}");
            assert!(r.get_num("adaptivity_bits_per_element").unwrap() > 0.0);
        } else {
            assert_eq!(r.get("adaptive"), Some(&Value::Bool(false)));
            assert!(r.get_num("memory_bits").unwrap() > broom_bits);
            // still: every replay answers yes; sliding: replays die with
            // the window, but the FPR is still far above the broom's
            let floor = if r.get_num("inserts_per_query") == Some(0.0) {
                0.99
            } else {
                0.2
            };
            assert!(fpr > floor, "{r:?}");
        }
    }
}

/// The adversary's queries from a trace file: with a distinct insertion
/// stream no query key is a member; with the same trace as the insertion
/// workload, keys still in the window are skipped, not counted as false
/// positives. The broom filter stays within its bound either way.
#[test]
fn adversary_queries_from_a_trace_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keys.txt");
    let lines: Vec<String> = (0..3000)
        .map(|i| format!("10.0.{}.{}", i / 200, i % 200))
        .collect();
    std::fs::write(&path, lines.join("\n")).unwrap();
    let spec = |workload: &str| {
        format!(
            r#"
name = "trace_attack"
seed = 3
metrics = ["adversary"]
{workload}
[adversary]
queries = 20000
windows = 4
query_trace = "{}"
[[sweep]]
design = "broom"
grid = {{ window = [1024], fpr = [0.05], inserts_per_query = [1] }}
[[sweep]]
design = "apbf"
grid = {{ window = [1024], fpr = [0.05], inserts_per_query = [1] }}
"#,
            path.display()
        )
    };
    let distinct = run_spec(&spec(""), opts(2, None));
    let same = run_spec(
        &spec(&format!(
            "workload = {{ kind = \"trace\", path = \"{}\" }}",
            path.display()
        )),
        opts(2, None),
    );
    let skipped =
        |r: &bloomlab_harness::metrics::Row| r.get_num("query_trace_members_skipped").unwrap();
    assert!(distinct.rows.iter().all(|r| skipped(r) == 0.0));
    // the trace is read from a random line: most starts meet the window
    assert!(same.rows.iter().any(|r| skipped(r) > 0.0));
    for rows in [&distinct.rows, &same.rows] {
        for r in rows.iter() {
            if r.get("design") == Some(&Value::Text("broom".into())) {
                assert_eq!(
                    r.get("sustained_fpr_within_bound"),
                    Some(&Value::Bool(true)),
                    "{r:?}"
                );
            } else {
                assert!(r.get_num("sustained_fpr").unwrap() > 0.0, "{r:?}");
            }
        }
    }
    // a pool and a query trace exclude each other
    let bad = spec("").replacen(
        "inserts_per_query = [1] }",
        "inserts_per_query = [1], pool = [10] }",
        1,
    );
    let parsed = Spec::parse(&bad).unwrap();
    assert!(sweep::prepare(&parsed, false, &sweep::Budget::unchecked())
        .err()
        .unwrap()
        .to_string()
        .contains("pool"));
    // the query trace is read within the run's memory budget, as the
    // workload's trace is: 3,000 keys do not fit in 100 kB
    let parsed = Spec::parse(&spec("")).unwrap();
    let tight = sweep::Budget {
        memory: Some(100_000),
        threads: 1,
    };
    let e = sweep::prepare(&parsed, false, &tight)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("keys.txt") && e.contains("more than"), "{e}");
}
