//! A sliding filter closer to the Naor-Yogev space bound: the Naor-Yogev
//! construction (generations of g insertions, tags, de-amortized expiry) over
//! a table of two-choice *pocket dictionaries* instead of a cuckoo table.
//!
//! The bound (Naor, Yogev, arXiv:1304.5872) is about n log2(1/ε) +
//! n max(log2 log2(1/ε), log2(n/m)) bits. The Naor-Yogev filter here
//! ([`crate::naor_yogev`]) stores per slot a remainder rounded up by three
//! bits (a query compares eight slots), a bucket bit and a tag over 2c + 3
//! codes, at load 0.9. This design keeps the construction and changes the
//! dictionary:
//!
//! * **Blocks with a unary header.** A block is 128 header bits and C entry
//!   slots; the header codes how many entries each of its B = 128 - C buckets
//!   holds, so the bucket index is not stored (quotienting) and a query
//!   compares only the entries of its own bucket, about 2αC/B of them, not
//!   eight. The remainder needs about log2(1/ε) + log2(2αC/B) bits.
//! * **Two choices.** A key may live in either of two blocks (the emptier at
//!   insertion), which keeps the blocks balanced at load 0.92. A key whose
//!   blocks are both full goes to a stash, sorted by first block and purged
//!   once a generation. The stash grows with the number of blocks (tens of
//!   entries at n = 2^20, about a hundred at 2^24), but an insertion's work
//!   does not (`experiments/ny_pocket_tail.toml`). No bucket bit is needed,
//!   because the block, not the entry, says where a key is.
//! * **No refresh.** Every insertion stores a new entry, a repeated key
//!   included. The Naor-Yogev filter moves an active entry's tag when its
//!   fingerprint comes again; here an entry does not determine the whole
//!   fingerprint (it does not say which other block the key could have
//!   used), so a refresh would pull a later key whose fingerprint matches
//!   an entry into that entry's block, and a key just past the window would
//!   be reported about 1.3 times as often as a never-inserted one
//!   (measured at c = 1 while building this). Without refresh the active
//!   entries are one per insertion of the last (c + 1)g at most, the
//!   capacity the table is sized for, and a repeated key only lowers the
//!   FPR. The cost: a key's entries all go to its two blocks, so a key
//!   repeated more often in a window than they have free slots (a large
//!   flow in a packet capture) sends the rest to the stash, which then
//!   grows with the repeats, and with it [`Filter::memory_bits`].
//! * **Tags over c + 2 values.** The sweep purges whole blocks at b/g blocks
//!   per insertion, so every block is purged within the generation in which
//!   a tag expires; see [`theory`].
//!
//! Its exact memory, FPR and the parameters chosen for least memory are in
//! [`theory`]; `experiments/space_vs_bound.toml` measures it against the
//! bound beside the other sliding designs.

mod header;
pub mod lines;
mod stash;
pub mod theory;

use crate::bits::{read_bits, shift_bits_up, write_bits};
use crate::hash::{fastrange, mix64};
use crate::{Filter, ParamError, SlidingFilter};
use header::{bucket_range, header_insert};
pub use theory::{Sizing, DEFAULT_MAX_LOAD, HEADER_BITS};

const SALT_A: u64 = 0x243F_6A88_85A3_08D3;
const SALT_B: u64 = 0x1319_8A2E_0370_7344;

/// Where a key goes: two distinct blocks, a bucket and a remainder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fingerprint {
    b1: u64,
    b2: u64,
    q: u32,
    rem: u64,
}

/// A key that found both its blocks full of active entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct StashEntry {
    fp: Fingerprint,
    tag: u64,
}

/// The pocket-dictionary sliding filter.
#[derive(Debug, Clone)]
pub struct NyPocket {
    size: Sizing,
    words: Vec<u64>,
    stash: stash::Stash,
    /// Current generation ℓ in 0..c+2.
    gen: u64,
    /// Insertions in the current generation, 0..=g.
    count: u64,
    inserted: u64,
    /// Next block of the sweep, and its accumulator (b per insertion, g per
    /// block purged).
    sweep: u64,
    sweep_acc: u64,
    /// Bit τ set iff tag τ is active (tags <= 128; otherwise unused).
    active_tags: u128,
    max_stash: usize,
    block_bits: u64,
    entry_bits: u32,
    tag_mask: u64,
    rem_mask: u64,
}

