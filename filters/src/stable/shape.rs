//! The Stable Bloom filter's shape (what `StableBloomFilter::new` takes) and
//! its sizings for an FPR (what `Target` builds).

use super::{theory, StableBloomFilter, MAX_D};
use crate::error::{check_bits, check_nonzero, check_probability};
use crate::ParamError;

/// The shape of a [`StableBloomFilter`]: what [`StableBloomFilter::new`] takes, each paper letter
/// by a word (see [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StableShape {
    /// Cells, in all (`m`).
    pub cells: u64,
    /// Bits per cell (`d`).
    pub cell_bits: u32,
    /// Hash functions: the bits or cells a key sets and a query reads (`k`).
    pub hashes: u32,
    /// Cells decremented per insertion (`p`).
    pub decrements: u64,
}

impl StableBloomFilter {
    /// m cells of d bits and K cells per key, with the smallest P whose stable
    /// FPR is at most `fpr` (see [`theory::p_for_fpr`]; [`Self::theory`] gives
    /// the FPR actually reached).
    pub(crate) fn with_fpr_for(m: u64, d: u32, k: u32, fpr: f64) -> Result<Self, ParamError> {
        check_probability("fpr", fpr)?;
        check_nonzero("m", m)?;
        check_nonzero("d", d as u64)?;
        crate::error::check_hashes(k)?;
        if d > MAX_D {
            return Self::new(StableShape {
                cells: m,
                cell_bits: d,
                hashes: k,
                decrements: 1,
            });
        }
        let p = theory::p_for_fpr(m, d, k, fpr).ok_or_else(|| ParamError::Unreachable {
            target: format!("stable fpr {fpr} with m = {m}, d = {d}, k = {k} (needs P > m)"),
        })?;
        Self::new(StableShape {
            cells: m,
            cell_bits: d,
            hashes: k,
            decrements: p,
        })
    }

    /// `memory_bits` of cells at stable FPR <= `fpr`: d, K and P from
    /// [`theory::choose`] (the choice that keeps keys longest, measured by the
    /// age at which the FNR reaches 1/2).
    ///
    /// ```
    /// use bloomlab_filters::{Filter, StableBloomFilter, Target};
    /// let mut f: StableBloomFilter = Target::memory(80_000).fpr(0.01).seed(1).build().unwrap();
    /// assert!(f.theory().fpr() <= 0.01);
    /// f.insert(9);
    /// assert!(f.contains(9)); // the newest key is always reported
    /// ```
    pub(crate) fn with_fpr(memory_bits: u64, fpr: f64) -> Result<Self, ParamError> {
        check_nonzero("memory_bits", memory_bits)?;
        check_probability("fpr", fpr)?;
        check_bits(Some(memory_bits))?;
        let t = theory::choose(memory_bits, fpr).ok_or_else(|| ParamError::Unreachable {
            target: format!("stable fpr {fpr} in {memory_bits} bits"),
        })?;
        Self::new(StableShape {
            cells: t.m,
            cell_bits: t.d,
            hashes: t.k,
            decrements: t.p,
        })
    }
}
