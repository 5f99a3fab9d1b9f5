//! The Naor-Yogev sliding Bloom filter: a dictionary of fingerprints with
//! generation tags, de-amortized expiry and lazy deletion
//! (Naor, Yogev, *Tight Bounds for Sliding Bloom Filters*, arXiv:1304.5872,
//! Section 2).
//!
//! * A key's fingerprint h(x) is uniform on \[R\], R ≈ N/ε, N = (c + 1)g the
//!   largest number of active keys (the paper's n' = n(1 + 1/c)).
//! * Inserting x stores h(x) with the current generation ℓ, or, if h(x) is
//!   already stored and active, moves its tag to ℓ. ℓ advances every g
//!   insertions and ranges over 2c + 2 values; an entry is *active* while ℓ is
//!   at most c generations ahead of its tag. Lookups answer yes only for
//!   active entries.
//! * Expiry is de-amortized: every insertion scans two slots (more only if the
//!   table is larger than 2N slots) and frees them if inactive, and every slot
//!   an insertion reads is checked and freed if inactive (lazy deletion). An
//!   inactive entry never moves, and the scan reaches it within N - 1
//!   insertions, before its tag value is reused; see [`theory`].
//!
//! # The dictionary
//!
//! The paper uses Backyard Cuckoo Hashing. This is a bucketized cuckoo table
//! with quotienting, which has what the construction needs (a cell per entry,
//! scanning in a fixed order with a saved index, lazy deletion of any cell an
//! operation touches, fixed per-entry data): B buckets of four slots; the
//! fingerprint is (q, ρ) with bucket q ∈ \[B\] and remainder ρ of r bits; its
//! other bucket is q' = (H(ρ) - q) mod B (an involution, so either bucket
//! gives the other), and each slot stores ρ, one bit saying whether the entry
//! sits in q or q', and its tag (0 = empty). A full pair of buckets displaces
//! an entry along a random walk of at most [`MAX_KICKS`] steps; an entry left
//! over goes to a small stash (the role of the paper's queue Q) that lookups
//! also read and that drops inactive entries on every insertion. Insertion
//! time is therefore constant only with high probability, like the paper's:
//! [`Instrumented::insert_probes`] reports each
//! insertion's slot reads so that the
//! harness can measure the tail.
//!
//! Memory is reported exactly: the table, the stash as allocated, and four
//! 64-bit words of state. Where it exceeds the paper's bound, and by how much,
//! is derived in [`theory`] and measured by `experiments/naor_yogev_space.toml`.

pub mod lines;
pub mod theory;
pub mod timed;

use crate::bits::PackedInts;
use crate::hash::{index, involution, mix64, xorshift64};
use crate::Instrumented;
use crate::{Filter, ParamError, SlidingFilter};
pub use theory::{Sizing, BUCKET_SLOTS, DEFAULT_MAX_LOAD};

/// Displacements before an insertion gives up and uses the stash.
pub const MAX_KICKS: u32 = 500;

/// One stash entry: full fingerprint and tag code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct StashEntry {
    bucket: u64,
    rem: u64,
    code: u64,
}

/// Whether tag code `code` (generation + 1; 0 = empty) is active at
/// generation `gen`: at most c generations behind it, modulo 2c + 2.
#[inline]
fn is_active(code: u64, gen: u64, size: &Sizing) -> bool {
    code != 0 && (gen + size.tags + 1 - code) % size.tags <= size.c
}

/// The Naor-Yogev (n, m, ε) sliding Bloom filter.
#[derive(Debug, Clone)]
pub struct NaorYogev {
    size: Sizing,
    slots: PackedInts,
    stash: Vec<StashEntry>,
    /// Current generation ℓ in 0..2c+2.
    gen: u64,
    /// Insertions in the current generation, 0..=g.
    count: u64,
    inserted: u64,
    /// Next slot of the background scan.
    scan: u64,
    /// xorshift state of the displacement walk.
    rng: u64,
    tag_mask: u64,
    rem_mask: u64,
    /// Slots scanned per insertion.
    scan_per: u64,
    max_stash: usize,
    /// Bit `code` set iff tag code `code` is active at the current
    /// generation (tag codes below 128; otherwise unused and 0).
    active_codes: u128,
}

