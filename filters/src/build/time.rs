//! The time designs' sizing: a window of time, a peak rate and an FPR,
//! on a clock of a given resolution.

use super::{
    fewest_bits, generation_ticks, hybrid_generation, Build, Target, Window, DEFAULT_QUANTA,
};
use crate::apbf::blocked::concurrent::ConcurrentApbf;
use crate::naor_yogev::{self, NaorYogev};
use crate::segmented::{DoubleBuffer, JumpingWindow};
use crate::timewindow::{OnTime, Trigger};
use crate::timing::{swbf, TimedSwbf, TimedTbf, TimingBloom};
use crate::{Apbf, ParamError};

impl Build for OnTime<Apbf> {
    /// (k, l) as the count APBF chooses them, τ = ⌈T/l⌉ ticks, g =
    /// ⌈T·R / l⌉; the trigger as given (default [`Trigger::Time`]: every
    /// key younger than T is kept whatever the arrivals).
    fn build(t: &Target) -> Result<Self, ParamError> {
        let name = "apbf_time";
        let (window, rate, ticks) = t.time_window(name)?;
        let e = t.the_fpr()?;
        let (k, l) = crate::apbf::choose(e, crate::apbf::KlRule::FewestBits)?;
        let (tau, g) = apbf_generations(window, rate, ticks, l)?;
        OnTime::<Apbf>::new(
            crate::ApbfShape {
                hashes: k,
                extra_slices: l,
                generation: g,
            },
            tau,
            t.trigger.unwrap_or(Trigger::Time),
        )
    }
}

/// The APBF over time's τ (ticks) and g for l generations per window:
/// τ = ⌈T·ticks / l⌉, g = ⌈T·R / l⌉.
pub fn apbf_generations(
    window: f64,
    rate: f64,
    ticks: f64,
    l: u32,
) -> Result<(u64, u64), ParamError> {
    let tau = generation_ticks(window, ticks, l as u64)?;
    let keys = window * rate;
    if keys > 1e15 {
        return Err(ParamError::TooLarge {
            what: "keys per window",
            limit: "1e15".into(),
        });
    }
    Ok((tau, (keys / l as f64).ceil().max(1.0) as u64))
}

impl Build for OnTime<crate::LineApbf> {
    /// (k, l, L) as the count line APBF sizes them for the T·R keys of a
    /// window at the peak, τ = ⌈T/l⌉ ticks; the trigger as given (default
    /// [`Trigger::Time`]: every key younger than T is kept whatever the
    /// arrivals).
    fn build(t: &Target) -> Result<Self, ParamError> {
        let (window, rate, ticks) = t.time_window("line_apbf_time")?;
        let s = crate::LineApbf::sizing(window_keys(window, rate), t.the_fpr()?)?;
        let tau = generation_ticks(window, ticks, s.l as u64)?;
        OnTime::wrap(
            crate::LineApbf::new(s.into())?,
            tau,
            t.trigger.unwrap_or(Trigger::Time),
        )
    }
}

impl Build for crate::ConcurrentLineApbf {
    /// A count window sized as [`LineApbf`](crate::LineApbf) (with the
    /// hashes and extra slices if given); a time window as
    /// `OnTime<LineApbf>`, with the trigger given (default
    /// [`Trigger::Time`]); keys hashed under the target's seed.
    fn build(t: &Target) -> Result<Self, ParamError> {
        let f = match t.window {
            Window::Count(_) => {
                let s = crate::LineApbf::build(t)?.theory();
                crate::ConcurrentLineApbf::new(s.into())?
            }
            Window::Time { .. } => {
                let (window, rate, ticks) = t.time_window("concurrent_line_apbf")?;
                let s = crate::LineApbf::sizing(window_keys(window, rate), t.the_fpr()?)?;
                let tau = generation_ticks(window, ticks, s.l as u64)?;
                let trigger = t.trigger.unwrap_or(Trigger::Time);
                crate::ConcurrentLineApbf::timed(s.into(), tau, trigger)?
            }
        };
        Ok(f.with_seed(t.seed))
    }
}

