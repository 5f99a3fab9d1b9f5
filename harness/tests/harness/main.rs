//! Harness tests: determinism across thread counts and resumption, the
//! command line's handling of bad input, the commands' JSON keys, the
//! adversary and summary metrics, and `reproduce` / `check`.

mod adversary;
mod bad_input;
mod commands;
mod determinism;
mod killed;
mod layers;
mod outputs;
mod reproduce;

use assert_cmd::Command;
use bloomlab_harness::metrics::{is_timing_column, Row};
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
        progress: bloomlab_harness::sweep::Progress::Off,
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

/// [`json_out`] of a command line split at spaces.
fn json_line(line: &str) -> serde_json::Value {
    json_out(&line.split(' ').collect::<Vec<_>>())
}

/// Asserts that the JSON output `v` of `what` has a number at every key.
fn assert_numbers(v: &serde_json::Value, keys: &[&str], what: &str) {
    for key in keys {
        assert!(v[key].is_number(), "{what} lacks {key}: {v}");
    }
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
