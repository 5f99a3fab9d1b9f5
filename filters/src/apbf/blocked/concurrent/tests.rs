use super::*;
use crate::hash::mix64;
use crate::{Filter, TimedFilter};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Single-threaded, every answer is the sequential blocked APBF's, and so
/// is the state.
#[test]
fn one_thread_answers_as_the_sequential_filter() {
    let c = ConcurrentApbf::new(4, 3, 40, 32, Shift::Count, 0).unwrap();
    let mut s = BlockedApbf::new(4, 3, 40, 32).unwrap();
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
        let c = ConcurrentApbf::new(4, 3, 40, 32, shift, 0).unwrap();
        let mut s = OnTime::wrap(BlockedApbf::new(4, 3, 40, 32).unwrap(), 30, trigger).unwrap();
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

/// Writers insert distinct keys from four threads while a reader queries
/// the latest key each writer finished: every such key still inside the
/// window (by a conservative count) must be reported. Small generations
/// (g = 16) make shifts race with both, and 2048 blocks make each shift's
/// clear long enough that publishing the new base before clearing (a
/// planted bug) fails this test on every run; so does writing one slice
/// off.
#[test]
fn finished_insertions_are_reported_under_concurrent_shifts() {
    const THREADS: u64 = 4;
    const PER: u64 = 100_000;
    let f = Arc::new(ConcurrentApbf::new(3, 4, 16, 2048, Shift::Count, 1).unwrap());
    let w = 4 * 16;
    let started = Arc::new(AtomicU64::new(0));
    // per writer: (its started count when it began the key) << 32 | key index
    let done: Arc<Vec<AtomicU64>> =
        Arc::new((0..THREADS).map(|_| AtomicU64::new(u64::MAX)).collect());
    let stop = Arc::new(AtomicBool::new(false));
    let reader = {
        let (f, started, done, stop) = (f.clone(), started.clone(), done.clone(), stop.clone());
        std::thread::spawn(move || {
            let (mut checked, mut misses) = (0u64, 0u64);
            while !stop.load(Acquire) {
                for d in done.iter() {
                    let v = d.load(Acquire);
                    if v == u64::MAX {
                        continue;
                    }
                    let (s_k, key) = (v >> 32, v & 0xFFFF_FFFF);
                    let yes = f.contains_hash(mix64(key));
                    let end = started.load(Acquire);
                    // claims after the key's: at most those started after
                    // it, plus the other writers' that started before it
                    if end - s_k + THREADS < w {
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
            let (f, started, done) = (f.clone(), started.clone(), done.clone());
            std::thread::spawn(move || {
                for i in 0..PER {
                    let key = t * PER + i;
                    let s_k = started.fetch_add(1, AcqRel);
                    f.insert_hash(mix64(key));
                    done[t as usize].store(s_k << 32 | key, Release);
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
    let (checked, misses) = reader.join().unwrap();
    assert_eq!(
        misses, 0,
        "{misses} false negatives among {checked} checked"
    );
    assert!(checked > 100, "only {checked} queries inside the window");
    assert_eq!(f.inserted(), THREADS * PER);
}

/// The same under time generations, with the clock moved by the writers:
/// a key finished at time t is reported while the clock is below t + T.
#[test]
fn finished_insertions_are_reported_under_concurrent_time_shifts() {
    const THREADS: u64 = 4;
    const PER: u64 = 100_000;
    let tau = 20;
    let f = Arc::new(ConcurrentApbf::new(3, 4, 16, 2048, Shift::Time(tau), 1).unwrap());
    let window = 4 * tau;
    let clock = Arc::new(AtomicU64::new(0));
    let done: Arc<Vec<AtomicU64>> =
        Arc::new((0..THREADS).map(|_| AtomicU64::new(u64::MAX)).collect());
    let stop = Arc::new(AtomicBool::new(false));
    let reader = {
        let (f, clock, done, stop) = (f.clone(), clock.clone(), done.clone(), stop.clone());
        std::thread::spawn(move || {
            let (mut checked, mut misses) = (0u64, 0u64);
            while !stop.load(Acquire) {
                for d in done.iter() {
                    let v = d.load(Acquire);
                    if v == u64::MAX {
                        continue;
                    }
                    let (t_k, key) = (v >> 32, v & 0xFFFF_FFFF);
                    let yes = f.contains_hash(mix64(key));
                    if clock.load(Acquire) < t_k + window {
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
            let (f, clock, done) = (f.clone(), clock.clone(), done.clone());
            std::thread::spawn(move || {
                for i in 0..PER {
                    let key = t * PER + i;
                    // about one time unit per 8 insertions, all threads together
                    let now = if mix64(key).is_multiple_of(8) {
                        clock.fetch_add(1, AcqRel) + 1
                    } else {
                        clock.load(Acquire)
                    };
                    f.advance(now);
                    f.insert_hash(mix64(key));
                    done[t as usize].store(now << 32 | key, Release);
                    if i % 4096 == 0 {
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
    let (checked, misses) = reader.join().unwrap();
    assert_eq!(
        misses, 0,
        "{misses} false negatives among {checked} checked"
    );
    assert!(checked > 100, "only {checked} queries inside the window");
}

/// A saved concurrent filter loads and answers as before.
#[test]
fn saves_and_loads() {
    use crate::Persist;
    let f = ConcurrentApbf::with_fpr(1000, 1e-2, Shift::Hybrid(0), 5).unwrap();
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