impl Build for OnTime<NaorYogev> {
    /// c of least memory for a window and slack of T·R keys (at least 2)
    /// unless given, τ = ⌈T/c⌉, then the window and slack grown so that a
    /// generation holds R·τ plus the burst ([`Target::burst`]); the hybrid
    /// trigger (a dictionary sized for g keys per generation must not
    /// overflow in a burst). Within the target's arrivals no generation
    /// ends on count, so every key younger than T is reported.
    fn build(t: &Target) -> Result<Self, ParamError> {
        let (window, rate, ticks) = t.time_window("naor_yogev_hybrid")?;
        let n = (window * rate).ceil().max(2.0) as u64;
        let load = t.max_load.unwrap_or(naor_yogev::DEFAULT_MAX_LOAD);
        let eps = t.the_fpr()?;
        let c = naor_yogev::Sizing::new(n, n, eps, t.generations, load)?.c;
        let tau = generation_ticks(window, ticks, c)?;
        let g = hybrid_generation(t, rate, ticks, tau)?;
        // g = ⌈(n - 1)/c⌉ >= the generation needed
        let n = n.max(c.saturating_mul(g).saturating_add(1));
        let size = naor_yogev::Sizing::new(n, n, eps, Some(c), load)?;
        let inner = NaorYogev::from_sizing(size)?.with_seed(t.seed);
        OnTime::wrap(inner, tau, Trigger::Hybrid)
    }
}

/// The keys of a window at the peak rate: ⌈T·R⌉, at least 1.
fn window_keys(window: f64, rate: f64) -> u64 {
    (window * rate).ceil().max(1.0) as u64
}

/// The keys of a window at the peak rate (at least 1) and τ for
/// `generations` generations per window, for the segmented designs over
/// time.
fn segment_generations(
    window: f64,
    rate: f64,
    ticks: f64,
    generations: u64,
) -> Result<(u64, u64), ParamError> {
    let tau = generation_ticks(window, ticks, generations)?;
    Ok((window_keys(window, rate), tau))
}

impl Build for OnTime<JumpingWindow> {
    /// n segments (given, or of fewest bits in 3..=16) sized as the count
    /// jumping window for T·R keys, a switch every T/(n-1).
    fn build(t: &Target) -> Result<Self, ParamError> {
        let (window, rate, ticks) = t.time_window("jumping_time")?;
        let e = t.the_fpr()?;
        let keys = window_keys(window, rate);
        let n = match t.segments {
            Some(n) if n >= 2 => n,
            Some(n) => {
                return Err(ParamError::OutOfRange {
                    name: "segments",
                    value: n.to_string(),
                    expected: "at least 2",
                })
            }
            None => fewest_bits(3..=16, |n| {
                let (k, _, m) = JumpingWindow::sizing(keys, e, n);
                (n as u64).checked_mul(k as u64)?.checked_mul(m)
            })
            .expect("a segment count"),
        };
        let (keys, tau) = segment_generations(window, rate, ticks, n as u64 - 1)?;
        OnTime::wrap(JumpingWindow::with_fpr(keys, e, n)?, tau, Trigger::Time)
    }
}

impl Build for OnTime<DoubleBuffer> {
    /// Double buffering sized for T·R keys, a swap every T.
    fn build(t: &Target) -> Result<Self, ParamError> {
        let (window, rate, ticks) = t.time_window("double_buffer_time")?;
        let (keys, tau) = segment_generations(window, rate, ticks, 1)?;
        OnTime::wrap(
            DoubleBuffer::with_fpr(keys, t.the_fpr()?)?,
            tau,
            Trigger::Time,
        )
    }
}

impl Build for TimedTbf {
    /// r quanta per window (default [`DEFAULT_QUANTA`]), cells sized as the
    /// count TBF for the T·R·(r + 1)/r keys the cells can hold, δ = ⌈T/r⌉.
    fn build(t: &Target) -> Result<Self, ParamError> {
        let (window, rate, ticks) = t.time_window("tbf_time")?;
        let r = t.quanta.unwrap_or(DEFAULT_QUANTA).max(1);
        let keys = tbf_keys(window, rate, r);
        let (k, s) = TimingBloom::sizing(keys, t.the_fpr()?)?;
        let delta = generation_ticks(window, ticks, r)?;
        TimedTbf::new(crate::TimedTbfShape {
            quanta: r,
            quantum_ticks: delta,
            hashes: k,
            cells_per_slice: s,
        })
    }
}

impl Build for crate::sliding_sketch::TimedSlidingBloom {
    /// The (k, m) of the count Sl-BF of W = ⌈T·R⌉ keys (its worst phase
    /// bounds the FPR at any rate up to R), swept once per T.
    fn build(t: &Target) -> Result<Self, ParamError> {
        let (tw, rate, fpr) = swept_window(t, "sliding_bloom_time")?;
        Self::with_fpr(tw, rate, fpr)
    }
}

impl Build for crate::half_sliding::TimedHalfSliding {
    /// The (k, lo, m) of the count HSS-BF guaranteeing W = ⌈T·R⌉ keys, its
    /// clock clearing (k - lo - 1)·m cells per T.
    fn build(t: &Target) -> Result<Self, ParamError> {
        let (tw, rate, fpr) = swept_window(t, "half_sliding_time")?;
        Self::with_fpr(tw, rate, fpr)
    }
}

