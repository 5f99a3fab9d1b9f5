//! Same numbers whatever the thread count, and resumption from a checkpoint.

use crate::{opts, run_spec, strip_timing, SPEC};

#[test]
fn same_numbers_whatever_the_thread_count() {
    let one = run_spec(SPEC, opts(1, None));
    let two = run_spec(SPEC, opts(2, None));
    assert_eq!(one.rows.len(), 6);
    assert_eq!(strip_timing(&one.rows), strip_timing(&two.rows));
    assert_eq!(one.profile, two.profile);
    // and a different seed gives different numbers
    let other = SPEC.replace("seed = 9", "seed = 10");
    let three = run_spec(&other, opts(2, None));
    assert_ne!(strip_timing(&one.rows), strip_timing(&three.rows));
}

#[test]
fn resumes_from_a_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let full = run_spec(SPEC, opts(2, Some(dir.path().into())));
    let ck = dir.path().join(".tiny.partial.jsonl");
    let lines = std::fs::read_to_string(&ck).unwrap();
    assert_eq!(lines.lines().count(), 6);
    // keep 3 finished points and a torn line, as after a kill
    let kept: Vec<&str> = lines.lines().take(3).collect();
    std::fs::write(&ck, format!("{}\n{{\"key\":", kept.join("\n"))).unwrap();
    let resumed = run_spec(SPEC, opts(1, Some(dir.path().into())));
    assert_eq!(strip_timing(&full.rows), strip_timing(&resumed.rows));
    // a changed spec does not reuse the old checkpoint
    let other = SPEC.replace("seed = 9", "seed = 10");
    let fresh = run_spec(&other, opts(2, Some(dir.path().into())));
    assert_ne!(strip_timing(&full.rows), strip_timing(&fresh.rows));
}
