//! Harness tests: determinism across thread counts, resumption, and the
//! command line's handling of bad input.

use assert_cmd::Command;
use bloomlab_harness::metrics::{is_timing_column, Row, Value};
use bloomlab_harness::spec::Spec;
use bloomlab_harness::sweep::{self, RunOptions};

const SPEC: &str = r#"
name = "tiny"
seed = 9
metrics = ["fpr", "fnr", "accesses", "npws", "memory", "speed", "profile"]
[measure]
rounds = 20
max_fpr_queries = 20000
min_fpr_queries = 1000
speed_ops = 1000
[[sweep]]
design = "apbf"
points = [{ k = 3, l = 2 }, { k = 4, l = 4 }, { fpr = 0.01, l = 3 }]
grid = { g = [40, 64] }
"#;

fn strip_timing(rows: &[Row]) -> Vec<Row> {
    rows.iter()
        .map(|r| {
            Row(r
                .0
                .iter()
                .filter(|(n, _)| !is_timing_column(n))
                .cloned()
                .collect())
        })
        .collect()
}

fn opts(threads: usize, dir: Option<std::path::PathBuf>) -> RunOptions {
    RunOptions {
        threads: Some(threads),
        quick: false,
        checkpoint_dir: dir,
        progress: false,
        shard: None,
    }
}

/// Runs `bloomlab` with `args`, asserts it succeeded, and parses its JSON output.
fn json_out(args: &[&str]) -> serde_json::Value {
    let out = bloomlab().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Runs `text` on one thread and on two, asserts the rows are the same,
/// and returns the first run.
fn same_rows_at_1_and_2_threads(text: &str) -> sweep::Outcome {
    let one = run_spec(text, opts(1, None));
    let two = run_spec(text, opts(2, None));
    assert_eq!(one.rows, two.rows);
    one
}

fn run_spec(text: &str, opts: RunOptions) -> sweep::Outcome {
    let spec = Spec::parse(text).unwrap();
    sweep::run(
        &spec,
        text,
        &sweep::prepare(&spec, opts.quick, &sweep::Budget::unchecked()).unwrap(),
        &opts,
    )
    .unwrap()
}

#[test]
fn same_numbers_whatever_the_thread_count() {
    let one = run_spec(SPEC, opts(1, None));
    let two = run_spec(SPEC, opts(2, None));
    assert_eq!(one.rows.len(), 6);
    assert_eq!(strip_timing(&one.rows), strip_timing(&two.rows));
    assert_eq!(one.profile, two.profile);
    // and a different seed gives different numbers
    let other = SPEC.replace("seed = 9", "seed = 10");
    let three = run_spec(&other, opts(2, None));
    assert_ne!(strip_timing(&one.rows), strip_timing(&three.rows));
}

#[test]
fn resumes_from_a_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let full = run_spec(SPEC, opts(2, Some(dir.path().into())));
    let ck = dir.path().join(".tiny.partial.jsonl");
    let lines = std::fs::read_to_string(&ck).unwrap();
    assert_eq!(lines.lines().count(), 6);
    // keep 3 finished points and a torn line, as after a kill
    let kept: Vec<&str> = lines.lines().take(3).collect();
    std::fs::write(&ck, format!("{}\n{{\"key\":", kept.join("\n"))).unwrap();
    let resumed = run_spec(SPEC, opts(1, Some(dir.path().into())));
    assert_eq!(strip_timing(&full.rows), strip_timing(&resumed.rows));
    // a changed spec does not reuse the old checkpoint
    let other = SPEC.replace("seed = 9", "seed = 10");
    let fresh = run_spec(&other, opts(2, Some(dir.path().into())));
    assert_ne!(strip_timing(&full.rows), strip_timing(&fresh.rows));
}

fn bloomlab() -> Command {
    Command::cargo_bin("bloomlab").unwrap()
}

