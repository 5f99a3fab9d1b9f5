//! Saving a filter and loading it back: the crate's own binary format.
//!
//! Every design implements [`Persist`]. [`Persist::to_bytes`] writes
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `BLOOMLAB` |
//! | 2 | format version ([`FORMAT_VERSION`]), little-endian |
//! | 2 | flags: bit 0 set when the file holds a [`Keyed`](crate::Keyed) filter |
//! | 1 + n | the design's tag (its length, then ASCII: `apbf`, `on_time/apbf`, ...) |
//! | 8 | the key hasher's seed (0 unless keyed) |
//! | 8 | length of the state in bytes |
//! | ... | the state: parameters, then every field that changes (bits, clocks, generation, phase, stash, random-number state, the broom filter's remote dictionary), little-endian |
//! | 8 | XXH3-64 of every byte before it |
//!
//! and [`Persist::from_bytes`] gives back a filter that answers every later
//! insertion and query exactly as the saved one would have. Loading checks,
//! in order, the magic, the version, the design, the length and the
//! checksum, then reads the state and checks the design's invariants (sizes
//! against parameters, positions within their ranges), so that a file that
//! is truncated, corrupted, of another design or of a later version is a
//! [`LoadError`], never a panic; lengths inside the state are checked
//! against the bytes left before anything is allocated.
//!
//! The state is what the filter needs to go on, not what it can recompute:
//! whether the processor has AVX-512 is asked again on loading, so a file
//! moves between machines.
//!
//! With the `serde` feature every design also implements `Serialize` and
//! `Deserialize`, as these same bytes (one checked format, whatever carries
//! it).
//!
//! ```
//! use bloomlab_filters::{Apbf, Filter, Persist};
//! let mut f = Apbf::new(bloomlab_filters::ApbfShape { hashes: 4, extra_slices: 3, generation: 100 }).unwrap();
//! f.insert(42);
//! let bytes = f.to_bytes();
//! let g = Apbf::from_bytes(&bytes).unwrap();
//! assert!(g.contains(42));
//! assert!(Apbf::from_bytes(&bytes[..bytes.len() - 1]).is_err());
//! ```

mod codec;
#[cfg(feature = "serde")]
pub(crate) mod serde_impls;

/// Declares, beside a design's type, that it persists: [`Persist`] (its
/// bytes, with every check of loading) and, with the `serde` feature,
/// `Serialize` and `Deserialize` through those same bytes. One line per
/// design (`crate::persist::persists!(Apbf);`); the crate's list holds
/// every design to it (the persistence suites and
/// `every_design_of_the_list_has_serde`).
macro_rules! persists {
    ($t:ty) => {
        impl $crate::persist::Persist for $t {}
        #[cfg(feature = "serde")]
        $crate::persist::serde_impls::via_bytes!($t);
    };
}
pub(crate) use persists;

pub(crate) use codec::{codec_enum, codec_struct};
#[doc(hidden)]
pub use codec::{Codec, Reader, Writer};

use std::fmt;
use xxhash_rust::xxh3::xxh3_64;

/// The format version this build writes; it reads every version up to it.
pub const FORMAT_VERSION: u16 = 1;

const MAGIC: &[u8; 8] = b"BLOOMLAB";
const FLAG_KEYED: u16 = 1;

/// Why bytes could not be loaded as a filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// The bytes do not begin with the format's magic: not a saved filter.
    NotAFilter,
    /// Written by a later version of the format than this build reads.
    FutureVersion {
        /// The file's version.
        found: u16,
        /// The latest this build reads.
        supported: u16,
    },
    /// A saved filter of another design.
    WrongDesign {
        /// The design the file holds.
        found: String,
        /// The design asked for.
        expected: String,
    },
    /// A keyed filter loaded as a bare one, or the other way round.
    Keyed {
        /// Whether the file holds a keyed filter.
        found: bool,
    },
    /// The bytes end before the filter does.
    Truncated,
    /// Bytes after the end of the filter.
    TrailingBytes(usize),
    /// The checksum does not match: the bytes were changed after saving.
    Corrupt {
        /// The checksum stored.
        stored: u64,
        /// The checksum of the bytes read.
        computed: u64,
    },
    /// The state breaks an invariant of its design (a file crafted to pass
    /// the checksum, or written by a faulty writer).
    Invalid(String),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::NotAFilter => write!(f, "not a saved bloomlab filter (no BLOOMLAB magic)"),
            LoadError::FutureVersion { found, supported } => write!(
                f,
                "format version {found} is newer than this build reads (up to {supported}): upgrade bloomlab-filters"
            ),
            LoadError::WrongDesign { found, expected } => {
                write!(f, "the file holds a {found} filter, not a {expected}")
            }
            LoadError::Keyed { found: true } => {
                write!(f, "the file holds a keyed filter: load it as Keyed<_>")
            }
            LoadError::Keyed { found: false } => {
                write!(f, "the file holds a bare filter: load it as the design, not Keyed<_>")
            }
            LoadError::Truncated => write!(f, "the file ends before the filter does (truncated)"),
            LoadError::TrailingBytes(n) => write!(f, "{n} bytes after the end of the filter"),
            LoadError::Corrupt { stored, computed } => write!(
                f,
                "checksum mismatch (stored {stored:016x}, computed {computed:016x}): the file is corrupted"
            ),
            LoadError::Invalid(why) => write!(f, "invalid filter state: {why}"),
        }
    }
}