/// Whether tag code `code` is active at generation `gen`, from `mask`
/// ([`active_codes`] of that generation) when the codes fit in it: no
/// division per slot read, the mask being rebuilt once a generation.
#[inline]
fn code_active(mask: u128, code: u64, gen: u64, size: &Sizing) -> bool {
    if size.tags < 128 {
        mask >> code & 1 == 1
    } else {
        is_active(code, gen, size)
    }
}

/// The codes active at generation `gen` as a mask (codes 1..=tags, when
/// tags < 128; 0 otherwise).
fn active_codes(gen: u64, size: &Sizing) -> u128 {
    if size.tags >= 128 {
        return 0;
    }
    (1..=size.tags)
        .filter(|&code| is_active(code, gen, size))
        .fold(0u128, |m, code| m | 1 << code)
}

/// The shape of a [`NaorYogev`]: what [`NaorYogev::new`] takes (see [`crate::build`]
/// for the words). The filter's sizes follow from it by [`Sizing`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NaorYogevShape {
    /// The window, in insertions (`n`).
    pub window: u64,
    /// The largest slack accepted, in insertions (`m`).
    pub slack: u64,
    /// The largest FPR accepted (`ε`).
    pub fpr: f64,
    /// Generations per window (`c`); `None` for the least memory.
    pub generations: Option<u64>,
    /// The table's largest load; `None` for [`DEFAULT_MAX_LOAD`].
    pub max_load: Option<f64>,
}

impl NaorYogev {
    /// The filter of `shape`: window n, slack at most m, FPR at most ε,
    /// c given or chosen for least memory.
    ///
    /// ```
    /// use bloomlab_filters::{Filter, NaorYogev, NaorYogevShape, SlidingFilter};
    /// let shape = NaorYogevShape {
    ///     window: 4096,
    ///     slack: 4096,
    ///     fpr: 1e-3,
    ///     generations: None,
    ///     max_load: None,
    /// };
    /// let mut f = NaorYogev::new(shape).unwrap();
    /// for key in 0..5000 {
    ///     f.insert(key);
    /// }
    /// assert!(f.contains(4999) && f.window() == 4096);
    /// ```
    pub fn new(shape: NaorYogevShape) -> Result<Self, ParamError> {
        let load = shape.max_load.unwrap_or(DEFAULT_MAX_LOAD);
        let (n, m, eps, c) = (shape.window, shape.slack, shape.fpr, shape.generations);
        Self::from_sizing(Sizing::new(n, m, eps, c, load)?)
    }

    /// A filter of the given sizes (what [`new`](Self::new) builds once
    /// it has sized them).
    pub(crate) fn from_sizing(size: Sizing) -> Result<Self, ParamError> {
        Ok(NaorYogev {
            slots: PackedInts::new(size.slots(), size.slot_bits()),
            stash: Vec::new(),
            gen: 0,
            count: 0,
            inserted: 0,
            scan: 0,
            rng: 0x853C_49E6_748F_EA9B,
            tag_mask: (1 << size.tag_bits) - 1,
            rem_mask: (1u64 << size.remainder_bits) - 1,
            scan_per: size.scan_per_insert(),
            max_stash: 0,
            active_codes: active_codes(0, &size),
            size,
        })
    }

