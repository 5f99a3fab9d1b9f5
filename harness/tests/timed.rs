//! The time-window pass (`timeline`): deterministic whatever the thread
//! count, its measurements against the designs' theory, and one-line errors
//! for what it cannot run.

use assert_cmd::Command;
use bloomlab_harness::metrics::Row;
use bloomlab_harness::spec::Spec;
use bloomlab_harness::sweep::{self, RunOptions};

const SPEC: &str = r#"
name = "tiny_time"
seed = 4
metrics = ["timeline", "memory"]
[time]
window = 2.0
duration = 60.0
samples = 120
queries = 1000
probes = 300
[time.arrivals]
kind = "on_off"
rate = 400.0
ratio = 1.0
period = 4.0
duty = 0.25
[[sweep]]
design = "apbf_time"
grid = { k = [4], l = [6], window_time = [2.0], peak_rate = [800.0], arrivals_ratio = [1, 6] }
[[sweep]]
design = "apbf"
grid = { k = [4], l = [6], window = [1600], arrivals_ratio = [6] }
"#;

fn run(text: &str, threads: usize) -> sweep::Outcome {
    let spec = Spec::parse(text).unwrap();
    let opts = RunOptions {
        threads: Some(threads),
        quick: false,
        checkpoint_dir: None,
        progress: bloomlab_harness::sweep::Progress::Off,
        shard: None,
    };
    sweep::run(
        &spec,
        text,
        &sweep::prepare(&spec, false, &sweep::Budget::unchecked()).unwrap(),
        &opts,
    )
    .unwrap()
}

fn num(r: &Row, c: &str) -> f64 {
    r.get_num(c).unwrap_or_else(|| panic!("no {c} in {r:?}"))
}

#[test]
fn same_numbers_whatever_the_thread_count() {
    let one = run(SPEC, 1);
    let two = run(SPEC, 2);
    assert_eq!(one.rows, two.rows);
    assert_eq!(one.timeline, two.timeline);
    assert_eq!(one.age_time, two.age_time);
    assert_eq!(one.timeline.len(), 3 * 120);
}

