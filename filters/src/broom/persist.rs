//! The broom filter's saved form: its fields, the invariants a loaded
//! filter must hold (`check`), and those that tie it to its remote
//! dictionary (`check_with`).

use super::{BroomFilter, BroomStats, Entry, Remote, Stored};

crate::persist::codec_struct!(BroomStats {
    extends,
    fixed,
    moved,
    phases,
    forced,
    unresolved
});
crate::persist::codec_struct!(BroomFilter {
    table,
    capacity,
    r,
    fbits,
    c,
    seed,
    gen,
    frontier,
    stats
});

impl crate::persist::sealed::Design for BroomFilter {
    fn tag() -> String {
        "broom_filter".into()
    }
    fn check(&self) -> Result<(), String> {
        use crate::persist::ensure;
        let slots = self.table.slots();
        ensure(
            self.capacity >= 1
                && self.c >= 1
                && slots > self.capacity
                && slots <= 1 << 40
                && Self::layout_fits(slots, self.r)
                && self.fbits == Self::fraction_bits(slots),
            || format!("capacity {}, {slots} slots, r = {}", self.capacity, self.r),
        )?;
        self.table.check(self.r)?;
        ensure(self.len() <= self.capacity, || {
            format!("{} elements over capacity {}", self.len(), self.capacity)
        })
    }
}

crate::persist::persists!(BroomFilter);

impl BroomFilter {
    /// The invariants that tie a loaded filter to its remote dictionary,
    /// which deletion, Extend and the frontier's moves rely on: every live
    /// element's fingerprint is its key's hash under the function it is
    /// under, cut to a length in [r, usable bits], and stored as a live
    /// entry; every ghost's entry is stored; and the table holds nothing
    /// else. A dictionary crafted to disagree made the filter delete the
    /// wrong entry and answer no for a key just inserted (issue 55).
    pub(crate) fn check_with(&self, remote: &Remote) -> Result<(), String> {
        use crate::persist::ensure;
        let mut stored: std::collections::HashMap<Entry, u64> = Default::default();
        for e in self.table.all_entries() {
            *stored.entry(e).or_default() += 1;
        }
        for (key, s) in remote.elems.iter() {
            let (fp, e) = match s {
                Stored::Live(fp) => (fp, self.live_entry(fp)),
                Stored::Ghost(fp) => (fp, self.ghost_entry(fp)),
            };
            let (q, frac) = self.digits(key);
            let len = fp.len as u32;
            ensure(
                len >= self.r
                    && len <= self.fbits
                    && fp.quot == q
                    && fp.prefix == Self::top(frac, len),
                || format!("element {key:#x}'s fingerprint is not its hash's"),
            )?;
            let n = stored
                .get_mut(&e)
                .filter(|n| **n > 0)
                .ok_or_else(|| format!("element {key:#x}'s entry is not in the table"))?;
            *n -= 1;
        }
        ensure(stored.values().all(|&n| n == 0), || {
            "table entries of no element".into()
        })
    }
}
