//! `plan --measure --rounds N`: shards, their merge and the Slurm jobs.

use super::{bloomlab, plan_in, read_csv};

/// A file in `dir` whose name ends in `end`.
fn ending(dir: &std::path::Path, end: &str) -> std::path::PathBuf {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_str().unwrap().ends_with(end))
        .unwrap()
}

/// Every row of `a` equals the row of `b` at the same place in every
/// column but the timings (`is_timing_column`); the headers are equal.
fn same_but_timings(a: &std::path::Path, b: &std::path::Path) {
    use bloomlab_harness::metrics::is_timing_column;
    let (a, b) = (read_csv(a), read_csv(b));
    assert_eq!(a.len(), b.len());
    assert!(!a.is_empty());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.keys().collect::<Vec<_>>(), y.keys().collect::<Vec<_>>());
        for (k, v) in x {
            if !is_timing_column(k) {
                assert_eq!(v, &y[k], "{k} of {}", x["candidate"]);
            }
        }
    }
}

/// `--rounds`: the candidates measured in three shards (each a part file)
/// and merged give the single run's outputs in every column but the
/// timings, for a window of insertions and one of time; the command
/// written with them names the rounds; a merge with a part missing, or
/// with the parts of another --rounds, is refused in one line.
#[test]
fn shards_of_a_fixed_plan_merge_to_the_single_run() {
    let d = tempfile::tempdir().unwrap();
    let requests: [&[&str]; 2] = [
        &[
            "--window",
            "3000",
            "--fpr",
            "1e-2",
            "--design",
            "apbf,tbf,swbf",
        ],
        &[
            "--window-time",
            "2",
            "--peak-rate",
            "1000",
            "--fpr",
            "1e-2",
            "--design",
            "sliding_bloom,tbf",
        ],
    ];
    for (r, request) in requests.iter().enumerate() {
        let dir = |what: &str| d.path().join(format!("{r}-{what}"));
        let fixed = [
            request as &[&str],
            &["--measure", "--rounds", "4", "--seed", "5"],
        ]
        .concat();
        plan_in(
            &dir("single"),
            &[fixed.as_slice(), &["--threads", "2"]].concat(),
        );
        let parts = dir("parts");
        let parts_s = parts.to_str().unwrap();
        for i in 0..3 {
            let shard = format!("{i}/3");
            plan_in(
                &dir("unused"),
                &[
                    fixed.as_slice(),
                    &["--shard", &shard, "--parts", parts_s, "--threads", "1"],
                ]
                .concat(),
            );
        }
        assert!(
            !dir("unused").exists(),
            "a shard writes its part, not the outputs"
        );
        plan_in(
            &dir("merged"),
            &[fixed.as_slice(), &["--merge", "--parts", parts_s]].concat(),
        );
        let csv = |what: &str| ending(&dir(what), ".csv");
        assert_eq!(csv("single").file_name(), csv("merged").file_name());
        same_but_timings(&csv("single"), &csv("merged"));
        let json = std::fs::read_to_string(csv("merged").with_extension("json")).unwrap();
        assert!(json.contains("--measure --rounds 4"), "{json}");
        // another --rounds: the parts are not its own
        let other = [
            request as &[&str],
            &["--measure", "--rounds", "3", "--seed", "5"],
        ]
        .concat();
        // the merge of `args` into `out` fails; its last line of stderr
        let refused = |args: &[&str], out: &str| {
            let run = bloomlab()
                .arg("plan")
                .args(args)
                .args(["--merge", "--parts", parts_s, "--results-dir"])
                .arg(dir(out))
                .output()
                .unwrap();
            assert!(!run.status.success());
            let err = String::from_utf8_lossy(&run.stderr).into_owned();
            err.trim().lines().last().unwrap().to_string()
        };
        let last = refused(&other, "other");
        assert!(
            last.starts_with("error:") && last.contains("part"),
            "{last}"
        );
        // a part missing
        let part = std::fs::read_dir(&parts)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        std::fs::remove_file(&part).unwrap();
        let last = refused(&fixed, "missing");
        assert!(
            last.starts_with("error:") && last.contains("is missing"),
            "{last}"
        );
    }
}

/// `--slurm`: the array and merge scripts repeat the request's flags but
/// the job settings, request the plan's memory, and, run by bash as Slurm
/// would (its task variables set), give the single run's outputs; a
/// --mem-cap below a task's need writes nothing; job settings without
/// --slurm are refused.
#[test]
fn a_fixed_plan_runs_as_a_job_array() {
    let d = tempfile::tempdir().unwrap();
    let request = [
        "--window",
        "3000",
        "--fpr",
        "1e-2",
        "--design",
        "apbf,tbf,swbf",
        "--measure",
        "--rounds",
        "3",
    ];
    let jobs = d.path().join("jobs");
    let jobs_s = jobs.to_str().unwrap();
    let res = d.path().join("res");
    let res_s = res.to_str().unwrap();
    plan_in(
        &res,
        &[
            &request[..],
            &[
                "--slurm",
                "--shards",
                "2",
                "--out",
                jobs_s,
                "--threads",
                "2",
            ],
        ]
        .concat(),
    );
    let script = |kind: &str| ending(&jobs, &format!(".{kind}.sbatch"));
    let array = std::fs::read_to_string(script("array")).unwrap();
    let mem: u64 = array
        .lines()
        .find_map(|l| l.strip_prefix("#SBATCH --mem="))
        .and_then(|v| v.strip_suffix('M'))
        .unwrap()
        .parse()
        .unwrap();
    assert!(mem > 256, "{array}");
    assert!(
        array.contains("'--window' '3000'") && array.contains("--shard \"${SLURM_ARRAY_TASK_ID}")
    );
    for gone in ["'--slurm'", "'--out'", "'--shards'", "'--threads' '2'"] {
        assert!(!array.contains(gone), "{gone} in {array}");
    }
    // a script run by bash with Slurm's variables `env`, which must succeed
    let bash = |kind: &str, env: &[(&str, String)]| {
        let out = std::process::Command::new("bash")
            .arg(script(kind))
            .envs(env.iter().map(|(k, v)| (k, v)))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    for i in 0..2 {
        bash(
            "array",
            &[
                ("SLURM_ARRAY_TASK_ID", i.to_string()),
                ("SLURM_ARRAY_TASK_COUNT", "2".into()),
                ("SLURM_CPUS_PER_TASK", "1".into()),
            ],
        );
    }
    bash("merge", &[]);
    let single = d.path().join("single");
    plan_in(&single, &request);
    same_but_timings(&ending(&single, ".csv"), &ending(&res, ".csv"));
    // a cap below a task's need: refused, nothing written
    let capped = d.path().join("capped");
    let cap = format!("{}", (mem - 1) as f64 / 1024.0);
    let out = bloomlab()
        .arg("plan")
        .args(request)
        .args(["--slurm", "--shards", "2", "--mem-cap", &cap, "--out"])
        .arg(&capped)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing written"));
    assert!(!capped.exists() || std::fs::read_dir(&capped).unwrap().next().is_none());
    // job settings without --slurm
    let out = bloomlab()
        .arg("plan")
        .args(request)
        .args(["--partition", "x", "--results-dir", res_s])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("add --slurm"));
}
