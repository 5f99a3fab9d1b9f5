//! The order a run's points are measured in: longest first, each thread
//! taking the next point as soon as it finishes one (list scheduling in
//! decreasing estimated cost). Handing rayon the points in expansion order
//! let a long point start last, with the other cores idle until it ended.
//! The order changes nothing but the wall time: a point's randomness comes
//! from its index, and the rows are put back in expansion order.

use rayon::prelude::*;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

/// `items` ordered by decreasing estimated cost, `costs` holding (point
/// index, cost) and `index` giving an item's point index; ties, and items
/// without an estimate, in index order.
pub(super) fn longest_first<T>(
    items: &mut [T],
    index: impl Fn(&T) -> usize,
    costs: &[(usize, f64)],
) {
    let cost: BTreeMap<usize, f64> = costs.iter().copied().collect();
    let of = |t: &T| cost.get(&index(t)).copied().unwrap_or(0.0);
    items.sort_by(|a, b| {
        of(b)
            .partial_cmp(&of(a))
            .unwrap_or(Ordering::Equal)
            .then(index(a).cmp(&index(b)))
    });
}

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

    #[test]
    fn the_costliest_points_come_first_and_ties_keep_their_order() {
        let mut items = vec![0, 1, 2, 3, 4];
        let costs = [(0, 1.0), (1, 5.0), (2, 1.0), (3, 9.0)];
        longest_first(&mut items, |&i| i, &costs);
        assert_eq!(items, vec![3, 1, 0, 2, 4]);
    }

    #[test]
    fn every_item_runs_once_and_starts_in_the_order_given() {
        let items: Vec<usize> = (0..50).collect();
        let started = std::sync::Mutex::new(Vec::new());
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let out = pool
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
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let mut out = pool.install(|| in_order(&items, |&i| Ok(i))).unwrap();
        out.sort();
        assert_eq!(out, items);
    }

    #[test]
    fn an_error_stops_the_handing_out_and_is_returned() {
        let items: Vec<usize> = (0..100).collect();
        let ran = AtomicUsize::new(0);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let err = pool
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
