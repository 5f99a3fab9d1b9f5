use super::*;
use crate::hash::mix64;
use crate::{Filter, TimedFilter};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Single-threaded, every answer is the sequential blocked APBF's, and so
/// is the state.
#[test]
fn one_thread_answers_as_the_sequential_filter() {
    let c = ConcurrentApbf::with_shift(4, 3, 40, 32, Shift::Count, 0).unwrap();
    let mut s = BlockedApbf::new(crate::BlockedApbfShape {
        hashes: 4,
        extra_slices: 3,
        generation: 40,
        blocks: Some(32),
    })
    .unwrap();
    for i in 0..5000u64 {
        c.insert_hash(mix64(i));
        s.insert(mix64(i));
        for q in [
            mix64(i / 2),
            mix64(i + 1_000_000),
            mix64(i.saturating_sub(150)),
        ] {
            assert_eq!(c.contains_hash(q), s.contains(q), "step {i}");
        }
    }
    use crate::Persist;
    assert_eq!(c.to_blocked().to_bytes(), s.to_bytes());
}

/// With time or hybrid generations, single-threaded, every answer is
/// `OnTime<BlockedApbf>`'s.
#[test]
fn one_thread_answers_as_the_sequential_time_filter() {
    for (shift, trigger) in [
        (Shift::Time(30), Trigger::Time),
        (Shift::Hybrid(30), Trigger::Hybrid),
    ] {
        let c = ConcurrentApbf::with_shift(4, 3, 40, 32, shift, 0).unwrap();
        let mut s = OnTime::wrap(
            BlockedApbf::new(crate::BlockedApbfShape {
                hashes: 4,
                extra_slices: 3,
                generation: 40,
                blocks: Some(32),
            })
            .unwrap(),
            30,
            trigger,
        )
        .unwrap();
        let mut now = 0;
        for i in 0..6000u64 {
            now += [0, 1, 1, 2, 9, 60][(mix64(i) % 6) as usize];
            c.advance(now);
            s.advance(now);
            c.insert_hash(mix64(i));
            s.insert(mix64(i));
            for q in [
                mix64(i / 2),
                mix64(i + 1_000_000),
                mix64(i.saturating_sub(100)),
            ] {
                assert_eq!(c.contains_hash(q), s.contains(q), "{shift:?} step {i}");
            }
        }
        use crate::Persist;
        assert_eq!(
            c.to_on_time().unwrap().to_bytes(),
            s.to_bytes(),
            "{shift:?}"
        );
    }
}

const THREADS: u64 = 4;
const PER: u64 = 100_000;

/// A filter the race below drives: insertions, queries and the clock on
/// `&self`, and a save that loads.
pub(crate) trait Racing: Send + Sync + 'static + crate::Persist {
    fn insert_hash(&self, key: u64);
    fn contains_hash(&self, key: u64) -> bool;
    fn advance(&self, now: u64);
}

impl Racing for ConcurrentApbf {
    fn insert_hash(&self, key: u64) {
        ConcurrentApbf::insert_hash(self, key)
    }
    fn contains_hash(&self, key: u64) -> bool {
        ConcurrentApbf::contains_hash(self, key)
    }
    fn advance(&self, now: u64) {
        ConcurrentApbf::advance(self, now)
    }
}

/// Four writers insert their own keys; before each insertion a writer
/// takes a stamp (`stamp`, from a counter shared by all), and after it
/// publishes (stamp, key). A reader queries each writer's latest finished
/// key, reads the counter, and counts the misses among the keys `inside`
/// (stamp, counter) says must be reported. Returns (checked, misses).
pub(crate) fn race<F: Racing>(
    f: &Arc<F>,
    stamp: fn(&F, &AtomicU64, u64) -> u64,
    inside: fn(u64, u64) -> bool,
) -> (u64, u64) {
    race_on(f, stamp, inside, false)
}

