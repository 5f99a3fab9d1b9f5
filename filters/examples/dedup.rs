//! Have I seen this event id in the last 10 minutes? Up to 5,000 ids per
//! second, FPR 1e-3, four ingest threads, a save every minute while the
//! threads write, and a restart in the middle through the crate's format
//! and through serde.
//!
//! ```sh
//! cargo run --release -p bloomlab-filters --features serde --example dedup
//! ```
//!
//! Time is simulated (milliseconds, as if read from each event's own
//! timestamp), so that 24 minutes of traffic run in seconds; a service
//! passes its clock the same way. The ids arrive in batches: each second's
//! 5,000 at once, split over four threads that share one clock. Each
//! second, at 990 ms, every thread re-sends ids of ages spread over the
//! whole window, the oldest 599.99 s old (10 ms inside the window's edge):
//! every one must be reported as seen. Fresh ids are asked before they are
//! inserted: those reported as seen are false positives, counted by where
//! in its generation the filter was, so that the worst phase is seen.
//!
//! The filter is built by the crate's front door, `Target`, with the
//! default time trigger: every id younger than the window is kept whatever
//! the arrivals. Its hasher's seed is secret (here a constant; a service
//! draws one and stores it with its saves).

use bloomlab_filters::build::Target;
use bloomlab_filters::{ConcurrentApbf, Persist};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Barrier};

const SECOND_MS: u64 = 1_000;
const WINDOW_S: u64 = 600;
const PEAK_PER_S: u64 = 5_000;
const THREADS: u64 = 4;
const PER_THREAD: u64 = PEAK_PER_S / THREADS;
/// Ids each thread re-sends each second, at ages spread over the window.
const RESENT: u64 = 20;
/// Bins of a generation's phase for the FPR.
const PHASES: usize = 10;
const TARGET_FPR: f64 = 1e-3;

/// What the ingest saw.
struct Tally {
    resent: AtomicU64,
    missed: AtomicU64,
    /// Fresh ids and false positives by phase bin.
    fresh: Vec<AtomicU64>,
    alarms: Vec<AtomicU64>,
}

impl Tally {
    fn new() -> Tally {
        Tally {
            resent: AtomicU64::new(0),
            missed: AtomicU64::new(0),
            fresh: (0..PHASES).map(|_| AtomicU64::new(0)).collect(),
            alarms: (0..PHASES).map(|_| AtomicU64::new(0)).collect(),
        }
    }
}

/// Thread `t`'s i-th id of second `s`.
fn id(s: u64, t: u64, i: u64) -> String {
    format!("evt-{s}-{t}-{i}")
}

/// The filter's phase bin: where the clock is in the current generation.
fn phase(f: &ConcurrentApbf) -> usize {
    let tau = f.tau().expect("a time filter");
    let into = f.now() - f.generation_start();
    ((into * PHASES as u64 / tau) as usize).min(PHASES - 1)
}

