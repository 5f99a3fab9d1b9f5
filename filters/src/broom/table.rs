//! The broom filter's quotienting: remainders in a linear-probing array of
//! slots with the quotient filter's three metadata bits (`occupied`,
//! `continuation`, `shifted`), one ghost bit, and the adaptivity bits beside
//! the slots.
//!
//! An entry with quotient a sits in the run of a: the runs of one cluster lie
//! in quotient order, each starting no earlier than its quotient's slot, with
//! no empty slot between a quotient's slot and its run. `occupied[a]` says a
//! has a run; `continuation[i]` that slot i continues the run of slot i - 1;
//! `shifted[i]` that slot i's entry is not in its quotient's slot. A slot is
//! empty exactly when its three bits are 0. Decoding a cluster from a slot
//! whose entry is unshifted recovers every entry's quotient (the k-th run
//! belongs to the k-th occupied quotient from there on), which is how the
//! quotient costs no bits.
//!
//! Updates work in place, as in the quotient filter: an insertion shifts the
//! entries from its slot to the end of the cluster one slot on, a removal
//! shifts the entries after it one slot back up to the first empty slot or
//! entry in its own slot. The layout is the one a greedy re-layout of the
//! cluster gives (each entry at the later of the next free position and
//! its quotient's slot); the tests check the two slot by slot against the
//! earlier implementation, which decoded the cluster and laid it out again.
//! Clusters have expected length O(1/(1 - α)²) at load α.
//! Within a run, entries keep their order of insertion: a query reads the
//! whole run.
//!
//! Indices wrap around the end of the array, so no extra slots are needed;
//! the array always keeps one slot empty, which ends every cluster.

use crate::bits::{BitArray, PackedInts};

/// One stored fingerprint: quotient, remainder and adaptivity bits, or a
/// ghost (a deleted element's quotient and adaptivity bits, remainder
/// forgotten and stored as 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Entry {
    /// The slot the fingerprint belongs to.
    pub quot: u64,
    /// The next r bits of the hash (0 for a ghost).
    pub rem: u64,
    /// The adaptivity bits, right-aligned: the `alen` bits after the remainder.
    pub abits: u64,
    /// How many adaptivity bits.
    pub alen: u8,
    /// Whether this is a ghost.
    pub ghost: bool,
}

/// The slot array. See the module documentation.
#[derive(Debug, Clone)]
pub struct QuotientTable {
    slots: u64,
    rem: PackedInts,
    occupied: BitArray,
    continuation: BitArray,
    shifted: BitArray,
    ghost: BitArray,
    abits: Vec<u64>,
    alen: Vec<u8>,
    entries: u64,
    ghosts: u64,
    adaptivity: u64,
    /// Buffers of the re-layout reference (tests only).
    #[cfg(test)]
    scratch: Vec<Entry>,
    #[cfg(test)]
    scratch2: Vec<Entry>,
}

impl QuotientTable {
    /// `slots` empty slots (>= 2) with `r`-bit remainders (1..=56).
    pub fn new(slots: u64, r: u32) -> Self {
        assert!(slots >= 2 && (1..=56).contains(&r));
        QuotientTable {
            slots,
            rem: PackedInts::new(slots, r),
            occupied: BitArray::new(slots),
            continuation: BitArray::new(slots),
            shifted: BitArray::new(slots),
            ghost: BitArray::new(slots),
            abits: vec![0; slots as usize],
            alen: vec![0; slots as usize],
            entries: 0,
            ghosts: 0,
            adaptivity: 0,
            #[cfg(test)]
            scratch: Vec::new(),
            #[cfg(test)]
            scratch2: Vec::new(),
        }
    }

    /// Number of slots.
    pub fn slots(&self) -> u64 {
        self.slots
    }

    /// Stored entries, ghosts included.
    pub fn entries(&self) -> u64 {
        self.entries
    }