/// The shape of a [`NyPocket`]: what [`NyPocket::new`] takes (see [`crate::build`]
/// for the words). The filter's sizes follow from it by [`Sizing`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NyPocketShape {
    /// The window, in insertions (`n`).
    pub window: u64,
    /// The largest slack accepted, in insertions (`m`).
    pub slack: u64,
    /// The largest FPR accepted (`ε`).
    pub fpr: f64,
    /// Generations per window (`c`); `None` for the least memory (and C and r).
    pub generations: Option<u64>,
    /// The table's largest load; `None` for [`DEFAULT_MAX_LOAD`].
    pub max_load: Option<f64>,
}

impl NyPocket {
    /// The filter of `shape`: window n, slack at most m, FPR at most ε,
    /// c given or chosen for least memory (and C and r).
    ///
    /// ```
    /// use bloomlab_filters::{Filter, NyPocket, NyPocketShape, SlidingFilter};
    /// let shape = NyPocketShape {
    ///     window: 4096,
    ///     slack: 4096,
    ///     fpr: 1e-3,
    ///     generations: None,
    ///     max_load: None,
    /// };
    /// let mut f = NyPocket::new(shape).unwrap();
    /// for key in 0..5000 {
    ///     f.insert(key);
    /// }
    /// assert!(f.contains(4999) && f.window() == 4096);
    /// ```
    pub fn new(shape: NyPocketShape) -> Result<Self, ParamError> {
        let load = shape.max_load.unwrap_or(DEFAULT_MAX_LOAD);
        let (n, m, eps, c) = (shape.window, shape.slack, shape.fpr, shape.generations);
        Self::from_sizing(Sizing::new(n, m, eps, c, load)?)
    }

