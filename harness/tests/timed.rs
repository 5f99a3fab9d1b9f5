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
        progress: false,
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
                r.get(&format!("{c}_theory_in_ci")).map(|v| v.to_string()),
                Some("true".into()),
                "{c}: {r:?}"
            );
        }
        assert!(num(r, "memory_bits") > 0.0);
    }
    assert!(num(burst, "fpr_time_peak") > 5.0 * num(steady, "fpr_time_peak"));
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