/// The time design keeps every key younger than T under any burst; its FPR
/// climbs with the burst as its theory says; the count design at the same
/// bursts loses keys younger than T, as its theory says.
#[test]
fn measurements_agree_with_the_theory() {
    let out = run(SPEC, 2);
    let [steady, burst, count] = &out.rows[..] else {
        panic!("three rows")
    };
    for r in [steady, burst] {
        assert_eq!(num(r, "fnr_time"), 0.0);
        assert_eq!(num(r, "fnr_time_theory"), 0.0);
    }
    for r in [steady, burst, count] {
        for c in ["fpr_time_avg", "fpr_time_peak", "p_yes_past_window"] {
            assert_eq!(
                r.get(format!("{c}_theory_in_ci")).map(|v| v.to_string()),
                Some("true".into()),
                "{c}: {r:?}"
            );
        }
        assert!(num(r, "memory_bits") > 0.0);
        // memory over a window's keys at the largest rate, and each ratio
        let want = num(r, "memory_bits") / (num(r, "arrivals_max_rate") * num(r, "time_window_s"));
        assert!((num(r, "bits_per_peak_key") / want - 1.0).abs() < 1e-12);
        let ratio = num(r, "fpr_time_avg") / num(r, "fpr_time_avg_theory");
        // the worst moments: those within 10% of the highest, never below
        // the average over all moments
        assert!(num(r, "fpr_time_peak") >= num(r, "fpr_time_avg"), "{r:?}");
        assert!(num(r, "fpr_time_peak_moments") >= 1.0);
        assert!((num(r, "fpr_time_avg_ratio") / ratio - 1.0).abs() < 1e-12);
    }
    assert!(num(burst, "fpr_time_peak") > 5.0 * num(steady, "fpr_time_peak"));
    // one moment in each of 120 stretches of the 60-s duration, in 10
    // batches of 12 with a gap of the design's reach between two (T and
    // its slack of time; the count design's window and slack at the mean
    // rate): the s-th moment is (s - 1, s + 1) stretches of 0.5 s and
    // s / 12 gaps after the first.
    // The default warm-up: twice the horizon (2 T = 4 s) and the time the
    // count window and slack take to arrive at the mean rate; the first
    // moment falls in the first 0.5-s stretch after it
    let fill = (num(count, "window") + num(count, "slack")) / num(count, "arrivals_mean_rate");
    let (t0, warm) = (num(&out.timeline[240], "t"), 2.0 * 4.0 + fill);
    assert!(
        t0 >= warm && t0 <= warm + 0.5,
        "first moment {t0} s, warm-up {warm} s"
    );
    for (point, r) in out.timeline.chunks(120).zip([steady, burst, count]) {
        assert_eq!(num(r, "batches"), 10.0);
        let reach = if r.get("slack_time").is_some() {
            num(r, "window_time") + num(r, "slack_time")
        } else {
            fill.max(2.0)
        };
        let t0 = num(&point[0], "t");
        for (s, m) in point.iter().enumerate() {
            let gap = (num(m, "t") - t0 - (s / 12) as f64 * reach) / 0.5;
            assert!(
                gap > s as f64 - 1.0 && gap < s as f64 + 1.0,
                "moment {s}: {gap} stretches"
            );
        }
    }
    let fnr = num(count, "fnr_time");
    let (lo, hi) = (
        num(count, "fnr_time_ci_low"),
        num(count, "fnr_time_ci_high"),
    );
    let theory = num(count, "fnr_time_theory");
    assert!(
        fnr > 0.05 && lo <= theory && theory <= hi,
        "{fnr} [{lo}, {hi}] vs {theory}"
    );
    // every moment's FPR has its theory beside it
    assert!(out
        .timeline
        .iter()
        .all(|r| num(r, "fpr_theory").is_finite()));
}

fn bloomlab() -> Command {
    Command::cargo_bin("bloomlab").unwrap()
}

/// Runs `bloomlab run` on `spec` text; returns (exit code, stderr).
fn run_text(spec: &str) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.toml");
    std::fs::write(&path, spec).unwrap();
    let out = bloomlab()
        .args(["run", path.to_str().unwrap()])
        .current_dir(dir.path())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn what_the_pass_cannot_run_is_refused_in_one_line() {
    let cases = [
        // a time design asked for count-based metrics
        (
            SPEC.replace(
                "metrics = [\"timeline\", \"memory\"]",
                "metrics = [\"fpr\"]",
            ),
            "forgets by time",
        ),
        // a count design without an arrival process
        (
            "name = \"c\"\nmetrics = [\"timeline\"]\n[time]\nwindow = 2.0\n\
             [[sweep]]\ndesign = \"apbf\"\npoints = [{ k = 4, l = 6, window = 1600 }]\n"
                .to_string(),
            "needs [time.arrivals]",
        ),
        (SPEC.replace("ratio = 1.0", "ratio = 0.5"), "ratio"),
        (SPEC.replace("samples = 120", "samples = 0"), "time.samples"),
        (
            SPEC.replace("arrivals_ratio = [6] }", "arrivals_amplitude = [0.5] }"),
            "no field \"amplitude\"",
        ),
        (
            SPEC.replace("duration = 60.0", "duration = 1e20"),
            "time.duration",
        ),
        // a valid duration whose arrivals would take days
        (
            SPEC.replace("duration = 60.0", "duration = 5e8"),
            "more than 1e10",
        ),
    ];
    for (text, want) in cases {
        let (code, err) = run_text(&text);
        assert_ne!(code, 0, "{want}");
        let line = err.trim();
        assert!(
            line.contains(want) && !line.contains('\n'),
            "{want}: {line}"
        );
    }
}