    /// A filter of the given sizes (what [`new`](Self::new) builds once
    /// it has sized them).
    pub(crate) fn from_sizing(size: Sizing) -> Result<Self, ParamError> {
        if size.blocks < 2 || !(1..HEADER_BITS).contains(&size.slots_per_block) {
            return Err(ParamError::OutOfRange {
                name: "blocks",
                value: format!("{} blocks of {} slots", size.blocks, size.slots_per_block),
                expected: "at least 2 blocks of 1..=127 slots",
            });
        }
        if size.entry_bits() > 57 {
            return Err(ParamError::OutOfRange {
                name: "remainder_bits",
                value: size.remainder_bits.to_string(),
                expected: "with the tag, at most 57 bits",
            });
        }
        let mut f = NyPocket {
            words: vec![0; size.words() as usize],
            stash: stash::Stash::default(),
            gen: 0,
            count: 0,
            inserted: 0,
            sweep: 0,
            sweep_acc: 0,
            active_tags: 0,
            max_stash: 0,
            block_bits: size.block_bits(),
            entry_bits: size.entry_bits(),
            tag_mask: (1 << size.tag_bits) - 1,
            rem_mask: (1 << size.remainder_bits) - 1,
            size,
        };
        f.active_tags = f.active_mask();
        Ok(f)
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

    /// Entries held in the blocks, active or awaiting the sweep.
    pub fn occupied(&self) -> u64 {
        (0..self.size.blocks)
            .map(|b| self.header(b).count_ones() as u64)
            .sum()
    }

    /// Whether tag `tag` is active at generation `gen`.
    #[inline]
    fn is_active_at(&self, tag: u64, gen: u64) -> bool {
        (gen + self.size.tags - tag) % self.size.tags <= self.size.c
    }

    /// The tags active at the current generation as a mask (tags <= 128).
    fn active_mask(&self) -> u128 {
        if self.size.tags > 128 {
            return 0;
        }
        (0..self.size.tags)
            .filter(|&t| self.is_active_at(t, self.gen))
            .fold(0u128, |m, t| m | 1 << t)
    }

    #[inline]
    fn active(&self, tag: u64) -> bool {
        if self.size.tags <= 128 {
            self.active_tags >> tag & 1 == 1
        } else {
            self.is_active_at(tag, self.gen)
        }
    }

    #[inline]
    fn fingerprint(&self, key: u64) -> Fingerprint {
        let h1 = mix64(key ^ SALT_A);
        let h2 = mix64(key.wrapping_add(SALT_B));
        let b1 = fastrange(h1, self.size.blocks);
        let o = fastrange(h2, self.size.blocks - 1);
        let b2 = if o >= b1 { o + 1 } else { o };
        let q = (((h2 & 0xFFFF_FFFF) * self.size.buckets_per_block() as u64) >> 32) as u32;
        Fingerprint {
            b1,
            b2,
            q,
            rem: h1 & self.rem_mask,
        }
    }

    #[inline]
    fn header(&self, blk: u64) -> u128 {
        let base = blk * self.block_bits;
        read_bits(&self.words, base, 64) as u128
            | (read_bits(&self.words, base + 64, 64) as u128) << 64
    }

    #[inline]
    fn set_header(&mut self, blk: u64, h: u128) {
        let base = blk * self.block_bits;
        write_bits(&mut self.words, base, 64, h as u64);
        write_bits(&mut self.words, base + 64, 64, (h >> 64) as u64);
    }

    #[inline]
    fn entry_pos(&self, blk: u64, i: u32) -> u64 {
        blk * self.block_bits + HEADER_BITS as u64 + i as u64 * self.entry_bits as u64
    }

    #[inline]
    fn entry(&self, blk: u64, i: u32) -> u64 {
        read_bits(&self.words, self.entry_pos(blk, i), self.entry_bits)
    }

    #[inline]
    fn set_entry(&mut self, blk: u64, i: u32, v: u64) {
        let pos = self.entry_pos(blk, i);
        write_bits(&mut self.words, pos, self.entry_bits, v)
    }

    /// Whether bucket `q` of block `blk` (header `h`) holds an active entry
    /// with remainder `rem`; and the 64-byte lines read.
    #[inline]
    fn lookup(&self, blk: u64, h: u128, q: u32, rem: u64) -> (bool, u32) {
        let (hit, e0, last) = self.scan(blk, h, q, rem);
        (hit, self.lines(blk, e0, last))
    }

    /// Whether bucket `q` of block `blk` (header `h`) holds an active entry
    /// with remainder `rem`; and the range of entries read.
    #[inline]
    fn scan(&self, blk: u64, h: u128, q: u32, rem: u64) -> (bool, u32, u32) {
        let (e0, cnt, _) = bucket_range(h, q);
        let mut hit = false;
        let mut last = e0;
        for i in e0..e0 + cnt {
            let v = self.entry(blk, i);
            last = i + 1;
            if v >> self.size.tag_bits == rem && self.active(v & self.tag_mask) {
                hit = true;
                break;
            }
        }
        (hit, e0, last)
    }

    /// Whether the stash holds an active entry of fingerprint `fp`, and
    /// the entries compared (those with its first block: the stash is
    /// sorted by it).
    #[inline]
    fn stash_holds(&self, fp: &Fingerprint) -> (bool, u32) {
        self.stash.holds(fp, |tag| self.active(tag))
    }

    /// Distinct 64-byte lines holding block `blk`'s header and its entries
    /// `from..to`.
    fn lines(&self, blk: u64, from: u32, to: u32) -> u32 {
        let base = blk * self.block_bits;
        let (h0, h1) = (base / 512, (base + HEADER_BITS as u64 - 1) / 512);
        if to <= from {
            return (h1 - h0 + 1) as u32;
        }
        let e0 = self.entry_pos(blk, from) / 512;
        let e1 = (self.entry_pos(blk, to) - 1) / 512;
        let overlap = (h1.min(e1) + 1).saturating_sub(h0.max(e0));
        (h1 - h0 + 1 + e1 - e0 + 1 - overlap) as u32
    }

    /// Removes the inactive entries of block `blk`; returns the entries read.
    fn purge(&mut self, blk: u64) -> u32 {
        let h = self.header(blk);
        let total = h.count_ones();
        let (mut nh, mut ones, mut e_out, mut removed) = (h, h, 0u32, 0u32);
        for e_in in 0..total {
            let p = ones.trailing_zeros() - removed;
            ones &= ones - 1;
            let v = self.entry(blk, e_in);
            if self.active(v & self.tag_mask) {
                if e_out != e_in {
                    self.set_entry(blk, e_out, v);
                }
                e_out += 1;
            } else {
                // drop header bit p (its position after the earlier removals)
                let low = nh & ((1u128 << p) - 1);
                nh = low | (nh >> (p + 1)) << p;
                removed += 1;
            }
        }
        if removed > 0 {
            self.set_header(blk, nh);
        }
        total
    }

    /// Stores `v` in bucket `q` of block `blk` (which has a free slot);
    /// returns the entries moved.
    fn place(&mut self, blk: u64, q: u32, v: u64) -> u32 {
        let h = self.header(blk);
        let total = h.count_ones();
        let (_, cnt, start) = bucket_range(h, q);
        let pos = start + cnt;
        let e = pos - q;
        let (from, to) = (self.entry_pos(blk, e), self.entry_pos(blk, total));
        shift_bits_up(&mut self.words, from, to, self.entry_bits as u64);
        self.set_entry(blk, e, v);
        self.set_header(blk, header_insert(h, pos));
        total - e + 1
    }

    /// The insertion; returns the entries it read or wrote.
    fn insert_counted(&mut self, key: u64) -> u32 {
        if self.count == self.size.g {
            self.count = 0;
            self.gen = (self.gen + 1) % self.size.tags;
            self.active_tags = self.active_mask();
        }
        self.count += 1;
        self.inserted += 1;
        let fp = self.fingerprint(key);
        let v = fp.rem << self.size.tag_bits | self.gen;
        // every insertion stores a new entry, a repeated key included: see
        // the module documentation for why an entry is never refreshed
        self.store(fp, v) + self.advance_sweep()
    }

    /// Stores a new entry in the emptier of its blocks, purging both first
    /// if both are full, or in the stash.
    fn store(&mut self, fp: Fingerprint, v: u64) -> u32 {
        let full = self.size.slots_per_block;
        let load = |f: &Self, b| f.header(b).count_ones();
        let mut probes = 0;
        let (mut l1, mut l2) = (load(self, fp.b1), load(self, fp.b2));
        if l1.min(l2) == full {
            probes += self.purge(fp.b1) + self.purge(fp.b2);
            (l1, l2) = (load(self, fp.b1), load(self, fp.b2));
        }
        if l1.min(l2) == full {
            // after the entries with its first block (the design's stash is
            // sorted by it, for binary search)
            self.stash.push(StashEntry { fp, tag: self.gen });
            self.max_stash = self.max_stash.max(self.stash.len());
            return probes;
        }
        let blk = if l1 <= l2 { fp.b1 } else { fp.b2 };
        probes + self.place(blk, fp.q, v)
    }

    /// Purges b blocks every g insertions, in order: every block once in
    /// any g consecutive insertions; and the stash each time the sweep
    /// wraps, which is once in any g consecutive insertions too.
    fn advance_sweep(&mut self) -> u32 {
        let mut probes = 0;
        self.sweep_acc += self.size.blocks;
        while self.sweep_acc >= self.size.g {
            self.sweep_acc -= self.size.g;
            probes += self.purge(self.sweep);
            self.sweep += 1;
            if self.sweep == self.size.blocks {
                self.sweep = 0;
                probes += self.stash.len() as u32;
                let mut stash = std::mem::take(&mut self.stash);
                stash.retain(|e| self.active(e.tag));
                self.stash = stash;
            }
        }
        probes
    }
}

impl Filter for NyPocket {
    fn insert(&mut self, key: u64) {
        self.insert_counted(key);
    }

