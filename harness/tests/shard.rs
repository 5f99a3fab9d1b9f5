//! Sharded runs: shards run as separate processes and merged give the
//! outputs of a single run (every column but the timings), and every bad
//! set of parts is refused without touching the results already written.

use assert_cmd::Command;
use std::path::Path;

/// A filter spec with an age profile (a second table), timings, and
/// repeats (points that differ only in their seed).
const FILTER_SPEC: &str = r#"
name = "shardf"
seed = 21
repeats = 2
metrics = ["fpr", "fnr", "npws", "memory", "profile", "speed"]
[measure]
rounds = 6
max_fpr_queries = 4000
min_fpr_queries = 500
speed_ops = 500
[[sweep]]
design = "apbf"
grid = { k = [3, 4], l = [2, 3], g = [50] }
[[sweep]]
design = "tbf"
grid = { window = [300, 900], fpr = [0.01] }
"#;

/// A summary spec (SWAMP and WCSS counting on a Zipf stream).
const SUMMARY_SPEC: &str = r#"
name = "shards"
seed = 5
metrics = ["count", "distinct", "memory"]
workload = { kind = "zipf", universe = 5000, exponent = 1.0 }
[measure]
rounds = 3
[[sweep]]
design = "swamp"
grid = { window = [512, 1024], fingerprint_bits = [12, 16] }
[[sweep]]
design = "wcss"
grid = { window = [1024], counters = [16, 64] }
"#;

fn bloomlab(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("bloomlab").unwrap();
    c.current_dir(dir);
    c
}

fn ok(c: &mut Command) -> String {
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn refused(c: &mut Command) -> String {
    let out = c.output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    err
}

/// A CSV without its timing columns (`*_ns`): header and cells.
fn deterministic(path: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text
        .lines()
        .map(|l| l.split(',').map(str::to_string).collect::<Vec<_>>());
    let header = lines.next().unwrap();
    let keep: Vec<bool> = header.iter().map(|h| !h.ends_with("_ns")).collect();
    std::iter::once(header)
        .chain(lines)
        .map(|r| {
            r.into_iter()
                .zip(&keep)
                .filter(|(_, k)| **k)
                .map(|(c, _)| c)
                .collect()
        })
        .collect()
}

/// Runs `spec` whole, and in `n` shards (separate processes) merged;
/// asserts every output table is the same but for timings.
fn sharded_equals_single(spec: &str, n: usize, tables: &[&str]) {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    std::fs::write(dir.join("s.toml"), spec).unwrap();
    ok(bloomlab(dir).args(["run", "s.toml", "--threads", "2"]));
    std::fs::rename(dir.join("results"), dir.join("single")).unwrap();
    for i in 0..n {
        ok(bloomlab(dir).args([
            "run",
            "s.toml",
            "--shard",
            &format!("{i}/{n}"),
            "--threads",
            "1",
        ]));
    }
    ok(bloomlab(dir).args(["merge", "s.toml"]));
    for t in tables {
        let (a, b) = (dir.join("single").join(t), dir.join("results").join(t));
        assert_eq!(deterministic(&a), deterministic(&b), "{t}, {n} shards");
    }
    // the markdown names the same command and the same figures
    let md = |p: &Path| {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .filter(|l| !l.contains("_ns") && !l.starts_with('|'))
            // where and when: the one line a merge writes differently
            .filter(|l| !l.starts_with("Ran on ") && !l.starts_with("Merged on "))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let name = &tables[0][..tables[0].len() - 4];
    assert_eq!(
        md(&dir.join("single").join(format!("{name}.md"))),
        md(&dir.join("results").join(format!("{name}.md")))
    );
}

#[test]
fn a_filter_spec_merged_from_shards_equals_a_single_run() {
    for n in [1, 3, 8] {
        sharded_equals_single(FILTER_SPEC, n, &["shardf.csv", "shardf_profile.csv"]);
    }
}

#[test]
fn a_summary_spec_merged_from_shards_equals_a_single_run() {
    sharded_equals_single(SUMMARY_SPEC, 4, &["shards.csv"]);
}

#[test]
fn the_dry_run_prints_every_shard_and_runs_nothing() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("s.toml"), FILTER_SPEC).unwrap();
    let out = ok(bloomlab(d.path()).args(["run", "s.toml", "--shard", "1/3", "--dry-run"]));
    assert!(out.contains("12 point(s) in 3 shard(s)"), "{out}");
    assert_eq!(out.lines().filter(|l| l.contains('%')).count(), 3, "{out}");
    assert!(out.lines().any(|l| l.starts_with(">1 ")), "{out}");
    assert!(!d.path().join("results").exists());
}

