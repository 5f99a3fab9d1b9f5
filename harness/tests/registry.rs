//! The registry reaches every design from every command: `theory` and
//! `measure` for every design, `measure` equal to `run` of the one-point
//! spec, `plan` listing every design, and one-line errors for each.

use assert_cmd::Command;
use bloomlab_harness::designs::REGISTRY;
use bloomlab_harness::metrics::is_timing_column;
use std::collections::BTreeMap;

fn bloomlab() -> Command {
    Command::cargo_bin("bloomlab").unwrap()
}

/// Small parameters for each design, as flags (name, value).
fn small_params(design: &str) -> Vec<(&'static str, &'static str)> {
    match design {
        "apbf" | "blocked_apbf" | "line_apbf" | "double_buffer" | "a2" | "tbf" | "swbf"
        | "broom" | "swamp" | "sliding_bloom" | "half_sliding" | "clock_bloom" | "she_bloom" => {
            vec![("window", "2048"), ("fpr", "0.01")]
        }
        "naor_yogev" | "ny_pocket" => vec![("window", "2048"), ("slack", "1024"), ("fpr", "0.01")],
        "jumping" => vec![("window", "2048"), ("fpr", "0.01"), ("segments", "4")],
        "forgetful" | "forgetful_code" => vec![("window", "2048"), ("fpr", "0.01"), ("past", "3")],
        "stable" => vec![("m", "20000"), ("d", "2"), ("k", "3"), ("p", "10")],
        "wcss" => vec![("window", "2048"), ("counters", "64")],
        "swhll" | "swlc" => vec![("window", "2048"), ("registers", "64")],
        "apbf_time" | "apbf_hybrid" | "double_buffer_time" | "tbf_time" | "naor_yogev_hybrid"
        | "swbf_hybrid" | "sliding_bloom_time" | "half_sliding_time" | "clock_bloom_time"
        | "tlbf" | "she_bloom_time" => {
            vec![("window_time", "2"), ("peak_rate", "500"), ("fpr", "0.01")]
        }
        "jumping_time" => vec![
            ("window_time", "2"),
            ("peak_rate", "500"),
            ("fpr", "0.01"),
            ("segments", "4"),
        ],
        other => panic!("no small parameters for {other}: add them here"),
    }
}

fn flags(design: &str) -> Vec<String> {
    small_params(design)
        .into_iter()
        .flat_map(|(k, v)| [format!("--{}", k.replace('_', "-")), v.to_string()])
        .collect()
}

