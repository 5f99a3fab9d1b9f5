//! Test helpers shared by the unit tests and the integration tests (not
//! part of the API).

/// Runs `f` on its own thread and fails the calling test, by name, if it has
/// not finished within `secs` seconds: a bug that makes a query or a
/// recursion loop fails its test instead of hanging `cargo test`.
pub fn within<F: FnOnce() + Send + 'static>(secs: u64, f: F) {
    use std::sync::mpsc::{channel, RecvTimeoutError};
    let (tx, rx) = channel();
    let handle = std::thread::spawn(move || {
        f();
        let _ = tx.send(());
    });
    match rx.recv_timeout(std::time::Duration::from_secs(secs)) {
        Ok(()) => handle.join().expect("finished"),
        Err(RecvTimeoutError::Disconnected) => {
            if let Err(panic) = handle.join() {
                std::panic::resume_unwind(panic);
            }
        }
        Err(RecvTimeoutError::Timeout) => {
            panic!("did not finish within {secs} s: a loop that never ends?")
        }
    }
}

/// Count, sum and sum of squares of a sample of counts: its mean against
/// a theory.
#[derive(Default)]
pub struct Tally(pub f64, pub f64, pub f64);

/// A [`Tally`] of real observations.
pub type Moments = Tally;

impl Tally {
    /// Adds one count.
    pub fn add(&mut self, x: u32) {
        self.add_f64(x as f64)
    }

    /// Adds one observation.
    pub fn add_f64(&mut self, x: f64) {
        (self.0, self.1, self.2) = (self.0 + 1.0, self.1 + x, self.2 + x * x);
    }

    /// The sample mean.
    pub fn mean(&self) -> f64 {
        self.1 / self.0
    }

    /// The mean's standard error.
    pub fn se(&self) -> f64 {
        let var = (self.2 / self.0 - self.mean().powi(2)).max(0.0);
        (var / self.0).sqrt()
    }

    /// Whether `theory` is within 4 standard errors (and 1e-9).
    pub fn agrees(&self, theory: f64) -> bool {
        (self.mean() - theory).abs() <= 4.0 * self.se() + 1e-9
    }
}
