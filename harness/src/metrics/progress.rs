//! Progress inside one point, for a command that measures a single long
//! point (`measure`): its passes report their rounds or moments, and a line
//! goes to stderr at most every ten seconds once reporting is on. `run`
//! shows its points instead (a bar on a terminal), and leaves this off.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

static ON: AtomicBool = AtomicBool::new(false);

/// Turns the reports on (or off) for this process.
pub fn enable(on: bool) {
    ON.store(on, Ordering::Relaxed);
}

/// Reports step `done` of `total` of a pass (`what`: "rounds", "moments").
pub struct Steps {
    what: &'static str,
    total: u64,
    last: Instant,
    started: Instant,
    /// When step 0 began (after the warm-up): the pace of the steps.
    first: Option<Instant>,
}

impl Steps {
    /// A pass of `total` steps starting now.
    pub fn new(what: &'static str, total: u64) -> Steps {
        let now = Instant::now();
        Steps {
            what,
            total,
            last: now,
            started: now,
            first: None,
        }
    }

    /// `done` of the `total` warm-up insertions made: a line if reports
    /// are on and ten seconds have passed since the last (a warm-up of a
    /// large window takes minutes before the first step).
    pub fn warming(&mut self, done: u64, total: u64) {
        if !ON.load(Ordering::Relaxed) || self.last.elapsed() < Duration::from_secs(10) {
            return;
        }
        self.last = Instant::now();
        let secs = self.started.elapsed().as_secs_f64();
        let left = secs / done.max(1) as f64 * total.saturating_sub(done) as f64;
        eprintln!("  warm-up: {done} of {total} insertions ({secs:.0} s; about {left:.0} s left)");
    }

    /// Step `done` finished: a line if reports are on and ten seconds
    /// have passed since the last.
    pub fn done(&mut self, done: u64) {
        if done == 0 {
            self.first = Some(Instant::now());
        }
        if !ON.load(Ordering::Relaxed) || self.last.elapsed() < Duration::from_secs(10) {
            return;
        }
        self.last = Instant::now();
        let secs = self.started.elapsed().as_secs_f64();
        if done == 0 {
            eprintln!(
                "  warm-up done ({secs:.0} s); {} {} to go",
                self.total, self.what
            );
            return;
        }
        let pace = self.first.map_or(secs, |f| f.elapsed().as_secs_f64()) / done.max(1) as f64;
        let left = pace * self.total.saturating_sub(done) as f64;
        eprintln!(
            "  {done} of {} {} ({secs:.0} s; about {left:.0} s left)",
            self.total, self.what
        );
    }
}
