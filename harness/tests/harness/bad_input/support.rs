//! Helpers of the reproductions of hostile inputs ([`super::limits`],
//! [`super::files`]): a command with a time limit, and the check of a
//! clean one-line refusal.

use assert_cmd::Command;
use std::path::Path;
use std::time::Duration;

pub(super) fn bloomlab() -> Command {
    let mut c = Command::cargo_bin("bloomlab").unwrap();
    // a reproduction that hangs fails here instead of hanging the suite
    c.timeout(Duration::from_secs(60));
    c
}

/// Runs `args` in `dir`; returns (exit code, stderr). A timeout is -1.
pub(super) fn run_in(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = bloomlab().args(args).current_dir(dir).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Asserts a clean refusal: exit 1 (2 for a command-line usage error; not a
/// panic's 101 or a signal) and one line, "error: ...", containing `needle`.
pub(super) fn refused(dir: &Path, args: &[&str], needle: &str) {
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
pub(super) fn sh(cmd: &str) -> Vec<&str> {
    cmd.split_whitespace().collect()
}

pub(super) fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

pub(super) fn spec(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

pub(super) const TINY: &str =
    "name = \"tiny\"\nmetrics = [\"fpr\", \"memory\"]\n[measure]\nrounds = 2\n\
                    [[sweep]]\ndesign = \"apbf\"\npoints = [{ k = 4, l = 3, g = 20 }]\n";
