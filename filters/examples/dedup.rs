//! Have I seen this event id in the last 10 minutes? Up to 5,000 ids per
//! second, FPR 1e-3, four ingest threads, and a restart in the middle.
//!
//! ```sh
//! cargo run --release -p bloomlab-filters --example dedup
//! ```
//!
//! Time here is simulated (milliseconds since the start, as if read from
//! each event's own timestamp), so that 24 minutes of traffic run in about
//! a second; a service passes its clock the same way. The filter is the
//! concurrent blocked APBF with hybrid generations: a window of 10 minutes
//! sized for the peak rate, whose FPR stays at the target in a burst above
//! it (generations then end on count). Ids are strings; the four threads
//! share the filter through an `Arc`, with no lock in this code.

use bloomlab_filters::apbf::blocked::concurrent::ConcurrentApbf;
use bloomlab_filters::Persist;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

const MINUTE_MS: u64 = 60_000;
const WINDOW_MS: u64 = 10 * MINUTE_MS;
const PEAK_PER_S: u64 = 5_000;
const THREADS: u64 = 4;
/// Each thread's share of the peak: one id every 0.8 ms.
const STEP_US: u64 = 1_000_000 * THREADS / PEAK_PER_S;

/// What one ingest phase saw.
#[derive(Default)]
struct Tally {
    fresh: AtomicU64,
    false_alarms: AtomicU64,
    repeats: AtomicU64,
    repeats_caught: AtomicU64,
}

/// Thread `t`'s i-th event id.
fn id(t: u64, i: u64) -> String {
    format!("evt-{t}-{i}")
}

/// Four threads ingest events i in `from..to` (each thread its own ids, at
/// its share of the peak rate); every tenth event re-sends the thread's id
/// from two minutes earlier, which must be reported as seen.
fn ingest(filter: &Arc<ConcurrentApbf>, from: u64, to: u64, tally: &Tally) {
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let filter = Arc::clone(filter);
            s.spawn(move || {
                for i in from..to {
                    let now_ms = i * STEP_US / 1000;
                    filter.advance(now_ms);
                    let back = 2 * MINUTE_MS * 1000 / STEP_US;
                    if i % 10 == 0 && i >= back {
                        tally.repeats.fetch_add(1, Relaxed);
                        if filter.contains(&id(t, i - back)) {
                            tally.repeats_caught.fetch_add(1, Relaxed);
                        }
                    }
                    let id = id(t, i);
                    tally.fresh.fetch_add(1, Relaxed);
                    if filter.contains(&id) {
                        tally.false_alarms.fetch_add(1, Relaxed);
                    }
                    filter.insert(&id);
                }
            });
        }
    });
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let peak_keys = PEAK_PER_S * WINDOW_MS / 1000;
    let filter = Arc::new(ConcurrentApbf::for_time(
        WINDOW_MS, peak_keys, 1e-3, true, 0x5eed,
    )?);
    println!(
        "window {} min at up to {PEAK_PER_S} ids/s: {:.2} MiB",
        WINDOW_MS / MINUTE_MS,
        filter.memory_bits() as f64 / 8.0 / (1 << 20) as f64
    );
    let per_minute = MINUTE_MS * 1000 / STEP_US;
    let tally = Tally::default();
    // minutes 0 to 12, then a restart
    ingest(&filter, 0, 12 * per_minute, &tally);
    let path = std::env::temp_dir().join(format!("bloomlab-dedup-{}.bin", std::process::id()));
    std::fs::write(&path, filter.to_bytes())?;
    let restored = Arc::new(ConcurrentApbf::from_bytes(&std::fs::read(&path)?)?);
    std::fs::remove_file(&path)?;
    let mut same = 0;
    for t in 0..THREADS {
        for i in (0..12 * per_minute).step_by(97) {
            assert_eq!(filter.contains(&id(t, i)), restored.contains(&id(t, i)));
            same += 1;
        }
    }
    println!(
        "saved and restored: {} bytes, {same} answers compared, all equal",
        filter.to_bytes().len()
    );
    // minutes 12 to 24 on the restored filter: the ids of minutes 10 to 12
    // are re-sent across the restart
    ingest(&restored, 12 * per_minute, 24 * per_minute, &tally);
    let (repeats, caught) = (
        tally.repeats.load(Relaxed),
        tally.repeats_caught.load(Relaxed),
    );
    let (fresh, alarms) = (tally.fresh.load(Relaxed), tally.false_alarms.load(Relaxed));
    println!("re-sent ids reported as seen: {caught} of {repeats}");
    println!(
        "fresh ids reported as seen (false positives): {alarms} of {fresh} = {:.2e} (target 1e-3)",
        alarms as f64 / fresh as f64
    );
    assert_eq!(caught, repeats, "a re-sent id inside the window was missed");
    // the sizing meets 1e-3 at the worst phase; the average is below it
    assert!(
        (alarms as f64) < 1.5e-3 * fresh as f64,
        "FPR above the target"
    );
    Ok(())
}
