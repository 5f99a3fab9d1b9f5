//! A run killed (SIGKILL, a real process) at every step of its output
//! commit leaves, once the next run has cleaned up, either the whole old set
//! of outputs or the whole new one, byte for byte, and no temporary file.
//! The run is stopped at each step by `report::STALL_VAR`, then killed.

use bloomlab_harness::report::{remove_stale_temps, STALL_VAR};
use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::Path;
use std::process::{Command, Stdio};

fn spec(seed: u64) -> String {
    format!(
        "name = \"killed\"\nseed = {seed}\nmetrics = [\"fpr\", \"memory\"]\n\
         [measure]\nrounds = 2\nmax_fpr_queries = 2000\nmin_fpr_queries = 1000\n\
         [[sweep]]\ndesign = \"apbf\"\npoints = [{{ k = 4, l = 3, g = 20 }}, {{ k = 3, l = 2, g = 30 }}]\n\
         [[plot]]\nkind = \"xy\"\nx = \"g\"\ny = \"fpr\"\n"
    )
}

fn command(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_bloomlab"));
    c.args([
        "run",
        "s.toml",
        "--results-dir",
        "results",
        "--plots-dir",
        "plots",
    ])
    .current_dir(dir)
    .env_remove(STALL_VAR);
    c
}

/// The outputs (results/ and plots/, files not starting with a dot) by
/// path, and the temporary files, backups and journals left.
fn snapshot(dir: &Path) -> (BTreeMap<String, Vec<u8>>, Vec<String>) {
    let (mut files, mut left) = (BTreeMap::new(), Vec::new());
    for sub in ["results", "plots"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with(".tmp-") || name.starts_with(".journal-") {
                left.push(format!("{sub}/{name}"));
            } else if !name.starts_with('.') {
                files.insert(format!("{sub}/{name}"), std::fs::read(e.path()).unwrap());
            }
        }
    }
    (files, left)
}

/// A finished run of `spec(seed)` in `dir`.
fn run_to_end(dir: &Path, seed: u64) {
    std::fs::write(dir.join("s.toml"), spec(seed)).unwrap();
    let out = command(dir).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_run_killed_at_any_step_of_its_commit_leaves_the_old_outputs_or_the_new() {
    let reference = tempfile::tempdir().unwrap();
    run_to_end(reference.path(), 1);
    let (old, _) = snapshot(reference.path());
    run_to_end(reference.path(), 2);
    let (new, _) = snapshot(reference.path());
    assert_ne!(old, new, "the two seeds must give different outputs");
    assert!(new.len() >= 3, "{:?}", new.keys());

    let mut steps = vec!["journal".to_string()];
    steps.extend((0..new.len() + 1).map(|i| i.to_string()));
    let mut stalled_at = 0;
    for step in &steps {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path();
        run_to_end(dir, 1);
        assert_eq!(snapshot(dir).0, old);
        std::fs::write(dir.join("s.toml"), spec(2)).unwrap();
        let mut child = command(dir)
            .env(STALL_VAR, step)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
        let stalled = stderr
            .lines()
            .map_while(Result::ok)
            .any(|l| l.contains("commit stalled"));
        child.kill().unwrap();
        child.wait().unwrap();
        if !stalled {
            // past the last file: the run ended on its own
            assert_eq!(snapshot(dir), (new.clone(), vec![]), "step {step}");
            continue;
        }
        stalled_at += 1;
        // what the next run does first, under its lock
        remove_stale_temps(&[&dir.join("results"), &dir.join("plots")]);
        let (files, left) = snapshot(dir);
        assert!(left.is_empty(), "step {step}: left {left:?}");
        let expected = if step == "journal" { &old } else { &new };
        assert!(
            &files == expected,
            "step {step}: the outputs are {} the old set nor the new",
            if files == old || files == new {
                "the wrong one of"
            } else {
                "neither"
            }
        );
    }
    println!(
        "stopped and killed at {stalled_at} steps; {} files",
        new.len()
    );
    // every file's rename was a step the run stopped at
    assert!(
        stalled_at > new.len(),
        "{stalled_at} stops for {} files",
        new.len()
    );
}
