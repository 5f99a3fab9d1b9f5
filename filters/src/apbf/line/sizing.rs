//! Sizing the line APBF: the fewest lines whose exact theory meets a
//! target FPR, over (k, l) or at a given one.

use super::{default_lines, LineApbf, LineTheory, MAX_SLICES};
use crate::error::check_nonzero;
use crate::sliding_sketch::theory::least_from;
use crate::ParamError;

/// Largest k the sizing searches (its exact programme has k 2^(k-1) states).
pub const MAX_SIZED_K: u32 = 16;

impl LineApbf {
    /// The configuration [`Target`](crate::build::Target) sizes for a window
    /// of at least `window` insertions at worst-phase FPR <= `fpr`, without
    /// allocating it: every lane used (l = 31 - k), g = ⌈window / l⌉, and
    /// of k = 1 ..= [`MAX_SIZED_K`] the one needing the fewest lines.
    ///
    /// One sizing serves speed and memory alike: every query reads one line
    /// and tests all its lanes whatever (k, l), and an insertion writes its
    /// k lanes with one masked OR, so the fewest lines is also the fastest
    /// configuration (fewer lines, fewer cache misses).
    ///
    /// ```
    /// use bloomlab_filters::build::Target;
    /// use bloomlab_filters::{Filter, LineApbf, SlidingFilter};
    /// let mut f: LineApbf = Target::window(10_000).fpr(1e-2).build().unwrap();
    /// assert!(f.window() >= 10_000);
    /// f.insert(7);
    /// assert!(f.contains(7));
    /// assert!(f.theory().fpr().unwrap() <= 1e-2);
    /// assert_eq!(f.theory(), LineApbf::sizing(10_000, 1e-2).unwrap());
    /// ```
    pub fn sizing(window: u64, fpr: f64) -> Result<LineTheory, ParamError> {
        check_nonzero("window", window)?;
        crate::error::check_probability("fpr", fpr)?;
        // rank the k by the variance-free estimate (cheap), size the three
        // best exactly
        let mut ranked: Vec<(u64, u32)> = (1..=MAX_SIZED_K)
            .filter_map(|k| {
                let l = MAX_SLICES - k;
                let g = window.div_ceil(l as u64);
                let meets = |lines: u64| LineTheory { k, l, g, lines }.fpr_independent(g) <= fpr;
                Some((fewest(default_lines(k, g)?, &meets)?, k))
            })
            .collect();
        ranked.sort();
        let mut best: Option<LineTheory> = None;
        for &(_, k) in ranked.iter().take(3) {
            if let Ok(t) = Self::sizing_kl(window, fpr, k, MAX_SLICES - k) {
                if best.is_none_or(|b| t.lines < b.lines) {
                    best = Some(t);
                }
            }
        }
        best.ok_or_else(|| ParamError::Unreachable {
            target: format!("line_apbf fpr {fpr} with k <= {MAX_SIZED_K}"),
        })
    }

    /// The configuration of the given (k, l) over `window` with the fewest
    /// lines whose exact theory meets `fpr`.
    ///
    /// ```
    /// use bloomlab_filters::LineApbf;
    /// let t = LineApbf::sizing_kl(10_000, 1e-3, 11, 20).unwrap();
    /// assert!(t.fpr().unwrap() <= 1e-3);
    /// ```
    pub fn sizing_kl(window: u64, fpr: f64, k: u32, l: u32) -> Result<LineTheory, ParamError> {
        check_nonzero("window", window)?;
        check_nonzero("l", l as u64)?;
        crate::error::check_probability("fpr", fpr)?;
        let g = window.div_ceil(l as u64);
        Self::check_shape(k, l, g, 1)?;
        if k > crate::apbf::blocked::MAX_EXACT_K {
            return Err(ParamError::Unreachable {
                target: format!(
                    "fpr {fpr} with k = {k} > {}",
                    crate::apbf::blocked::MAX_EXACT_K
                ),
            });
        }
        let meets = |lines: u64| {
            LineTheory { k, l, g, lines }
                .fpr()
                .is_some_and(|p| p <= fpr)
        };
        let start = default_lines(k, g).ok_or(too_large())?;
        let lines = fewest(start, &meets).ok_or(too_large())?;
        Ok(LineTheory { k, l, g, lines })
    }
}

fn too_large() -> ParamError {
    ParamError::TooLarge {
        what: "lines",
        limit: "2^36 bits in all".into(),
    }
}

/// The fewest lines within the crate's bit limit that `meets` (monotone:
/// more lines never hurt), searched from `start`
/// ([`least_from`](crate::sliding_sketch::theory::least_from)); `None` if
/// even the most fail. Counts past the limit count as meeting it, so that
/// the search stops there.
fn fewest(start: u64, meets: &dyn Fn(u64) -> bool) -> Option<u64> {
    let cap = crate::MAX_BITS / 512;
    let least = least_from(start.min(cap), &|n| n > cap || meets(n))?;
    (least <= cap).then_some(least)
}
