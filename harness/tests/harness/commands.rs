//! `run` writes its files, and `theory` / `measure` give the JSON keys the
//! issues name.

use crate::{assert_numbers, bloomlab, json_line, json_out, run, SPEC};

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

    let v = json_line("theory apbf --k 10 --l 7 --g 1000 --json");
    let keys = [
        "fpr",
        "window",
        "slack",
        "bits_per_element",
        "npws_peak",
        "expected_accesses",
    ];
    assert_numbers(&v, &keys, "theory");
    assert_eq!(v["window"], 7000.0);
    let v = json_line("measure apbf --k 4 --l 3 --g 100 --rounds 20 --queries 20000 --json");
    let keys = [
        "fpr",
        "fpr_ci_low",
        "fpr_ci_high",
        "fpr_avg",
        "fnr",
        "memory_bits",
        "npws_peak",
        "insert_ns",
        "query_ns",
    ];
    assert_numbers(&v, &keys, "measure");
    assert_eq!(v["fnr"], 0.0);
}

#[test]
fn naor_yogev_theory_and_measure_give_the_keys_the_issue_names() {
    let v = json_line("theory naor-yogev --n 4096 --m 512 --eps 0.01 --json");
    assert_numbers(&v, &["space_bound_bits", "c", "fpr"], "theory");
    assert!(v["fpr"].as_f64().unwrap() <= 0.01);
    assert!(v["slack"].as_f64().unwrap() <= 512.0);
    let v = json_line(
        "measure naor-yogev --n 4096 --m 512 --eps 0.01 --rounds 10 --queries 20000 --json",
    );
    let keys = [
        "fpr",
        "fpr_ci_low",
        "fpr_ci_high",
        "fnr",
        "memory_bits",
        "max_probes",
        "insert_ns",
        "query_ns",
    ];
    assert_numbers(&v, &keys, "measure");
    assert_eq!(v["fnr"], 0.0);
    // at least the two buckets and the scan; a displacement reads 4 more
    assert!(v["max_probes"].as_u64().unwrap() >= 10);
    // a given c overrides the choice
    let v = json_line("theory naor-yogev --n 4096 --m 4096 --eps 0.01 --c 3 --json");
    assert_eq!(v["c"], 3.0);
}

#[test]
fn broom_measure_gives_the_keys_the_issue_names() {
    let v = json_line(
        "measure broom --n 4096 --eps 0.01 --workload adversarial --attack-queries 20000 --json",
    );
    let keys = [
        "sustained_fpr",
        "fpr_ci_low",
        "fpr_ci_high",
        "memory_bits",
        "adaptivity_bits_per_element",
        "remote_accesses_per_op",
        "insert_ns",
        "query_ns",
    ];
    assert_numbers(&v, &keys, "measure");
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
    let v = json_line("theory swamp --w 4096 --eps 0.01 --json");
    assert_numbers(&v, &["fingerprint_bits", "memory_bits", "fpr"], "theory");
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
        let mut args = "measure swamp --w 4096 --eps 0.01 --rounds 5 --queries 20000 --json"
            .split(' ')
            .collect::<Vec<_>>();
        args.extend(&extra);
        let v = json_out(&args);
        let what = format!("measure {extra:?}");
        let keys = [
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
        ];
        assert_numbers(&v, &keys, &what);
        assert!(v["distinct_lb"].as_f64() <= v["distinct_true"].as_f64());
        assert_eq!(v["count_underestimates"], 0);
        assert_eq!(v["fnr"], 0.0);
    }
}

/// One round of the Stable filter: the zero fraction's interval needs two
/// rounds (its two states within a round are of one filter), so the
/// verdict is "not enough data", not "THEORY OUTSIDE THE INTERVAL".
#[test]
fn one_round_gives_no_verdict_from_a_degenerate_interval() {
    let out = crate::bloomlab()
        .args("measure stable --m 10000 --d 1 --k 3 --p 10 --rounds 1".split(' '))
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("zero_fraction:"))
        .unwrap_or_else(|| panic!("no zero_fraction verdict: {text}"));
    assert!(
        line.ends_with("not enough data (the interval is empty or has zero width)"),
        "{line}"
    );
}

/// The blocked APBF's exact theory says so before a long computation.
#[test]
fn a_long_exact_theory_is_announced() {
    let out = crate::bloomlab()
        .args("theory blocked_apbf --k 17 --l 17 --g 200".split(' '))
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("computing the exact theory of k = 17"),
        "{err}"
    );
}

/// `calibrate` as a command (CI checks the quick calibration's coverage in
/// the calibration module's own test): its files, one row per kind and
/// level, and a one-line refusal of too few seeds.
#[test]
fn calibrate_writes_its_table_and_refuses_too_few_seeds() {
    let dir = tempfile::tempdir().unwrap();
    let flags = ["--results-dir", "out", "--plots-dir", "out"];
    let (code, err) = run(bloomlab()
        .args(["calibrate", "--seeds", "20"])
        .args(flags)
        .current_dir(dir.path()));
    assert_eq!(code, 0, "{err}");
    for f in ["calibration.csv", "calibration.md", "calibration.svg"] {
        assert!(dir.path().join("out").join(f).exists(), "{f} missing");
    }
    let csv = std::fs::read_to_string(dir.path().join("out/calibration.csv")).unwrap();
    // a header, then each of the 30 kinds at 95% and 99%
    assert_eq!(csv.lines().count(), 61, "{csv}");
    assert!(csv.lines().skip(1).all(|l| l.contains(",20,")), "{csv}");
    let (code, err) = run(bloomlab()
        .args(["calibrate", "--seeds", "5"])
        .args(flags)
        .current_dir(dir.path()));
    assert_ne!(code, 0);
    assert!(
        err.contains("--seeds") && err.trim().lines().count() == 1,
        "{err}"
    );
}