    fn contains(&self, key: u64) -> bool {
        let fp = self.fingerprint(key);
        let (h1, h2) = (self.header(fp.b1), self.header(fp.b2));
        self.scan(fp.b1, h1, fp.q, fp.rem).0
            || self.scan(fp.b2, h2, fp.q, fp.rem).0
            || self.stash_holds(&fp).0
    }

    /// Block array, stash capacity and state words.
    fn memory_bits(&self) -> u64 {
        self.size.memory_bits() + self.stash.capacity() as u64 * theory::STASH_ENTRY_BITS
    }

    fn name(&self) -> &'static str {
        "ny_pocket"
    }
}

impl crate::Instrumented for NyPocket {
    fn counted_lines(&self, key: u64) -> Option<(bool, u32)> {
        Some(Self::lines_read(self, key))
    }
    /// Entries read, moved or purged, plus stash entries read when the
    /// sweep purges the stash (once a generation).
    fn insert_probes(&mut self, key: u64) -> Option<u32> {
        Some(self.insert_counted(key))
    }

    /// 64-byte lines read (header and bucket of each block) plus stash
    /// entries compared (those with the key's first block: the stash is
    /// sorted by it).
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        let (yes, lines, compared) = self.query_counted(key);
        (yes, lines + compared)
    }
}