/// A CSV trace of distinct keys and their times: `n` keys, Poisson at
/// `rate` per second from a fixed generator.
fn csv_trace(dir: &std::path::Path, n: u64, rate: f64) -> std::path::PathBuf {
    let mut s = String::from("key,time\n");
    let (mut t, mut x) = (0.0f64, 0x9E37_79B9_7F4A_7C15u64);
    for i in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        t += -(1.0 - (x >> 11) as f64 / (1u64 << 53) as f64).ln() / rate;
        s += &format!("k{i},{t:.9}\n");
    }
    let p = dir.join("trace.csv");
    std::fs::write(&p, s).unwrap();
    p
}

/// Arrival times from a CSV trace's time column: the keys arrive at the
/// trace's own times, the time design keeps every key younger than T, and
/// its theory (with Λ counted from the trace) holds, since no key repeats.
#[test]
fn a_trace_s_own_times_drive_the_run() {
    let dir = tempfile::tempdir().unwrap();
    // 160 s of keys: the warm-up, the duration and the gaps between
    // batches (9 of T and its slack, 3.3 s) take 140 s
    let path = csv_trace(dir.path(), 80_000, 500.0);
    let spec = format!(
        "name = \"t\"\nmetrics = [\"timeline\"]\n\
         [workload]\nkind = \"trace\"\npath = {path:?}\nformat = \"csv\"\ncolumn = \"key\"\ntime_column = \"time\"\n\
         [time]\nwindow = 2.0\nwarmup = 10.0\nduration = 100.0\nsamples = 100\nqueries = 2000\n\
         [time.arrivals]\nkind = \"trace\"\n\
         [[sweep]]\ndesign = \"apbf_time\"\npoints = [{{ window_time = 2.0, peak_rate = 500.0, k = 4, l = 6 }}]\n"
    );
    let out = run(&spec, 2);
    let r = &out.rows[0];
    assert!((num(r, "arrivals_mean_rate") - 500.0).abs() < 15.0, "{r:?}");
    assert_eq!(num(r, "fnr_time"), 0.0);
    for c in ["fpr_time_avg", "p_yes_past_window"] {
        assert_eq!(
            r.get(format!("{c}_theory_in_ci")).map(|v| v.to_string()),
            Some("true".into()),
            "{c}: {r:?}"
        );
    }
    // replayed past its end, the trace's keys repeat: no theory
    let short = csv_trace(dir.path(), 30_000, 500.0);
    let replayed = spec.replace(&format!("{path:?}"), &format!("{short:?}"));
    let out = run(&replayed, 1);
    assert!(out.rows[0].get("fpr_time_avg_theory").is_none());
    // bad trace times are refused in one line
    let lines = dir.path().join("keys.txt");
    std::fs::write(&lines, "a\nb\n").unwrap();
    let no_times = spec
        .replace(&format!("{path:?}"), &format!("{lines:?}"))
        .replace(
            "format = \"csv\"\ncolumn = \"key\"\ntime_column = \"time\"\n",
            "",
        );
    let backwards = dir.path().join("back.csv");
    std::fs::write(&backwards, "key,time\na,1.0\nb,0.5\n").unwrap();
    let back = spec.replace(&format!("{path:?}"), &format!("{backwards:?}"));
    let wrong = spec.replace(
        "format = \"csv\"\ncolumn = \"key\"\n",
        "format = \"pcap\"\n",
    );
    for (text, want) in [
        (no_times, "cannot give times"),
        (back, "go backwards at key 2"),
        (wrong, "time_column goes with format = \"csv\""),
    ] {
        let (code, err) = run_text(&text);
        assert_ne!(code, 0, "{want}");
        let line = err.trim();
        assert!(
            line.contains(want) && !line.contains('\n'),
            "{want}: {line}"
        );
    }
}

