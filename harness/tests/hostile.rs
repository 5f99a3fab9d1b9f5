//! Issue 18's reproductions, one test each: every bad or extreme input a
//! user can type ends within seconds with a one-line error and a non-zero
//! exit (or the right answer), never a panic, an abort, a hang or a lost
//! result. Memory checks pass an explicit `--memory-limit` so that they do
//! not depend on the machine's memory.

use assert_cmd::Command;
use std::path::Path;
use std::time::Duration;

fn bloomlab() -> Command {
    let mut c = Command::cargo_bin("bloomlab").unwrap();
    // a reproduction that hangs fails here instead of hanging the suite
    c.timeout(Duration::from_secs(60));
    c
}

/// Runs `args` in `dir`; returns (exit code, stderr). A timeout is -1.
fn run_in(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = bloomlab().args(args).current_dir(dir).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Asserts a clean refusal: exit 1 (2 for a command-line usage error; not a
/// panic's 101 or a signal) and one line, "error: ...", containing `needle`.
fn refused(dir: &Path, args: &[&str], needle: &str) {
    let (code, err) = run_in(dir, args);
    assert!(
        code == 1 || code == 2,
        "{args:?}: exit {code}, stderr {err}"
    );
    // progress lines may come before it; the error is the one last line
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(lines.len(), 1, "{args:?}: not one line: {err}");
    assert_eq!(err.lines().last(), Some(lines[0]), "{args:?}: {err}");
    assert!(
        lines[0].starts_with("error: ") && lines[0].contains(needle),
        "{args:?}: {err} lacks {needle:?}"
    );
}

/// A command line written as one string (no argument holds a space).
fn sh(cmd: &str) -> Vec<&str> {
    cmd.split_whitespace().collect()
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn spec(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

const TINY: &str = "name = \"tiny\"\nmetrics = [\"fpr\", \"memory\"]\n[measure]\nrounds = 2\n\
                    [[sweep]]\ndesign = \"apbf\"\npoints = [{ k = 4, l = 3, g = 20 }]\n";

#[test]
fn memory_the_machine_lacks_is_refused_with_the_estimate() {
    let d = tmp();
    let d = d.path();
    for (cmd, needle) in [
        (
            "measure apbf --k 10 --l 7 --g 100000000 --rounds 1 --memory-limit 8",
            "age history",
        ),
        (
            "measure naor-yogev --n 3000000000 --m 3000000000 --eps 0.01 --rounds 1 --memory-limit 8",
            "needs about",
        ),
    ] {
        refused(d, &sh(cmd), needle);
    }
    // a sliding HLL of 2^30 registers aborted allocating 32 GiB of list
    // heads before the register count was capped
    for design in ["swhll", "swlc"] {
        let cmd = format!("measure {design} --window 1000 --registers 1073741824");
        refused(d, &sh(&cmd), "16..=2^24");
    }
    let s = spec(
        d,
        "speed.toml",
        &TINY
            .replace("rounds = 2", "rounds = 2\nspeed_ops = 1000000000000")
            .replace("\"memory\"", "\"speed\""),
    );
    refused(d, &["run", &s, "--memory-limit", "8"], "timed keys");
    // an age profile of one-key buckets: 750,000 rows peaked at 3.6 GB
    // against an estimate of 6 MiB
    let s = spec(
        d,
        "profile.toml",
        "name = \"p\"\nmetrics = [\"profile\"]\n[measure]\nrounds = 2\nbucket = 1\n\
         [[sweep]]\ndesign = \"apbf\"\npoints = [{ k = 10, l = 7, g = 20000 }]\n",
    );
    refused(d, &["run", &s, "--memory-limit", "3"], "age profile");
    // the arrival history of a time pass at 1e7 keys/s (1.6 GB resident,
    // not in the estimate at all)
    let s = spec(
        d,
        "rate.toml",
        "name = \"r\"\nmetrics = [\"timeline\"]\n[time]\nwindow = 1.0\nduration = 1.0\nsamples = 20\n\
         [time.arrivals]\nkind = \"poisson\"\nrate = 1e7\n\
         [[sweep]]\ndesign = \"apbf\"\npoints = [{ fpr = 0.01, window = 10000000 }]\n",
    );
    refused(d, &["run", &s, "--memory-limit", "0.5"], "arrival history");
    refused(
        d,
        &sh("measure apbf --k 4 --l 3 --g 10 --memory-limit=-1"),
        "memory-limit",
    );
}

#[test]
fn huge_grids_repeats_and_threads_are_refused() {
    let d = tmp();
    let d = d.path();
    let s = spec(d, "rep.toml", &format!("repeats = 4294967295\n{TINY}"));
    refused(d, &["run", &s], "above the limit of 100000");
    let s = spec(
        d,
        "thr.toml",
        &format!("threads = 18446744073709551615\n{TINY}"),
    );
    refused(d, &["run", &s], "threads");
    let s = spec(d, "ok.toml", TINY);
    refused(d, &["run", &s, "--threads", "65535"], "threads");
}

#[test]
fn theory_recursions_and_memos_are_bounded() {
    let d = tmp();
    let d = d.path();
    refused(
        d,
        &sh("theory stable --m 10000 --d 2 --k 3 --p 30 --window 16777216"),
        "2^24",
    );
    let (code, err) = run_in(d, &sh("theory apbf --k 1 --l 100000 --g 1"));
    assert_eq!(code, 0, "{err}");
    for (cmd, needle) in [
        ("theory apbf --k 100000 --l 1", "steps"),
        ("theory apbf --k 1 --l 4294967294 --g 1", "steps"),
    ] {
        refused(d, &sh(cmd), needle);
    }
}

#[test]
fn loops_a_user_sizes_end_or_are_refused() {
    let d = tmp();
    let d = d.path();
    let (code, err) = run_in(d, &sh("plan --window 1000 --fpr 1e-16"));
    assert_eq!(code, 0, "{err}");
    refused(
        d,
        &sh("measure apbf --k 4 --l 3 --g 100 --workload adversarial --inserts-per-query 1e18 --attack-queries 20"),
        "operations",
    );
    let s = spec(d, "adv.toml", "name = \"adv\"\nmetrics = [\"adversary\"]\n[adversary]\ninserts_per_query = 1e17\n[[sweep]]\ndesign = \"apbf\"\npoints = [{ k = 4, l = 3, g = 100 }]\n");
    refused(d, &["run", &s], "operations");
    refused(
        d,
        &sh("measure broom --n 1024 --eps 0.01 --load 0.9999 --workload adversarial --attack-queries 200"),
        "load",
    );
}

#[test]
fn infinite_values_never_reach_a_chart() {
    let d = tmp();
    let d = d.path();
    let s = spec(
        d,
        "inf.toml",
        "name = \"inf\"\nmetrics = [\"fpr\", \"memory\"]\n[measure]\nrounds = 2\n[[sweep]]\ndesign = \"tbf\"\n\
         points = [{ window = 100, k = 1, s = 1 }, { window = 100, k = 2, s = 8 }]\n\
         [[plot]]\nkind = \"xy\"\nx = \"window\"\ny = \"info_bound_ratio\"\n",
    );
    // k = 1, s = 1: theory FPR 1, an information bound of 0 bits; the
    // ratio to it was infinite and is now a blank cell, kept out of the
    // chart, while the other point is drawn
    let (code, err) = run_in(d, &["run", &s]);
    assert_eq!(code, 0, "{err}");
    assert!(d.join("plots/inf.svg").exists() && d.join("results/inf.csv").exists());
    let csv = std::fs::read_to_string(d.join("results/inf.csv")).unwrap();
    assert!(
        !csv.to_lowercase().contains("inf,") && !csv.contains("NaN"),
        "{csv}"
    );
}

#[test]
fn bench_report_refuses_a_zero_throughput() {
    let d = tmp();
    let b = d.path().join("crit/ops_insert/apbf/4096/new");
    std::fs::create_dir_all(&b).unwrap();
    std::fs::write(
        b.join("benchmark.json"),
        r#"{"group_id":"ops_insert","function_id":"apbf","value_str":"4096","throughput":{"Elements":0}}"#,
    )
    .unwrap();
    std::fs::write(
        b.join("estimates.json"),
        r#"{"mean":{"point_estimate":100.0,"confidence_interval":{"lower_bound":90.0,"upper_bound":110.0}}}"#,
    )
    .unwrap();
    refused(
        d.path(),
        &["bench-report", "--criterion-dir", "crit"],
        "throughput",
    );
}

#[test]
fn a_failed_run_keeps_the_previous_results() {
    let d = tmp();
    let d = d.path();
    let s = spec(d, "t.toml", TINY);
    let (code, err) = run_in(d, &["run", &s]);
    assert_eq!(code, 0, "{err}");
    let before = std::fs::read(d.join("results/tiny.csv")).unwrap();
    // a column typo is only known once the run has its rows: refused before
    // anything is written
    let typo = spec(
        d,
        "t.toml",
        &format!("table_columns = [\"design\", \"fpr_typo\"]\n{TINY}"),
    );
    refused(d, &["run", &typo], "fpr_typo");
    assert_eq!(std::fs::read(d.join("results/tiny.csv")).unwrap(), before);
    let names: Vec<String> = std::fs::read_dir(d.join("results"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| !n.contains("tmp") && !n.ends_with(".lock")),
        "{names:?}"
    );
    // an unknown bound is refused when the spec is read
    let bound = spec(
        d,
        "t.toml",
        &format!("{TINY}[[plot]]\nkind = \"xy\"\nx = \"g\"\ny = \"fpr\"\nbound = \"nope\"\n"),
    );
    refused(d, &["run", &bound], "nope");
    // a run with no points at this precision
    let none = spec(
        d,
        "t.toml",
        &TINY.replace("[[sweep]]\n", "[[sweep]]\nquick = false\n"),
    );
    refused(d, &["run", &none, "--quick"], "no points");
    assert_eq!(std::fs::read(d.join("results/tiny.csv")).unwrap(), before);
}

#[test]
fn a_second_run_of_a_spec_is_refused_while_the_first_holds_it() {
    let d = tmp();
    let d = d.path();
    let s = spec(d, "t.toml", TINY);
    std::fs::create_dir_all(d.join("results")).unwrap();
    // this test process stands for the running first run
    std::fs::write(
        d.join("results/.tiny.lock"),
        format!("{}\n", std::process::id()),
    )
    .unwrap();
    refused(d, &["run", &s], "another run of tiny");
    // a lock whose process is gone is taken over
    std::fs::write(d.join("results/.tiny.lock"), "4294967295\n").unwrap();
    let (code, err) = run_in(d, &["run", &s]);
    assert_eq!(code, 0, "{err}");
    assert!(!d.join("results/.tiny.lock").exists());
}

#[test]
fn quick_runs_leave_the_committed_baselines_alone() {
    let d = tmp();
    let d = d.path();
    let s = spec(d, "t.toml", TINY);
    let (code, err) = run_in(d, &["run", &s, "--quick"]);
    assert_eq!(code, 0, "{err}");
    assert!(!d.join("results").exists());
    assert!(d
        .join("target/bloomlab-quick/results/tiny_quick.csv")
        .exists());
    let (code, err) = run_in(d, &["run", &s, "--quick", "--update-baselines"]);
    assert_eq!(code, 0, "{err}");
    assert!(d.join("results/tiny_quick.csv").exists());
    refused(d, &["run", &s, "--update-baselines"], "--quick");
}

#[test]
fn traces_are_checked_as_they_are_read() {
    let d = tmp();
    let d = d.path();
    let base = [
        "measure", "apbf", "--k", "4", "--l", "3", "--g", "10", "--rounds", "2", "--trace",
    ];
    refused(d, &[&base[..], &["/dev/zero"]].concat(), "longer than 4096");
    std::fs::write(d.join("nul.txt"), b"a\nb\x00\n").unwrap();
    refused(d, &[&base[..], &["nul.txt"]].concat(), "line 2");
    std::fs::write(d.join("bad.txt"), b"a\n\xff\n").unwrap();
    refused(d, &[&base[..], &["bad.txt"]].concat(), "UTF-8");
    // gzip is read as the text it holds: the same numbers as the plain file
    let keys: String = (0..500).map(|i| format!("key{i}\n")).collect();
    std::fs::write(d.join("keys.txt"), &keys).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, keys.as_bytes()).unwrap();
    std::fs::write(d.join("keys.gz"), gz.finish().unwrap()).unwrap();
    let json = |file: &str| {
        let out = bloomlab()
            .args([&base[..], &[file, "--json"]].concat())
            .current_dir(d)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v.as_object_mut()
            .unwrap()
            .retain(|k, _| !k.ends_with("_ns"));
        v
    };
    assert_eq!(json("keys.txt"), json("keys.gz"));
}

#[test]
fn intervals_stay_in_range_and_missing_ones_are_blank() {
    let d = tmp();
    let out = bloomlab()
        .args([
            "measure", "apbf", "--k", "4", "--l", "3", "--g", "100", "--rounds", "1", "--json",
        ])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no interval for fpr_avg"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // one round: no interval of the phase average, so no verdict on it
    assert!(v.get("fpr_avg_theory_in_ci").is_none(), "{v}");
    assert!(v.get("fpr_theory_in_ci").is_some(), "{v}");
}

#[test]
fn measure_only_flags_and_wrong_limits() {
    let d = tmp();
    let d = d.path();
    for (cmd, needle) in [
        ("theory apbf --k 4 --l 3 --g 10 --rounds 5", "--rounds"),
        (
            "theory apbf --k 4 --l 3 --g 18446744073709551615",
            "below 2^53",
        ),
        ("theory broom --window 1000 --remainder-bits 997", "at most"),
    ] {
        refused(d, &sh(cmd), needle);
    }
    // an hour-long full check only when asked for
    refused(d, &["check"], "--full");
}

#[test]
fn check_fails_on_a_corrupted_profile_baseline() {
    let d = tmp();
    let d = d.path();
    std::fs::create_dir_all(d.join("experiments")).unwrap();
    spec(
        &d.join("experiments"),
        "prof.toml",
        "name = \"prof\"\nmetrics = [\"fpr\", \"profile\"]\n[measure]\nrounds = 10\nbucket = 16\n\
         [[sweep]]\ndesign = \"apbf\"\npoints = [{ k = 4, l = 3, g = 32 }]\n",
    );
    let (code, err) = run_in(d, &["reproduce", "--quick", "--update-baselines"]);
    assert_eq!(code, 0, "{err}");
    let (code, err) = run_in(d, &["check", "--quick"]);
    assert_eq!(code, 0, "unchanged tree: {err}");
    let base = d.join("results/prof_profile_quick.csv");
    let good = std::fs::read_to_string(&base).unwrap();
    // a halved probability in one age bucket
    let mut lines: Vec<String> = good.lines().map(str::to_string).collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let col = header.iter().position(|c| *c == "p_yes").unwrap();
    let row = lines
        .iter()
        .position(|l| {
            l.split(',')
                .nth(col)
                .and_then(|v| v.parse::<f64>().ok())
                .is_some_and(|p| p > 0.5)
        })
        .unwrap();
    let mut cells: Vec<String> = lines[row].split(',').map(str::to_string).collect();
    cells[col] = (cells[col].parse::<f64>().unwrap() / 2.0).to_string();
    lines[row] = cells.join(",");
    std::fs::write(&base, lines.join("\n") + "\n").unwrap();
    let out = bloomlab()
        .args(["check", "--quick"])
        .current_dir(d)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("prof_profile")
            && stdout.contains("p_yes")
            && stdout.contains("REGRESSION"),
        "{stdout}"
    );
    // random bytes
    std::fs::write(&base, [0xffu8, 0x00, 0x13, 0x37].repeat(50)).unwrap();
    refused(d, &["check", "--quick"], "prof_profile_quick.csv");
    // the table gone from the baselines
    std::fs::remove_file(&base).unwrap();
    let out = bloomlab()
        .args(["check", "--quick"])
        .current_dir(d)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("(file)") && stdout.contains("prof_profile_quick.csv"),
        "{stdout}"
    );
}

#[test]
fn a_closed_pipe_ends_quietly() {
    use std::os::unix::process::ExitStatusExt;
    for args in [sh("plan --window 1000 --fpr 0.01"), sh("designs")] {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("bloomlab"))
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // the reader goes away at once, as `| head -0` would
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        // killed by SIGPIPE (the shell's 141), or done before the pipe closed
        assert!(
            out.status.signal() == Some(13) || out.status.success(),
            "{args:?}: {:?} {err}",
            out.status
        );
    }
}

