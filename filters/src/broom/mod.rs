//! The broom filter (Bender, Farach-Colton, Goswami, Johnson, McCauley,
//! Singh, *Bloom Filters, Adaptivity, and the Dictionary Problem*,
//! arXiv:1711.01616): an adaptive
//! filter, which fixes each false positive it is told about, so that an
//! adversary who replays the false positives it has found gains nothing.
//!
//! # Construction
//! Every element y has a long hash h(y); the filter stores a *fingerprint*
//! p(y), a prefix of h(y), under **Invariant 7**: no stored fingerprint is a
//! prefix of another stored element's hash. A query x answers yes when some
//! p(y) ⊑ h(x); by the invariant there is at most one such y.
//!
//! * **Digits.** h(y) is a 64-bit hash split as D = h·S (a 128-bit product,
//!   S the number of slots): the quotient ⌊D / 2^64⌋ in 0..S, then the bits
//!   of the fraction D mod 2^64 from the top. A fingerprint of length L is
//!   the quotient and the top L fraction bits: r remainder bits and L - r
//!   **adaptivity bits**. (With S a power of two this is the plain prefix of
//!   h; the product lets S be any size, so the load n/S is chosen, not
//!   rounded to a power of two.) Only the top 64 - ⌈log2 S⌉ fraction bits
//!   are uniform, so a fingerprint has at most that many.
//! * **Quotienting** (`broom/table.rs`): the remainder goes in a slot of a linear-
//!   probing array at the quotient's position, with the quotient filter's
//!   three metadata bits, plus one bit marking ghosts. Adaptivity bits are
//!   kept beside the slots, apart from the remainders.
//! * **Extend(x).** For the unique y with p(y) ⊑ h(x), read y from the
//!   remote dictionary (RevLookup) and append bits of h(y) to p(y) up to and
//!   including the first bit where h(y) and h(x) differ: then p(y) ⋢ h(x).
//!   Extending a fingerprint keeps Invariant 7 for every other element.
//! * **Insert(x).** For each stored p(y) with x's quotient and remainder:
//!   if p(y) ⊑ h(x), Extend; either way p(y) and h(x) now differ at some
//!   bit d, and p(x) must reach bit d so that p(x) ⋢ h(y). p(x) is the
//!   shortest prefix of h(x) that reaches all those bits (at least r
//!   fraction bits), and at least as long as any ghost it matches.
//! * **Query.** x is a false positive when the application, which checks
//!   the remote set after a yes, finds x absent; it tells the filter
//!   ([`AdaptiveFilter::adapt`]), which calls Extend(x). x then answers no
//!   until its matching element or a hash function changes.
//! * **Ghosts.** Deleting y whose fingerprint has adaptivity bits keeps
//!   its quotient and adaptivity bits as a ghost (remainder forgotten);
//!   an element inserted later whose hash matches the ghost's quotient and
//!   adaptivity bits gets at least as many adaptivity bits. This defeats the
//!   paper's timing attack (delete and reinsert the element behind a known
//!   false positive): the reinserted element takes back its adaptivity bits.
//!   A fingerprint without adaptivity bits carries no history and is
//!   deleted outright.
//! * **Frontier.** Adaptivity bits are reclaimed by moving to a fresh hash
//!   function incrementally: two functions h_a and h_b and a frontier z
//!   over the element order (here the 64-bit key); elements and queries
//!   x <= z use h_b, the others h_a. Each call to Adapt (Extend for a false
//!   positive, or an insertion that had to Extend) moves the `c` smallest
//!   stored elements above z, ghosts included, to h_b: a live element is
//!   deleted and reinserted under h_b (its old adaptivity bits are gone), a
//!   ghost is forgotten. When no element is left above z, a phase ends:
//!   h_a := h_b, a new h_b, z := -∞. The paper asks c > 2 with deletions;
//!   the default is [`DEFAULT_C`] = 3. The paper forgets ghosts by
//!   "including deleted elements" in this sweep; we read that as deletions
//!   driving the frontier too: each deletion moves it one element. Without
//!   that, a stream of insertions and deletions with few Adapt calls piles
//!   up ghosts until they fill the table (every deletion of an element with
//!   adaptivity bits leaves one, and only Adapt calls would move the
//!   frontier past them). As a last resort,
//!   when ghosts would fill more than half the spare slots, an insertion
//!   pushes the frontier on until they do not ([`BroomStats::forced`]).
//!
//! # The remote representation
//! The paper's R, "fingerprint → element" (RevLookup) and the ordered set
//! the frontier walks, is [`Remote`]: a separate value the caller owns and
//! passes to every update, which counts its accesses. It is the
//! application's own dictionary, not filter state, and is not in
//! [`BroomFilter::memory_bits`]. Queries never touch it.
//!
//! # False-positive rate (exact, derived from the invariant)
//! For a query key independent of the hash functions, its digits are
//! uniform; the event "p(y) ⊑ h(x)" has probability 2^-L(y) / S, and by
//! Invariant 7 the events for different stored y are disjoint (their
//! fingerprints are prefix-free, so the sets of hashes they match do not
//! overlap). Hence, exactly,
//!
//!   FPR = Σ_{y ∈ S} 2^-L(y) / S,
//!
//! which is n / (S·2^r) = α 2^-r with no adaptivity bits (load α = n/S),
//! and only falls as adaptivity bits are added. Sizing for ε takes
//! r = ⌈log2(α/ε)⌉. [`BroomFilter::fpr_now`] evaluates the sum on the
//! current state; `tests/broom_vs_simulation.rs` checks it.
//!
//! # Memory
//! S·(r + 4) bits of slots (remainder, three quotient-filter metadata bits,
//! the ghost bit) plus the adaptivity bits in a self-delimiting code (per
//! slot, the count in unary and then the bits: 1 + 2ℓ bits for ℓ bits) with
//! one 64-bit offset per 64 slots so that a slot's code is found in O(1):
//! S·(r + 5) + 64⌈S/64⌉ + 2A bits for A adaptivity bits in all. This
//! implementation holds the adaptivity bits in a plain per-slot array for
//! speed; [`BroomFilter::memory_bits`] reports the size of the code above,
//! the layout the paper describes, and says so.

