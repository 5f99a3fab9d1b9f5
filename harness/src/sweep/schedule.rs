//! How a run's points reach its threads: in the order given (the run gives
//! them longest first, [`super::shard::costliest_first`]), each thread
//! taking the next point as soon as it finishes one (list scheduling).
//! Handing rayon the points in expansion order let a long point start last,
//! with the other cores idle until it ended. The order changes nothing but
//! the wall time: a point's randomness comes from its index, and the rows
//! are put back in expansion order.

use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

/// Runs `work` on every item over the current rayon pool, handing the items
/// out in the order given: each of the pool's threads takes the next one
/// when it is free. After the first error no further item is started, and
/// that error is returned.
pub(super) fn in_order<T: Sync, R: Send>(
    items: &[T],
    work: impl Fn(&T) -> anyhow::Result<R> + Sync,
) -> anyhow::Result<Vec<R>> {
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let threads = rayon::current_num_threads().clamp(1, items.len().max(1));
    let per_thread: Vec<anyhow::Result<Vec<R>>> = (0..threads)
        .into_par_iter()
        .with_max_len(1)
        .map(|_| {
            let mut out = Vec::new();
            while !failed.load(Relaxed) {
                let Some(item) = items.get(next.fetch_add(1, Relaxed)) else {
                    break;
                };
                match work(item) {
                    Ok(r) => out.push(r),
                    Err(e) => {
                        failed.store(true, Relaxed);
                        return Err(e);
                    }
                }
            }
            Ok(out)
        })
        .collect();
    let mut all = Vec::with_capacity(items.len());
    for part in per_thread {
        all.extend(part?);
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    }

    #[test]
    fn every_item_runs_once_and_starts_in_the_order_given() {
        let items: Vec<usize> = (0..50).collect();
        let started = std::sync::Mutex::new(Vec::new());
        let out = pool(1)
            .install(|| {
                in_order(&items, |&i| {
                    started.lock().unwrap().push(i);
                    Ok(i * 2)
                })
            })
            .unwrap();
        assert_eq!(started.into_inner().unwrap(), items);
        let mut out = out;
        out.sort();
        assert_eq!(out, (0..50).map(|i| i * 2).collect::<Vec<_>>());
        // on two threads every item still runs exactly once
        let mut out = pool(2).install(|| in_order(&items, |&i| Ok(i))).unwrap();
        out.sort();
        assert_eq!(out, items);
    }

    #[test]
    fn an_error_stops_the_handing_out_and_is_returned() {
        let items: Vec<usize> = (0..100).collect();
        let ran = AtomicUsize::new(0);
        let err = pool(1)
            .install(|| {
                in_order(&items, |&i| {
                    ran.fetch_add(1, Relaxed);
                    if i == 3 {
                        anyhow::bail!("point 3 failed")
                    }
                    Ok(i)
                })
            })
            .unwrap_err();
        assert_eq!(err.to_string(), "point 3 failed");
        assert_eq!(ran.load(Relaxed), 4);
    }
}
