//! The stash: the entries whose two blocks were both full.
//!
//! The design's stash is an array sorted by first block, searched by
//! binary search: a query compares the entries of its first block, oldest
//! first, up to the first active one that matches. That is what
//! [`Stash::holds`] answers and counts. The array here is kept as a sorted
//! part followed by a short unsorted tail of the latest entries (merged into
//! the sorted part once it is [`Stash::tail_limit`] long), because an
//! insertion into the middle of a sorted array moves half of it: on a stream
//! whose keys repeat (a Zipf stream's heaviest key fills its two blocks and
//! sends every further copy here) the stash holds tens of thousands of
//! entries, and those moves were most of an insertion's time.
//!
//! Nothing observable changes. Every entry with a given first block sits
//! in the sorted part or in the tail, and all of the sorted part's are
//! older than all of the tail's, so the entries a query compares, and their
//! order, are those of the fully sorted array; the vector grows by one
//! entry at a time either way, so its capacity (counted in the filter's
//! memory) is the same; and a saved filter writes its stash fully sorted,
//! as before, and sorts what it reads (so that no file can hide an entry
//! from the search).

use super::{Fingerprint, StashEntry};

/// The stash's entries: `entries[..sorted]` sorted by first block (ties in
/// insertion order), then the newer entries in insertion order.
#[derive(Debug, Clone, Default)]
pub(super) struct Stash {
    entries: Vec<StashEntry>,
    sorted: usize,
}

impl Stash {
    /// A stash of `entries` in any order: sorted by first block, ties kept
    /// in the given order.
    pub(super) fn from_entries(mut entries: Vec<StashEntry>) -> Self {
        entries.sort_by_key(|e| e.fp.b1);
        let sorted = entries.len();
        Stash { entries, sorted }
    }

    /// The entries as the design's sorted array holds them.
    pub(super) fn sorted_entries(&self) -> Vec<StashEntry> {
        let mut all = self.entries.clone();
        all.sort_by_key(|e| e.fp.b1);
        all
    }

    /// Entries held.
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Entries allocated.
    pub(super) fn capacity(&self) -> usize {
        self.entries.capacity()
    }

    /// The entries, in no particular order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &StashEntry> {
        self.entries.iter()
    }

    /// The longest the unsorted tail grows before it is merged: about the
    /// square root of the stash, which balances the merge's moves (the
    /// whole stash once per `tail_limit` insertions) against a query's
    /// scan of the tail.
    fn tail_limit(&self) -> usize {
        (self.sorted.isqrt()).clamp(16, 512)
    }

    /// Adds `e` after every entry with its first block.
    pub(super) fn push(&mut self, e: StashEntry) {
        self.entries.push(e);
        if self.entries.len() - self.sorted > self.tail_limit() {
            self.merge();
        }
    }

    /// Sorts the tail into the sorted part (a stable sort: the sorted part
    /// is one run, the tail's order among equal blocks is kept).
    fn merge(&mut self) {
        self.entries.sort_by_key(|e| e.fp.b1);
        self.sorted = self.entries.len();
    }

    /// Keeps the entries `keep` accepts, in their order.
    pub(super) fn retain(&mut self, mut keep: impl FnMut(&StashEntry) -> bool) {
        let mut i = 0;
        let sorted = self.sorted;
        let mut kept_sorted = 0;
        self.entries.retain(|e| {
            let k = keep(e);
            kept_sorted += (k && i < sorted) as usize;
            i += 1;
            k
        });
        self.sorted = kept_sorted;
    }

    /// Whether an entry of `fp` that `active` accepts is held, and the
    /// entries compared: those with `fp`'s first block, oldest first, up to
    /// that entry.
    #[inline]
    pub(super) fn holds(&self, fp: &Fingerprint, active: impl Fn(u64) -> bool) -> (bool, u32) {
        let (head, tail) = self.entries.split_at(self.sorted);
        let from = head.partition_point(|e| e.fp.b1 < fp.b1);
        let same = head[from..].iter().take_while(|e| e.fp.b1 == fp.b1);
        let later = tail.iter().filter(|e| e.fp.b1 == fp.b1);
        let mut compared = 0;
        for e in same.chain(later) {
            compared += 1;
            if e.fp == *fp && active(e.tag) {
                return (true, compared);
            }
        }
        (false, compared)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::mix64;

    /// The design's stash as it was written: one sorted vector, each entry
    /// inserted after those with its first block.
    #[derive(Default)]
    struct Model(Vec<StashEntry>);

    impl Model {
        fn push(&mut self, e: StashEntry) {
            let at = self.0.partition_point(|x| x.fp.b1 <= e.fp.b1);
            self.0.insert(at, e);
        }
        fn holds(&self, fp: &Fingerprint, active: impl Fn(u64) -> bool) -> (bool, u32) {
            let from = self.0.partition_point(|e| e.fp.b1 < fp.b1);
            let mut compared = 0;
            for e in self.0[from..].iter().take_while(|e| e.fp.b1 == fp.b1) {
                compared += 1;
                if e.fp == *fp && active(e.tag) {
                    return (true, compared);
                }
            }
            (false, compared)
        }
    }

    fn entry(i: u64, blocks: u64, tag: u64) -> StashEntry {
        let h = mix64(i);
        // few blocks and fingerprints, so that groups and matches repeat
        StashEntry {
            fp: Fingerprint {
                b1: h % blocks,
                b2: (h >> 20) % blocks,
                q: (h >> 40) as u32 % 3,
                rem: (h >> 50) % 4,
            },
            tag,
        }
    }

    #[test]
    fn answers_counts_order_and_capacity_equal_the_sorted_vector() {
        for blocks in [1, 7, 300] {
            let (mut s, mut m) = (Stash::default(), Model::default());
            for i in 0..6000u64 {
                let tag = (i / 500) % 4;
                let e = entry(i, blocks, tag);
                s.push(e);
                m.push(e);
                if i % 1000 == 999 {
                    // a sweep: drop the tags two generations back
                    let old = (tag + 2) % 4;
                    s.retain(|e| e.tag != old);
                    m.0.retain(|e| e.tag != old);
                }
                assert_eq!((s.len(), s.capacity()), (m.0.len(), m.0.capacity()));
                let probe = entry(mix64(i ^ 0xABCD), blocks, 0).fp;
                for active in [|_| true, |t: u64| t.is_multiple_of(2)] {
                    assert_eq!(s.holds(&probe, active), m.holds(&probe, active), "{i}");
                    let held = e.fp;
                    assert_eq!(s.holds(&held, active), m.holds(&held, active), "{i}");
                }
            }
            assert_eq!(s.sorted_entries(), m.0);
            let again = Stash::from_entries(s.sorted_entries());
            assert_eq!(again.sorted_entries(), m.0);
        }
    }

    #[test]
    fn entries_read_in_any_order_are_all_found() {
        let mut es: Vec<_> = (0..200).map(|i| entry(i, 50, 1)).collect();
        es.reverse();
        let s = Stash::from_entries(es.clone());
        for e in &es {
            assert!(s.holds(&e.fp, |_| true).0);
        }
    }
}
