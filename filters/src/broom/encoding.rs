//! How a key becomes a broom filter's table entries: the hash split into
//! quotient and fraction under a generation, fingerprints (live and ghost)
//! as prefixes of the fraction, and the matching of entries against a key.

use super::*;

impl BroomFilter {
    /// The hash of `key` under generation `g`, as (quotient, fraction).
    #[inline]
    pub(super) fn digits_gen(&self, key: u64, g: u64) -> (u64, u64) {
        let salt = mix64(self.seed ^ g.wrapping_mul(GOLDEN));
        let d = mix64(key ^ salt) as u128 * self.slots() as u128;
        ((d >> 64) as u64, d as u64)
    }

    /// The hash function `key` is under: h_b below the frontier, else h_a.
    #[inline]
    pub(super) fn digits(&self, key: u64) -> (u64, u64) {
        let g = match self.frontier {
            Some(z) if key <= z => self.gen + 1,
            _ => self.gen,
        };
        self.digits_gen(key, g)
    }

    /// The top `len` bits of `frac`.
    #[inline]
    pub(super) fn top(frac: u64, len: u32) -> u64 {
        if len == 0 {
            0
        } else {
            frac & (!0u64 << (64 - len))
        }
    }

    #[inline]
    pub(super) fn fingerprint(&self, e: &Entry) -> Fingerprint {
        let mut prefix = e.rem << (64 - self.r);
        if e.alen > 0 {
            prefix |= e.abits << (64 - self.r - e.alen as u32);
        }
        Fingerprint {
            quot: e.quot,
            prefix,
            len: (self.r + e.alen as u32) as u8,
        }
    }

    /// The table entry of a live element whose fingerprint is `fp`.
    pub(super) fn live_entry(&self, fp: Fingerprint) -> Entry {
        self.entry_of(fp.quot, fp.prefix, fp.len as u32)
    }

    /// The table entry of the ghost of an element whose fingerprint was
    /// `fp`: quotient and adaptivity bits, remainder 0.
    pub(super) fn ghost_entry(&self, fp: Fingerprint) -> Entry {
        Entry {
            rem: 0,
            ghost: true,
            ..self.live_entry(fp)
        }
    }

    /// The `alen` adaptivity bits of `frac` (right-aligned): those after
    /// the remainder.
    #[inline]
    pub(super) fn abits_of(&self, frac: u64, alen: u8) -> u64 {
        if alen == 0 {
            0
        } else {
            (frac << self.r) >> (64 - alen as u32)
        }
    }

    #[inline]
    pub(super) fn entry_of(&self, quot: u64, frac: u64, len: u32) -> Entry {
        let alen = len - self.r;
        Entry {
            quot,
            rem: frac >> (64 - self.r),
            abits: self.abits_of(frac, alen as u8),
            alen: alen as u8,
            ghost: false,
        }
    }

    /// Whether the live entry `e` matches the fraction bits `frac` (same
    /// quotient assumed): p(e) ⊑ h.
    #[inline]
    pub(super) fn matches(&self, e: &Entry, frac: u64) -> bool {
        !e.ghost && e.rem == frac >> (64 - self.r) && e.abits == self.abits_of(frac, e.alen)
    }

    /// Whether the ghost `e` matches `frac`: its adaptivity bits agree (the
    /// remainder is forgotten).
    #[inline]
    pub(super) fn ghost_matches(&self, e: &Entry, frac: u64) -> bool {
        e.ghost && e.abits == self.abits_of(frac, e.alen)
    }
}