    /// Seeds the displacement walk (the filter is otherwise deterministic).
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.rng = mix64(seed) | 1;
        self
    }

    /// The sizes.
    pub fn sizing(&self) -> &Sizing {
        &self.size
    }

    /// Entries now in the stash.
    pub fn stash_len(&self) -> usize {
        self.stash.len()
    }

    /// Stash entries allocated (counted in `memory_bits`).
    pub fn stash_capacity(&self) -> usize {
        self.stash.capacity()
    }

    /// Largest stash seen.
    pub fn max_stash(&self) -> usize {
        self.max_stash
    }

    /// Slots holding an entry, active or not yet deleted (scans the table).
    pub fn occupied(&self) -> u64 {
        (0..self.slots.len())
            .filter(|&i| self.slots.get(i) != 0)
            .count() as u64
    }

    /// Fingerprint (bucket, remainder) of a key.
    #[inline]
    fn fingerprint(&self, key: u64) -> (u64, u64) {
        (
            index(key, 0, self.size.buckets),
            mix64(key ^ 0x6A09_E667_F3BC_C909) & self.rem_mask,
        )
    }

    /// The other bucket of an entry with remainder `rem` in bucket `b`.
    #[inline]
    fn other(&self, b: u64, rem: u64) -> u64 {
        involution(
            mix64(rem.wrapping_add(0xBB67_AE85_84CA_A73B)),
            b,
            self.size.buckets,
        )
    }

    /// Whether tag code `code` (generation + 1) is active.
    #[inline]
    fn active(&self, code: u64) -> bool {
        code_active(self.active_codes, code, self.gen, &self.size)
    }

    /// Remainder of a slot's content.
    #[inline]
    fn rem_of(&self, v: u64) -> u64 {
        v >> (self.size.tag_bits + 1)
    }

    /// Bucket bit of a slot's content (1: in the fingerprint's second bucket).
    #[inline]
    fn alt_of(&self, v: u64) -> u64 {
        (v >> self.size.tag_bits) & 1
    }

    /// Whether slot content `v`, read in the bucket a fingerprint reaches with
    /// bucket bit `alt`, holds that fingerprint's remainder `rem` (either bit
    /// when both its buckets coincide).
    #[inline]
    fn holds(&self, v: u64, rem: u64, alt: u64, same_bucket: bool) -> bool {
        self.rem_of(v) == rem && (same_bucket || self.alt_of(v) == alt)
    }

    #[inline]
    fn encode(&self, rem: u64, alt: u64, code: u64) -> u64 {
        (rem << (self.size.tag_bits + 1)) | (alt << self.size.tag_bits) | code
    }

    /// Reads slot `s`, deleting an inactive entry (lazy deletion): the live
    /// content or 0.
    #[inline]
    fn read_live(&mut self, s: u64) -> u64 {
        let v = self.slots.get(s);
        if v != 0 && !self.active(v & self.tag_mask) {
            self.slots.set(s, 0);
            return 0;
        }
        v
    }

    fn next_random(&mut self) -> u64 {
        xorshift64(&mut self.rng)
    }

    /// The insertion, returning the slots and stash entries it read.
    fn insert_counted(&mut self, key: u64) -> u32 {
        if self.count == self.size.g {
            self.switch();
        }
        self.write_counted(key)
    }

    /// Starts the next generation. One that ended before its g insertions
    /// (on time, see [`timed`]) first scans the slots its missing insertions
    /// would have scanned, so that every generation still covers its share
    /// of the table and an inactive entry is freed before its tag value
    /// comes round again.
    fn switch(&mut self) {
        for _ in 0..(self.size.g - self.count.min(self.size.g)) * self.scan_per {
            self.read_live(self.scan);
            self.scan += 1;
            if self.scan == self.slots.len() {
                self.scan = 0;
            }
        }
        self.count = 0;
        self.gen = (self.gen + 1) % self.size.tags;
        self.active_codes = active_codes(self.gen, &self.size);
    }

    /// The insertion without the generation switch.
    fn write_counted(&mut self, key: u64) -> u32 {
        self.count += 1;
        self.inserted += 1;
        let code = self.gen + 1;
        let (q, rem) = self.fingerprint(key);
        let q2 = self.other(q, rem);
        let mut probes = 0u32;
        let mut free = None;
        let mut found = false;
        let pairs: &[(u64, u64)] = if q2 == q {
            &[(q, 0)]
        } else {
            &[(q, 0), (q2, 1)]
        };
        'buckets: for &(b, alt) in pairs {
            for j in 0..BUCKET_SLOTS {
                let s = b * BUCKET_SLOTS + j;
                let v = self.read_live(s);
                probes += 1;
                if v == 0 {
                    free.get_or_insert((s, alt));
                } else if self.holds(v, rem, alt, q2 == q) {
                    let refreshed = (v & !self.tag_mask) | code;
                    self.slots.set(s, refreshed);
                    found = true;
                    break 'buckets;
                }
            }
        }
        if !found {
            for e in self.stash.iter_mut() {
                probes += 1;
                if e.bucket == q && e.rem == rem {
                    e.code = code; // an inactive entry is revived as new
                    found = true;
                    break;
                }
            }
        }
        if !found {
            match free {
                Some((s, alt)) => self.slots.set(s, self.encode(rem, alt, code)),
                None => probes += self.displace(q, q2, rem, code),
            }
        }
        // de-amortized expiry: the scan, and the stash
        for _ in 0..self.scan_per {
            self.read_live(self.scan);
            self.scan += 1;
            if self.scan == self.slots.len() {
                self.scan = 0;
            }
            probes += 1;
        }
        if !self.stash.is_empty() {
            probes += self.stash.len() as u32;
            let (mask, gen, size) = (self.active_codes, self.gen, self.size);
            self.stash.retain(|e| code_active(mask, e.code, gen, &size));
        }
        probes
    }

    /// Random-walk cuckoo insertion of (rem, code) whose buckets (q, q2) are
    /// full of active entries; returns the slots read.
    fn displace(&mut self, q: u64, q2: u64, rem: u64, code: u64) -> u32 {
        let mut probes = 0;
        let (mut b, mut alt) = if self.next_random() & 1 == 0 {
            (q, 0)
        } else {
            (q2, 1)
        };
        let mut carried = self.encode(rem, alt, code);
        for _ in 0..MAX_KICKS {
            let s = b * BUCKET_SLOTS + self.next_random() % BUCKET_SLOTS;
            let victim = self.slots.get(s);
            self.slots.set(s, carried);
            // the victim moves to its other bucket, with its bucket bit flipped
            let (vrem, valt) = (self.rem_of(victim), self.alt_of(victim));
            b = self.other(b, vrem);
            alt = valt ^ 1;
            carried = (victim & !(1 << self.size.tag_bits)) | (alt << self.size.tag_bits);
            for j in 0..BUCKET_SLOTS {
                let t = b * BUCKET_SLOTS + j;
                probes += 1;
                if self.read_live(t) == 0 {
                    self.slots.set(t, carried);
                    return probes;
                }
            }
        }
        let rem = self.rem_of(carried);
        let bucket = if alt == 0 { b } else { self.other(b, rem) };
        self.stash.push(StashEntry {
            bucket,
            rem,
            code: carried & self.tag_mask,
        });
        self.max_stash = self.max_stash.max(self.stash.len());
        probes
    }
}