/// [`race`], the reader asking either the live filter or (`saved`) a
/// filter loaded from `to_bytes` taken after it read the finished keys
/// and while the writers go on.
pub(crate) fn race_on<F: Racing>(
    f: &Arc<F>,
    stamp: fn(&F, &AtomicU64, u64) -> u64,
    inside: fn(u64, u64) -> bool,
    saved: bool,
) -> (u64, u64) {
    let counter = Arc::new(AtomicU64::new(0));
    let done: Arc<Vec<AtomicU64>> =
        Arc::new((0..THREADS).map(|_| AtomicU64::new(u64::MAX)).collect());
    let stop = Arc::new(AtomicBool::new(false));
    let reader = {
        let (f, counter, done, stop) = (f.clone(), counter.clone(), done.clone(), stop.clone());
        std::thread::spawn(move || {
            let (mut checked, mut misses) = (0u64, 0u64);
            while !stop.load(Acquire) {
                let finished: Vec<u64> = done.iter().map(|d| d.load(Acquire)).collect();
                let copy =
                    saved.then(|| F::from_bytes(&f.to_bytes()).expect("loads its own snapshot"));
                let asked: &F = copy.as_ref().unwrap_or(&f);
                for &v in &finished {
                    if v == u64::MAX {
                        continue;
                    }
                    let (at, key) = (v >> 32, v & 0xFFFF_FFFF);
                    let yes = asked.contains_hash(mix64(key));
                    if inside(at, counter.load(Acquire)) {
                        checked += 1;
                        misses += !yes as u64;
                    }
                }
            }
            (checked, misses)
        })
    };
    let writers: Vec<_> = (0..THREADS)
        .map(|t| {
            let (f, counter, done) = (f.clone(), counter.clone(), done.clone());
            std::thread::spawn(move || {
                for i in 0..PER {
                    let key = t * PER + i;
                    let at = stamp(&f, &counter, key);
                    f.insert_hash(mix64(key));
                    done[t as usize].store(at << 32 | key, Release);
                    if i % 4096 == 0 {
                        // let the reader in on a machine with fewer cores
                        std::thread::yield_now();
                    }
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    stop.store(true, Release);
    reader.join().unwrap()
}

/// Under shifts every 16 insertions, every finished key still inside the
/// window (by a conservative count: insertions started since it, plus the
/// other writers' that started before it) is reported. 2048 blocks make
/// each shift's clear long enough that publishing the new base before
/// clearing (a planted bug) failed this test in 4 of 5 runs here (a race,
/// which no single-threaded test can see); writing
/// one slice off fails it every time.
#[test]
fn finished_insertions_are_reported_under_concurrent_shifts() {
    let f = Arc::new(ConcurrentApbf::with_shift(3, 4, 16, 2048, Shift::Count, 1).unwrap());
    // window l g = 64 insertions
    let (checked, misses) = race(
        &f,
        |_, started, _| started.fetch_add(1, AcqRel),
        |s_k, started| started - s_k + THREADS < 4 * 16,
    );
    assert_eq!(
        misses, 0,
        "{misses} false negatives among {checked} checked"
    );
    assert!(checked > 100, "only {checked} queries inside the window");
    assert_eq!(f.inserted(), THREADS * PER);
}

/// A writer's stamp: the shared clock, moved on by one about every 8th
/// key, and the filter advanced to it.
pub(crate) fn tick_every_8th<F: Racing>(f: &F, clock: &AtomicU64, key: u64) -> u64 {
    let now = if mix64(key).is_multiple_of(8) {
        clock.fetch_add(1, AcqRel) + 1
    } else {
        clock.load(Acquire)
    };
    f.advance(now);
    now
}

/// The same under time generations (τ = 20, a window of 80), the clock
/// moved by the writers about once per 8 insertions: a key finished at
/// time t is reported while the clock is below t + T.
#[test]
fn finished_insertions_are_reported_under_concurrent_time_shifts() {
    let f = Arc::new(ConcurrentApbf::with_shift(3, 4, 16, 2048, Shift::Time(20), 1).unwrap());
    let (checked, misses) = race(&f, tick_every_8th, |t_k, clock| clock < t_k + 4 * 20);
    assert_eq!(
        misses, 0,
        "{misses} false negatives among {checked} checked"
    );
    assert!(checked > 100, "only {checked} queries inside the window");
}

/// A service saves the filter while its threads keep writing: `to_bytes`
/// takes its copy under the shift lock, so a filter loaded from it reports
/// every key finished before the save began that is inside the window, under
/// time and hybrid shifts made by the writers meanwhile; and the copy
/// always loads (its clock and count are those of a state the filter was
/// in: an `advance` under way used to leave a clock τ past the
/// generation's start).
#[test]
fn snapshots_taken_while_writing_keep_every_finished_key() {
    for shift in [Shift::Time(20), Shift::Hybrid(20)] {
        let f = Arc::new(ConcurrentApbf::with_shift(3, 4, 64, 256, shift, 1).unwrap());
        let (checked, misses) = race_on(
            &f,
            tick_every_8th,
            // the hybrid's: ⌊age/τ⌋ + ⌊later/g⌋ < l holds within 10 ticks
            // (about 80 insertions later, g = 64)
            match shift {
                Shift::Time(_) => |t_k, clock| clock < t_k + 4 * 20,
                _ => |t_k, clock| clock < t_k + 10,
            },
            true,
        );
        assert_eq!(
            misses, 0,
            "{shift:?}: {misses} of {checked} lost in a snapshot"
        );
        assert!(checked > 50, "{shift:?}: only {checked} checked");
    }
}

/// A saved concurrent filter loads and answers as before.
#[test]
fn saves_and_loads() {
    use crate::Persist;
    let f = ConcurrentApbf::with_shift(3, 4, 100, 64, Shift::Hybrid(100), 5).unwrap();
    for i in 0..3000u64 {
        f.advance(i / 10);
        f.insert(&i);
    }
    let g = ConcurrentApbf::from_bytes(&f.to_bytes()).unwrap();
    for i in 0..6000u64 {
        assert_eq!(f.contains(&i), g.contains(&i));
    }
    assert_eq!(g.to_bytes(), f.to_bytes());
    assert!(ConcurrentApbf::from_bytes(&f.to_bytes()[..100]).is_err());
}

#[test]
fn is_send_and_sync() {
    fn both<T: Send + Sync>() {}
    both::<ConcurrentApbf>();
}