#[test]
fn peers_state_a_configuration_in_a_peer_s_terms() {
    let out = Command::cargo_bin("bloomlab")
        .unwrap()
        .args([
            "peers",
            "apbf",
            "--capacity",
            "100000",
            "--fpr",
            "1e-4",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["k"].as_u64(), v["l"].as_u64()), (Some(14), Some(11)));
    assert_eq!(v["promised_capacity"].as_u64(), Some(100_008));
    assert_eq!(v["window"].as_u64(), Some(91_674));
    let exact = v["exact_fpr"].as_f64().unwrap();
    assert!((1.19e-4..1.20e-4).contains(&exact), "{exact}");
    // a peer asked in terms it does not take: one line, exit 1
    for bad in [
        vec![
            "peers",
            "apbf",
            "--convention",
            "crowdstrike",
            "--capacity",
            "10",
            "--fpr",
            "0.1",
        ],
        vec!["peers", "apbf", "--capacity", "10"],
        vec!["peers", "stable", "--m", "100", "--d", "2", "--fpr", "1.5"],
    ] {
        let out = Command::cargo_bin("bloomlab")
            .unwrap()
            .args(&bad)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{bad:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr).trim().lines().count(),
            1
        );
    }
}

#[test]
fn packet_captures_are_read_and_bad_ones_refused_in_one_line() {
    let trace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../traces/synthetic.pcap.gz");
    let measure = |path: &Path| {
        Command::cargo_bin("bloomlab")
            .unwrap()
            .args([
                "measure", "swamp", "--window", "4096", "--fpr", "0.01", "--rounds", "3", "--json",
            ])
            .arg("--trace")
            .arg(path)
            .args(["--trace-format", "pcap", "--trace-key", "five_tuple"])
            .output()
            .unwrap()
    };
    let out = measure(&trace);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let distinct = v["distinct_true"].as_f64().unwrap();
    assert!(distinct > 100.0 && distinct < 4096.0, "{distinct}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("skipped"));
    // truncated, wrong magic, empty
    let d = tempfile::tempdir().unwrap();
    let mut raw = Vec::new();
    use std::io::Read;
    flate2::read::GzDecoder::new(std::fs::File::open(&trace).unwrap())
        .read_to_end(&mut raw)
        .unwrap();
    for (bytes, want) in [
        (&raw[..raw.len() / 2 + 3], "cut short"),
        (&b"not a capture at all"[..], "not a pcap or pcapng capture"),
        (&[][..], "is empty"),
    ] {
        let p = d.path().join("bad.pcap");
        std::fs::write(&p, bytes).unwrap();
        let out = measure(&p);
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains(want), "{want}: {err}");
    }
}

/// A gzip trace of one repeated short line decompresses to far more keys
/// than its size says: it is refused against the run's memory budget as
/// soon as its keys pass it (2 GiB of `a\n` peaked at 4.2 GB first).
#[test]
fn a_trace_that_inflates_past_the_budget_is_refused_early() {
    use std::io::Write;
    let d = tmp();
    let d = d.path();
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let chunk = "a\n".repeat(1 << 16);
    for _ in 0..64 {
        e.write_all(chunk.as_bytes()).unwrap(); // 4M keys, 8 MiB decompressed
    }
    std::fs::write(d.join("a.gz"), e.finish().unwrap()).unwrap();
    // 0.1 GiB holds about 1.2 million keys of 90 B
    refused(
        d,
        &sh("measure apbf --k 4 --l 3 --g 100 --rounds 2 --trace a.gz --memory-limit 0.1"),
        "keys, more than the 102.4 MiB",
    );
}
