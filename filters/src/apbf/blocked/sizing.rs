//! Sizing the blocked APBF: the fewest blocks whose exact theory meets a
//! target FPR, at the unblocked APBF's (k, l) or at a given one.

use super::{BlockedApbf, BlockedTheory, MAX_EXACT_K, WORD_BITS};
use crate::error::check_nonzero;
use crate::ParamError;

/// Default number of blocks for (k, g): the unblocked APBF's bits per slice,
/// ⌈k g / ln 2⌉, rounded up to whole 64-bit words. `None` on overflow.
pub fn default_blocks(k: u32, g: u64) -> Option<u64> {
    Some(crate::apbf::theory::slice_bits(k, g)?.div_ceil(WORD_BITS))
}

impl BlockedApbf {
    /// The configuration [`Target`](crate::build::Target) sizes for a window
    /// of at least `window` insertions at worst-phase FPR <= `fpr`, without
    /// allocating it: (k, l) as the unblocked APBF chooses them,
    /// g = ⌈window / l⌉ and the fewest blocks whose exact theory meets `fpr`
    /// (found by bisection; at least [`default_blocks`]).
    ///
    /// ```
    /// use bloomlab_filters::build::Target;
    /// use bloomlab_filters::{BlockedApbf, Filter, SlidingFilter};
    /// let mut f: BlockedApbf = Target::window(10_000).fpr(1e-2).build().unwrap();
    /// assert!(f.window() >= 10_000);
    /// f.insert(7);
    /// assert!(f.contains(7));
    /// assert!(f.theory().fpr().unwrap() <= 1e-2);
    /// assert_eq!(f.theory(), BlockedApbf::sizing(10_000, 1e-2).unwrap());
    /// ```
    pub fn sizing(window: u64, fpr: f64) -> Result<BlockedTheory, ParamError> {
        check_nonzero("window", window)?;
        crate::error::check_probability("fpr", fpr)?;
        let (k, l) = crate::apbf::choose(fpr, crate::apbf::KlRule::FewestBits)?;
        Self::sizing_kl(window, fpr, k, l)
    }

    /// The configuration of the given (k, l) over `window` with the fewest
    /// blocks whose exact theory meets `fpr` (the fast sizing `bloomlab
    /// plan` prints for the APBF, say, instead of the least-memory one):
    /// what [`Target`](crate::build::Target) builds given
    /// [`hashes`](crate::build::Target::hashes) and
    /// [`extra_slices`](crate::build::Target::extra_slices).
    ///
    /// ```
    /// use bloomlab_filters::build::Target;
    /// use bloomlab_filters::BlockedApbf;
    /// let t = Target::window(10_000).fpr(1.5e-3).hashes(11).extra_slices(10);
    /// let f: BlockedApbf = t.build().unwrap();
    /// assert!(f.theory().fpr().unwrap() <= 1.5e-3);
    /// ```
    pub fn sizing_kl(window: u64, fpr: f64, k: u32, l: u32) -> Result<BlockedTheory, ParamError> {
        check_nonzero("window", window)?;
        check_nonzero("l", l as u64)?;
        crate::error::check_probability("fpr", fpr)?;
        let g = window.div_ceil(l as u64);
        // k, l and g as `new` takes them (k + l slices at most)
        Self::shape(k, l, g, 1)?;
        if k > MAX_EXACT_K {
            return Err(ParamError::Unreachable {
                target: format!("fpr {fpr} with k = {k} > {MAX_EXACT_K}"),
            });
        }
        let too_large = ParamError::TooLarge {
            what: "blocks",
            limit: "2^36 bits in all".into(),
        };
        let meets = |blocks: u64| {
            let t = BlockedTheory { k, l, g, blocks };
            t.fpr().is_some_and(|p| p <= fpr)
        };
        // the most blocks within the bit limit
        let cap = crate::MAX_BITS / ((k + l) as u64 * WORD_BITS);
        let mut lo = default_blocks(k, g).ok_or(too_large.clone())?;
        if lo > cap {
            return Err(too_large);
        }
        if !meets(lo) {
            // double until met, then bisect (lo fails, hi meets)
            let mut hi = lo.saturating_mul(2).min(cap);
            while !meets(hi) {
                if hi == cap {
                    return Err(too_large);
                }
                lo = hi;
                hi = hi.saturating_mul(2).min(cap);
            }
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if meets(mid) {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            lo = hi;
        }
        Ok(BlockedTheory {
            k,
            l,
            g,
            blocks: lo,
        })
    }
}