impl Build for crate::clock_sketch::TimedClockBloom {
    /// The (k, s, m) of the count Clock-sketch filter of W = ⌈T·R⌉ keys, its
    /// pointer making (2^s - 2)·m decrements per T.
    fn build(t: &Target) -> Result<Self, ParamError> {
        let (tw, rate, fpr) = swept_window(t, "clock_bloom_time")?;
        Self::with_fpr(tw, rate, fpr)
    }
}

impl Build for crate::she::TimedSheBloom {
    /// The count SHE-BF's (k, m) for W = ⌈T·R⌉ keys in groups of 64, its
    /// phase P·T/W of time.
    fn build(t: &Target) -> Result<Self, ParamError> {
        let (tw, rate, fpr) = swept_window(t, "she_bloom_time")?;
        Self::with_fpr(tw, rate, fpr)
    }
}

impl Build for crate::tlbf::Tlbf {
    /// (k, l) as the count APBF chooses them for the FPR, the first slices
    /// sized for T·R keys; the slices then follow the rate measured.
    fn build(t: &Target) -> Result<Self, ParamError> {
        let (tw, rate, fpr) = swept_window(t, "tlbf")?;
        Self::with_fpr(tw, rate, fpr)
    }
}

/// A swept filter's window in ticks, its peak rate per tick and its FPR.
fn swept_window(t: &Target, name: &str) -> Result<(u64, f64, f64), ParamError> {
    let (window, rate, ticks) = t.time_window(name)?;
    let tw = (window * ticks).round();
    if !(tw >= 1.0 && tw < u64::MAX as f64) {
        return Err(ParamError::Unreachable {
            target: format!("{name} window {window}"),
        });
    }
    Ok((tw as u64, rate / ticks, t.the_fpr()?))
}

/// The keys the timing Bloom filter over time is sized for: a window at
/// the peak rate plus the quantum that may still hold keys,
/// ⌈T·R·(r + 1)/r⌉.
pub fn tbf_keys(window: f64, rate: f64, r: u64) -> u64 {
    (window * rate * (r + 1) as f64 / r as f64).ceil().max(1.0) as u64
}

impl Build for TimedSwbf {
    /// r quanta (default [`DEFAULT_QUANTA`]) of δ = ⌈T/r⌉ and at most g
    /// keys, g = R·δ plus the burst ([`Target::burst`]), so that within the
    /// target's arrivals no quantum ends on count and every key younger
    /// than T is reported; the fewest fingerprint bits meeting the FPR at
    /// (r + 1)g keys.
    fn build(t: &Target) -> Result<Self, ParamError> {
        let (window, rate, ticks) = t.time_window("swbf_hybrid")?;
        let e = t.the_fpr()?;
        let r = t.quanta.unwrap_or(DEFAULT_QUANTA).max(1);
        let delta = generation_ticks(window, ticks, r)?;
        let g = hybrid_generation(t, rate, ticks, delta)?;
        let keys = (r + 1) * g;
        let f = (1..=48)
            .find(|&f| swbf::fpr(keys.div_ceil(2), f, keys as f64) <= e)
            .ok_or_else(|| ParamError::Unreachable {
                target: format!("swbf_hybrid fpr {e} with fingerprints up to 48 bits"),
            })?;
        TimedSwbf::new(crate::TimedSwbfShape {
            quanta: r,
            quantum_ticks: delta,
            quantum_keys: g,
            fingerprint_bits: f,
        })
    }
}

impl Build for ConcurrentApbf {
    /// A count window as [`BlockedApbf`](crate::BlockedApbf); a time window with the trigger
    /// given (default [`Trigger::Time`]: every key younger than T is kept
    /// whatever the arrivals): (k, l, B) as the blocked APBF chooses them
    /// for the T·R keys of a window at the peak, τ = ⌈T/l⌉ ticks.
    fn build(t: &Target) -> Result<Self, ParamError> {
        let f = match t.window {
            Window::Count(n) => ConcurrentApbf::with_fpr(n, t.the_fpr()?)?,
            Window::Time { .. } => {
                let (window, rate, ticks) = t.time_window("concurrent_apbf")?;
                let s = crate::BlockedApbf::sizing(window_keys(window, rate), t.the_fpr()?)?;
                let tau = generation_ticks(window, ticks, s.l as u64)?;
                let trigger = t.trigger.unwrap_or(Trigger::Time);
                ConcurrentApbf::timed(s.into(), tau, trigger)?
            }
        };
        Ok(f.with_seed(t.seed))
    }
}