fn json(args: &[String]) -> serde_json::Value {
    let out = bloomlab().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `designs --json` lists every registered design once, by its name, and
/// no name or alias is taken twice.
#[test]
fn designs_lists_the_registry() {
    let names: Vec<&str> = REGISTRY.iter().map(|d| d.name()).collect();
    let out = bloomlab().args(["designs", "--json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let listed: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(listed, names);
    let mut all: Vec<&str> = REGISTRY
        .iter()
        .flat_map(|d| std::iter::once(d.name()).chain(d.aliases().iter().copied()))
        .collect();
    let n = all.len();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), n, "a name or alias taken twice");
}

#[test]
fn every_design_answers_theory_and_measure_with_json() {
    for d in REGISTRY {
        let name = d.name();
        let mut args = vec!["theory".to_string(), name.to_string()];
        args.extend(flags(name));
        args.push("--json".into());
        let t = json(&args);
        assert_eq!(t["design"], name);
        // counts stay integers
        assert!(
            ["window", "m", "k", "c", "g"].iter().any(|c| t[c].is_u64()),
            "{name}: {t}"
        );
        let mut args = vec!["measure".to_string(), name.to_string()];
        args.extend(flags(name));
        args.extend(["--rounds", "2", "--json"].map(String::from));
        let m = json(&args);
        assert_eq!(m["design"], name);
        let caps = d.capabilities();
        if caps.time_window {
            assert!(
                m["fpr_time_avg"].is_number(),
                "{name}: no fpr_time_avg in {m}"
            );
            // the TLBF's theory is a mean over simulated replicas of its
            // bookkeeping (`bloomlab_filters::tlbf::theory`), in which a key's
            // slices can be gone while it is younger than T: with the
            // moments in batches (2026-12-06) the probes' theory adds up
            // to 0.04 of a key lost, 1.0e-6 over the 40 005 probes, while
            // the filter itself lost none (fnr_time 0). Every other design's theory keeps
            // every key younger than T exactly.
            let bound = if name == "tlbf" { 1e-5 } else { 0.0 };
            let theory = m["fnr_time_theory"].as_f64().unwrap_or(f64::NAN);
            assert!(theory <= bound, "{name}: {m}");
        } else if caps.membership {
            assert!(m["fpr"].is_number(), "{name}: no fpr in {m}");
        } else {
            assert!(m["memory_bits"].is_number(), "{name}: no memory in {m}");
        }
    }
}

/// The spec a user would write for `measure <design> <flags> --seed S
/// --rounds R`.
fn one_point_spec(design: &str, seed: u64, rounds: u64) -> String {
    let d = REGISTRY.iter().find(|d| d.name() == design).unwrap();
    let metrics: Vec<String> = d
        .measure_metrics()
        .iter()
        .map(|m| format!("{:?}", format!("{m:?}").to_lowercase()))
        .collect();
    let metrics = metrics.join(", ").replace("zerofraction", "zero_fraction");
    let point: Vec<String> = small_params(design)
        .into_iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect();
    format!(
        "name = \"one\"\nseed = {seed}\nmetrics = [{metrics}]\n[measure]\nrounds = {rounds}\n\
         [[sweep]]\ndesign = \"{design}\"\npoints = [{{ {} }}]\n",
        point.join(", ")
    )
}

fn csv_rows(path: &std::path::Path) -> Vec<BTreeMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let head: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    r.records()
        .map(|rec| {
            head.iter()
                .cloned()
                .zip(rec.unwrap().iter().map(String::from))
                .collect()
        })
        .collect()
}