    /// Stored ghosts.
    pub fn ghosts(&self) -> u64 {
        self.ghosts
    }

    /// Adaptivity bits over all entries, ghosts included.
    pub fn adaptivity_bits(&self) -> u64 {
        self.adaptivity
    }

    #[inline]
    fn next(&self, i: u64) -> u64 {
        if i + 1 == self.slots {
            0
        } else {
            i + 1
        }
    }

    #[inline]
    fn prev(&self, i: u64) -> u64 {
        if i == 0 {
            self.slots - 1
        } else {
            i - 1
        }
    }

    #[inline]
    fn entry_at(&self, i: u64, quot: u64) -> Entry {
        Entry {
            quot,
            rem: self.rem.get(i),
            abits: self.abits[i as usize],
            alen: self.alen[i as usize],
            ghost: self.ghost.get(i),
        }
    }

    /// The slot where quotient `h`'s run starts, if it has one. Word at a
    /// time: s, the last unshifted slot at or before h, starts the run of
    /// its own quotient; each occupied quotient after s up to h owns the
    /// next run, and runs start at the slots whose continuation bit is 0.
    fn run_start(&self, h: u64) -> Option<u64> {
        self.run_bounds(h).map(|(_, j)| j)
    }

    /// (s, j): the last unshifted slot at or before `h` and the start of
    /// h's run, if it has one (see [`run_start`](Self::run_start)).
    #[inline]
    pub(super) fn run_bounds(&self, h: u64) -> Option<(u64, u64)> {
        if !self.occupied.get(h) {
            return None;
        }
        let last = self.slots - 1;
        let s = self
            .shifted
            .prev_zero(h)
            .or_else(|| self.shifted.prev_zero(last))
            .expect("a slot is always empty");
        let k = if s == h {
            0
        } else if s < h {
            self.occupied.count_ones_in(s + 1, h)
        } else {
            let upper = if s < last {
                self.occupied.count_ones_in(s + 1, last)
            } else {
                0
            };
            upper + self.occupied.count_ones_in(0, h)
        };
        if k == 0 {
            return Some((s, s));
        }
        let j = match self.continuation.select_zero_from(s + 1, k) {
            Ok(j) => j,
            Err(seen) => self
                .continuation
                .select_zero_from(0, k - seen)
                .expect("a run ends before the cluster comes round"),
        };
        Some((s, j))
    }

    /// [`run_start`](Self::run_start) by walking the cluster slot by slot:
    /// the reference the word-at-a-time version is tested against.
    #[cfg(test)]
    fn run_start_by_walking(&self, h: u64) -> Option<u64> {
        if !self.occupied.get(h) {
            return None;
        }
        let mut s = h;
        while self.shifted.get(s) {
            s = self.prev(s);
        }
        let (mut b, mut j) = (s, s);
        while b != h {
            j = self.next(j);
            while self.continuation.get(j) {
                j = self.next(j);
            }
            b = self.next(b);
            while !self.occupied.get(b) {
                b = self.next(b);
            }
        }
        Some(j)
    }

