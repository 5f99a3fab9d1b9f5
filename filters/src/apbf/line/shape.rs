//! The line APBF's shape: what `LineApbf::new` takes.

use super::{default_lines, LineTheory};
use crate::ParamError;

/// The shape of a [`LineApbf`](super::LineApbf): what
/// [`LineApbf::new`](super::LineApbf::new) takes, each paper letter by a
/// word (see [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineApbfShape {
    /// Hash functions: the slices a key is written to (`k`).
    pub hashes: u32,
    /// Slices beyond the `hashes` a key is written to (`l`); `hashes +
    /// extra_slices` at most 31.
    pub extra_slices: u32,
    /// Insertions per generation (`g`).
    pub generation: u64,
    /// 64-byte lines (`L`); `None` for [`default_lines`]`(k, g)`.
    pub lines: Option<u64>,
}

impl LineApbfShape {
    /// (k, l, g, L) with the default L filled in.
    pub(crate) fn resolve(self) -> Result<(u32, u32, u64, u64), ParamError> {
        let (k, l, g) = (self.hashes, self.extra_slices, self.generation);
        let lines = match self.lines {
            Some(n) => n,
            None => default_lines(k, g).ok_or(ParamError::TooLarge {
                what: "k g",
                limit: "2^64".into(),
            })?,
        };
        Ok((k, l, g, lines))
    }
}

impl From<LineTheory> for LineApbfShape {
    fn from(t: LineTheory) -> Self {
        LineApbfShape {
            hashes: t.k,
            extra_slices: t.l,
            generation: t.g,
            lines: Some(t.lines),
        }
    }
}