/// Runs SUMMARY_SPEC's 3 shards into `parts` and a first merge into results/.
fn three_parts(dir: &Path) {
    std::fs::write(dir.join("s.toml"), SUMMARY_SPEC).unwrap();
    for i in 0..3 {
        ok(bloomlab(dir).args([
            "run",
            "s.toml",
            "--shard",
            &format!("{i}/3"),
            "--out",
            "parts",
        ]));
    }
    ok(bloomlab(dir).args(["merge", "s.toml", "parts"]));
}

#[test]
fn bad_sets_of_parts_are_refused_and_leave_the_results_alone() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    three_parts(dir);
    let results = dir.join("results/shards.csv");
    let before = std::fs::read(&results).unwrap();
    let part = |i: usize, n: usize| dir.join(format!("parts/shards.part-{i}-of-{n}.json"));
    let merge = || refused(bloomlab(dir).args(["merge", "s.toml", "parts"]));

    // missing
    let p1 = std::fs::read(part(1, 3)).unwrap();
    std::fs::remove_file(part(1, 3)).unwrap();
    let e = merge();
    assert!(e.contains("shards.part-1-of-3.json is missing"), "{e}");
    std::fs::write(part(1, 3), &p1).unwrap();

    // duplicated: a copy of a part under another name
    std::fs::write(dir.join("parts/shards.part-1-of-3 (copy).json"), &p1).unwrap();
    let e = merge();
    assert!(e.contains("are both shard 1/3"), "{e}");
    std::fs::remove_file(dir.join("parts/shards.part-1-of-3 (copy).json")).unwrap();

    // a part of another split of the same spec
    ok(bloomlab(dir).args(["run", "s.toml", "--shard", "0/2", "--out", "parts"]));
    let e = merge();
    assert!(
        e.contains("a part of 2 shards") || e.contains("a part of 3 shards"),
        "{e}"
    );
    std::fs::remove_file(part(0, 2)).unwrap();

    // foreign: the spec changed since the parts were run
    std::fs::write(
        dir.join("s.toml"),
        SUMMARY_SPEC.replace("seed = 5", "seed = 6"),
    )
    .unwrap();
    let e = merge();
    assert!(e.contains("is from another spec or precision"), "{e}");
    std::fs::write(dir.join("s.toml"), SUMMARY_SPEC).unwrap();

    // precision: the parts are not of a --quick run
    let e = refused(bloomlab(dir).args(["merge", "s.toml", "parts", "--quick"]));
    assert!(e.contains("no parts of shards"), "{e}");

    // edited: a value changed by hand (count_rmse = -5) no longer matches
    // the checksum the part was written with
    let text = std::fs::read_to_string(part(0, 3)).unwrap();
    let needle = "[\"count_rmse\",{\"N\":";
    let at = text.find(needle).expect("a count_rmse cell") + needle.len();
    let end = at + text[at..].find('}').unwrap();
    std::fs::write(part(0, 3), format!("{}-5{}", &text[..at], &text[end..])).unwrap();
    let e = merge();
    assert!(e.contains("does not match its checksum"), "{e}");
    std::fs::write(part(0, 3), &text).unwrap();

    // cut short
    std::fs::write(part(2, 3), &std::fs::read(part(2, 3)).unwrap()[..100]).unwrap();
    let e = merge();
    assert!(
        e.contains("shards.part-2-of-3.json is not a bloomlab part file"),
        "{e}"
    );

    // no directory
    let e = refused(bloomlab(dir).args(["merge", "s.toml", "nowhere"]));
    assert!(e.contains("cannot read the parts directory nowhere"), "{e}");

    assert_eq!(std::fs::read(&results).unwrap(), before);
    // nothing half-written beside the results
    let names: Vec<String> = std::fs::read_dir(dir.join("results"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "shards")
        .collect();
    assert_eq!(names.len(), 2, "{names:?}"); // shards.csv and shards.md
}

#[test]
fn an_interrupted_shard_resumes_from_its_checkpoint() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    std::fs::write(dir.join("s.toml"), SUMMARY_SPEC).unwrap();
    ok(bloomlab(dir).args(["run", "s.toml", "--shard", "0/2", "--out", "a"]));
    let whole = std::fs::read_to_string(dir.join("a/shards.part-0-of-2.json")).unwrap();
    // a checkpoint holding the shard's first point, as an interrupted run leaves it
    let part: serde_json::Value = serde_json::from_str(&whole).unwrap();
    let first = &part["results"][0];
    let key = u64::from_str_radix(part["spec_hash"].as_str().unwrap(), 16).unwrap();
    let line = serde_json::json!({
        "key": key, "index": first["index"], "row": first["row"],
        "profile": first["extra"], "seconds": 0.0
    });
    std::fs::create_dir_all(dir.join("b")).unwrap();
    std::fs::write(
        dir.join("b/.shards.part-0-of-2.partial.jsonl"),
        format!("{line}\n"),
    )
    .unwrap();
    let out = Command::cargo_bin("bloomlab")
        .unwrap()
        .current_dir(dir)
        .args(["run", "s.toml", "--shard", "0/2", "--out", "b"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("resuming: 1 finished point(s)"), "{err}");
    let strip = |s: &str| -> serde_json::Value {
        let mut v: serde_json::Value = serde_json::from_str(s).unwrap();
        for r in v["results"].as_array_mut().unwrap() {
            r["seconds"] = 0.0.into();
        }
        // the checksum covers the seconds too
        v["checksum"] = "".into();
        v
    };
    let resumed = std::fs::read_to_string(dir.join("b/shards.part-0-of-2.json")).unwrap();
    assert_eq!(strip(&whole), strip(&resumed));
    assert!(!dir.join("b/.shards.part-0-of-2.partial.jsonl").exists());
}