/// A capture's packet times drive the run too; its flows repeat, so the
/// run reports measurements without the theory (which counts every arrival
/// as a new key).
#[test]
fn a_capture_s_packet_times_drive_the_run() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../traces/synthetic.pcap.gz");
    let spec = format!(
        "name = \"p\"\nmetrics = [\"timeline\"]\n\
         [workload]\nkind = \"trace\"\npath = {path:?}\nformat = \"pcap\"\n\
         [time]\nwindow = 0.05\nduration = 1.0\nsamples = 40\nqueries = 500\n\
         [time.arrivals]\nkind = \"trace\"\n\
         [[sweep]]\ndesign = \"apbf_time\"\npoints = [{{ window_time = 0.05, peak_rate = 200000.0, k = 4, l = 6 }}]\n"
    );
    let out = run(&spec, 1);
    let r = &out.rows[0];
    assert!(num(r, "arrivals_mean_rate") > 1000.0, "{r:?}");
    assert_eq!(num(r, "fnr_time"), 0.0);
    assert!(r.get("fpr_time_avg_theory").is_none(), "{r:?}");
    assert!(out
        .timeline
        .iter()
        .all(|t| t.get_num("fpr_theory").is_some_and(f64::is_nan)));
}

/// Keys that repeat (a Zipf law over 20 keys): a probe whose key was
/// inserted again since is skipped, not counted at its old age, so no key
/// is ever "older than T" and there is no theory (it counts every arrival
/// as a new key).
#[test]
fn repeated_keys_are_probed_at_their_latest_insertion() {
    let spec = SPEC
        .replace(
            "metrics = [\"timeline\", \"memory\"]",
            "metrics = [\"timeline\", \"memory\"]\n[workload]\nkind = \"zipf\"\nuniverse = 20\nexponent = 1.0",
        );
    let out = run(&spec, 1);
    for r in &out.rows {
        assert_eq!(num(r, "p_yes_past_window_probes"), 0.0, "{r:?}");
        assert!(num(r, "fnr_time_probes") > 0.0);
        assert!(r.get("fpr_time_avg_theory").is_none());
    }
}

/// The age table: buckets of horizon·T / buckets seconds from 0, each with
/// its midpoint over T; every probe younger than the horizon lands in one;
/// the time design answers every key in the first buckets.
#[test]
fn age_rows_tile_the_horizon() {
    let out = run(SPEC, 1);
    // T = 2 s, horizon 2 T, 40 buckets: 0.1 s each
    let point0: Vec<&Row> = out
        .age_time
        .iter()
        .filter(|r| num(r, "point") == 0.0)
        .collect();
    assert_eq!(point0.len(), 40);
    for (i, r) in point0.iter().enumerate() {
        let (lo, hi) = (num(r, "age_lo"), num(r, "age_hi"));
        assert!(
            (lo - 0.1 * i as f64).abs() < 1e-9 && (hi - lo - 0.1).abs() < 1e-9,
            "{r:?}"
        );
        assert!((num(r, "age_mid_over_t") - (lo + hi) / 4.0).abs() < 1e-12);
        let p = num(r, "p_yes");
        assert!(num(r, "p_yes_ci_low") <= p && p <= num(r, "p_yes_ci_high"));
    }
    assert_eq!(num(point0[0], "p_yes"), 1.0);
    assert_eq!(num(point0[0], "p_yes_theory"), 1.0);
    assert!(point0
        .iter()
        .all(|r| (0.0..=1.0).contains(&num(r, "p_yes_theory"))));
    let row = &out.rows[0];
    let bucketed: f64 = point0.iter().map(|r| num(r, "queries")).sum();
    let probed = num(row, "fnr_time_probes") + num(row, "p_yes_past_window_probes");
    assert!(
        bucketed <= probed && bucketed > 0.99 * probed,
        "{bucketed} of {probed}"
    );
}

