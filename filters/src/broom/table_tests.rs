//! Tests of the quotient table, and the re-layout reference its in-place
//! updates are checked against.

use super::*;
use crate::hash::mix64;
use std::collections::HashMap;

fn entry(q: u64, rem: u64) -> Entry {
    Entry {
        quot: q,
        rem,
        abits: rem & 7,
        alen: (rem % 4) as u8,
        ghost: rem.is_multiple_of(5),
    }
}

/// The in-place insert and remove leave exactly the table the greedy
/// re-layout of the cluster (the earlier implementation) leaves: every
/// slot's bits and every counter, after every operation, on small tables
/// so that clusters wrap around and merge, and on a larger one at load
/// 0.9.
#[test]
fn in_place_updates_equal_the_relayout() {
    for (slots, fill) in [
        (2u64, 1.0),
        (3, 1.0),
        (7, 1.0),
        (16, 1.0),
        (61, 1.0),
        (997, 0.9),
    ] {
        let mut a = QuotientTable::new(slots, 8);
        let mut b = QuotientTable::new(slots, 8);
        let mut model: Vec<Entry> = Vec::new();
        let cap = ((slots - 1) as f64 * fill) as u64;
        for step in 0..30_000u64 {
            let h = mix64(step ^ (slots << 20));
            let q = h % slots;
            let grow = !(h >> 32).is_multiple_of(3) && (model.len() as u64) < cap;
            if grow {
                let x = entry(q, (h >> 40) & 255);
                a.insert(x);
                b.insert_by_relayout(x);
                model.push(x);
            } else if !model.is_empty() && !(h >> 8).is_multiple_of(4) {
                let x = model.swap_remove(((h >> 20) % model.len() as u64) as usize);
                assert!(a.remove(&x));
                assert!(b.remove_by_relayout(&x));
            } else {
                let x = entry(q, (h >> 40) & 255);
                assert_eq!(a.remove(&x), b.remove_by_relayout(&x));
                if let Some(i) = model.iter().position(|y| *y == x) {
                    model.swap_remove(i);
                }
            }
            let same = a.rem == b.rem
                && a.occupied == b.occupied
                && a.continuation == b.continuation
                && a.shifted == b.shifted
                && a.ghost == b.ghost
                && a.abits == b.abits
                && a.alen == b.alen
                && (a.entries, a.ghosts, a.adaptivity) == (b.entries, b.ghosts, b.adaptivity);
            assert!(same, "{slots} slots, step {step}");
            if slots < 100 || step % 101 == 0 {
                for h in 0..slots {
                    assert_eq!(a.run_start(h), a.run_start_by_walking(h), "{slots}: {h}");
                }
            }
        }
    }
}

/// Random inserts and removes against a model (a multiset per quotient),
/// on a small table so clusters wrap around and merge.
#[test]
fn matches_a_model_under_inserts_and_removes() {
    for slots in [2u64, 3, 7, 16, 61] {
        let mut t = QuotientTable::new(slots, 8);
        let mut model: HashMap<u64, Vec<Entry>> = HashMap::new();
        let mut n = 0u64;
        for step in 0..20_000u64 {
            let h = mix64(step ^ slots);
            let q = h % slots;
            let grow = !(h >> 32).is_multiple_of(3) && n + 1 < slots;
            if grow {
                let x = entry(q, (h >> 40) & 255);
                t.insert(x);
                model.entry(q).or_default().push(x);
                n += 1;
            } else if let Some(v) = model.get_mut(&q).filter(|v| !v.is_empty()) {
                let x = v.remove(((h >> 20) % v.len() as u64) as usize);
                assert!(t.remove(&x));
                n -= 1;
            } else {
                assert!(!t.remove(&entry(q, 1)));
            }
            assert_eq!(t.entries(), n);
            if step % 97 == 0 || slots < 8 {
                for h in 0..slots {
                    let mut got: Vec<Entry> = t.run(h).map(|(_, e)| e).collect();
                    let mut want = model.get(&h).cloned().unwrap_or_default();
                    got.sort_by_key(|e| (e.rem, e.alen, e.ghost));
                    want.sort_by_key(|e| (e.rem, e.alen, e.ghost));
                    assert_eq!(got, want, "quotient {h} of {slots} at step {step}");
                }
                let all: Vec<Entry> = model.values().flatten().copied().collect();
                assert_eq!(t.ghosts(), all.iter().filter(|e| e.ghost).count() as u64);
                assert_eq!(
                    t.adaptivity_bits(),
                    all.iter().map(|e| e.alen as u64).sum::<u64>()
                );
            }
        }
    }
}

/// The earlier implementation, kept as the reference the in-place insert
/// and remove are tested against: decode the cluster into a list, change
/// the list, lay it out again greedily.
impl QuotientTable {
    #[inline]
    fn is_empty_slot(&self, i: u64) -> bool {
        !self.occupied.get(i) && !self.continuation.get(i) && !self.shifted.get(i)
    }