impl Filter for NaorYogev {
    fn insert(&mut self, key: u64) {
        self.insert_counted(key);
    }

    fn contains(&self, key: u64) -> bool {
        self.contains_probes(key).0
    }

    /// Table, stash capacity, and 4 x 64 bits of state.
    fn memory_bits(&self) -> u64 {
        self.size.memory_bits() + self.stash.capacity() as u64 * self.size.stash_entry_bits()
    }

    fn name(&self) -> &'static str {
        "naor_yogev"
    }
}

impl crate::Instrumented for NaorYogev {
    fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
        Some(Self::lines_read(self, key))
    }
    fn insert_probes(&mut self, key: u64) -> Option<u32> {
        Some(self.insert_counted(key))
    }
    /// Both buckets' lines.
    fn prefetch_insert(&self, key: u64) {
        self.prefetch_query(key);
    }
    /// Both buckets' lines.
    fn prefetch_query(&self, key: u64) {
        let (q, rem) = self.fingerprint(key);
        for b in [q, self.other(q, rem)] {
            self.slots.prefetch(b * BUCKET_SLOTS);
        }
    }

    /// Slots read (8, or 4 when both buckets coincide) plus stash entries.
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        let (q, rem) = self.fingerprint(key);
        let q2 = self.other(q, rem);
        let mut probes = 0;
        for (b, alt) in [(q, 0), (q2, 1)] {
            if alt == 1 && q2 == q {
                break;
            }
            for j in 0..BUCKET_SLOTS {
                let v = self.slots.get(b * BUCKET_SLOTS + j);
                probes += 1;
                if self.holds(v, rem, alt, q2 == q) && self.active(v & self.tag_mask) {
                    return (true, probes);
                }
            }
        }
        for e in &self.stash {
            probes += 1;
            if e.bucket == q && e.rem == rem && self.active(e.code) {
                return (true, probes);
            }
        }
        (false, probes)
    }
}

