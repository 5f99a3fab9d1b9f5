//! The broom filter's remote representation R: the elements (live and
//! ghost) in key order with their fingerprints, and RevLookup. The caller
//! owns it; every access is counted.

use super::ordered::OrderedMap;
use std::collections::HashMap;

/// A fingerprint as the remote dictionary keys it: quotient, the top `len`
/// fraction bits (top-aligned, the rest zero), and `len`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Fingerprint {
    pub(super) quot: u64,
    pub(super) prefix: u64,
    pub(super) len: u8,
}

/// One word for the hasher instead of three: the quotient sits below the
/// top-aligned prefix bits and the length above the quotient's (only the
/// spread of the word matters; equal words compare the fields).
impl std::hash::Hash for Fingerprint {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.prefix ^ self.quot ^ ((self.len as u64) << 40));
    }
}

/// What the remote dictionary holds for an element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stored {
    Live(Fingerprint),
    Ghost(Fingerprint),
}

/// The remote representation R: the elements (live and ghost) in key order
/// with their fingerprints, and RevLookup (live fingerprint → element).
/// Every call counts as one access.
#[derive(Debug, Clone, Default)]
pub struct Remote {
    pub(super) elems: OrderedMap<Stored>,
    rev: HashMap<Fingerprint, u64, crate::hash::MixBuild>,
    accesses: u64,
}

impl Remote {
    /// An empty dictionary.
    pub fn new() -> Self {
        Remote::default()
    }

    /// Accesses so far.
    pub fn accesses(&self) -> u64 {
        self.accesses
    }

    /// Whether `key` is a live element. One access.
    pub fn is_member(&mut self, key: u64) -> bool {
        self.accesses += 1;
        matches!(self.elems.get(key), Some(Stored::Live(_)))
    }

    pub(super) fn get(&mut self, key: u64) -> Option<Stored> {
        self.accesses += 1;
        self.elems.get(key)
    }

    pub(super) fn put(&mut self, key: u64, s: Stored) {
        self.accesses += 1;
        if let Some(Stored::Live(old)) = self.elems.insert(key, s) {
            self.rev.remove(&old);
        }
        if let Stored::Live(fp) = s {
            self.rev.insert(fp, key);
        }
    }

    pub(super) fn remove(&mut self, key: u64) {
        self.accesses += 1;
        if let Some(Stored::Live(old)) = self.elems.remove(key) {
            self.rev.remove(&old);
        }
    }

    pub(super) fn rev_lookup(&mut self, fp: &Fingerprint) -> Option<u64> {
        self.accesses += 1;
        self.rev.get(fp).copied()
    }

    pub(super) fn next_after(&mut self, z: Option<u64>) -> Option<(u64, Stored)> {
        self.accesses += 1;
        self.elems.next_after(z)
    }
}

crate::persist::codec_struct!(Fingerprint { quot, prefix, len });
crate::persist::codec_struct!(Remote {
    elems,
    rev,
    accesses
});

impl crate::persist::Codec for Stored {
    const MIN_BYTES: usize = 18;
    fn put(&self, w: &mut crate::persist::Writer) {
        match self {
            Stored::Live(fp) => (0u8, *fp).put(w),
            Stored::Ghost(fp) => (1u8, *fp).put(w),
        }
    }
    fn get(r: &mut crate::persist::Reader<'_>) -> Result<Self, crate::persist::LoadError> {
        use crate::persist::Codec;
        match Codec::get(r)? {
            (0u8, fp) => Ok(Stored::Live(fp)),
            (1u8, fp) => Ok(Stored::Ghost(fp)),
            (v, _) => Err(crate::persist::LoadError::Invalid(format!(
                "stored kind {v}"
            ))),
        }
    }
}

impl Remote {
    /// The invariants of a loaded dictionary: the reverse map holds exactly
    /// the live elements' fingerprints.
    pub(super) fn check(&self) -> Result<(), String> {
        self.elems.check()?;
        let mut live = 0;
        for (key, s) in self.elems.iter() {
            if let Stored::Live(fp) = s {
                live += 1;
                crate::persist::ensure(self.rev.get(&fp) == Some(&key), || {
                    "a live element missing from the reverse map".into()
                })?;
            }
        }
        crate::persist::ensure(live == self.rev.len(), || {
            "reverse-map entries with no live element".into()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    fn fp(quot: u64, prefix: u64, len: u8) -> Fingerprint {
        Fingerprint { quot, prefix, len }
    }

    #[test]
    fn every_call_is_one_access_and_rev_lookup_follows_the_live_elements() {
        let mut r = Remote::new();
        assert_eq!(r.accesses(), 0);
        r.put(10, Stored::Live(fp(1, 0, 0)));
        r.put(20, Stored::Live(fp(2, 0, 0)));
        assert_eq!(r.accesses(), 2);
        assert!(r.is_member(10) && !r.is_member(11));
        assert_eq!(r.get(20), Some(Stored::Live(fp(2, 0, 0))));
        assert_eq!(r.rev_lookup(&fp(1, 0, 0)), Some(10));
        assert_eq!(r.accesses(), 6);
        // a live element turned ghost leaves RevLookup; removal too
        r.put(10, Stored::Ghost(fp(1, 0, 0)));
        assert_eq!(r.rev_lookup(&fp(1, 0, 0)), None);
        assert!(!r.is_member(10));
        r.remove(20);
        assert_eq!(r.rev_lookup(&fp(2, 0, 0)), None);
        assert_eq!(r.next_after(None), Some((10, Stored::Ghost(fp(1, 0, 0)))));
        assert_eq!(r.next_after(Some(10)), None);
        assert_eq!(r.accesses(), 13);
    }

    #[test]
    fn fingerprints_hash_apart() {
        // the map's speed needs distinct words: every field counts
        let build = crate::hash::MixBuild::default();
        let word = |f: Fingerprint| build.hash_one(f);
        let mut seen = std::collections::HashSet::new();
        for quot in 0..300u64 {
            for len in 0..4u8 {
                let prefix = if len == 0 { 0 } else { (quot % 2) << 63 };
                assert!(seen.insert(word(fp(quot, prefix, len))), "{quot} {len}");
            }
        }
        assert_ne!(word(fp(5, 0, 1)), word(fp(5, 0, 2)));
    }
}
