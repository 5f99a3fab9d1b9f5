//! Progress on stderr. Inside one point ([`Steps`]), for a command that
//! measures a single long point (`measure`): its passes report their
//! warm-up, rounds or moments, a line at most every ten seconds once
//! reporting is on. Over a run's points (`Points`), when `run` writes to
//! a log (on a terminal it shows a bar instead), and leaves [`Steps`] off.

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

    /// Whether a line is due: reports on and ten seconds since the last.
    fn due(&mut self) -> bool {
        if !ON.load(Ordering::Relaxed) || self.last.elapsed() < Duration::from_secs(10) {
            return false;
        }
        self.last = Instant::now();
        true
    }

    /// `done` of the `total` warm-up insertions made: a line if one is due
    /// (a warm-up of a large window takes minutes before the first step).
    pub fn warming(&mut self, done: u64, total: u64) {
        if !self.due() {
            return;
        }
        let secs = self.started.elapsed().as_secs_f64();
        let left = secs / done.max(1) as f64 * total.saturating_sub(done) as f64;
        eprintln!("  warm-up: {done} of {total} insertions ({secs:.0} s; about {left:.0} s left)");
    }

    /// Step `done` finished: a line if one is due.
    pub fn done(&mut self, done: u64) {
        if done == 0 {
            self.first = Some(Instant::now());
        }
        if !self.due() {
            return;
        }
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

/// A run's progress as lines in a log (`run` when stderr is not a
/// terminal): points done, time, and the time left by the points'
/// estimated costs, at most every 30 seconds.
pub(crate) struct Points {
    name: String,
    total: usize,
    done: usize,
    cost_left: f64,
    cost_done: f64,
    started: Instant,
    last: Instant,
}

impl Points {
    pub(crate) fn new(name: &str, total: usize, done: usize, cost: f64) -> Points {
        let now = Instant::now();
        Points {
            name: name.to_string(),
            total,
            done,
            cost_left: cost,
            cost_done: 0.0,
            started: now,
            last: now,
        }
    }

    /// A point of estimated cost `cost` finished: a line on stderr if 30
    /// seconds have passed since the last.
    pub(crate) fn point(&mut self, cost: f64) {
        if let Some(line) = self.line(cost, Instant::now()) {
            eprintln!("{line}");
        }
    }

    /// The line for a point of cost `cost` finished at `now`, if one is due
    /// (none for the last point: the run's own line follows).
    fn line(&mut self, cost: f64, now: Instant) -> Option<String> {
        self.done += 1;
        self.cost_done += cost;
        self.cost_left -= cost;
        if now.duration_since(self.last).as_secs() < 30 || self.done == self.total {
            return None;
        }
        self.last = now;
        let secs = now.duration_since(self.started).as_secs_f64();
        let left = secs / self.cost_done.max(1.0) * self.cost_left.max(0.0);
        Some(format!(
            "{}: {} of {} points ({:.0} s; about {:.0} s left)",
            self.name, self.done, self.total, secs, left
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::Points;
    use std::time::Duration;

    /// A line at most every 30 s, none for the last point; the time left
    /// scales the time so far by the estimated cost still to run.
    #[test]
    fn lines_every_thirty_seconds_with_the_time_left_by_cost() {
        let mut l = Points::new("x", 4, 0, 40.0);
        let t0 = l.started;
        assert_eq!(l.line(10.0, t0 + Duration::from_secs(10)), None);
        // 20 of 40 cost units in 40 s: 20 units left, about 40 s
        assert_eq!(
            l.line(10.0, t0 + Duration::from_secs(40)).as_deref(),
            Some("x: 2 of 4 points (40 s; about 40 s left)")
        );
        assert_eq!(l.line(10.0, t0 + Duration::from_secs(60)), None);
        assert_eq!(l.line(10.0, t0 + Duration::from_secs(200)), None);
    }
}