    /// Offset of slot `x` from `s`, going forward.
    #[inline]
    fn offset(&self, s: u64, x: u64) -> u64 {
        if x >= s {
            x - s
        } else {
            x + self.slots - s
        }
    }

    /// Decodes the part of the cluster around quotient `h` that an update
    /// at `h` can move: from the start of `h`'s run (or of the first run
    /// after it, if `h` has none) up to the first empty slot, into `out`.
    /// Returns (s, first): s is the last slot at or before `h` whose entry
    /// is unshifted (or `h` itself if its slot is empty), from which the
    /// runs before are skipped reading metadata bits only, and `first` the
    /// offset from s of the first entry in `out` (of the empty slot that
    /// ends the cluster, if `out` is empty).
    fn decode(&self, h: u64, out: &mut Vec<Entry>) -> (u64, u64) {
        out.clear();
        let mut s = h;
        while self.shifted.get(s) {
            s = self.prev(s);
        }
        if self.is_empty_slot(s) {
            return (s, 0);
        }
        let hoff = self.offset(s, h);
        let (mut b, mut j) = (s, s);
        while self.offset(s, b) < hoff {
            j = self.next(j);
            while self.continuation.get(j) {
                j = self.next(j);
            }
            if self.is_empty_slot(j) {
                return (s, self.offset(s, j));
            }
            b = self.next(b);
            while !self.occupied.get(b) {
                b = self.next(b);
            }
        }
        let first = self.offset(s, j);
        loop {
            out.push(self.entry_at(j, b));
            j = self.next(j);
            if self.is_empty_slot(j) {
                return (s, first);
            }
            if !self.continuation.get(j) {
                b = self.next(b);
                while !self.occupied.get(b) {
                    b = self.next(b);
                }
            }
        }
    }

    /// Lays `new` out over the decoded `old` entries, which sat at offsets
    /// first..first + old.len() from slot `s`; the first `k` entries of both
    /// lists are the same and stay where they are.
    fn encode(&mut self, (s, first): (u64, u64), old: &[Entry], new: &[Entry], k: usize) {
        debug_assert!(old[..k] == new[..k]);
        let mut slot = (s + first + k as u64) % self.slots;
        for x in &old[k..] {
            self.occupied.assign(x.quot, false);
            self.entries -= 1;
            self.ghosts -= x.ghost as u64;
            self.adaptivity -= x.alen as u64;
            self.continuation.assign(slot, false);
            self.shifted.assign(slot, false);
            self.ghost.assign(slot, false);
            self.rem.set(slot, 0);
            self.abits[slot as usize] = 0;
            self.alen[slot as usize] = 0;
            slot = self.next(slot);
        }
        if k > 0 {
            // its run may continue past k, and was just cleared
            self.occupied.set(new[k - 1].quot);
        }
        let mut p = first + k as u64;
        for (i, x) in new.iter().enumerate().skip(k) {
            let home = self.offset(s, x.quot);
            p = p.max(home);
            debug_assert!(p <= first + old.len() as u64, "layout overran the cluster");
            let slot = (s + p) % self.slots;
            self.occupied.set(x.quot);
            self.continuation
                .assign(slot, i > 0 && new[i - 1].quot == x.quot);
            self.shifted.assign(slot, p != home);
            self.ghost.assign(slot, x.ghost);
            self.rem.set(slot, x.rem);
            self.abits[slot as usize] = x.abits;
            self.alen[slot as usize] = x.alen;
            self.entries += 1;
            self.ghosts += x.ghost as u64;
            self.adaptivity += x.alen as u64;
            p += 1;
        }
    }

    /// [`insert`](Self::insert) by decoding the cluster and laying it out
    /// again: the reference the in-place version is tested against.
    fn insert_by_relayout(&mut self, x: Entry) {
        debug_assert!(self.entries + 1 < self.slots);
        let mut old = std::mem::take(&mut self.scratch);
        let mut new = std::mem::take(&mut self.scratch2);
        let at_s = self.decode(x.quot, &mut old);
        let home = self.offset(at_s.0, x.quot);
        let at = old.partition_point(|y| self.offset(at_s.0, y.quot) <= home);
        new.clear();
        new.extend_from_slice(&old[..at]);
        new.push(x);
        new.extend_from_slice(&old[at..]);
        self.encode(at_s, &old, &new, at);
        (self.scratch, self.scratch2) = (old, new);
    }

    /// [`remove`](Self::remove) by decoding the cluster and laying it out
    /// again: the reference the in-place version is tested against.
    fn remove_by_relayout(&mut self, x: &Entry) -> bool {
        if !self.occupied.get(x.quot) {
            return false;
        }
        let mut old = std::mem::take(&mut self.scratch);
        let mut new = std::mem::take(&mut self.scratch2);
        let at_s = self.decode(x.quot, &mut old);
        let found = match old.iter().position(|y| y == x) {
            Some(at) => {
                new.clear();
                new.extend_from_slice(&old[..at]);
                new.extend_from_slice(&old[at + 1..]);
                self.encode(at_s, &old, &new, at);
                true
            }
            None => false,
        };
        (self.scratch, self.scratch2) = (old, new);
        found
    }
}
