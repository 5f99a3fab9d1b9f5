//! The blocked APBF's shape: what `BlockedApbf::new` and
//! `ConcurrentApbf::new` take.

use super::{default_blocks, BlockedTheory};
use crate::ParamError;

/// The shape of a [`BlockedApbf`](super::BlockedApbf) (and of a [`ConcurrentApbf`](crate::ConcurrentApbf)):
/// what [`BlockedApbf::new`](super::BlockedApbf::new) takes, each paper letter by a word (see
/// [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockedApbfShape {
    /// Hash functions: the slices a key is written to (`k`).
    pub hashes: u32,
    /// Slices beyond the `hashes` a key is written to (`l`).
    pub extra_slices: u32,
    /// Insertions per generation (`g`).
    pub generation: u64,
    /// Blocks of `hashes + extra_slices` 64-bit words (`B`); `None` for
    /// [`default_blocks`]`(k, g)`, the unblocked APBF's memory.
    pub blocks: Option<u64>,
}

impl BlockedApbfShape {
    /// (k, l, g, B) with the default B filled in.
    pub(crate) fn resolve(self) -> Result<(u32, u32, u64, u64), ParamError> {
        let (k, l, g) = (self.hashes, self.extra_slices, self.generation);
        let blocks = match self.blocks {
            Some(b) => b,
            None => default_blocks(k, g).ok_or(ParamError::TooLarge {
                what: "k g",
                limit: "2^64".into(),
            })?,
        };
        Ok((k, l, g, blocks))
    }
}

impl From<BlockedTheory> for BlockedApbfShape {
    fn from(t: BlockedTheory) -> Self {
        BlockedApbfShape {
            hashes: t.k,
            extra_slices: t.l,
            generation: t.g,
            blocks: Some(t.blocks),
        }
    }
}