#[test]
fn bad_shard_flags_are_refused_in_one_line() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("s.toml"), SUMMARY_SPEC).unwrap();
    for bad in ["3/3", "1/0", "a/b", "2"] {
        let out = bloomlab(d.path())
            .args(["run", "s.toml", "--shard", bad])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("is not I/N"), "{bad}: {err}");
    }
    // --out and --dry-run only with --shard
    let out = bloomlab(d.path())
        .args(["run", "s.toml", "--dry-run"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn slurm_scripts_run_each_shard_and_merge_after_the_array() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    std::fs::write(dir.join("s.toml"), SUMMARY_SPEC).unwrap();
    ok(bloomlab(dir).args([
        "slurm",
        "s.toml",
        "--shards",
        "4",
        "--partition",
        "debug",
        "--time",
        "0:10:00",
        "--cpus-per-task",
        "2",
        "--quick",
        "--out",
        "jobs",
    ]));
    let array = std::fs::read_to_string(dir.join("jobs/shards_quick.array.sbatch")).unwrap();
    assert!(array.starts_with("#!/bin/bash\n"));
    for want in [
        "#SBATCH --array=0-3",
        "#SBATCH --cpus-per-task=2",
        "#SBATCH --partition=debug",
        "#SBATCH --time=0:10:00",
        "--shard \"${SLURM_ARRAY_TASK_ID}/${SLURM_ARRAY_TASK_COUNT:-4}\"",
        " --quick",
    ] {
        assert!(array.contains(want), "{want}: {array}");
    }
    let merge = std::fs::read_to_string(dir.join("jobs/shards_quick.merge.sbatch")).unwrap();
    assert!(merge.contains(" merge 's.toml' "), "{merge}");
    // without sbatch on the PATH, --submit fails in one line
    let e = refused(bloomlab(dir).env("PATH", "/nonexistent").args([
        "slurm", "s.toml", "--shards", "2", "--submit", "--out", "jobs",
    ]));
    assert!(e.contains("cannot run sbatch"), "{e}");
    let e = refused(bloomlab(dir).args(["slurm", "s.toml", "--partition", "a b", "--shards", "2"]));
    assert!(e.contains("cannot go on an #SBATCH line"), "{e}");
    let e = refused(bloomlab(dir).args(["slurm", "s.toml"]));
    assert!(e.contains("--shards N is needed"), "{e}");
}

#[test]
fn reproduce_writes_the_jobs_of_every_experiment() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    std::fs::create_dir(dir.join("exp")).unwrap();
    std::fs::write(dir.join("exp/a.toml"), SUMMARY_SPEC).unwrap();
    std::fs::write(dir.join("exp/b.toml"), FILTER_SPEC).unwrap();
    ok(bloomlab(dir).args([
        "reproduce",
        "--slurm",
        "--shards",
        "3",
        "--experiments",
        "exp",
        "--out",
        "jobs",
    ]));
    for name in ["shards", "shardf"] {
        for kind in ["array", "merge"] {
            let p = dir.join(format!("jobs/{name}.{kind}.sbatch"));
            assert!(p.exists(), "{}", p.display());
        }
    }
    // Slurm settings without --slurm
    let e = refused(bloomlab(dir).args(["reproduce", "--shards", "3", "--experiments", "exp"]));
    assert!(e.contains("add --slurm"), "{e}");
    // a broken spec: no script of any experiment is submitted (or written)
    std::fs::write(dir.join("exp/c.toml"), "name = ").unwrap();
    let e = refused(bloomlab(dir).args([
        "reproduce",
        "--slurm",
        "--shards",
        "3",
        "--experiments",
        "exp",
        "--out",
        "jobs2",
    ]));
    assert!(e.contains("c.toml"), "{e}");
    assert!(!dir.join("jobs2/shards.array.sbatch").exists());
}
