//! The count designs' sizing: a window of insertions and an FPR.

use super::{fewest_bits, Build, Target};
use crate::apbf::KlRule;
use crate::error::check_nonzero;
use crate::naor_yogev::NaorYogev;
use crate::segmented::{A2Buffer, DoubleBuffer, ForgetfulBloom, ForgetfulCode, JumpingWindow};
use crate::{
    Apbf, ApbfShape, BlockedApbf, Broom, NaorYogevShape, NyPocket, NyPocketShape, ParamError,
    StableBloomFilter, Swamp, Swbf, TimingBloom,
};

/// The APBF's (k, l) for the target, by [`crate::apbf::choose`]: as given
/// (both, checked against the FPR), l given and the smallest k, within the
/// largest slack (l at most [`crate::apbf::MAX_L_WITH_SLACK`]), or of
/// fewest bits per element (l at most
/// [`DEFAULT_MAX_L`](crate::apbf::DEFAULT_MAX_L)).
fn apbf_kl(t: &Target, w: u64, e: f64) -> Result<(u32, u32), ParamError> {
    let rule = match (t.hashes, t.extra_slices, t.max_slack) {
        (Some(k), Some(l), _) => return Ok((k, l)),
        (Some(_), None, _) => {
            return Err(ParamError::Unreachable {
                target: "an APBF's hashes without its extra_slices (give Target::extra_slices)"
                    .into(),
            })
        }
        (None, Some(l), _) => KlRule::FixedL(l),
        (None, None, Some(slack)) => KlRule::WithinSlack { window: w, slack },
        (None, None, None) => KlRule::FewestBits,
    };
    crate::apbf::choose(e, rule)
}

impl Build for Apbf {
    /// (k, l) as `apbf_kl` chooses them, g = ⌈window / l⌉; a (k, l)
    /// given whose FPR misses the target is refused.
    fn build(t: &Target) -> Result<Self, ParamError> {
        let (w, e) = (t.count("apbf")?, t.the_fpr()?);
        let (k, l) = apbf_kl(t, w, e)?;
        check_nonzero("extra_slices", l as u64)?;
        let f = Apbf::new(ApbfShape {
            hashes: k,
            extra_slices: l,
            generation: w.div_ceil(l as u64),
        })?;
        let fpr = crate::apbf::theory::fpr(k, l);
        if t.hashes.is_some() && fpr > e {
            return Err(ParamError::Unreachable {
                target: format!("fpr {e} with k = {k}, l = {l} (its FPR is {fpr})"),
            });
        }
        t.within_slack("apbf", crate::SlidingFilter::slack(&f))?;
        Ok(f)
    }
}

impl Build for BlockedApbf {
    /// (k, l) as the APBF's, g = ⌈window / l⌉ and the fewest blocks whose
    /// exact theory meets the FPR.
    fn build(t: &Target) -> Result<Self, ParamError> {
        let (w, e) = (t.count("blocked_apbf")?, t.the_fpr()?);
        let f = match (t.hashes, t.extra_slices) {
            (None, None) => BlockedApbf::new(BlockedApbf::sizing(w, e)?.into())?,
            _ => {
                let (k, l) = apbf_kl(t, w, e)?;
                BlockedApbf::new(BlockedApbf::sizing_kl(w, e, k, l)?.into())?
            }
        };
        t.within_slack("blocked_apbf", crate::SlidingFilter::slack(&f))?;
        Ok(f)
    }
}

impl Build for crate::LineApbf {
    /// Every lane used and the fewest lines ([`LineApbf::sizing`](crate::LineApbf::sizing)); with
    /// [`hashes`](Target::hashes) and [`extra_slices`](Target::extra_slices)
    /// given (k + l <= 31), the fewest lines at that (k, l).
    fn build(t: &Target) -> Result<Self, ParamError> {
        let (w, e) = (t.count("line_apbf")?, t.the_fpr()?);
        let theory = match (t.hashes, t.extra_slices) {
            (None, None) => crate::LineApbf::sizing(w, e)?,
            (Some(k), Some(l)) => crate::LineApbf::sizing_kl(w, e, k, l)?,
            _ => {
                return Err(ParamError::Unreachable {
                    target: "a line APBF's hashes and extra_slices are given together".into(),
                })
            }
        };
        let f = crate::LineApbf::new(theory.into())?;
        t.within_slack("line_apbf", crate::SlidingFilter::slack(&f))?;
        Ok(f)
    }
}