impl SlidingFilter for NaorYogev {
    fn window(&self) -> u64 {
        self.size.n
    }

    fn slack(&self) -> u64 {
        self.size.slack()
    }

    fn period(&self) -> u64 {
        self.size.g
    }

    fn inserted(&self) -> u64 {
        self.inserted
    }
}

#[cfg(test)]
mod tests;

crate::persist::codec_struct!(StashEntry { bucket, rem, code });

impl crate::persist::Codec for NaorYogev {
    fn put(&self, w: &mut crate::persist::Writer) {
        self.size.put(w);
        self.slots.put(w);
        self.stash.put(w);
        (self.gen, self.count).put(w);
        (self.inserted, self.scan).put(w);
        (self.rng, self.max_stash).put(w);
    }
    fn get(r: &mut crate::persist::Reader<'_>) -> Result<Self, crate::persist::LoadError> {
        use crate::persist::{Codec, LoadError};
        let size = Sizing::get(r)?;
        let again = Sizing::new(size.n, size.m, size.eps, Some(size.c), size.max_load);
        if again.as_ref().ok() != Some(&size) {
            return Err(LoadError::Invalid(
                "sizes that Sizing::new does not give".into(),
            ));
        }
        let slots = <PackedInts as Codec>::get(r)?;
        let stash = Codec::get(r)?;
        let (gen, count) = Codec::get(r)?;
        let (inserted, scan) = Codec::get(r)?;
        let (rng, max_stash) = Codec::get(r)?;
        Ok(NaorYogev {
            slots,
            stash,
            gen,
            count,
            inserted,
            scan,
            rng,
            tag_mask: (1 << size.tag_bits) - 1,
            rem_mask: (1u64 << size.remainder_bits) - 1,
            scan_per: size.scan_per_insert(),
            max_stash,
            active_codes: active_codes(gen % size.tags.max(1), &size),
            size,
        })
    }
}

impl crate::persist::sealed::Design for NaorYogev {
    fn tag() -> String {
        "naor_yogev".into()
    }
    fn check(&self) -> Result<(), String> {
        use crate::persist::ensure;
        let s = &self.size;
        ensure(
            self.slots.len() == s.slots() && self.slots.width() == s.slot_bits(),
            || format!("{} slots of {} bits", self.slots.len(), self.slots.width()),
        )?;
        ensure(self.gen < s.tags, || format!("generation {}", self.gen))?;
        ensure(self.count <= s.g, || format!("count {} > g", self.count))?;
        ensure(self.scan < s.slots().max(1), || {
            format!("scan {}", self.scan)
        })?;
        for e in &self.stash {
            ensure(
                e.bucket < s.buckets && e.rem <= self.rem_mask && e.code <= s.tags,
                || "a stash entry out of range".into(),
            )?;
        }
        Ok(())
    }
}

crate::persist::persists!(NaorYogev);
