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