impl Build for NaorYogev {
    /// Window n, slack m = the largest slack accepted (default n), c of
    /// least memory unless given: the shape [`NaorYogev::new`] sizes.
    fn build(t: &Target) -> Result<Self, ParamError> {
        let n = t.count("naor_yogev")?;
        let shape = NaorYogevShape {
            window: n,
            slack: t.max_slack.unwrap_or(n),
            fpr: t.the_fpr()?,
            generations: t.generations,
            max_load: t.max_load,
        };
        Ok(NaorYogev::new(shape)?.with_seed(t.seed))
    }
}

impl Build for NyPocket {
    /// As the Naor-Yogev filter's, through [`NyPocket::new`].
    fn build(t: &Target) -> Result<Self, ParamError> {
        let n = t.count("ny_pocket")?;
        NyPocket::new(NyPocketShape {
            window: n,
            slack: t.max_slack.unwrap_or(n),
            fpr: t.the_fpr()?,
            generations: t.generations,
            max_load: t.max_load,
        })
    }
}

impl Build for Broom {
    fn build(t: &Target) -> Result<Self, ParamError> {
        Ok(Broom::with_fpr(t.count("broom")?, t.the_fpr()?)?.with_seed(t.seed))
    }
}

impl Build for Swamp {
    fn build(t: &Target) -> Result<Self, ParamError> {
        Ok(Swamp::with_fpr(t.count("swamp")?, t.the_fpr()?)?.with_seed(t.seed))
    }
}

impl Build for TimingBloom {
    fn build(t: &Target) -> Result<Self, ParamError> {
        TimingBloom::with_fpr(t.count("tbf")?, t.the_fpr()?)
    }
}

impl Build for Swbf {
    fn build(t: &Target) -> Result<Self, ParamError> {
        Swbf::with_fpr(t.count("swbf")?, t.the_fpr()?)
    }
}

impl Build for JumpingWindow {
    fn build(t: &Target) -> Result<Self, ParamError> {
        let (w, e) = (t.count("jumping")?, t.the_fpr()?);
        let n = match t.segments {
            Some(n) => n,
            None => fewest_bits(2..=16, |n| {
                let (k, _, m) = JumpingWindow::sizing(w, e, n);
                (n as u64).checked_mul(k as u64)?.checked_mul(m)
            })
            .expect("a segment count"),
        };
        let f = JumpingWindow::with_fpr(w, e, n)?;
        t.within_slack("jumping", crate::SlidingFilter::slack(&f))?;
        Ok(f)
    }
}

impl Build for DoubleBuffer {
    fn build(t: &Target) -> Result<Self, ParamError> {
        let f = DoubleBuffer::with_fpr(t.count("double_buffer")?, t.the_fpr()?)?;
        t.within_slack("double_buffer", crate::SlidingFilter::slack(&f))?;
        Ok(f)
    }
}

impl Build for A2Buffer {
    fn build(t: &Target) -> Result<Self, ParamError> {
        let f = A2Buffer::with_fpr(t.count("a2")?, t.the_fpr()?)?;
        t.within_slack("a2", crate::SlidingFilter::slack(&f))?;
        Ok(f)
    }
}

impl Build for ForgetfulBloom {
    fn build(t: &Target) -> Result<Self, ParamError> {
        let (w, e) = (t.count("forgetful")?, t.the_fpr()?);
        let past = match t.past {
            Some(p) => p,
            None => fewest_bits(1..=14, |p| {
                let (k, _, m) = ForgetfulBloom::sizing(w, e, p)?;
                (p as u64 + 2).checked_mul(k as u64)?.checked_mul(m)
            })
            .ok_or_else(|| ParamError::Unreachable {
                target: format!("forgetful fpr {e} with k <= 64"),
            })?,
        };
        let f = ForgetfulBloom::with_fpr(w, e, past)?;
        t.within_slack("forgetful", crate::SlidingFilter::slack(&f))?;
        Ok(f)
    }
}

impl Build for ForgetfulCode {
    /// As [`ForgetfulBloom`]'s, at the code's window (N + 1) g and its
    /// theory on new keys.
    fn build(t: &Target) -> Result<Self, ParamError> {
        let (w, e) = (t.count("forgetful_code")?, t.the_fpr()?);
        let past = match t.past {
            Some(p) => p,
            None => fewest_bits(1..=14, |p| {
                let (k, _, m) = ForgetfulCode::sizing(w, e, p)?;
                (p as u64 + 2).checked_mul(k as u64)?.checked_mul(m)
            })
            .ok_or_else(|| ParamError::Unreachable {
                target: format!("forgetful_code fpr {e} with k <= 64"),
            })?,
        };
        let f = ForgetfulCode::with_fpr(w, e, past)?;
        t.within_slack("forgetful_code", crate::SlidingFilter::slack(&f))?;
        Ok(f)
    }
}