/// A horizon of T probes no key past T: the row gives the FNR over every
/// probe and no rate past the window (a rate over nothing is not a figure),
/// and the default warm-up is then the fill, at least T.
#[test]
fn a_horizon_of_t_reports_no_rate_past_the_window() {
    let text = SPEC.replace("probes = 300", "probes = 300\nhorizon = 1.0");
    let out = run(&text, 1);
    for row in &out.rows {
        assert!(num(row, "fnr_time_probes") > 0.0, "{row:?}");
        assert_eq!(num(row, "p_yes_past_window_probes"), 0.0, "{row:?}");
        assert!(row.get("p_yes_past_window").is_none(), "{row:?}");
        assert!(row.get("p_yes_past_window_ci_low").is_none(), "{row:?}");
        let fnr = num(row, "fnr_time");
        assert!(fnr.is_finite() && (0.0..=1.0).contains(&fnr), "{row:?}");
    }
}

/// A cycle of steps (8x for 10 s, then the base for 10 s) and a lull of
/// 3 T: the TLBF keeps every key younger than T through both, its size at
/// the moments (`memory_over_time`) follows the rate, and the arrival
/// process's rate is the cycle's at every moment.
#[test]
fn a_cycle_of_steps_and_lulls_with_memory_over_time() {
    let spec = r#"
name = "cycle"
seed = 5
metrics = ["timeline", "memory"]
[time]
window = 2.0
duration = 120.0
samples = 240
queries = 500
probes = 200
memory_over_time = true
[time.arrivals]
kind = "cycle"
rate = 300.0
ratio = 8.0
high = 10.0
low = 10.0
[[sweep]]
design = "tlbf"
points = [{ arrivals_lull = 0 }, { arrivals_ratio = 1, arrivals_high = 0, arrivals_lull = 6 }]
grid = { fpr = [0.01], window_time = [2.0], peak_rate = [300.0] }
"#;
    let out = run(spec, 2);
    for r in &out.rows {
        assert_eq!(num(r, "fnr_time"), 0.0, "{r:?}");
    }
    let (mut high, mut low) = (Vec::new(), Vec::new());
    for r in out.timeline.iter().filter(|r| num(r, "point") == 0.0) {
        let (t, rate, bits) = (num(r, "t"), num(r, "rate"), num(r, "memory_bits"));
        let phase = t.rem_euclid(20.0);
        assert_eq!(rate, if phase < 10.0 { 2400.0 } else { 300.0 }, "{t}");
        // the slices of the last T at each rate, settled
        if (4.0..10.0).contains(&phase) {
            high.push(bits);
        } else if phase >= 14.0 {
            low.push(bits);
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    assert!(
        mean(&high) > 3.0 * mean(&low),
        "{} vs {}",
        mean(&high),
        mean(&low)
    );
    for r in out.timeline.iter().filter(|r| num(r, "point") == 1.0) {
        let t = num(r, "t");
        let want = if t.rem_euclid(16.0) < 10.0 {
            300.0
        } else {
            0.0
        };
        assert_eq!(num(r, "rate"), want, "{t}");
    }
}

/// A cycle without arrivals, and a timeline chart of a column it cannot
/// draw, are refused in one line when the spec is read.
#[test]
fn a_bad_cycle_or_timeline_column_is_refused() {
    let cycle = SPEC.replace(
        "kind = \"on_off\"\nrate = 400.0\nratio = 1.0\nperiod = 4.0\nduty = 0.25",
        "kind = \"cycle\"\nrate = 400.0\nratio = 1.0\nlull = 5.0",
    );
    assert!(cycle.contains("cycle"));
    let plot = format!("{SPEC}\n[[plot]]\nkind = \"timeline\"\ny = \"fnr_time\"\n");
    for (text, want) in [(cycle, "some time with arrivals"), (plot, "timeline draws")] {
        let e = Spec::parse(&text)
            .and_then(|s| sweep::prepare(&s, false, &sweep::Budget::unchecked()).map(|_| ()))
            .unwrap_err();
        let e = format!("{e:#}");
        assert!(e.contains(want) && !e.contains('\n'), "{e}");
    }
}
