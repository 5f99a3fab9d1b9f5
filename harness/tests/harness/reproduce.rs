//! `reproduce` writes the baselines and the report; `check` passes against
//! them and fails, with one line, when a baseline is altered.

use crate::{bloomlab, run, SPEC};

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

/// reproduce writes the baselines and the report; check passes against them,
/// and fails (non-zero, one line on stderr) when a baseline is altered.
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
    // --report writes the failing check as a page: the regression, the
    // baseline beside the new figure, and a chart of the moved column
    let site = dir.path().join("check-report");
    let out = bloomlab()
        .args(["check", "--quick", "--report"])
        .arg(&site)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    let page = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(page.contains("regression(s)</span>"), "{page}");
    assert!(page.contains("<td>memory_bits</td>") && page.contains("<td class=\"num\">1</td>"));
    assert!(page.contains("<figcaption>tiny: memory_bits"));
    assert!(page.contains("<svg") && page.contains("this run / baseline"));
    assert!(page.contains("memory (bits)"), "the chart's axis in words");
    assert!(site.join("style.css").exists() && site.join("sort.js").exists());
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

/// Every spec in experiments/ has its full results and its quick baseline
/// committed, so that `check --quick` in CI finds a baseline for each (a
/// spec whose quick run failed once left none, and only CI's check saw it).
#[test]
fn every_spec_has_committed_full_and_quick_results() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut missing = Vec::new();
    let mut specs = 0;
    for entry in std::fs::read_dir(root.join("experiments")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        specs += 1;
        let spec = bloomlab_harness::spec::Spec::load(&path).unwrap();
        for file in [
            format!("{}.csv", spec.name),
            format!("{}_quick.csv", spec.name),
        ] {
            if !root.join("results").join(&file).exists() {
                missing.push(file);
            }
        }
    }
    assert!(specs > 30, "{specs} specs");
    assert!(missing.is_empty(), "not in results/: {missing:?}");
}
