//! Inputs that would exhaust the machine or reach a chart as a wrong
//! number: memory, grids, recursion, loops a user sizes, infinities,
//! limits: each ends
//! within seconds with a one-line error and a non-zero exit, or the right
//! answer. Memory checks pass an explicit `--memory-limit` so that they do
//! not depend on the machine's memory.

use super::support::*;

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
    // every theory down to a window of one key: the two-bucket designs'
    // lines went negative there and were refused as "a bug"
    for design in [
        "swamp",
        "swbf",
        "naor_yogev --slack 1",
        "ny_pocket --slack 1",
    ] {
        let (code, err) = run_in(d, &sh(&format!("theory {design} --window 1 --fpr 0.01")));
        assert_eq!(code, 0, "{design}: {err}");
    }
    // the TLBF's memory follows its traffic: its growth at the arrivals'
    // largest rate is in the estimate (it counted the first sizing only)
    refused(
        d,
        &sh("measure tlbf --window-time 2 --peak-rate 500 --fpr 0.01 --memory-limit 0.000001"),
        "filter growth",
    );
    // counts whatever the integer's size: the last ~1024 values below 2^64
    // wrapped the work estimate to nothing and ran silently for ever
    for q in [
        "9007199254740993",
        "18446744073709550000",
        "18446744073709551615",
    ] {
        refused(
            d,
            &sh(&format!(
                "measure apbf --k 4 --l 3 --g 20 --rounds 2 --queries {q}"
            )),
            "limit of a day",
        );
    }
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