mod audit;
mod encoding;
mod ordered;
mod persist;
mod remote;
pub(crate) mod table;
mod window;

use remote::Stored;
pub use remote::{Fingerprint, Remote};
mod shape;
pub use shape::BroomShape;
pub use table::lines;
pub use window::Broom;

use crate::error::{check_bits, check_nonzero, ParamError};
use crate::hash::{mix64, GOLDEN};
use table::{Entry, QuotientTable};

/// Elements moved to the new hash function per call to Adapt.
pub const DEFAULT_C: u32 = 3;

/// Default load n / S at capacity (linear probing: clusters, and so update
/// cost, grow as 1/(1 - α)²).
pub const DEFAULT_LOAD: f64 = 0.85;

pub use crate::AdaptiveFilter;

/// Why an insertion was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BroomError {
    /// The filter already holds its capacity n of elements.
    Full,
}

impl std::fmt::Display for BroomError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BroomError::Full => write!(f, "broom filter full (capacity reached)"),
        }
    }
}

impl std::error::Error for BroomError {}

/// Counters of what the filter did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BroomStats {
    /// Calls to Extend (false positives fixed plus insertions that broke
    /// the invariant).
    pub extends: u64,
    /// False positives fixed.
    pub fixed: u64,
    /// Elements moved across the frontier (live or ghost).
    pub moved: u64,
    /// Phases completed (hash functions retired).
    pub phases: u64,
    /// Frontier steps forced because ghosts filled half the spare slots.
    pub forced: u64,
    /// Collisions of the whole usable hash that no adaptivity bit can
    /// separate (expected n²·2^-(64 + …): never in practice).
    pub unresolved: u64,
}

