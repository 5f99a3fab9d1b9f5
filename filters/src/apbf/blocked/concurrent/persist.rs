//! The concurrent APBF saved and loaded: a consistent snapshot taken under
//! the shift lock while other threads write ([`Persist::to_bytes`] and
//! `clone`), and the invariants a loaded filter must hold.
//!
//! [`Persist::to_bytes`]: crate::Persist::to_bytes

use super::{unpack, BlockedApbf, ConcurrentApbf, State, COUNT_MASK};
use crate::apbf::shared_clock::Shift;
use crate::hash::KeyHasher;
use crate::persist::{Codec, LoadError, Reader, Writer};
use crate::ParamError;
use std::sync::atomic::Ordering::*;

impl ConcurrentApbf {
    /// The state, copied under the shift lock: no slice is cleared and no
    /// generation begins while it is read, so every key whose insertion
    /// returned before the copy began is in it (later insertions may or
    /// may not be, and only add bits). The clock is the one of the last
    /// completed shift: an `advance` waiting for the lock has not happened
    /// yet in the copy (its shifts are made by the next `advance` of the
    /// restored filter).
    fn snapshot(&self) -> State {
        let _guard = self.clock.lock();
        let (base, count) = unpack(self.state.load(Acquire));
        let words: Vec<u64> = self.words.iter().map(|a| a.load(Acquire)).collect();
        let (start, now) = self.clock.snapshot();
        State {
            words,
            base,
            // insertions that claimed a place meanwhile and were counted
            // past g before their shift: at most g in the copy
            count: match self.clock.shift() {
                Shift::Count | Shift::Hybrid(_) => count.min(self.g),
                Shift::Time(_) => count,
            },
            inserted: self.inserted(),
            start,
            now,
        }
    }
}

/// A consistent copy, taken as [`Persist::to_bytes`](crate::Persist) takes
/// it: safe while other threads write (see the module docs).
impl Clone for ConcurrentApbf {
    fn clone(&self) -> Self {
        let shape = (self.k, self.l, self.g, self.blocks);
        Self::assemble(shape, self.clock.shift(), self.hasher, self.snapshot())
    }
}

impl Codec for ConcurrentApbf {
    /// A consistent snapshot, taken while other threads may insert, query
    /// and advance: `to_bytes` needs no pause of the writers.
    fn put(&self, w: &mut Writer) {
        let s = self.snapshot();
        (self.k, self.l).put(w);
        (self.g, self.blocks).put(w);
        self.clock.shift().put(w);
        self.hasher.seed().put(w);
        s.words.put(w);
        (s.base, s.count).put(w);
        s.inserted.put(w);
        (s.start, s.now).put(w);
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, LoadError> {
        let (k, l): (u32, u32) = Codec::get(r)?;
        let (g, blocks): (u64, u64) = Codec::get(r)?;
        let shift = Shift::get(r)?;
        let seed = u64::get(r)?;
        let words = Vec::<u64>::get(r)?;
        let (base, count): (u64, u64) = Codec::get(r)?;
        let inserted = u64::get(r)?;
        let (start, now): (u64, u64) = Codec::get(r)?;
        let invalid = |e: ParamError| LoadError::Invalid(e.to_string());
        let lines = BlockedApbf::shape(k, l, g, blocks).map_err(invalid)?;
        if words.len() != lines * 8 || base >= k as u64 + l as u64 || count > COUNT_MASK {
            return Err(LoadError::Invalid(
                "words, base or count out of shape".into(),
            ));
        }
        let state = State {
            words,
            base,
            count,
            inserted,
            start,
            now,
        };
        Ok(Self::assemble(
            (k, l, g, blocks),
            shift,
            KeyHasher::new(seed),
            state,
        ))
    }
}

impl crate::persist::sealed::Design for ConcurrentApbf {
    fn tag() -> String {
        "concurrent_blocked_apbf".into()
    }
    fn check(&self) -> Result<(), String> {
        self.clock.check(self.k, self.l, self.g)
    }
}

// Saves a consistent snapshot, taken while other threads may write (see
// `Codec` above); loads as an idle filter.
crate::persist::persists!(ConcurrentApbf);