/// Seconds `from..to` on `filter`: at each second's start the four threads
/// insert its ids (a batch), at 990 ms they re-send older ones. A saver
/// thread saves the filter every minute meanwhile and checks the save loads.
fn ingest(filter: &Arc<ConcurrentApbf>, from: u64, to: u64, tally: &Tally) {
    let barrier = Barrier::new(THREADS as usize);
    let done = AtomicU64::new(0);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            // the save a service makes while its writers run: to_bytes takes
            // a consistent snapshot (no pause of the writers)
            let mut saves = 0;
            while done.load(Relaxed) < THREADS {
                std::thread::sleep(std::time::Duration::from_millis(100));
                let bytes = filter.to_bytes();
                ConcurrentApbf::from_bytes(&bytes).expect("a save taken while writing loads");
                saves += 1;
            }
            println!("  {saves} saves taken while the threads wrote, each loaded back");
        });
        for t in 0..THREADS {
            let (filter, barrier, done) = (Arc::clone(filter), &barrier, &done);
            scope.spawn(move || {
                for s in from..to {
                    let start = s * SECOND_MS;
                    filter.advance(start);
                    let bin = phase(&filter);
                    for i in 0..PER_THREAD {
                        let fresh = id(s, t, i);
                        tally.fresh[bin].fetch_add(1, Relaxed);
                        if filter.contains(&fresh) {
                            tally.alarms[bin].fetch_add(1, Relaxed);
                        }
                        filter.insert(&fresh);
                    }
                    barrier.wait();
                    // 990 ms into the second: ids of seconds s - 599 ..= s,
                    // the oldest 599.99 s old, all inside the window
                    filter.advance(start + 990);
                    for j in 0..RESENT {
                        let age = if j == 0 {
                            WINDOW_S - 1
                        } else {
                            (s * 7 + j * 31 + t) % WINDOW_S
                        };
                        let Some(back) = s.checked_sub(age) else {
                            continue;
                        };
                        tally.resent.fetch_add(1, Relaxed);
                        if !filter.contains(&id(back, t, (j * 97 + s) % PER_THREAD)) {
                            tally.missed.fetch_add(1, Relaxed);
                        }
                    }
                    barrier.wait();
                }
                done.fetch_add(1, Relaxed);
            });
        }
    });
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // the last 10 minutes at up to 5,000 ids a second, a clock in ms
    let target = Target::time(WINDOW_S as f64, PEAK_PER_S as f64)
        .ticks_per_unit(SECOND_MS as f64)
        .fpr(TARGET_FPR)
        .seed(0x5eed_5ec2e7);
    let filter: ConcurrentApbf = target.build()?;
    println!(
        "window {} min at up to {PEAK_PER_S} ids/s: {:.2} MiB; k = {}, l = {}, g = {}, τ = {} ms, \
         trigger {:?}, window {} ms, slack {} ms",
        WINDOW_S / 60,
        filter.memory_bits() as f64 / 8.0 / (1 << 20) as f64,
        filter.k(),
        filter.l(),
        filter.g(),
        filter.tau().unwrap_or(0),
        filter.trigger(),
        filter.window_time().unwrap_or(0),
        filter.slack_time().unwrap_or(0),
    );
    let filter = Arc::new(filter);
    let tally = Tally::new();
    println!("minutes 0 to 12");
    ingest(&filter, 0, 12 * 60, &tally);

    // the restart: the crate's format and serde, each loaded and compared
    let bytes = filter.to_bytes();
    let json = serde_json::to_string(&*filter)?;
    let restored = ConcurrentApbf::from_bytes(&bytes)?;
    let through_serde: ConcurrentApbf = serde_json::from_str(&json)?;
    assert_eq!(restored.to_bytes(), bytes);
    assert_eq!(through_serde.to_bytes(), bytes);
    // a damaged or cut save is an error, never a filter
    for cut in [0, 13, bytes.len() / 2, bytes.len() - 1] {
        assert!(ConcurrentApbf::from_bytes(&bytes[..cut]).is_err());
    }
    for at in [10, 40, bytes.len() / 3, bytes.len() - 3] {
        let mut bad = bytes.clone();
        bad[at] ^= 0x10;
        assert!(
            ConcurrentApbf::from_bytes(&bad).is_err(),
            "byte {at} flipped was accepted"
        );
    }
    println!(
        "saved and restored: {} bytes (and {} of JSON), equal; 8 damaged saves refused",
        bytes.len(),
        json.len()
    );

    // minutes 12 to 24 on the restored filter: ids from before the restart
    // are re-sent across it
    println!("minutes 12 to 24, restored");
    ingest(&Arc::new(restored), 12 * 60, 24 * 60, &tally);

    let (resent, missed) = (tally.resent.load(Relaxed), tally.missed.load(Relaxed));
    println!(
        "re-sent ids (ages up to 599.99 s) reported as seen: {} of {resent}",
        resent - missed
    );
    assert_eq!(missed, 0, "an id inside the window was missed");
    // the FPR at each phase of a generation: the sizing meets the target at
    // the worst one, so no phase may be significantly above it (one-sided,
    // z = 3.1, p = 0.001 per phase)
    let mut worst: f64 = 0.0;
    for b in 0..PHASES {
        let (n, x) = (
            tally.fresh[b].load(Relaxed) as f64,
            tally.alarms[b].load(Relaxed) as f64,
        );
        if n == 0.0 {
            continue;
        }
        let rate = x / n;
        worst = worst.max(rate);
        let z = (rate - TARGET_FPR) / (TARGET_FPR * (1.0 - TARGET_FPR) / n).sqrt();
        println!(
            "  phase {b}/{PHASES}: FPR {rate:.3e} of {n} fresh ids (z = {z:+.1} against 1e-3)"
        );
        assert!(
            z < 3.1,
            "FPR {rate:.3e} at phase {b} significantly above 1e-3"
        );
    }
    let (n, x): (u64, u64) = (
        tally.fresh.iter().map(|a| a.load(Relaxed)).sum(),
        tally.alarms.iter().map(|a| a.load(Relaxed)).sum(),
    );
    println!(
        "fresh ids reported as seen (false positives): {x} of {n} = {:.3e}, worst phase {worst:.3e} (target 1e-3)",
        x as f64 / n as f64
    );
    Ok(())
}