    /// The entries of quotient `h`'s run with their slots, in slot order.
    pub fn run(&self, h: u64) -> RunIter<'_> {
        RunIter {
            table: self,
            quot: h,
            next: self.run_start(h),
            first: true,
        }
    }

    /// Changes the adaptivity bits of the entry in `slot`.
    pub fn set_adaptivity(&mut self, slot: u64, abits: u64, alen: u8) {
        let i = slot as usize;
        self.adaptivity = self.adaptivity - self.alen[i] as u64 + alen as u64;
        self.abits[i] = abits;
        self.alen[i] = alen;
    }

    /// Turns the live entry in `slot` into a ghost: forgets its remainder.
    pub fn make_ghost(&mut self, slot: u64) {
        debug_assert!(!self.ghost.get(slot));
        self.ghost.set(slot);
        self.rem.set(slot, 0);
        self.ghosts += 1;
    }

    /// Copies slot `from`'s entry (remainder, adaptivity bits, ghost bit)
    /// to slot `to`.
    #[inline]
    fn move_data(&mut self, from: u64, to: u64) {
        self.rem.set(to, self.rem.get(from));
        self.abits[to as usize] = self.abits[from as usize];
        self.alen[to as usize] = self.alen[from as usize];
        self.ghost.assign(to, self.ghost.get(from));
    }

    /// Empties slot `i`.
    #[inline]
    fn clear_slot(&mut self, i: u64) {
        self.rem.set(i, 0);
        self.abits[i as usize] = 0;
        self.alen[i as usize] = 0;
        self.ghost.assign(i, false);
        self.continuation.assign(i, false);
        self.shifted.assign(i, false);
    }

    /// The first slot at or after `i`, going round, whose bit is set in
    /// `bits(w)`, the 64-slot word `w` of some mask built from the metadata
    /// arrays (bits past the last slot are ignored). There must be one.
    fn first_from(&self, i: u64, bits: impl Fn(usize) -> u64) -> u64 {
        let words = self.occupied.words();
        let mut w = (i >> 6) as usize;
        let mut word = bits(w) & (!0u64 << (i & 63));
        for _ in 0..=words {
            let at = ((w as u64) << 6) + word.trailing_zeros() as u64;
            if word != 0 && at < self.slots {
                return at;
            }
            w += 1;
            if w == words {
                w = 0;
            }
            word = bits(w);
        }
        unreachable!("a slot is always empty")
    }

    /// The first empty slot at or after `i`, going round.
    fn first_empty_from(&self, i: u64) -> u64 {
        self.first_from(i, |w| {
            !(self.occupied.word(w) | self.continuation.word(w) | self.shifted.word(w))
        })
    }

    /// The first slot after `i`, going round, that is empty or starts a run
    /// in its own slot (continuation and shifted bits both 0): where a
    /// removal's shift stops.
    fn first_stop_after(&self, i: u64) -> u64 {
        self.first_from(self.next(i), |w| {
            !(self.continuation.word(w) | self.shifted.word(w))
        })
    }

    /// The next occupied quotient after `b`.
    #[inline]
    fn next_occupied(&self, mut b: u64) -> u64 {
        b = self.next(b);
        while !self.occupied.get(b) {
            b = self.next(b);
        }
        b
    }

    /// Stores `x` at the end of its quotient's run, shifting the entries
    /// from there to the end of the cluster one slot on (the quotient
    /// filter's insertion; the layout is the one a greedy re-layout of the
    /// cluster gives, as the tests check). The caller keeps at least one
    /// slot empty afterwards (`entries() + 1 < slots()`).
    pub fn insert(&mut self, x: Entry) {
        debug_assert!(self.entries + 1 < self.slots);
        let h = x.quot;
        let had_run = self.occupied.get(h);
        // where x goes: after h's run, or where h's run would start. That
        // is run_start with h's occupied bit set: after the runs of the
        // quotients before h, which reach past h when slot h is taken, and
        // h itself when slot h is empty.
        self.occupied.set(h);
        let start = self.run_start(h).expect("occupied");
        // (the emptiness test below reads occupied bits: h's is set again
        // once the shift is done)
        self.occupied.assign(h, had_run);
        let pos = if had_run {
            let mut j = start;
            while self.continuation.get(self.next(j)) {
                j = self.next(j);
            }
            self.next(j)
        } else {
            start
        };
        // the first empty slot from pos on, then everything before it moves
        let mut end = self.first_empty_from(pos);
        if end > pos {
            // no wrap: whole ranges at a time
            self.rem.shift_up_one(pos, end);
            self.abits
                .copy_within(pos as usize..end as usize, pos as usize + 1);
            self.alen
                .copy_within(pos as usize..end as usize, pos as usize + 1);
            self.ghost.shift_up_one(pos, end);
            self.continuation.shift_up_one(pos, end);
            for i in pos + 1..=end {
                self.shifted.set(i);
            }
            end = pos;
        }
        while end != pos {
            let from = self.prev(end);
            let cont = self.continuation.get(from);
            self.move_data(from, end);
            self.continuation.assign(end, cont);
            self.shifted.set(end);
            end = from;
        }
        self.rem.set(pos, x.rem);
        self.abits[pos as usize] = x.abits;
        self.alen[pos as usize] = x.alen;
        self.ghost.assign(pos, x.ghost);
        self.continuation.assign(pos, had_run);
        self.shifted.assign(pos, pos != h);
        self.occupied.set(h);
        self.entries += 1;
        self.ghosts += x.ghost as u64;
        self.adaptivity += x.alen as u64;
    }

    /// Removes the first entry of `x`'s quotient's run equal to `x`;
    /// whether there was one. The entries after it in the cluster move one
    /// slot back, up to the first empty slot or entry in its own slot.
    pub fn remove(&mut self, x: &Entry) -> bool {
        let h = x.quot;
        let Some(start) = self.run_start(h) else {
            return false;
        };
        let mut p = start;
        loop {
            // the remainder first: one packed read rules out almost
            // every other entry of the run
            if self.rem.get(p) == x.rem && self.entry_at(p, h) == *x {
                break;
            }
            let n = self.next(p);
            if !self.continuation.get(n) {
                return false;
            }
            p = n;
        }
        self.entries -= 1;
        self.ghosts -= x.ghost as u64;
        self.adaptivity -= x.alen as u64;
        let only = p == start && !self.continuation.get(self.next(p));
        if only {
            self.occupied.assign(h, false);
        }
        // the entries p + 1..stop move back one slot; without a wrap, their
        // data a range at a time; their metadata bit by bit (a run start's
        // shifted bit depends on its quotient)
        let stop = self.first_stop_after(p);
        let wraps = stop < p;
        if !wraps {
            let (p_, s_) = (p as usize, stop as usize);
            self.rem.shift_down_one(p + 1, stop);
            self.abits.copy_within(p_ + 1..s_, p_);
            self.alen.copy_within(p_ + 1..s_, p_);
            self.ghost.shift_down_one(p + 1, stop);
        }
        let (mut dst, mut src, mut b) = (p, self.next(p), h);
        while src != stop {
            let mut cont = self.continuation.get(src);
            if !cont {
                b = self.next_occupied(b);
            }
            if dst == start && p == start {
                // the removed entry started h's run: the next one does now
                cont = false;
            }
            if wraps {
                self.move_data(src, dst);
            }
            self.continuation.assign(dst, cont);
            self.shifted.assign(dst, cont || dst != b);
            dst = src;
            src = self.next(src);
        }
        self.clear_slot(dst);
        true
    }

    /// Every stored entry (slot order from slot 0, quotients decoded), for
    /// scans that tests and theory need.
    pub fn all_entries(&self) -> Vec<Entry> {
        let mut out = Vec::with_capacity(self.entries as usize);
        for h in 0..self.slots {
            out.extend(self.run(h).map(|(_, e)| e));
        }
        out
    }
}

/// Iterator over one run: (slot, entry).
pub struct RunIter<'a> {
    table: &'a QuotientTable,
    quot: u64,
    next: Option<u64>,
    first: bool,
}

impl Iterator for RunIter<'_> {
    type Item = (u64, Entry);

    fn next(&mut self) -> Option<(u64, Entry)> {
        let j = self.next?;
        if !self.first && !self.table.continuation.get(j) {
            self.next = None;
            return None;
        }
        self.first = false;
        self.next = Some(self.table.next(j));
        Some((j, self.table.entry_at(j, self.quot)))
    }
}

#[cfg(test)]
#[path = "table_tests.rs"]
mod tests;

#[path = "lines.rs"]
pub mod lines;

#[path = "table_persist.rs"]
mod persist;
