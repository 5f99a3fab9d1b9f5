//! `bloomlab plan --measure`: every candidate measured on the workload, the
//! table, CSV, JSON and Pareto chart written, and bad flags refused with one
//! line.

use assert_cmd::Command;

fn bloomlab() -> Command {
    Command::cargo_bin("bloomlab").unwrap()
}

fn read_csv(path: &std::path::Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let head = r.headers().unwrap().clone();
    r.records()
        .map(|rec| {
            head.iter()
                .zip(rec.unwrap().iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// Runs `bloomlab plan ARGS --results-dir DIR --plots-dir DIR`, which must
/// succeed; returns its stdout.
fn plan_in(dir: &std::path::Path, args: &[&str]) -> String {
    let out = bloomlab()
        .arg("plan")
        .args(args)
        .arg("--results-dir")
        .arg(dir)
        .arg("--plots-dir")
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `bloomlab plan ARGS --json`'s stdout.
fn plan_json(args: &[&str]) -> String {
    let out = bloomlab()
        .arg("plan")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A window of insertions: each planned candidate has a row with its FPR
/// and interval (the interval holding the planned FPR's neighbourhood: the
/// measured rate is a real one), its FNR, memory equal to the plan's, and
/// its speed beside the reference; the Pareto front is non-empty; the
/// chart and tables exist.
#[test]
fn measures_every_candidate_of_a_count_plan() {
    let dir = tempfile::tempdir().unwrap();
    let request = [
        "--window",
        "4096",
        "--fpr",
        "0.01",
        "--design",
        "apbf,blocked_apbf,clock_bloom",
    ];
    let measured = [
        &request[..],
        &["--measure", "--budget", "6s", "--name", "pm"],
    ]
    .concat();
    let stdout = plan_in(dir.path(), &measured);
    assert!(stdout.contains("Pareto"), "{stdout}");
    let rows = read_csv(&dir.path().join("pm.csv"));
    // every candidate of the plan: the three least-memory sizings and the
    // fast ones it offers (the two APBFs')
    let plan: serde_json::Value = serde_json::from_str(&plan_json(&request)).unwrap();
    let designs = |key: &str| -> Vec<String> {
        plan[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["design"].as_str().unwrap().to_string())
            .collect()
    };
    let (least, fast) = (designs("candidates"), designs("fast"));
    assert_eq!(least, ["apbf", "blocked_apbf", "clock_bloom"]);
    let mut sorted = fast.clone();
    sorted.sort();
    assert_eq!(sorted, ["apbf", "blocked_apbf"]);
    let names: Vec<&str> = rows.iter().map(|r| r["candidate"].as_str()).collect();
    assert_eq!(rows.len(), least.len() + fast.len(), "{names:?}");
    for design in &least {
        let d = format!("{design} ");
        assert!(
            names
                .iter()
                .any(|n| n.starts_with(&d) && !n.ends_with("(fast)")),
            "{names:?}"
        );
    }
    for design in &fast {
        let d = format!("{design} ");
        assert!(
            names
                .iter()
                .any(|n| n.starts_with(&d) && n.ends_with("(fast)")),
            "{names:?}"
        );
    }
    let num = |r: &std::collections::BTreeMap<String, String>, c: &str| -> f64 {
        r.get(c)
            .unwrap_or_else(|| panic!("no column {c}"))
            .parse()
            .unwrap()
    };
    for r in &rows {
        let (fpr, lo, hi) = (num(r, "fpr"), num(r, "fpr_ci_low"), num(r, "fpr_ci_high"));
        assert!(lo <= fpr && fpr <= hi && hi < 0.05, "{r:?}");
        assert!(num(r, "fpr_theory") <= 0.01);
        assert_eq!(num(r, "fnr"), 0.0);
        for c in [
            "insert_ns",
            "query_pos_ns",
            "query_neg_ns",
            "bloom_query_neg_ns",
            "query_neg_vs_bloom",
        ] {
            assert!(num(r, c) > 0.0 && num(r, c).is_finite(), "{c}");
        }
        assert!(num(r, "memory_bits") > 4096.0);
    }
    assert!(rows.iter().any(|r| num(r, "pareto") == 1.0));
    // sorted by memory
    assert!(rows
        .windows(2)
        .all(|w| num(&w[0], "memory_bits") <= num(&w[1], "memory_bits")));
    for f in ["pm.md", "pm.json", "pm_pareto.svg", "pm_pareto.png"] {
        assert!(dir.path().join(f).exists(), "{f}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("pm.json")).unwrap())
            .unwrap();
    assert_eq!(json["rows"].as_array().unwrap().len(), rows.len());
    assert!(json["command"].as_str().unwrap().contains("--measure"));
}

/// A window of time: count and time designs under Poisson arrivals at the
/// peak rate, through the time pass, with the clock advancing in the timed
/// insertions.
#[test]
fn measures_a_time_plan_under_its_arrivals() {
    let dir = tempfile::tempdir().unwrap();
    plan_in(
        dir.path(),
        &[
            "--window-time",
            "2",
            "--peak-rate",
            "1000",
            "--fpr",
            "0.01",
            "--design",
            "apbf,apbf_time",
            "--measure",
            "--budget",
            "4s",
            "--arrivals",
            "on_off",
            "--name",
            "pt",
        ],
    );
    let rows = read_csv(&dir.path().join("pt.csv"));
    for d in ["apbf", "apbf_time"] {
        assert!(rows.iter().any(|r| r["design"] == d), "{d}");
    }
    for r in &rows {
        let fpr: f64 = r["fpr_time_avg"].parse().unwrap();
        assert!(fpr < 0.05, "{r:?}");
        assert!(r["insert_ns"].parse::<f64>().unwrap() > 0.0);
        assert!(r["query_neg_vs_bloom"].parse::<f64>().unwrap() > 0.0);
        // the probes reach T only (the table's FNR inside T): every probe
        // counts toward it, and no rate past T is reported
        assert!(r["fnr_time_probes"].parse::<f64>().unwrap() > 0.0, "{r:?}");
        assert!(
            r.get("p_yes_past_window").is_none_or(|v| v.is_empty()),
            "{r:?}"
        );
    }
}

/// Bad flags: one line, exit 2 (clap) or 1, no output written.
#[test]
fn bad_measure_flags_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for (args, needle) in [
        (vec!["--budget", "0s"], "above 0"),
        (vec!["--budget", "ten"], "not a duration"),
        (vec!["--name", "../x"], "letters, digits"),
        (vec!["--zipf", "nan"], "zipf"),
        (vec!["--trace", "/nonexistent/keys.txt"], "trace file"),
    ] {
        let out = bloomlab()
            .args([
                "plan",
                "--window",
                "1000",
                "--fpr",
                "0.01",
                "--design",
                "apbf",
                "--measure",
            ])
            .args(&args)
            .arg("--results-dir")
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.to_lowercase().contains(needle), "{args:?}: {err}");
    }
    let out = bloomlab()
        .args([
            "plan",
            "--window-time",
            "2",
            "--peak-rate",
            "1000",
            "--fpr",
            "0.01",
            "--measure",
            "--arrivals",
            "trace",
        ])
        .arg("--results-dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs --trace"));
    let out = bloomlab()
        .args([
            "plan", "--window", "1000", "--fpr", "0.01", "--trace", "x.txt",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--measure"));
    assert_eq!(
        std::fs::read_dir(dir.path())
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "csv")
            })
            .count(),
        0
    );
}

/// A measured plan never replaces what it did not write (issue 55): a
/// `--name` holding an experiment's results or another request's plan is
/// refused before anything is measured, every file byte-identical; without
/// `--name` the outputs are named by the request, so two requests never
/// share them; the same request may write its own name again; `--name`
/// and the output directories without `--measure` are refused, not
/// ignored.
#[test]
fn a_measured_plan_replaces_only_its_own_request() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let committed = [
        ("apbf_table.csv", "k,l\n4,3\n"),
        ("apbf_table.md", "# apbf_table\n"),
        ("stable_fnr_by_age_quick.csv", "x\n1\n"),
    ];
    for (f, text) in committed {
        std::fs::write(d.join(f), text).unwrap();
    }
    let base = [
        "plan",
        "--window",
        "2048",
        "--fpr",
        "0.01",
        "--design",
        "apbf",
        "--measure",
        "--budget",
        "3s",
    ];
    let run = |extra: &[&str]| {
        bloomlab()
            .args(base)
            .args(extra)
            .arg("--results-dir")
            .arg(d)
            .arg("--plots-dir")
            .arg(d)
            .output()
            .unwrap()
    };
    for name in ["apbf_table", "stable_fnr_by_age_quick"] {
        let out = run(&["--name", name]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert!(err.contains("not a measured plan's output"), "{err}");
        assert!(
            !err.contains("candidates ranked"),
            "measured before refusing: {err}"
        );
    }
    for (f, text) in committed {
        assert_eq!(std::fs::read_to_string(d.join(f)).unwrap(), text, "{f}");
    }
    // named by the request; the same request again replaces its own
    let out = run(&[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let named: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("plan_w2048-") && n.ends_with(".json"))
        .collect();
    assert_eq!(named.len(), 1, "{named:?}");
    let name = named[0].trim_end_matches(".json").to_string();
    assert!(run(&["--name", &name]).status.success());
    // another request (another seed) under that name is refused
    let out = run(&["--name", &name, "--seed", "7"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("another request"), "{err}");
    for flag in [
        &["--name", "x"][..],
        &["--results-dir", "r"],
        &["--plots-dir", "p"],
        &["--memory-limit", "1"],
    ] {
        let out = bloomlab()
            .args(["plan", "--window", "2048", "--fpr", "0.01"])
            .args(flag)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{flag:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("--measure"));
    }
}

mod fixed;
