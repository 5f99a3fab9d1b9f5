//! Any key type: a filter with its key hasher.

use crate::hash::KeyHasher;
use crate::persist::{self, LoadError, Persist};
use crate::{Filter, SlidingFilter, TimedFilter};
use std::hash::Hash;

/// A filter together with the [`KeyHasher`] that turns keys into the 64-bit
/// hashes filters store: `insert(&"evt-1")`, `contains(&event_id)` for any
/// `T: Hash`, with the hasher's seed saved beside the filter so that a
/// loaded filter hashes as the saved one did. The `_hash` methods take a
/// hash the caller made itself.
///
/// ```
/// use bloomlab_filters::{Apbf, Keyed, Persist};
/// let mut f = Keyed::new(bloomlab_filters::Target::window(1000).fpr(1e-3).build::<Apbf>().unwrap(), 7);
/// f.insert("evt-1");
/// assert!(f.contains("evt-1"));
/// let back = Keyed::<Apbf>::from_bytes(&f.to_bytes()).unwrap();
/// assert!(back.contains("evt-1"));
/// ```
#[derive(Debug, Clone)]
pub struct Keyed<F> {
    hasher: KeyHasher,
    filter: F,
}

impl<F> Keyed<F> {
    /// `filter` with keys hashed by `KeyHasher::new(seed)`. Keep the seed
    /// secret when the keys come from someone who might aim for false
    /// positives.
    pub fn new(filter: F, seed: u64) -> Self {
        Keyed {
            hasher: KeyHasher::new(seed),
            filter,
        }
    }

    /// The hasher.
    pub fn hasher(&self) -> KeyHasher {
        self.hasher
    }

    /// The filter.
    pub fn filter(&self) -> &F {
        &self.filter
    }

    /// The filter, mutably (to advance a time design's clock, say).
    pub fn filter_mut(&mut self) -> &mut F {
        &mut self.filter
    }

    /// The filter and the hasher's seed.
    pub fn into_parts(self) -> (F, u64) {
        (self.filter, self.hasher.seed())
    }
}

impl<F: Filter> Keyed<F> {
    /// Records `key`.
    pub fn insert<T: Hash + ?Sized>(&mut self, key: &T) {
        self.filter.insert(self.hasher.hash(key));
    }

    /// Whether `key` is reported present.
    pub fn contains<T: Hash + ?Sized>(&self, key: &T) -> bool {
        self.filter.contains(self.hasher.hash(key))
    }

    /// Records a key the caller hashed itself.
    pub fn insert_hash(&mut self, hash: u64) {
        self.filter.insert(hash);
    }

    /// Whether a key the caller hashed itself is reported present.
    pub fn contains_hash(&self, hash: u64) -> bool {
        self.filter.contains(hash)
    }
}

impl<F: TimedFilter> Keyed<F> {
    /// Moves the filter's clock to `now` (see [`TimedFilter::advance`]).
    pub fn advance(&mut self, now: u64) {
        self.filter.advance(now);
    }
}

impl<F: SlidingFilter> Keyed<F> {
    /// The window of insertions the filter guarantees.
    pub fn window(&self) -> u64 {
        self.filter.window()
    }
}

impl<F: Persist> Keyed<F> {
    /// The filter and its hasher's seed in the crate's binary format.
    pub fn to_bytes(&self) -> Vec<u8> {
        persist::encode(&self.filter, Some(self.hasher.seed()))
    }

    /// A keyed filter from bytes [`to_bytes`](Self::to_bytes) wrote.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, LoadError> {
        match persist::decode::<F>(bytes)? {
            (filter, Some(seed)) => Ok(Keyed::new(filter, seed)),
            (_, None) => Err(LoadError::Keyed { found: false }),
        }
    }
}

#[cfg(feature = "serde")]
impl<F: Persist> serde::Serialize for Keyed<F> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.to_bytes())
    }
}

#[cfg(feature = "serde")]
impl<'de, F: Persist> serde::Deserialize<'de> for Keyed<F> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let bytes = crate::persist::serde_impls::saved_bytes(d)?;
        Keyed::<F>::from_bytes(&bytes).map_err(D::Error::custom)
    }
}