/// Runs and returns (exit code, stderr).
fn run(cmd: &mut Command) -> (i32, String) {
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn bad_input_gives_one_line_and_nonzero_exit() {
    let dir = tempfile::tempdir().unwrap();
    let bad_spec = dir.path().join("bad.toml");
    std::fs::write(&bad_spec, SPEC.replace("k = 3", "k = 0")).unwrap();
    let typo = dir.path().join("typo.toml");
    std::fs::write(
        &typo,
        SPEC.replace("rounds = 20", "rounds = 20\nroundz = 3"),
    )
    .unwrap();
    let trace = dir.path().join("trace.toml");
    std::fs::write(
        &trace,
        SPEC.replace(
            "[measure]",
            "[workload]\nkind = \"trace\"\npath = \"/nonexistent/keys.txt\"\n[measure]",
        ),
    )
    .unwrap();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                "measure".into(),
                "apbf".into(),
                "--k".into(),
                "0".into(),
                "--l".into(),
                "2".into(),
            ],
            "k",
        ),
        (
            vec![
                "measure".into(),
                "apbf".into(),
                "--k".into(),
                "2".into(),
                "--l".into(),
                "2".into(),
                "--bogus".into(),
            ],
            "--bogus",
        ),
        (
            vec![
                "theory".into(),
                "apbf".into(),
                "--k".into(),
                "two".into(),
                "--l".into(),
                "2".into(),
            ],
            "--k",
        ),
        (
            vec![
                "run".into(),
                dir.path().join("missing.toml").display().to_string(),
            ],
            "missing.toml",
        ),
        (vec!["run".into(), bad_spec.display().to_string()], "k = 0"),
        (vec!["run".into(), typo.display().to_string()], "roundz"),
        (vec!["run".into(), trace.display().to_string()], "keys.txt"),
        (
            vec![
                "run".into(),
                SPEC_PATH.into(),
                "--threads".into(),
                "0".into(),
            ],
            "threads",
        ),
        (vec!["frobnicate".into()], "frobnicate"),
        (
            vec![
                "plan".into(),
                "--window".into(),
                "0".into(),
                "--fpr".into(),
                "0.01".into(),
            ],
            "--window",
        ),
        (
            vec![
                "plan".into(),
                "--window".into(),
                "100".into(),
                "--fpr".into(),
                "2".into(),
            ],
            "--fpr",
        ),
        (
            vec![
                "check".into(),
                "--quick".into(),
                "--experiments".into(),
                "/nonexistent".into(),
            ],
            "/nonexistent",
        ),
        (
            vec![
                "measure".into(),
                "stable".into(),
                "--m".into(),
                "100".into(),
                "--d".into(),
                "1".into(),
                "--k".into(),
                "3".into(),
            ],
            "m, d, k and p",
        ),
        (
            vec![
                "measure".into(),
                "stable".into(),
                "--m".into(),
                "10".into(),
                "--d".into(),
                "1".into(),
                "--k".into(),
                "30".into(),
                "--p".into(),
                "1".into(),
            ],
            "k = 30",
        ),
        (
            vec![
                "theory".into(),
                "naor-yogev".into(),
                "--n".into(),
                "100".into(),
                "--m".into(),
                "10".into(),
                "--eps".into(),
                "1.5".into(),
            ],
            "fpr",
        ),
        (
            vec![
                "measure".into(),
                "naor-yogev".into(),
                "--n".into(),
                "0".into(),
                "--m".into(),
                "10".into(),
                "--eps".into(),
                "0.01".into(),
            ],
            "--window",
        ),
        (
            vec![
                "theory".into(),
                "naor-yogev".into(),
                "--n".into(),
                "1000".into(),
                "--m".into(),
                "10".into(),
                "--eps".into(),
                "0.01".into(),
                "--c".into(),
                "2".into(),
            ],
            "parameter c = 2",
        ),
        (
            vec![
                "theory".into(),
                "naor-yogev".into(),
                "--n".into(),
                "1000".into(),
                "--m".into(),
                "10".into(),
                "--eps".into(),
                "0.01".into(),
                "--c".into(),
                "0".into(),
            ],
            "--c",
        ),
        (
            vec![
                "theory".into(),
                "naor-yogev".into(),
                "--n".into(),
                "1099511627776".into(),
                "--m".into(),
                "10".into(),
                "--eps".into(),
                "0.01".into(),
            ],
            "too large",
        ),
        (
            vec![
                "bench-report".into(),
                "--criterion-dir".into(),
                "/nonexistent/criterion".into(),
            ],
            "cargo bench",
        ),
        (
            vec![
                "measure".into(),
                "swamp".into(),
                "--w".into(),
                "0".into(),
                "--eps".into(),
                "0.01".into(),
            ],
            "--window",
        ),
        (
            vec![
                "theory".into(),
                "swamp".into(),
                "--w".into(),
                "100".into(),
                "--eps".into(),
                "0".into(),
            ],
            "fpr",
        ),
        (
            vec![
                "measure".into(),
                "swamp".into(),
                "--w".into(),
                "100".into(),
                "--eps".into(),
                "0.01".into(),
                "--zipf=-1".into(),
            ],
            "--zipf",
        ),
        (
            vec![
                "measure".into(),
                "swamp".into(),
                "--w".into(),
                "100".into(),
                "--eps".into(),
                "0.01".into(),
                "--trace".into(),
                "/nonexistent/flows.txt".into(),
            ],
            "flows.txt",
        ),
        (
            vec![
                "theory".into(),
                "swamp".into(),
                "--w".into(),
                "1099511627776".into(),
                "--eps".into(),
                "1e-9".into(),
            ],
            "swamp",
        ),
        (
            vec!["run".into(), "wcss_fpr.toml".into()],
            "not a membership filter",
        ),
        (vec!["run".into(), "zipf_trace.toml".into()], "zipf"),
        (vec!["run".into(), "blocked.toml".into()], "blocked_apbf"),
        (vec!["run".into(), "threads.toml".into()], "threads"),
    ];
    std::fs::write(
        dir.path().join("blocked.toml"),
        SPEC.replace("design = \"apbf\"", "design = \"blocked_apbf\"")
            .replace("k = 3", "k = 3, fpr = 0.01"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("wcss_fpr.toml"),
        "name = \"w\"\nmetrics = [\"fpr\", \"count\"]\n[[sweep]]\ndesign = \"wcss\"\n\
         points = [{ window = 100, counters = 10 }]\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("flows.txt"), "a\nb\na\n").unwrap();
    std::fs::write(
        dir.path().join("zipf_trace.toml"),
        "name = \"z\"\nmetrics = [\"count\"]\nworkload = { kind = \"trace\", path = \"flows.txt\" }\n\
         [[sweep]]\ndesign = \"swamp\"\npoints = [{ window = 100, fpr = 0.01, zipf = 1.0 }]\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("threads.toml"),
        SPEC.replace("seed = ", "threads = 0\nseed = "),
    )
    .unwrap();
    for (args, needle) in cases {
        let (code, err) = run(bloomlab().args(&args).current_dir(dir.path()));
        assert_ne!(code, 0, "{args:?} succeeded");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.contains(needle),
            "{args:?}: {err:?} should mention {needle}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

const SPEC_PATH: &str = "spec.toml";

#[test]
fn run_writes_results_and_plots_and_json_commands_work() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(SPEC_PATH),
        SPEC.to_string() + "[[plot]]\nkind = \"fpr_vs_theory\"\n[[plot]]\nkind = \"age_profile\"\n",
    )
    .unwrap();
    let (code, err) = run(bloomlab()
        .args(["run", SPEC_PATH, "--threads", "2"])
        .current_dir(dir.path()));
    assert_eq!(code, 0, "{err}");
    for f in [
        "results/tiny.csv",
        "results/tiny.md",
        "results/tiny_profile.csv",
        "plots/tiny_1.svg",
        "plots/tiny_2.svg",
        "plots/tiny_1.png",
    ] {
        assert!(dir.path().join(f).exists(), "{f} missing");
    }
    assert!(!dir.path().join("results/.tiny.partial.jsonl").exists());
    let csv = std::fs::read_to_string(dir.path().join("results/tiny.csv")).unwrap();
    assert_eq!(csv.lines().count(), 7);

    let out = bloomlab()
        .args([
            "theory", "apbf", "--k", "10", "--l", "7", "--g", "1000", "--json",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "fpr",
        "window",
        "slack",
        "bits_per_element",
        "npws_peak",
        "expected_accesses",
    ] {
        assert!(v[key].is_number(), "theory lacks {key}");
    }
    assert_eq!(v["window"], 7000.0);
    let out = bloomlab()
        .args([
            "measure",
            "apbf",
            "--k",
            "4",
            "--l",
            "3",
            "--g",
            "100",
            "--rounds",
            "20",
            "--queries",
            "20000",
            "--json",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "fpr",
        "fpr_ci_low",
        "fpr_ci_high",
        "fpr_avg",
        "fnr",
        "memory_bits",
        "npws_peak",
        "insert_ns",
        "query_ns",
    ] {
        assert!(v[key].is_number(), "measure lacks {key}");
    }
    assert_eq!(v["fnr"], 0.0);
}

#[test]
fn naor_yogev_theory_and_measure_give_the_keys_the_issue_names() {
    let out = bloomlab()
        .args([
            "theory",
            "naor-yogev",
            "--n",
            "4096",
            "--m",
            "512",
            "--eps",
            "0.01",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in ["space_bound_bits", "c", "fpr"] {
        assert!(v[key].is_number(), "theory lacks {key}");
    }
    assert!(v["fpr"].as_f64().unwrap() <= 0.01);
    assert!(v["slack"].as_f64().unwrap() <= 512.0);
    let v = json_out(&[
        "measure",
        "naor-yogev",
        "--n",
        "4096",
        "--m",
        "512",
        "--eps",
        "0.01",
        "--rounds",
        "10",
        "--queries",
        "20000",
        "--json",
    ]);
    for key in [
        "fpr",
        "fpr_ci_low",
        "fpr_ci_high",
        "fnr",
        "memory_bits",
        "max_probes",
        "insert_ns",
        "query_ns",
    ] {
        assert!(v[key].is_number(), "measure lacks {key}");
    }
    assert_eq!(v["fnr"], 0.0);
    // at least the two buckets and the scan; a displacement reads 4 more
    assert!(v["max_probes"].as_u64().unwrap() >= 10);
    // a given c overrides the choice
    let out = bloomlab()
        .args([
            "theory",
            "naor-yogev",
            "--n",
            "4096",
            "--m",
            "4096",
            "--eps",
            "0.01",
            "--c",
            "3",
            "--json",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["c"], 3.0);
}

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
    let v = json_out(&[
        "measure",
        "naor-yogev",
        "--n",
        "4096",
        "--m",
        "4096",
        "--eps",
        "0.01",
        "--workload",
        "adversarial",
        "--rounds",
        "5",
        "--json",
    ]);
    for key in [
        "sustained_fpr",
        "fpr_ci_low",
        "fpr_ci_high",
        "memory_bits",
        "insert_ns",
        "query_ns",
    ] {
        assert!(v[key].is_number(), "lacks {key}");
    }
    assert_eq!(v["sustained_fpr"], 1.0); // every query replays once one is found
    let (code, err) = run(bloomlab().args([
        "measure",
        "apbf",
        "--k",
        "4",
        "--l",
        "3",
        "--workload",
        "adversarial",
        "--attack-queries",
        "5",
    ]));
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
}

#[test]
fn broom_measure_gives_the_keys_the_issue_names() {
    let v = json_out(&[
        "measure",
        "broom",
        "--n",
        "4096",
        "--eps",
        "0.01",
        "--workload",
        "adversarial",
        "--attack-queries",
        "20000",
        "--json",
    ]);
    for key in [
        "sustained_fpr",
        "fpr_ci_low",
        "fpr_ci_high",
        "adaptivity_bits_per_element",
        "remote_accesses_per_op",
        "memory_bits",
        "insert_ns",
        "query_ns",
    ] {
        assert!(v[key].is_number(), "lacks {key}");
    }
    for bad in [["--eps", "1.5"], ["--load", "1.0"]] {
        let (code, err) = run(bloomlab()
            .args(["measure", "broom", "--n", "100", "--eps", "0.01"])
            .args(bad));
        assert_ne!(code, 0);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}

#[test]
fn swamp_theory_and_measure_give_the_keys_the_issue_names() {
    let out = bloomlab()
        .args(["theory", "swamp", "--w", "4096", "--eps", "0.01", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in ["fingerprint_bits", "memory_bits", "fpr"] {
        assert!(v[key].is_number(), "theory lacks {key}");
    }
    assert_eq!(v["fingerprint_bits"], 19.0); // ceil(log2(4096 / 0.01))
    assert!(v["fpr"].as_f64().unwrap() <= 0.01);
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("flows.txt");
    let lines: String = (0..20_000u64)
        .map(|i| format!("10.0.{}.{}\n", (i * i) % 7 % 256, (i * 7919) % 1500 % 256))
        .collect();
    std::fs::write(&trace, lines).unwrap();
    for extra in [
        vec!["--zipf", "1.0", "--universe", "20000"],
        vec!["--trace", trace.to_str().unwrap()],
    ] {
        let out = bloomlab()
            .args([
                "measure", "swamp", "--w", "4096", "--eps", "0.01", "--rounds", "5",
            ])
            .args(["--queries", "20000", "--json"])
            .args(&extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        for key in [
            "fpr",
            "fpr_ci_low",
            "fpr_ci_high",
            "memory_bits",
            "distinct_lb",
            "distinct_mle",
            "distinct_true",
            "entropy",
            "entropy_true",
            "count_rmse",
            "insert_ns",
            "query_ns",
        ] {
            assert!(v[key].is_number(), "measure {extra:?} lacks {key}");
        }
        assert!(v["distinct_lb"].as_f64() <= v["distinct_true"].as_f64());
        assert_eq!(v["count_underestimates"], 0);
        assert_eq!(v["fnr"], 0.0);
    }
}

/// reproduce writes the baselines and the report; check passes against them,
/// and fails (non-zero, one line on stderr) when a baseline is altered.
/// Runs `bloomlab check --quick` in `dir`; returns its output and the
/// scratch directory it used (named by its process id).
fn check_quick_in(dir: &std::path::Path) -> (std::process::Output, std::path::PathBuf) {
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("bloomlab"))
        .args(["check", "--quick"])
        .current_dir(dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let scratch = std::env::temp_dir().join(format!("bloomlab-check-{}", child.id()));
    (child.wait_with_output().unwrap(), scratch)
}

#[test]
fn reproduce_then_check_catches_an_altered_baseline() {
    let dir = tempfile::tempdir().unwrap();
    let exp = dir.path().join("experiments");
    std::fs::create_dir_all(&exp).unwrap();
    // no speed metric: ratios of 1000-operation timings are too noisy to gate on
    std::fs::write(exp.join("tiny.toml"), SPEC.replace("\"speed\", ", "")).unwrap();
    // without --update-baselines a quick run stays out of results/
    let (code, err) = run(bloomlab()
        .args(["reproduce", "--quick"])
        .current_dir(dir.path()));
    assert_eq!(code, 0, "{err}");
    assert!(!dir.path().join("results").exists());
    assert!(dir
        .path()
        .join("target/bloomlab-quick/results/tiny_quick.csv")
        .exists());
    let (code, err) = run(bloomlab()
        .args(["reproduce", "--quick", "--update-baselines"])
        .current_dir(dir.path()));
    assert_eq!(code, 0, "{err}");
    let report = std::fs::read_to_string(dir.path().join("results/REPORT_quick.md")).unwrap();
    assert!(report.contains("## tiny") && report.contains("tiny_quick.csv"));
    let (code, err) = run(bloomlab()
        .args(["check", "--quick"])
        .current_dir(dir.path()));
    assert_eq!(code, 0, "{err}");
    // alter the baseline's memory of one row
    let base = dir.path().join("results/tiny_quick.csv");
    let csv = std::fs::read_to_string(&base).unwrap();
    let mut lines: Vec<String> = csv.lines().map(String::from).collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let col = header.iter().position(|h| *h == "memory_bits").unwrap();
    let mut cells: Vec<String> = lines[1].split(',').map(String::from).collect();
    cells[col] = "1".into();
    lines[1] = cells.join(",");
    std::fs::write(&base, lines.join("\n") + "\n").unwrap();
    let out = bloomlab()
        .args(["check", "--quick"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("memory_bits") && stdout.contains("REGRESSION"),
        "{stdout}"
    );
    // a non-numeric FPR (with memory restored) fails too, naming the column
    let fpr = csv
        .lines()
        .next()
        .unwrap()
        .split(',')
        .position(|h| h == "fpr")
        .unwrap();
    let mut cells: Vec<String> = csv
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .map(String::from)
        .collect();
    cells[fpr] = "abc".into();
    lines[1] = cells.join(",");
    std::fs::write(&base, lines.join("\n") + "\n").unwrap();
    let (out, scratch) = check_quick_in(dir.path());
    assert_ne!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("tiny") && stdout.contains(" fpr ") && stdout.contains("REGRESSION"),
        "{stdout}"
    );
    // and a failed check leaves no scratch directory behind
    assert!(!scratch.exists(), "{} left behind", scratch.display());
    // two specs of one name are refused before anything runs
    std::fs::write(exp.join("twin.toml"), SPEC).unwrap();
    let (code, err) = run(bloomlab()
        .args(["check", "--quick"])
        .current_dir(dir.path()));
    assert_ne!(code, 0);
    assert!(
        err.contains("both named \"tiny\"") && err.trim_end().lines().count() == 1,
        "{err}"
    );
    std::fs::remove_file(exp.join("twin.toml")).unwrap();
    // nor does one whose second experiment fails half-way (its trace is gone)
    std::fs::write(
        exp.join("z_gone.toml"),
        SPEC.replace("name = \"tiny\"", "name = \"z_gone\"")
            .replace(
                "[measure]",
                "[workload]\nkind = \"trace\"\npath = \"gone.txt\"\n[measure]",
            ),
    )
    .unwrap();
    std::fs::write(dir.path().join("results/z_gone_quick.csv"), "point\n0\n").unwrap();
    let (out, scratch) = check_quick_in(dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("gone.txt"),
        "{stderr}"
    );
    assert!(!scratch.exists(), "{} left behind", scratch.display());
}
