//! The audit of a broom filter's state against its remote dictionary
//! (Invariant 7 of the paper), for the tests and the harness.

use super::{BroomFilter, Remote, Stored};

impl BroomFilter {
    /// Audits the state against the remote dictionary (no access counted):
    /// every live element's fingerprint is stored, is a prefix of its
    /// current hash and (Invariant 7) of no other live element's hash;
    /// every ghost is stored; the counts agree. An error names the first
    /// violation. O(n · run length).
    pub fn check_invariant(&self, remote: &Remote) -> Result<(), String> {
        let (mut live, mut ghosts) = (0u64, 0u64);
        for (y, s) in remote.elems.iter() {
            let s = &s;
            let (Stored::Live(fp) | Stored::Ghost(fp)) = *s;
            let is_ghost = matches!(s, Stored::Ghost(_));
            let (q, frac) = self.digits(y);
            if fp.quot != q || Self::top(frac, fp.len as u32) != fp.prefix {
                return Err(format!(
                    "element {y:#x}: fingerprint is not a prefix of its hash"
                ));
            }
            let want = if is_ghost {
                self.ghost_entry(fp)
            } else {
                self.entry_of(q, frac, fp.len as u32)
            };
            let mut others = 0;
            let mut stored = false;
            for (_, e) in self.table.run(q) {
                if e == want {
                    stored = true;
                }
                if !is_ghost && self.matches(&e, frac) && e != want {
                    others += 1;
                }
            }
            if !stored {
                return Err(format!("element {y:#x}: fingerprint not in the table"));
            }
            if others > 0 {
                return Err(format!(
                    "element {y:#x}: another fingerprint is a prefix of its hash (Invariant 7)"
                ));
            }
            live += !is_ghost as u64;
            ghosts += is_ghost as u64;
        }
        if ghosts != self.table.ghosts() || live + ghosts != self.table.entries() {
            return Err(format!(
                "counts: remote {live} live + {ghosts} ghosts, table {} entries, {} ghosts",
                self.table.entries(),
                self.table.ghosts()
            ));
        }
        Ok(())
    }
}