impl Build for crate::sliding_sketch::SlidingBloom {
    /// The (k, m) of its sizing (`with_fpr`, beside the design)
    /// (its exact theory; a few seconds at a window of 10^6); slack W.
    fn build(t: &Target) -> Result<Self, ParamError> {
        let w = t.count("sliding_bloom")?;
        t.within_slack("sliding_bloom", w)?;
        crate::sliding_sketch::SlidingBloom::with_fpr(w, t.the_fpr()?)
    }
}

impl Build for crate::half_sliding::HalfSliding {
    /// The (k, lo, m) of its sizing (`with_fpr`, beside the design)
    /// (a guaranteed window, its exact theory); the slack is what that
    /// sizing gives, several windows.
    fn build(t: &Target) -> Result<Self, ParamError> {
        let w = t.count("half_sliding")?;
        let f = crate::half_sliding::HalfSliding::with_fpr(w, t.the_fpr()?)?;
        t.within_slack("half_sliding", crate::SlidingFilter::slack(&f))?;
        Ok(f)
    }
}

impl Build for crate::clock_sketch::ClockBloom {
    /// The (k, s, m) of its sizing (`with_fpr`, beside the design)
    /// (its exact worst-phase theory); the slack is ⌈W/(2^s - 2)⌉.
    fn build(t: &Target) -> Result<Self, ParamError> {
        let w = t.count("clock_bloom")?;
        let f = crate::clock_sketch::ClockBloom::with_fpr(w, t.the_fpr()?)?;
        t.within_slack("clock_bloom", crate::SlidingFilter::slack(&f))?;
        Ok(f)
    }
}

impl Build for crate::she::SheBloom {
    /// The (k, P, m) of its sizing (`with_fpr`, beside the design)
    /// (its exact worst-phase theory, groups of 64); the slack is P - W.
    fn build(t: &Target) -> Result<Self, ParamError> {
        let w = t.count("she_bloom")?;
        let f = crate::she::SheBloom::with_fpr(w, t.the_fpr()?)?;
        t.within_slack("she_bloom", crate::SlidingFilter::slack(&f))?;
        Ok(f)
    }
}

impl Build for StableBloomFilter {
    const MEMORY_IS_A_LIMIT: bool = false;
    /// No window: the memory (required) and the FPR pick d, K and P (or P
    /// alone, with d and K given).
    fn build(t: &Target) -> Result<Self, ParamError> {
        let bits = t.max_memory_bits.ok_or(ParamError::Unreachable {
            target: "a Stable Bloom filter without its memory (give Target::max_memory_bits)"
                .into(),
        })?;
        let e = t.the_fpr()?;
        let f = match (t.cell_bits, t.hashes) {
            (None, None) => StableBloomFilter::with_fpr(bits, e)?,
            (Some(d), Some(k)) => {
                check_nonzero("cell_bits", d as u64)?;
                StableBloomFilter::with_fpr_for(bits / d as u64, d, k, e)?
            }
            _ => {
                return Err(ParamError::Unreachable {
                    target: "a Stable Bloom filter with one of cell_bits and hashes (give both)"
                        .into(),
                })
            }
        };
        Ok(f.with_seed(t.seed))
    }
}

impl Build for crate::BloomFilter {
    /// A Bloom filter does not forget: the window is the keys it holds at
    /// the FPR, m = ⌈-n ln p / (ln 2)^2⌉, k = max(1, round(m/n ln 2)).
    fn build(t: &Target) -> Result<Self, ParamError> {
        crate::BloomFilter::with_fpr(t.count("bloom")?, t.the_fpr()?)
    }
}

impl Build for crate::PartitionedBloomFilter {
    /// A Bloom filter does not forget: the window is the keys it holds at
    /// the FPR, k = ⌈log2(1/p)⌉ slices of ⌈n / ln 2⌉ bits (the APBF paper's
    /// sizing).
    fn build(t: &Target) -> Result<Self, ParamError> {
        crate::PartitionedBloomFilter::with_fpr(t.count("partitioned_bloom")?, t.the_fpr()?)
    }
}
