//! The quotient table saved and loaded: its fields in order, and the
//! invariants a loaded table must meet before any lookup runs on it.

use super::QuotientTable;

impl crate::persist::Codec for QuotientTable {
    fn put(&self, w: &mut crate::persist::Writer) {
        self.slots.put(w);
        self.rem.put(w);
        for b in [
            &self.occupied,
            &self.continuation,
            &self.shifted,
            &self.ghost,
        ] {
            b.put(w);
        }
        self.abits.put(w);
        self.alen.put(w);
        (self.entries, self.ghosts).put(w);
        self.adaptivity.put(w);
    }
    fn get(r: &mut crate::persist::Reader<'_>) -> Result<Self, crate::persist::LoadError> {
        use crate::persist::Codec;
        let slots = Codec::get(r)?;
        let rem = Codec::get(r)?;
        let occupied = Codec::get(r)?;
        let continuation = Codec::get(r)?;
        let shifted = Codec::get(r)?;
        let ghost = Codec::get(r)?;
        let abits = Codec::get(r)?;
        let alen = Codec::get(r)?;
        let (entries, ghosts) = Codec::get(r)?;
        let adaptivity = Codec::get(r)?;
        Ok(QuotientTable {
            slots,
            rem,
            occupied,
            continuation,
            shifted,
            ghost,
            abits,
            alen,
            entries,
            ghosts,
            adaptivity,
            #[cfg(test)]
            scratch: Vec::new(),
            #[cfg(test)]
            scratch2: Vec::new(),
        })
    }
}

impl QuotientTable {
    /// The invariants of a loaded table with `r`-bit remainders: the sizes,
    /// the counts, and the quotient-filter metadata, walked once from an
    /// empty slot: every run begins at or after its quotient's slot, in
    /// quotient order, with `shifted` set exactly when it is not in its
    /// home slot, and no run crosses an empty slot. A table that passes
    /// is one the insertion code could have built, so the lookups stop.
    pub(crate) fn check(&self, r: u32) -> Result<(), String> {
        use crate::persist::ensure;
        let n = self.slots;
        let sized = |len: u64| len == n;
        ensure(
            n >= 2
                && (1..=56).contains(&r)
                && sized(self.rem.len())
                && self.rem.width() == r
                && [
                    &self.occupied,
                    &self.continuation,
                    &self.shifted,
                    &self.ghost,
                ]
                .iter()
                .all(|b| sized(b.len()))
                && sized(self.abits.len() as u64)
                && sized(self.alen.len() as u64),
            || format!("a table of {n} slots with arrays of other sizes"),
        )?;
        let used = |i: u64| self.occupied.get(i) || self.continuation.get(i) || self.shifted.get(i);
        let (mut entries, mut ghosts, mut adaptivity) = (0u64, 0u64, 0u64);
        for i in 0..n {
            let (len, bits) = (self.alen[i as usize], self.abits[i as usize]);
            ensure(len <= 64 && (len == 64 || bits >> len == 0), || {
                format!("adaptivity bits {bits:#x} longer than {len}")
            })?;
            if used(i) {
                entries += 1;
                ghosts += self.ghost.get(i) as u64;
                adaptivity += len as u64;
            } else {
                ensure(!self.ghost.get(i) && len == 0, || {
                    "a ghost in an empty slot".into()
                })?;
            }
        }
        ensure(
            entries == self.entries && ghosts == self.ghosts && adaptivity == self.adaptivity,
            || "entry, ghost or adaptivity counts that are not the slots'".into(),
        )?;
        let start = (0..n)
            .find(|&i| !used(i))
            .ok_or_else(|| "no empty slot".to_string())?;
        // quotients whose runs are still to come, in slot order
        let mut pending = std::collections::VecDeque::new();
        let mut in_run = false;
        for step in 1..=n {
            let i = (start + step) % n;
            if self.occupied.get(i) {
                pending.push_back(i);
            }
            if !used(i) {
                ensure(pending.is_empty(), || {
                    format!("a run cut by the empty slot {i}")
                })?;
                in_run = false;
                continue;
            }
            if self.continuation.get(i) {
                ensure(in_run && self.shifted.get(i), || {
                    format!("slot {i} continues no run")
                })?;
            } else {
                let q = pending
                    .pop_front()
                    .ok_or_else(|| format!("slot {i} begins a run of no quotient"))?;
                ensure(self.shifted.get(i) == (q != i), || {
                    format!("slot {i}'s shifted bit for the run of quotient {q}")
                })?;
                in_run = true;
            }
        }
        ensure(pending.is_empty(), || "quotients with no run".into())
    }
}
