//! Inputs that could lose or overwrite results, and hostile files: a
//! failed run, two runs of one spec, quick runs beside baselines, traces,
//! corrupted baselines, closed pipes, packet captures.

use super::support::*;
use assert_cmd::Command;
use std::path::Path;

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