impl SlidingFilter for NyPocket {
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

crate::persist::codec_struct!(Fingerprint { b1, b2, q, rem });
crate::persist::codec_struct!(StashEntry { fp, tag });

impl crate::persist::Codec for NyPocket {
    fn put(&self, w: &mut crate::persist::Writer) {
        self.size.put(w);
        self.words.put(w);
        self.stash.sorted_entries().put(w);
        (self.gen, self.count).put(w);
        (self.inserted, self.sweep).put(w);
        (self.sweep_acc, self.max_stash).put(w);
    }
    fn get(r: &mut crate::persist::Reader<'_>) -> Result<Self, crate::persist::LoadError> {
        use crate::persist::{Codec, LoadError};
        let size = Sizing::get(r)?;
        let again = Sizing::new(size.n, size.m, size.eps, Some(size.c), size.max_load);
        let valid = size.blocks >= 2
            && (1..HEADER_BITS).contains(&size.slots_per_block)
            && size.entry_bits() <= 57;
        if !valid || again.as_ref().ok() != Some(&size) {
            return Err(LoadError::Invalid(
                "sizes that Sizing::new does not give".into(),
            ));
        }
        let words = Codec::get(r)?;
        let stash = stash::Stash::from_entries(Codec::get(r)?);
        let (gen, count) = Codec::get(r)?;
        let (inserted, sweep) = Codec::get(r)?;
        let (sweep_acc, max_stash) = Codec::get(r)?;
        let mut f = NyPocket {
            words,
            stash,
            gen,
            count,
            inserted,
            sweep,
            sweep_acc,
            active_tags: 0,
            max_stash,
            block_bits: size.block_bits(),
            entry_bits: size.entry_bits(),
            tag_mask: (1 << size.tag_bits) - 1,
            rem_mask: (1 << size.remainder_bits) - 1,
            size,
        };
        if f.gen < f.size.tags {
            f.active_tags = f.active_mask();
        }
        Ok(f)
    }
}

impl crate::persist::sealed::Design for NyPocket {
    fn tag() -> String {
        "ny_pocket".into()
    }
    fn check(&self) -> Result<(), String> {
        use crate::persist::ensure;
        let s = &self.size;
        ensure(self.words.len() as u64 == s.words(), || {
            format!("{} words for {} blocks", self.words.len(), s.blocks)
        })?;
        ensure(self.gen < s.tags, || format!("generation {}", self.gen))?;
        ensure(self.count <= s.g, || format!("count {} > g", self.count))?;
        ensure(self.sweep < s.blocks && self.sweep_acc < s.g.max(1), || {
            format!("sweep {} ({})", self.sweep, self.sweep_acc)
        })?;
        for e in self.stash.iter() {
            let fp = &e.fp;
            ensure(
                fp.b1 < s.blocks
                    && fp.b2 < s.blocks
                    && fp.q < s.buckets_per_block()
                    && fp.rem <= self.rem_mask
                    && e.tag < s.tags,
                || "a stash entry out of range".into(),
            )?;
        }
        Ok(())
    }
}

crate::persist::persists!(NyPocket);