/// The broom filter's local representation. Updates take the [`Remote`]
/// they need; see the module documentation.
#[derive(Debug, Clone)]
pub struct BroomFilter {
    table: QuotientTable,
    capacity: u64,
    r: u32,
    /// usable fraction bits: 64 - ⌈log2 S⌉
    fbits: u32,
    c: u32,
    seed: u64,
    gen: u64,
    frontier: Option<u64>,
    stats: BroomStats,
}

impl BroomFilter {
    /// Capacity `n` in `slots` slots (> n) with `r`-bit remainders, moving
    /// `c` elements across the frontier per Adapt; hash salt 0 (see
    /// [`with_seed`](Self::with_seed)).
    pub fn new(shape: BroomShape) -> Result<Self, ParamError> {
        let BroomShape {
            capacity: n,
            slots,
            remainder_bits: r,
            moves_per_adapt: c,
        } = shape;
        let seed = 0;
        check_nonzero("n", n)?;
        check_nonzero("c", c as u64)?;
        if slots <= n || slots > 1 << 40 {
            return Err(ParamError::OutOfRange {
                name: "slots",
                value: slots.to_string(),
                expected: "greater than n and at most 2^40",
            });
        }
        // what is allocated: remainder, 4 metadata bits and the per-slot
        // adaptivity array (64 + 8 bits)
        check_bits(slots.checked_mul(r as u64 + 4 + 72))?;
        let fbits = Self::fraction_bits(slots);
        if !Self::layout_fits(slots, r) {
            return Err(ParamError::OutOfRange {
                name: "r",
                value: format!(
                    "{r} (at most {} with {slots} slots)",
                    fbits.saturating_sub(8)
                ),
                expected: "at least 1, leaving 8 of the 64 hash bits for adaptivity",
            });
        }
        Ok(BroomFilter {
            table: QuotientTable::new(slots, r),
            capacity: n,
            r,
            fbits,
            c,
            seed,
            gen: 0,
            frontier: None,
            stats: BroomStats::default(),
        })
    }

    /// The same filter with its hash functions salted by `seed`.
    ///
    /// # Panics
    /// If the filter already stores keys (they were placed under the old
    /// salt).
    pub fn with_seed(mut self, seed: u64) -> Self {
        assert_eq!(
            self.table.entries() + self.table.ghosts(),
            0,
            "with_seed on a filter that holds keys"
        );
        self.seed = seed;
        self
    }

    /// Capacity n.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Number of slots S.
    pub fn slots(&self) -> u64 {
        self.table.slots()
    }

    /// Remainder bits r.
    pub fn r(&self) -> u32 {
        self.r
    }

    /// Elements stored (the table's entries that are not ghosts).
    pub fn len(&self) -> u64 {
        self.table.entries() - self.table.ghosts()
    }

    /// True when no element is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Ghosts stored.
    pub fn ghosts(&self) -> u64 {
        self.table.ghosts()
    }

    /// Adaptivity bits stored, ghosts included.
    pub fn adaptivity_bits(&self) -> u64 {
        self.table.adaptivity_bits()
    }

    /// What the filter has done so far.
    pub fn stats(&self) -> BroomStats {
        self.stats
    }

    /// The FPR bound at capacity with no adaptivity bits, n / (S·2^r).
    pub fn fpr_bound(&self) -> f64 {
        self.capacity as f64 / (self.slots() as f64 * 2f64.powi(self.r as i32))
    }

    /// The exact FPR of the current state for a key independent of the hash
    /// functions: Σ over stored elements of 2^-L / S (module docs). Scans
    /// the table.
    pub fn fpr_now(&self) -> f64 {
        let s = self.slots() as f64;
        self.table
            .all_entries()
            .iter()
            .filter(|e| !e.ghost)
            .map(|e| 2f64.powi(-(self.r as i32 + e.alen as i32)) / s)
            .sum()
    }

