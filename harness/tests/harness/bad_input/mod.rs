//! Bad input (flags, parameters, specs, trace files) gets one line on
//! stderr, naming what is wrong, and a non-zero exit, never a panic: the
//! one home of the bad-input tests. This module's table holds the one-line
//! cases; [`limits`] the inputs that would exhaust the machine, [`files`]
//! those that could lose a result.

mod files;
mod limits;
mod support;

use crate::{bloomlab, run, SPEC};
use std::path::Path;

/// Command lines (split at spaces, run in the scratch directory that
/// [`write_inputs`] fills) and what the error line must mention.
const CASES: &[(&str, &str)] = &[
    // flags and parameters
    ("measure apbf --k 0 --l 2", "k"),
    ("measure apbf --k 2 --l 2 --bogus", "--bogus"),
    ("theory apbf --k two --l 2", "--k"),
    ("frobnicate", "frobnicate"),
    ("plan --window 0 --fpr 0.01", "--window"),
    ("plan --window 100 --fpr 2", "--fpr"),
    // non-finite numbers were dropped on the way to the design and became
    // its defaults; a time window of 1e-600 keys was planned as 0 keys
    (
        "measure broom --window 1000 --fpr 0.01 --load inf",
        "--load inf",
    ),
    (
        "measure naor_yogev --window 1000 --slack 1000 --fpr 0.01 --max-load NaN",
        "--max-load NaN",
    ),
    (
        "plan --window 100 --fpr 0.01 --max-npws inf",
        "--max-npws inf",
    ),
    ("measure apbf --k 4 --l 3 --g 20 --zipf nan", "--zipf NaN"),
    (
        "plan --window-time 1e-300 --peak-rate 1e-300 --fpr 0.01",
        "at least one",
    ),
    ("run nan_load.toml", "load = NaN"),
    // rounds and queries a user sets: work bounded before it starts
    (
        "measure apbf --k 4 --l 3 --g 100 --rounds 18446744073709551615",
        "above the limit of a day",
    ),
    (
        "measure apbf --k 4 --l 3 --g 100 --queries 18446744073709551615",
        "above the limit of a day",
    ),
    // a device is not read at all (/dev/zero read 10.5 GB, then was cut
    // at the 1 MiB limit)
    ("run /dev/zero", "not a regular file"),
    // a regular file is read up to the limit
    ("run big.toml", "larger than 1 MiB"),
    ("run inf_grid.toml", "window = inf"),
    ("measure stable --m 100 --d 1 --k 3", "m, d, k and p"),
    ("measure stable --m 10 --d 1 --k 30 --p 1", "k = 30"),
    ("theory naor-yogev --n 100 --m 10 --eps 1.5", "fpr"),
    ("measure naor-yogev --n 0 --m 10 --eps 0.01", "--window"),
    (
        "theory naor-yogev --n 1000 --m 10 --eps 0.01 --c 2",
        "parameter c = 2",
    ),
    ("theory naor-yogev --n 1000 --m 10 --eps 0.01 --c 0", "--c"),
    (
        "theory naor-yogev --n 1099511627776 --m 10 --eps 0.01",
        "too large",
    ),
    ("measure swamp --w 0 --eps 0.01", "--window"),
    ("theory swamp --w 100 --eps 0", "fpr"),
    ("measure swamp --w 100 --eps 0.01 --zipf=-1", "--zipf"),
    (
        "measure swamp --w 100 --eps 0.01 --trace /nonexistent/flows.txt",
        "flows.txt",
    ),
    ("theory swamp --w 1099511627776 --eps 1e-9", "swamp"),
    // specs, trace files and directories
    ("run missing.toml", "missing.toml"),
    ("run bad.toml", "k = 0"),
    ("run typo.toml", "roundz"),
    ("run trace.toml", "keys.txt"),
    ("run spec.toml --threads 0", "threads"),
    ("run wcss_fpr.toml", "not a membership filter"),
    ("run zipf_trace.toml", "zipf"),
    ("run blocked.toml", "blocked_apbf"),
    ("run threads.toml", "threads"),
    ("check --quick --experiments /nonexistent", "/nonexistent"),
    (
        "bench-report --criterion-dir /nonexistent/criterion",
        "cargo bench",
    ),
];

/// The malformed specs and the trace file the cases name.
fn write_inputs(dir: &Path) {
    let files = [
        ("bad.toml", SPEC.replace("k = 3", "k = 0")),
        (
            "typo.toml",
            SPEC.replace("rounds = 20", "rounds = 20\nroundz = 3"),
        ),
        (
            "trace.toml",
            SPEC.replace(
                "[measure]",
                "[workload]\nkind = \"trace\"\npath = \"/nonexistent/keys.txt\"\n[measure]",
            ),
        ),
        (
            "blocked.toml",
            SPEC.replace("design = \"apbf\"", "design = \"blocked_apbf\"")
                .replace("k = 3", "k = 3, fpr = 0.01"),
        ),
        (
            "wcss_fpr.toml",
            "name = \"w\"\nmetrics = [\"fpr\", \"count\"]\n[[sweep]]\ndesign = \"wcss\"\n\
             points = [{ window = 100, counters = 10 }]\n"
                .to_string(),
        ),
        ("flows.txt", "a\nb\na\n".to_string()),
        (
            "nan_load.toml",
            "name = \"n\"\nmetrics = [\"fpr\"]\n[[sweep]]\ndesign = \"broom\"\n\
             points = [{ window = 100, fpr = 0.01, load = nan }]\n"
                .to_string(),
        ),
        (
            "inf_grid.toml",
            "name = \"n\"\nmetrics = [\"fpr\"]\n[[sweep]]\ndesign = \"broom\"\n\
             grid = { window = [100, inf], fpr = [0.01] }\n"
                .to_string(),
        ),
        (
            "zipf_trace.toml",
            "name = \"z\"\nmetrics = [\"count\"]\nworkload = { kind = \"trace\", path = \"flows.txt\" }\n\
             [[sweep]]\ndesign = \"swamp\"\npoints = [{ window = 100, fpr = 0.01, zipf = 1.0 }]\n"
                .to_string(),
        ),
        (
            "threads.toml",
            SPEC.replace("seed = ", "threads = 0\nseed = "),
        ),
        ("big.toml", "#".repeat(2 << 20)),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
}

#[test]
fn bad_input_gives_one_line_and_nonzero_exit() {
    let dir = tempfile::tempdir().unwrap();
    write_inputs(dir.path());
    for (line, needle) in CASES {
        let args: Vec<&str> = line.split(' ').collect();
        let (code, err) = run(bloomlab().args(&args).current_dir(dir.path()));
        assert_ne!(code, 0, "{line} succeeded");
        assert_eq!(err.trim_end().lines().count(), 1, "{line}: {err}");
        assert!(
            err.contains(needle),
            "{line}: {err:?} should mention {needle}"
        );
        assert!(!err.contains("panicked"), "{line}: {err}");
    }
}
