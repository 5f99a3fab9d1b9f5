//! Memoized pure functions, for the exact theories whose evaluation takes
//! seconds at large windows (the Sliding Sketches', SHE's and
//! Clock-sketch's sizings, and the harness's theories built from them).
//!
//! A [`Memo`] maps a key to the value a pure function gives for it: the
//! first call computes it, later calls with an equal key clone it. Two
//! threads asking for the same key at once compute it once (the second
//! waits); different keys compute in parallel. The map is cleared when it
//! holds [`Memo::CAPACITY`] keys, so a long sweep over many sizes keeps a
//! bounded memory. A memoized function must be pure: the value depends on
//! the key alone, so that a cached answer is the answer.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// A cache of a pure function's values by key. See the module
/// documentation.
pub struct Memo<K, V> {
    map: Mutex<Option<HashMap<K, Arc<OnceLock<V>>>>>,
}

impl<K, V> Default for Memo<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K, V> Memo<K, V> {
    /// Keys held before the cache is cleared.
    pub const CAPACITY: usize = 256;

    /// An empty cache (usable in a `static`).
    pub const fn new() -> Self {
        Memo {
            map: Mutex::new(None),
        }
    }
}

impl<K: Hash + Eq, V: Clone> Memo<K, V> {
    /// The value for `key`: cached, or `f()`, cached for next time.
    pub fn get_or(&self, key: K, f: impl FnOnce() -> V) -> V {
        let cell = {
            let mut guard = self.map.lock().unwrap_or_else(PoisonError::into_inner);
            let map = guard.get_or_insert_with(HashMap::new);
            if map.len() >= Self::CAPACITY && !map.contains_key(&key) {
                map.clear();
            }
            Arc::clone(map.entry(key).or_default())
        };
        // outside the map's lock: other keys go on in parallel; the same
        // key waits here for the first caller's value
        cell.get_or_init(f).clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn computes_each_key_once_and_returns_its_value() {
        let memo: Memo<u64, u64> = Memo::new();
        let calls = AtomicU64::new(0);
        let square = |x: u64| {
            calls.fetch_add(1, Ordering::SeqCst);
            x * x
        };
        assert_eq!(memo.get_or(3, || square(3)), 9);
        assert_eq!(memo.get_or(3, || square(3)), 9);
        assert_eq!(memo.get_or(4, || square(4)), 16);
        assert_eq!(calls.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn concurrent_callers_of_one_key_compute_it_once() {
        let memo: Memo<u64, u64> = Memo::new();
        let calls = AtomicU64::new(0);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    memo.get_or(7, || {
                        calls.fetch_add(1, Ordering::SeqCst);
                        std::thread::sleep(std::time::Duration::from_millis(20));
                        49
                    })
                });
            }
        });
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        assert_eq!(memo.get_or(7, || 0), 49);
    }

    #[test]
    fn a_full_cache_is_cleared_and_still_answers() {
        let memo: Memo<usize, usize> = Memo::new();
        for i in 0..Memo::<usize, usize>::CAPACITY + 10 {
            assert_eq!(memo.get_or(i, || i + 1), i + 1);
        }
        let held = memo.map.lock().unwrap().as_ref().unwrap().len();
        assert!(held <= Memo::<usize, usize>::CAPACITY, "{held}");
        assert_eq!(memo.get_or(0, || 1), 1);
    }
}