    /// Bits of the local representation (module docs, Memory):
    /// S·(r + 5) + 64⌈S/64⌉ + 2A.
    pub fn memory_bits(&self) -> u64 {
        Self::memory_bits_for(self.slots(), self.r) + 2 * self.adaptivity_bits()
    }

    /// Bits of `slots` slots with `r`-bit remainders before any adaptivity
    /// bit: S·(r + 5) + 64⌈S/64⌉.
    pub fn memory_bits_for(slots: u64, r: u32) -> u64 {
        slots * (r as u64 + 5) + 64 * slots.div_ceil(64)
    }

    /// Hash bits after the quotient of `slots` slots.
    fn fraction_bits(slots: u64) -> u32 {
        64 - (64 - (slots - 1).leading_zeros())
    }

    /// Whether `r`-bit remainders in `slots` slots (> 1) leave the 8 hash
    /// bits the adaptivity bits need.
    pub fn layout_fits(slots: u64, r: u32) -> bool {
        r >= 1 && r + 8 <= Self::fraction_bits(slots)
    }

    /// Whether `key` is reported present (some stored p(y) ⊑ h(key)).
    pub fn contains(&self, key: u64) -> bool {
        let (q, frac) = self.digits(key);
        self.table.run(q).any(|(_, e)| self.matches(&e, frac))
    }

    /// Extend: lengthens the live entry in `slot` (whose fingerprint is a
    /// prefix of (q, frac)) to the first bit where its element's hash and
    /// `frac` differ. Returns the new length, or None if the whole usable
    /// hash agrees.
    fn extend(&mut self, slot: u64, e: &Entry, frac: u64, remote: &mut Remote) -> Option<u32> {
        self.stats.extends += 1;
        let fp = self.fingerprint(e);
        let Some(y) = remote.rev_lookup(&fp) else {
            debug_assert!(false, "RevLookup found no element for a stored fingerprint");
            return None;
        };
        let (_, yfrac) = self.digits(y);
        let d = (yfrac ^ frac).leading_zeros();
        if d >= self.fbits {
            self.stats.unresolved += 1;
            return None;
        }
        let e2 = self.entry_of(e.quot, yfrac, d + 1);
        self.table.set_adaptivity(slot, e2.abits, e2.alen);
        remote.put(y, Stored::Live(self.fingerprint(&e2)));
        Some(d + 1)
    }

    /// Stores `key` (not stored, not a ghost unless `ghost` is its ghost)
    /// under its current hash function; returns whether Extend was called.
    fn store(&mut self, key: u64, ghost: Option<Fingerprint>, remote: &mut Remote) -> bool {
        let (q, frac) = self.digits(key);
        let mut len = self.r;
        // by Invariant 7 at most one stored fingerprint is a prefix of
        // h(key): the one to Extend
        let mut prefix_of_key = None;
        for (slot, e) in self.table.run(q) {
            if e.ghost {
                if self.ghost_matches(&e, frac) {
                    len = len.max(self.r + e.alen as u32);
                }
            } else if e.rem == frac >> (64 - self.r) {
                let fp = self.fingerprint(&e);
                let l = fp.len as u32;
                if Self::top(frac, l) == fp.prefix {
                    prefix_of_key.get_or_insert((slot, e));
                } else {
                    let d = (fp.prefix ^ Self::top(frac, l)).leading_zeros();
                    len = len.max(d + 1);
                }
            }
        }
        let extended = prefix_of_key.is_some();
        if let Some((slot, e)) = prefix_of_key {
            len = len.max(self.extend(slot, &e, frac, remote).unwrap_or(self.fbits));
        }
        let len = len.min(self.fbits);
        if let Some(g) = ghost {
            let removed = self.table.remove(&self.ghost_entry(g));
            debug_assert!(removed, "a ghost element's ghost is not stored");
        }
        let e = self.entry_of(q, frac, len);
        self.table.insert(e);
        remote.put(key, Stored::Live(self.fingerprint(&e)));
        extended
    }