impl std::error::Error for LoadError {}

pub(crate) mod sealed {
    /// What a design tells the format: its tag and its invariants.
    pub trait Design: super::Codec {
        /// The design's tag in the header.
        fn tag() -> String;
        /// Checks the invariants a loaded state must hold for the design's
        /// operations not to panic (sizes against parameters, positions in
        /// range).
        fn check(&self) -> Result<(), String>;
        /// The invariants when the design's generations are ended by time
        /// ([`crate::OnTime`]): by default [`check`](Self::check); a design
        /// whose count design bounds a generation's insertions by g, which
        /// time generations may pass, checks the rest.
        fn check_on_time(&self) -> Result<(), String> {
            self.check()
        }
    }
}

/// A filter that can be saved as bytes and loaded back; see the [module
/// documentation](self) for the format.
pub trait Persist: sealed::Design + Sized {
    /// The filter in the crate's binary format.
    fn to_bytes(&self) -> Vec<u8> {
        encode(self, None)
    }

    /// A filter from bytes [`to_bytes`](Self::to_bytes) wrote (by this
    /// version or an earlier one).
    fn from_bytes(bytes: &[u8]) -> Result<Self, LoadError> {
        let (filter, seed) = decode::<Self>(bytes)?;
        match seed {
            None => Ok(filter),
            Some(_) => Err(LoadError::Keyed { found: true }),
        }
    }
}

/// The format's bytes for `filter`, with the key hasher's seed when keyed.
pub(crate) fn encode<F: sealed::Design>(filter: &F, seed: Option<u64>) -> Vec<u8> {
    let mut state = Writer::default();
    filter.put(&mut state);
    let mut w = Writer::default();
    w.bytes(MAGIC);
    FORMAT_VERSION.put(&mut w);
    let flags = if seed.is_some() { FLAG_KEYED } else { 0 };
    flags.put(&mut w);
    let tag = F::tag();
    let len = u8::try_from(tag.len()).expect("design tags are short");
    len.put(&mut w);
    w.bytes(tag.as_bytes());
    seed.unwrap_or(0).put(&mut w);
    (state.buf.len() as u64).put(&mut w);
    w.bytes(&state.buf);
    let sum = xxh3_64(&w.buf);
    sum.put(&mut w);
    w.buf
}

/// A filter and, when keyed, its hasher's seed, from the format's bytes.
pub(crate) fn decode<F: sealed::Design>(bytes: &[u8]) -> Result<(F, Option<u64>), LoadError> {
    let mut r = Reader::new(bytes);
    if r.take(MAGIC.len()).map_err(|_| LoadError::NotAFilter)? != MAGIC {
        return Err(LoadError::NotAFilter);
    }
    let version = u16::get(&mut r)?;
    if version > FORMAT_VERSION {
        return Err(LoadError::FutureVersion {
            found: version,
            supported: FORMAT_VERSION,
        });
    }
    if version == 0 {
        return Err(LoadError::Invalid("format version 0".into()));
    }
    let flags = u16::get(&mut r)?;
    if flags & !FLAG_KEYED != 0 {
        return Err(LoadError::Invalid(format!("unknown flags {flags:#x}")));
    }
    let len = u8::get(&mut r)? as usize;
    let tag = r.take(len)?;
    let expected = F::tag();
    if tag != expected.as_bytes() {
        return Err(LoadError::WrongDesign {
            found: String::from_utf8_lossy(tag).into_owned(),
            expected,
        });
    }
    let seed = u64::get(&mut r)?;
    let state_len = u64::get(&mut r)?;
    let body_end = bytes.len() - r.left();
    match (state_len as u128 + 8).cmp(&(r.left() as u128)) {
        std::cmp::Ordering::Greater => return Err(LoadError::Truncated),
        std::cmp::Ordering::Less => {
            return Err(LoadError::TrailingBytes(r.left() - state_len as usize - 8))
        }
        std::cmp::Ordering::Equal => {}
    }
    let end = body_end + state_len as usize;
    let stored = u64::from_le_bytes(bytes[end..end + 8].try_into().expect("8 bytes"));
    let computed = xxh3_64(&bytes[..end]);
    if stored != computed {
        return Err(LoadError::Corrupt { stored, computed });
    }
    let mut state = Reader::new(&bytes[body_end..end]);
    let filter = F::get(&mut state)?;
    if state.left() != 0 {
        return Err(LoadError::Invalid(format!(
            "{} bytes of state left unread",
            state.left()
        )));
    }
    filter.check().map_err(LoadError::Invalid)?;
    Ok((filter, (flags & FLAG_KEYED != 0).then_some(seed)))
}

/// Fails with `what` unless `ok`: the invariant checks' one line.
pub(crate) fn ensure(ok: bool, what: impl FnOnce() -> String) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(what())
    }
}