#[test]
fn measure_equals_run_of_the_one_point_spec() {
    let dir = tempfile::tempdir().unwrap();
    for (design, seed) in [
        ("apbf", 5),
        ("naor_yogev", 6),
        ("stable", 7),
        ("swamp", 8),
        ("broom", 9),
        ("apbf_hybrid", 10),
    ] {
        let spec = dir.path().join(format!("{design}.toml"));
        std::fs::write(&spec, one_point_spec(design, seed, 3)).unwrap();
        let out = bloomlab()
            .args(["run", spec.to_str().unwrap(), "--threads", "1"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let run = csv_rows(&dir.path().join("results/one.csv")).remove(0);
        let mut args = vec!["measure".to_string(), design.to_string()];
        args.extend(flags(design));
        args.extend(["--rounds", "3", "--json", "--seed"].map(String::from));
        args.push(seed.to_string());
        let m = json(&args);
        let mut compared = 0;
        for (col, v) in &run {
            if is_timing_column(col) {
                continue;
            }
            let got = &m[col];
            let got = match got {
                serde_json::Value::Null => String::new(),
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            // the CSV prints numbers with Rust's shortest round trip, JSON
            // the same digits (and 1.0 as 1.0 where the CSV says 1)
            let same = got == *v
                || got
                    .parse::<f64>()
                    .ok()
                    .zip(v.parse::<f64>().ok())
                    .is_some_and(|(a, b)| a == b);
            assert!(same, "{design}: {col} run {v} measure {got}");
            compared += 1;
        }
        assert!(compared > 10, "{design}: only {compared} columns");
    }
}

#[test]
fn plan_lists_every_design() {
    let v = json(&["plan", "--window", "10000", "--fpr", "0.001", "--json"].map(String::from));
    let mut seen: Vec<String> = Vec::new();
    for key in ["candidates", "rejected"] {
        for x in v[key].as_array().unwrap() {
            seen.push(x["design"].as_str().unwrap().to_string());
        }
    }
    for d in REGISTRY {
        assert!(
            seen.iter().any(|s| s == d.name()),
            "{} missing from plan",
            d.name()
        );
    }
    for d in ["blocked_apbf", "broom", "swamp", "tbf", "swbf"] {
        assert!(
            v["candidates"]
                .as_array()
                .unwrap()
                .iter()
                .any(|x| x["design"] == d),
            "{d} not a candidate"
        );
    }
}

#[test]
fn plan_answers_tiny_fprs_quickly_and_exactly() {
    // 1 - (1 - 1e-16)^(1/n) used to round to 0: a jumping window of
    // u32::MAX slices, and a plan that never returned
    let out = bloomlab()
        .args(["plan", "--window", "1000", "--fpr", "1e-16", "--json"])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let jumping = v["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["design"] == "jumping")
        .expect("a jumping window meets 1e-16");
    let fpr = jumping["fpr"].as_f64().unwrap();
    assert!(fpr > 0.0 && fpr <= 1e-16, "{fpr}");
}

#[test]
fn apbf_theory_with_a_hundred_thousand_slices_does_not_overflow_the_stack() {
    // the probe-cost recursion was l / k deep: a stack overflow at l = 1e5
    let out = bloomlab()
        .args([
            "theory", "apbf", "--k", "1", "--l", "100000", "--g", "1", "--json",
        ])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_new_designs_give_one_line_errors() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["theory", "tbf", "--window", "0", "--fpr", "0.01"],
            "--window",
        ),
        (
            &["theory", "tbf", "--window", "100"],
            "tbf needs window and fpr",
        ),
        (&["measure", "swbf", "--window", "100", "--fpr", "2"], "fpr"),
        (&["theory", "wcss", "--window", "100"], "counters"),
        (&["measure", "swhll", "--window", "100"], "registers"),
        (&["theory", "swlc", "--registers", "8"], "window"),
        (
            &["theory", "jumping", "--window", "100", "--fpr", "0.01"],
            "segments",
        ),
        (
            &[
                "theory",
                "jumping",
                "--window",
                "100",
                "--fpr",
                "0.01",
                "--segments",
                "1",
            ],
            "--segments",
        ),
        (
            &["measure", "double_buffer", "--k", "3"],
            "window and fpr, or k, g and m",
        ),
        (
            &[
                "theory", "a2", "--window", "100", "--fpr", "0.01", "--bogus", "1",
            ],
            "--bogus",
        ),
        (
            &[
                "theory",
                "forgetful",
                "--window",
                "100",
                "--fpr",
                "0.01",
                "--past",
                "20",
            ],
            "past",
        ),
        (
            &["measure", "blocked_apbf", "--window", "1000"],
            "blocked_apbf needs",
        ),
        (
            &[
                "theory", "broom", "--window", "100", "--fpr", "0.01", "--load", "1.5",
            ],
            "load",
        ),
        (
            &[
                "measure",
                "wcss",
                "--window",
                "100",
                "--counters",
                "10",
                "--zipf=-2",
            ],
            "--zipf",
        ),
        (&["theory", "nope"], "nope"),
        (
            &["theory", "apbf", "--k", "100000", "--l", "1", "--g", "1"],
            "smaller k + l",
        ),
        (
            &[
                "measure", "stable", "--m", "100", "--d", "2", "--k", "3", "--p", "5", "--window",
                "20000000",
            ],
            "2^24",
        ),
    ];
    for (args, needle) in cases {
        let out = bloomlab().args(*args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.contains(needle),
            "{args:?}: {err:?} should mention {needle}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn spec_keys_are_checked_by_the_design() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("typo.toml");
    std::fs::write(
        &spec,
        "name = \"t\"\nmetrics = [\"fpr\"]\n[[sweep]]\ndesign = \"tbf\"\npoints = [{ window = 100, fpr = 0.01, slakc = 3 }]\n",
    )
    .unwrap();
    let out = bloomlab()
        .args(["run", spec.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("slakc") && err.trim_end().lines().count() == 1,
        "{err}"
    );
}

/// A time request: the two time designs are candidates, planned for the
/// T·R keys of a window at the peak rate, and the note says what each kind
/// of design keeps.
#[test]
fn plan_for_a_time_window() {
    let v = json(
        &[
            "plan",
            "--window-time",
            "60",
            "--peak-rate",
            "1000",
            "--fpr",
            "0.001",
            "--json",
        ]
        .map(String::from),
    );
    assert_eq!(v["window"], 60_000);
    let cands = v["candidates"].as_array().unwrap();
    for d in [
        "apbf_time",
        "apbf_hybrid",
        "jumping_time",
        "double_buffer_time",
        "tbf_time",
        "naor_yogev_hybrid",
        "swbf_hybrid",
        "apbf",
    ] {
        let c = cands.iter().find(|x| x["design"] == d).unwrap();
        assert!(c["fpr"].as_f64().unwrap() <= 1e-3 && c["window"].as_u64().unwrap() >= 60_000);
        // the predicted memory is what the filter built from the
        // candidate's parameters reports
        let mut args = vec!["theory".to_string(), d.to_string()];
        for (k, v) in c["params"].as_object().unwrap() {
            args.push(format!("--{}", k.replace('_', "-")));
            args.push(v.to_string());
        }
        args.push("--json".into());
        let t = json(&args);
        if d != "apbf" {
            assert_eq!(
                t["memory_bits"].as_f64(),
                c["memory_bits"].as_f64(),
                "{d}: {t}"
            );
        }
    }
    // without a time request the time designs say how to plan them
    let v = json(&["plan", "--window", "60000", "--fpr", "0.001", "--json"].map(String::from));
    let why = v["rejected"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["design"] == "apbf_time")
        .unwrap();
    assert!(why["reason"].as_str().unwrap().contains("--window-time"));
    let out = bloomlab()
        .args(["plan", "--window-time", "60", "--fpr", "0.001"])
        .output()
        .unwrap();
    assert!(!out.status.success());
}

/// Every design over a window of time states what it promises a key
/// younger than T, and `designs` and `theory` print it; no count design
/// claims one (issue 56).
#[test]
fn every_time_design_states_its_window_promise() {
    for d in REGISTRY {
        let time = d.capabilities().time_window;
        assert_eq!(
            d.window_promise().is_some(),
            time,
            "{}: a time design states its window promise, a count design none",
            d.name()
        );
        if !time {
            continue;
        }
        let mut cmd = bloomlab();
        cmd.args(["theory", d.name()]);
        for (k, v) in small_params(d.name()) {
            cmd.arg(format!("--{}", k.replace('_', "-"))).arg(v);
        }
        let out = cmd.output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains(&format!("window promise: {}", d.window_promise().unwrap())),
            "{}: {text}",
            d.name()
        );
    }
    let out = bloomlab().arg("designs").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.matches("window promise:").count() >= 12, "{text}");
}

/// The filters crate's types no registry design measures, and why.
const CRATE_ONLY: &[(&str, &str)] = &[
    (
        "BloomFilter",
        "the baseline of every speed figure (`*_vs_bloom`)",
    ),
    ("PartitionedBloomFilter", "a baseline of the crate"),
    ("ConcurrentApbf", "measured by `bloomlab bench concurrent`"),
    (
        "ConcurrentLineApbf",
        "measured by `bloomlab bench concurrent`",
    ),
    ("BroomFilter", "measured inside `broom`, its window design"),
    ("OnTime<BlockedApbf>", "the crate's; no harness design yet"),
    ("OnTime<LineApbf>", "the crate's; no harness design yet"),
];

/// One mapping between the crates' names: every registry design names a
/// type of the filters crate's list (`DesignDef::FILTER`), and every type
/// of that list is measured by a design or is in `CRATE_ONLY` with its
/// reason.
#[test]
fn every_design_names_its_filters_type() {
    let list = bloomlab_filters::designs::type_names();
    for d in REGISTRY {
        assert!(
            list.iter().any(|t| *t == d.filter()),
            "{}: FILTER {:?} is not in for_each_design!",
            d.name(),
            d.filter()
        );
    }
    for t in &list {
        let measured = REGISTRY.iter().any(|d| d.filter() == t);
        let exempt = CRATE_ONLY.iter().any(|(c, _)| c == t);
        assert!(
            measured != exempt,
            "{t}: measured {measured}, in CRATE_ONLY {exempt}"
        );
    }
}

/// Every design's parameters are registered columns: they are written as
/// the design resolved them and as the targets a point asked for.
#[test]
fn every_design_parameter_is_a_column() {
    for d in REGISTRY {
        for (flag, _) in d.parameters() {
            let name = flag.split(' ').next().unwrap().replace('-', "_");
            assert!(
                bloomlab_harness::metrics::columns::lookup(&name).is_some(),
                "{}: parameter {name} is not in metrics/columns/col.rs",
                d.name()
            );
        }
    }
}

/// README's table of designs has one row per registered design and no
/// other: a design added to the registry without
/// its row (or a row left behind by a removed design) fails here.
#[test]
fn the_readme_table_lists_every_design() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("README.md");
    let table = readme
        .split("## The designs")
        .nth(1)
        .expect("README has a section \"## The designs\"");
    let mut rows: Vec<&str> = table
        .lines()
        .skip_while(|l| !l.starts_with("| design"))
        .skip(2)
        .take_while(|l| l.starts_with("| `"))
        .filter_map(|l| l.split('`').nth(1))
        .collect();
    let mut names: Vec<&str> = REGISTRY.iter().map(|d| d.name()).collect();
    rows.sort_unstable();
    names.sort_unstable();
    assert_eq!(rows, names, "README.md's table of designs against REGISTRY");
}

/// Every committed row passes the checks a run's rows pass on the way out
/// (`Row::check`): numbers in their columns' ranges, each interval's ends
/// in order and around its own estimate. What docs/metrics.md says of the
/// committed intervals rests on this.
#[test]
fn every_committed_row_passes_its_checks() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../results");
    let mut files = vec![dir];
    let (mut rows, mut bad) = (0, Vec::new());
    while let Some(p) = files.pop() {
        if p.is_dir() {
            files.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
        } else if p.extension().is_some_and(|x| x == "csv") {
            for r in bloomlab_harness::report::read_rows(&p).unwrap() {
                rows += 1;
                if let Err(e) = r.check() {
                    bad.push(format!("{}: {e}", p.display()));
                }
            }
        }
    }
    assert!(rows > 10_000, "{rows}");
    assert!(bad.is_empty(), "{bad:#?}");
}

/// scripts/slurm-local compares `plan --measure`'s tables without their
/// timings by a pattern of column names (awk has no registry): the pattern
/// must pick out exactly the columns the registry flags as timings.
#[test]
fn the_slurm_scripts_timing_pattern_is_the_registrys() {
    use bloomlab_harness::metrics::columns::col;
    let script = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scripts/slurm-local"
    ))
    .unwrap();
    const SUFFIXES: [&str; 1] = ["_ns"];
    const NAMES: [&str; 9] = [
        "ns_per_op",
        "insert_vs_bloom",
        "query_pos_vs_bloom",
        "query_neg_vs_bloom",
        "seconds",
        "estimated_seconds",
        "calibration",
        "pareto",
        "series",
    ];
    let pattern = format!(
        "$i !~ /({})$/ && $i !~ /^({})$/",
        SUFFIXES.join("|"),
        NAMES.join("|")
    );
    assert!(script.contains(&pattern), "slurm-local lacks {pattern}");
    for c in col::TABLE {
        let name = c.col.name();
        let by_pattern = SUFFIXES.iter().any(|s| name.ends_with(s)) || NAMES.contains(&name);
        assert_eq!(by_pattern, c.timing, "{name}");
    }
}