    /// Inserts `key`. An element already present changes nothing. Refused
    /// when n elements are stored.
    pub fn insert(&mut self, key: u64, remote: &mut Remote) -> Result<(), BroomError> {
        let ghost = match remote.get(key) {
            Some(Stored::Live(_)) => return Ok(()),
            Some(Stored::Ghost(fp)) => Some(fp),
            None => None,
        };
        if self.len() >= self.capacity {
            return Err(BroomError::Full);
        }
        // ghosts may fill at most half the spare slots, and a slot must
        // stay empty after the insertion: beyond that the frontier is
        // pushed on, forgetting ghosts as it passes them (reinserting live
        // elements keeps the count); a revived ghost frees the slot it takes
        if ghost.is_none() {
            let s = self.slots();
            let limit = (s - (s - self.capacity) / 2).min(s - 1);
            while self.table.entries() + 1 > limit && self.table.ghosts() > 0 {
                self.stats.forced += 1;
                self.advance(remote, 1);
            }
            if self.table.entries() + 1 > s - 1 {
                return Err(BroomError::Full);
            }
        }
        if self.store(key, ghost, remote) {
            self.advance(remote, self.c);
        }
        Ok(())
    }

    /// Deletes `key`; whether it was stored. Its quotient and adaptivity
    /// bits stay as a ghost when it has adaptivity bits. Moves the frontier
    /// one element, so that a phase lasts at most n + G deletions and the
    /// ghosts are bounded by the deletions of about one phase that leave a
    /// ghost.
    pub fn delete(&mut self, key: u64, remote: &mut Remote) -> bool {
        let Some(Stored::Live(fp)) = remote.get(key) else {
            return false;
        };
        let e = self.live_entry(fp);
        if e.alen > 0 {
            let slot = self
                .table
                .run(fp.quot)
                .find(|(_, x)| *x == e)
                .map(|(s, _)| s);
            debug_assert!(slot.is_some(), "a live element's fingerprint is not stored");
            if let Some(slot) = slot {
                self.table.make_ghost(slot);
            }
            remote.put(key, Stored::Ghost(fp));
        } else {
            let removed = self.table.remove(&e);
            debug_assert!(removed, "a live element's fingerprint is not stored");
            remote.remove(key);
        }
        self.advance(remote, 1);
        true
    }

    /// Fixes a false positive on `key` (Adapt): move the frontier, then
    /// Extend the fingerprint that matches `key` (under the hash function
    /// the move leaves it with), so that `key` answers no on return. Returns
    /// whether `key` was a false positive (a non-member answering yes).
    pub fn adapt(&mut self, key: u64, remote: &mut Remote) -> bool {
        if !self.contains(key) || remote.is_member(key) {
            return false;
        }
        self.advance(remote, self.c);
        let (q, frac) = self.digits(key);
        if let Some((slot, e)) = self.table.run(q).find(|(_, e)| self.matches(e, frac)) {
            let fixed = self.extend(slot, &e, frac, remote).is_some();
            self.stats.fixed += fixed as u64;
        }
        true
    }

    /// Moves the `c` smallest elements above the frontier to h_b, or ends
    /// the phase.
    fn advance(&mut self, remote: &mut Remote, c: u32) {
        for _ in 0..c {
            let Some((y, s)) = remote.next_after(self.frontier) else {
                self.gen += 1;
                self.frontier = None;
                self.stats.phases += 1;
                return;
            };
            self.stats.moved += 1;
            match s {
                Stored::Ghost(fp) => {
                    let removed = self.table.remove(&self.ghost_entry(fp));
                    debug_assert!(removed, "a ghost element's ghost is not stored");
                    remote.remove(y);
                    self.frontier = Some(y);
                }
                Stored::Live(fp) => {
                    let removed = self.table.remove(&self.live_entry(fp));
                    debug_assert!(removed, "a live element's fingerprint is not stored");
                    remote.remove(y);
                    self.frontier = Some(y);
                    // now under h_b; its Extends of others are not Adapt calls
                    self.store(y, None, remote);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
