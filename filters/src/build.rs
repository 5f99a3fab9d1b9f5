//! Sized construction for every design from what an application knows:
//! the window (a number of insertions, or a time and a peak rate), the FPR,
//! and optionally the largest slack and memory it accepts.
//!
//! ```
//! use bloomlab_filters::build::Target;
//! use bloomlab_filters::{Apbf, NaorYogev, OnTime, SlidingFilter, TimedFilter};
//! // the last 100,000 insertions at FPR 1e-3, slack at most 20,000
//! let f: Apbf = Target::window(100_000).fpr(1e-3).max_slack(20_000).build()?;
//! assert!(f.window() >= 100_000 && f.slack() <= 20_000);
//! // the last 10 minutes at up to 5,000 keys per second, a clock in ms
//! let t = Target::time(600.0, 5_000.0).ticks_per_unit(1_000.0).fpr(1e-3);
//! let g: OnTime<NaorYogev> = t.build()?;
//! assert!(g.window_time() >= 600_000); // c generations of ⌈T/c⌉ ticks
//! # Ok::<(), bloomlab_filters::ParamError>(())
//! ```
//!
//! Each design's [`Build`] implementation holds its sizing rules (the
//! bloomlab harness sizes its time designs through them). A target a
//! design cannot meet is a [`ParamError`]: a count design asked for a time
//! window, a slack or memory above the limits given, an FPR no
//! configuration reaches.
//!
//! What is not here: a preference for speed over memory. The sizings
//! choose the least memory their theory allows (the APBF's (k, l), the
//! Naor-Yogev c); which configuration is faster depends on the machine and
//! the traffic, and bloomlab measures it rather than assuming it.

use crate::apbf::blocked::concurrent::{ConcurrentApbf, Shift};
use crate::apbf::theory as apbf_theory;
use crate::error::{check_nonzero, check_probability};
use crate::naor_yogev::{self, NaorYogev};
use crate::segmented::{A2Buffer, DoubleBuffer, ForgetfulBloom, JumpingWindow};
use crate::timewindow::{OnTime, Trigger};
use crate::timing::{swbf, TimedSwbf, TimedTbf};
use crate::{
    Apbf, BlockedApbf, Broom, NyPocket, ParamError, StableBloomFilter, Swamp, Swbf, TimingBloom,
};

/// Largest l the slack-constrained APBF choice considers.
pub const MAX_L_WITH_SLACK: u32 = 4096;
/// Time quanta per window of the timing Bloom filter and SWBF over time,
/// when not given.
pub const DEFAULT_QUANTA: u64 = 64;

/// The window a filter is sized for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Window {
    /// The last `n` insertions.
    Count(u64),
    /// The last `window` time units at up to `peak_rate` keys per unit, on
    /// a clock of `ticks_per_unit` ticks per unit (the `u64` the filter's
    /// `advance` takes).
    Time {
        /// The window, in the caller's time unit.
        window: f64,
        /// Keys per unit at the peak.
        peak_rate: f64,
        /// Clock ticks per unit (1 when the clock counts the unit itself).
        ticks_per_unit: f64,
    },
}

/// What to size a filter for; [`build`](Target::build) makes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    window: Window,
    fpr: Option<f64>,
    max_slack: Option<u64>,
    max_memory_bits: Option<u64>,
    seed: u64,
    trigger: Option<Trigger>,
    segments: Option<u32>,
    past: Option<u32>,
    quanta: Option<u64>,
    c: Option<u64>,
    max_load: Option<f64>,
}

impl Target {
    /// A window of the last `n` insertions.
    pub fn window(n: u64) -> Target {
        Target::of(Window::Count(n))
    }

    /// A window of `window` time units at up to `peak_rate` keys per unit
    /// (set the clock's resolution with
    /// [`ticks_per_unit`](Self::ticks_per_unit)).
    pub fn time(window: f64, peak_rate: f64) -> Target {
        Target::of(Window::Time {
            window,
            peak_rate,
            ticks_per_unit: 1.0,
        })
    }

    fn of(window: Window) -> Target {
        Target {
            window,
            fpr: None,
            max_slack: None,
            max_memory_bits: None,
            seed: 0,
            trigger: None,
            segments: None,
            past: None,
            quanta: None,
            c: None,
            max_load: None,
        }
    }

    /// The clock's ticks per time unit (1000 for a clock in ms and a window
    /// in seconds).
    pub fn ticks_per_unit(mut self, ticks: f64) -> Target {
        if let Window::Time { ticks_per_unit, .. } = &mut self.window {
            *ticks_per_unit = ticks;
        }
        self
    }

    /// The FPR to meet (at the worst phase; for a time window, at rates up
    /// to the peak).
    pub fn fpr(mut self, fpr: f64) -> Target {
        self.fpr = Some(fpr);
        self
    }

    /// The largest slack accepted, in insertions (count windows): the APBF
    /// and the Naor-Yogev filters are sized within it, the others checked
    /// against it.
    pub fn max_slack(mut self, slack: u64) -> Target {
        self.max_slack = Some(slack);
        self
    }

    /// The most memory accepted, in bits (the Stable Bloom filter's size).
    pub fn max_memory_bits(mut self, bits: u64) -> Target {
        self.max_memory_bits = Some(bits);
        self
    }

    /// The seed of the designs that draw random numbers (the broom
    /// filter's hash, the Naor-Yogev displacement walk, the Stable Bloom
    /// filter's decrements, SWAMP's fingerprints). Default 0.
    pub fn seed(mut self, seed: u64) -> Target {
        self.seed = seed;
        self
    }

    /// What ends the APBF's generations over time (default
    /// [`Trigger::Hybrid`]: the FPR holds in a burst).
    pub fn trigger(mut self, trigger: Trigger) -> Target {
        self.trigger = Some(trigger);
        self
    }

    /// The jumping window's segments (default: the fewest bits in 2..=16).
    pub fn segments(mut self, n: u32) -> Target {
        self.segments = Some(n);
        self
    }

    /// The Forgetful Bloom filter's past filters (default: the fewest
    /// bits in 1..=14).
    pub fn past(mut self, n: u32) -> Target {
        self.past = Some(n);
        self
    }

    /// Time quanta per window of the timing Bloom filter and SWBF over
    /// time (default [`DEFAULT_QUANTA`]).
    pub fn quanta(mut self, r: u64) -> Target {
        self.quanta = Some(r);
        self
    }

    /// The Naor-Yogev trade-off c (default: the least memory).
    pub fn c(mut self, c: u64) -> Target {
        self.c = Some(c);
        self
    }

    /// The Naor-Yogev table's largest load (default
    /// [`naor_yogev::DEFAULT_MAX_LOAD`]).
    pub fn max_load(mut self, load: f64) -> Target {
        self.max_load = Some(load);
        self
    }

    /// The filter, sized for this target and checked against its limits.
    pub fn build<F: Build>(&self) -> Result<F, ParamError> {
        let f = F::build(self)?;
        if let Some(max) = self.max_memory_bits.filter(|_| F::MEMORY_IS_A_LIMIT) {
            let bits = f.memory_bits();
            if bits > max {
                return Err(ParamError::Unreachable {
                    target: format!("{} in at most {max} bits (needs {bits})", f.name()),
                });
            }
        }
        Ok(f)
    }

    /// The FPR, checked.
    fn the_fpr(&self) -> Result<f64, ParamError> {
        let e = self.fpr.ok_or(ParamError::Unreachable {
            target: "a size without an fpr (give Target::fpr)".into(),
        })?;
        check_probability("fpr", e)
    }

    /// The count window, or the error of a design that takes only one.
    fn count(&self, design: &str) -> Result<u64, ParamError> {
        match self.window {
            Window::Count(n) => check_nonzero("window", n),
            Window::Time { .. } => Err(ParamError::OutOfRange {
                name: "window",
                value: format!("a window of time, for {design}"),
                expected: "a number of insertions (a count design; its time variant takes a window of time)",
            }),
        }
    }

    /// (window, peak rate, ticks per unit), checked, or the error of a
    /// design that counts insertions.
    fn time_window(&self, design: &str) -> Result<(f64, f64, f64), ParamError> {
        match self.window {
            Window::Time {
                window,
                peak_rate,
                ticks_per_unit,
            } => {
                let ok = |x: f64| x.is_finite() && x > 0.0;
                for (name, v) in [
                    ("window", window),
                    ("peak_rate", peak_rate),
                    ("ticks_per_unit", ticks_per_unit),
                ] {
                    if !ok(v) {
                        return Err(ParamError::OutOfRange {
                            name,
                            value: v.to_string(),
                            expected: "finite and above 0",
                        });
                    }
                }
                Ok((window, peak_rate, ticks_per_unit))
            }
            Window::Count(_) => Err(ParamError::OutOfRange {
                name: "window",
                value: format!("a number of insertions, for {design}"),
                expected: "a window of time (a time design; its count variant takes a number of insertions)",
            }),
        }
    }

    /// Fails unless `slack` is within the largest slack accepted.
    fn within_slack(&self, design: &str, slack: u64) -> Result<(), ParamError> {
        match self.max_slack {
            Some(max) if slack > max => Err(ParamError::Unreachable {
                target: format!("{design} with slack at most {max} (its slack is {slack})"),
            }),
            _ => Ok(()),
        }
    }
}

/// τ = ⌈window · ticks / generations⌉: the length of a generation in clock
/// ticks, at least one tick.
fn generation_ticks(window: f64, ticks: f64, generations: u64) -> Result<u64, ParamError> {
    let tau = (window * ticks / generations as f64).ceil();
    if !(1.0..=u64::MAX as f64 / 2.0).contains(&tau) {
        return Err(ParamError::OutOfRange {
            name: "window",
            value: format!("{window} ({tau} ticks per generation)"),
            expected: "at least one clock tick per generation",
        });
    }
    Ok(tau as u64)
}

/// A design [`Target::build`] can size.
pub trait Build: crate::Filter + Sized {
    /// Whether the target's memory is a limit to check (false where it is
    /// the design's size itself).
    const MEMORY_IS_A_LIMIT: bool = true;
    /// The design sized for `target`.
    fn build(target: &Target) -> Result<Self, ParamError>;
}

impl Build for Apbf {
    /// (k, l) of fewest bits per element (l at most
    /// [`DEFAULT_MAX_L`](crate::apbf::DEFAULT_MAX_L)), or within the
    /// largest slack (l at most [`MAX_L_WITH_SLACK`]); g = ⌈window / l⌉.
    fn build(t: &Target) -> Result<Self, ParamError> {
        let (w, e) = (t.count("apbf")?, t.the_fpr()?);
        let (k, l) =
            match t.max_slack {
                Some(s) => apbf_theory::choose_kl_with_slack(e, w, s, MAX_L_WITH_SLACK)
                    .ok_or_else(|| ParamError::Unreachable {
                        target: format!(
                            "apbf fpr {e} with slack <= {s} and l <= {MAX_L_WITH_SLACK}"
                        ),
                    })?,
                None => apbf_theory::choose_kl(e, crate::apbf::DEFAULT_MAX_L).ok_or_else(|| {
                    ParamError::Unreachable {
                        target: format!("apbf fpr {e} with k <= {}", apbf_theory::MAX_K),
                    }
                })?,
            };
        Apbf::new(k, l, w.div_ceil(l as u64))
    }
}

impl Build for BlockedApbf {
    fn build(t: &Target) -> Result<Self, ParamError> {
        let f = BlockedApbf::with_fpr(t.count("blocked_apbf")?, t.the_fpr()?)?;
        t.within_slack("blocked_apbf", crate::SlidingFilter::slack(&f))?;
        Ok(f)
    }
}

/// The Naor-Yogev sizes for window `n`, slack `m` (the largest slack
/// accepted, or n).
fn ny_sizing(t: &Target, n: u64) -> Result<naor_yogev::Sizing, ParamError> {
    let m = t.max_slack.unwrap_or(n);
    let load = t.max_load.unwrap_or(naor_yogev::DEFAULT_MAX_LOAD);
    naor_yogev::Sizing::new(n, m, t.the_fpr()?, t.c, load)
}

impl Build for NaorYogev {
    /// Window n, slack m = the largest slack accepted (default n), c of
    /// least memory unless given.
    fn build(t: &Target) -> Result<Self, ParamError> {
        let n = t.count("naor_yogev")?;
        Ok(NaorYogev::from_sizing(ny_sizing(t, n)?)?.with_seed(t.seed))
    }
}

impl Build for NyPocket {
    fn build(t: &Target) -> Result<Self, ParamError> {
        let n = t.count("ny_pocket")?;
        let m = t.max_slack.unwrap_or(n);
        let load = t.max_load.unwrap_or(crate::ny_pocket::DEFAULT_MAX_LOAD);
        let s = crate::ny_pocket::theory::Sizing::new(n, m, t.the_fpr()?, t.c, load)?;
        NyPocket::from_sizing(s)
    }
}

impl Build for Broom {
    fn build(t: &Target) -> Result<Self, ParamError> {
        Broom::with_fpr(t.count("broom")?, t.the_fpr()?, t.seed)
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

/// The n in `range` whose configuration has the fewest bits, by `bits`.
fn fewest_bits(
    range: std::ops::RangeInclusive<u32>,
    bits: impl Fn(u32) -> Option<u64>,
) -> Option<u32> {
    range
        .filter_map(|n| Some((bits(n)?, n)))
        .min()
        .map(|(_, n)| n)
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

impl Build for crate::sliding_sketch::SlidingBloom {
    /// The (k, m) of [`SlidingBloom::with_fpr`](crate::sliding_sketch::SlidingBloom::with_fpr)
    /// (its exact theory; a few seconds at a window of 10^6); slack W.
    fn build(t: &Target) -> Result<Self, ParamError> {
        let w = t.count("sliding_bloom")?;
        t.within_slack("sliding_bloom", w)?;
        crate::sliding_sketch::SlidingBloom::with_fpr(w, t.the_fpr()?)
    }
}

impl Build for StableBloomFilter {
    const MEMORY_IS_A_LIMIT: bool = false;
    /// No window: the memory (required) and the FPR pick d, K and P.
    fn build(t: &Target) -> Result<Self, ParamError> {
        let bits = t.max_memory_bits.ok_or(ParamError::Unreachable {
            target: "a Stable Bloom filter without its memory (give Target::max_memory_bits)"
                .into(),
        })?;
        Ok(StableBloomFilter::with_fpr(bits, t.the_fpr()?)?.with_seed(t.seed))
    }
}

impl Build for OnTime<Apbf> {
    /// (k, l) as the count APBF chooses them, τ = ⌈T/l⌉ ticks, g =
    /// ⌈T·R / l⌉; the trigger as given (default hybrid).
    fn build(t: &Target) -> Result<Self, ParamError> {
        let name = "apbf_time";
        let (window, rate, ticks) = t.time_window(name)?;
        let e = t.the_fpr()?;
        let (k, l) = apbf_theory::choose_kl(e, crate::apbf::DEFAULT_MAX_L).ok_or_else(|| {
            ParamError::Unreachable {
                target: format!("{name} fpr {e} with k <= {}", apbf_theory::MAX_K),
            }
        })?;
        let (tau, g) = apbf_generations(window, rate, ticks, l)?;
        OnTime::<Apbf>::new(k, l, g, tau, t.trigger.unwrap_or(Trigger::Hybrid))
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

impl Build for OnTime<NaorYogev> {
    /// Window and slack of T·R keys (at least 2), c of least memory unless
    /// given, τ = ⌈T/c⌉; the hybrid trigger (a dictionary sized for g keys
    /// per generation must not overflow in a burst).
    fn build(t: &Target) -> Result<Self, ParamError> {
        let (window, rate, ticks) = t.time_window("naor_yogev_hybrid")?;
        let n = (window * rate).ceil().max(2.0) as u64;
        let load = t.max_load.unwrap_or(naor_yogev::DEFAULT_MAX_LOAD);
        let size = naor_yogev::Sizing::new(n, n, t.the_fpr()?, t.c, load)?;
        let tau = (window * ticks / size.c as f64).ceil().max(1.0) as u64;
        let inner = NaorYogev::from_sizing(size)?.with_seed(t.seed);
        OnTime::wrap(inner, tau, Trigger::Hybrid)
    }
}

/// The keys of a window at the peak rate (at least 1) and τ for
/// `generations` generations per window, for the segmented designs over
/// time.
pub fn segment_generations(
    window: f64,
    rate: f64,
    ticks: f64,
    generations: u64,
) -> Result<(u64, u64), ParamError> {
    let tau = generation_ticks(window, ticks, generations)?;
    Ok(((window * rate).ceil().max(1.0) as u64, tau))
}

impl Build for OnTime<JumpingWindow> {
    /// n segments (given, or of fewest bits in 3..=16) sized as the count
    /// jumping window for T·R keys, a switch every T/(n-1).
    fn build(t: &Target) -> Result<Self, ParamError> {
        let (window, rate, ticks) = t.time_window("jumping_time")?;
        let e = t.the_fpr()?;
        let keys = (window * rate).ceil().max(1.0) as u64;
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
        let delta = (window * ticks / r as f64).ceil() as u64;
        TimedTbf::new(r, delta.max(1), k, s)
    }
}

/// The keys the timing Bloom filter over time is sized for: a window at
/// the peak rate plus the quantum that may still hold keys,
/// ⌈T·R·(r + 1)/r⌉.
pub fn tbf_keys(window: f64, rate: f64, r: u64) -> u64 {
    (window * rate * (r + 1) as f64 / r as f64).ceil().max(1.0) as u64
}

impl Build for TimedSwbf {
    /// r quanta (default [`DEFAULT_QUANTA`]) of δ = ⌈T/r⌉ and at most g =
    /// ⌈R·δ⌉ keys, the fewest fingerprint bits meeting the FPR at (r + 1)g
    /// keys.
    fn build(t: &Target) -> Result<Self, ParamError> {
        let (window, rate, ticks) = t.time_window("swbf_hybrid")?;
        let e = t.the_fpr()?;
        let r = t.quanta.unwrap_or(DEFAULT_QUANTA).max(1);
        let delta = (window * ticks / r as f64).ceil().max(1.0) as u64;
        let g = (rate * delta as f64 / ticks).ceil().max(1.0) as u64;
        let keys = (r + 1) * g;
        let f = (1..=48)
            .find(|&f| swbf::fpr(keys.div_ceil(2), f, keys as f64) <= e)
            .ok_or_else(|| ParamError::Unreachable {
                target: format!("swbf_hybrid fpr {e} with fingerprints up to 48 bits"),
            })?;
        TimedSwbf::new(r, delta, g, f)
    }
}

impl Build for ConcurrentApbf {
    /// A count window as [`BlockedApbf`]; a time window with the trigger
    /// given (default hybrid), τ = ⌈T/l⌉, slices for T·R keys.
    fn build(t: &Target) -> Result<Self, ParamError> {
        match t.window {
            Window::Count(n) => ConcurrentApbf::with_fpr(n, t.the_fpr()?, Shift::Count, t.seed),
            Window::Time { .. } => {
                let (window, rate, ticks) = t.time_window("concurrent_apbf")?;
                let keys = (window * rate).ceil().max(1.0) as u64;
                let hybrid = t.trigger.unwrap_or(Trigger::Hybrid) == Trigger::Hybrid;
                let ticks_total = (window * ticks).ceil() as u64;
                ConcurrentApbf::for_time(ticks_total, keys, t.the_fpr()?, hybrid, t.seed)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Filter, SlidingFilter, TimedFilter};

    /// Every count design built for a window gives at least that window,
    /// within the largest slack asked for when it has one.
    #[test]
    fn count_designs_meet_their_window() {
        let t = Target::window(5000).fpr(1e-2);
        fn check<F: Build + SlidingFilter>(t: &Target) -> F {
            let f: F = t.build().unwrap();
            assert!(f.window() >= 5000, "{}: window {}", f.name(), f.window());
            f
        }
        check::<Apbf>(&t);
        check::<BlockedApbf>(&t);
        check::<NaorYogev>(&t);
        check::<NyPocket>(&t);
        check::<Swamp>(&t);
        check::<TimingBloom>(&t);
        check::<Swbf>(&t);
        check::<JumpingWindow>(&t);
        check::<DoubleBuffer>(&t);
        check::<A2Buffer>(&t);
        check::<ForgetfulBloom>(&t);
        check::<crate::sliding_sketch::SlidingBloom>(&t);
        let b: Broom = t.build().unwrap();
        assert!(b.name() == "broom");
        // a largest slack: the APBF and Naor-Yogev are sized within it
        let s = t.clone().max_slack(1000);
        assert!(check::<Apbf>(&s).slack() <= 1000);
        assert!(check::<NaorYogev>(&s).slack() <= 1000);
        // the others are checked against it
        assert!(matches!(
            s.build::<DoubleBuffer>(),
            Err(ParamError::Unreachable { .. })
        ));
        let c: ConcurrentApbf = t.build().unwrap();
        assert_eq!(c.window(), BlockedApbf::build(&t).unwrap().window());
    }

    /// The APBF's sizing is its theory's: the (k, l) of fewest bits meeting
    /// the FPR, and within a slack the choice among larger l.
    #[test]
    fn apbf_sizing_is_its_theory() {
        let f: Apbf = Target::window(10_000).fpr(1e-3).build().unwrap();
        assert_eq!(
            (f.k(), f.l()),
            apbf_theory::choose_kl(1e-3, crate::apbf::DEFAULT_MAX_L).unwrap()
        );
        assert!(f.theory().fpr() <= 1e-3);
        let g: Apbf = Target::window(10_000)
            .fpr(1e-3)
            .max_slack(2000)
            .build()
            .unwrap();
        let (k, l) =
            apbf_theory::choose_kl_with_slack(1e-3, 10_000, 2000, MAX_L_WITH_SLACK).unwrap();
        assert_eq!((g.k(), g.l()), (k, l));
    }

    /// Time designs: the window of time asked for (T in ticks), and the
    /// count designs refuse a time window and the other way round.
    #[test]
    fn time_designs_meet_their_window_of_time() {
        let t = Target::time(60.0, 100.0).ticks_per_unit(1000.0).fpr(1e-2);
        fn check<F: Build + TimedFilter>(t: &Target) -> F {
            let f: F = t.build().unwrap();
            assert!(
                f.window_time() >= 60_000,
                "{}: {}",
                f.name(),
                f.window_time()
            );
            f
        }
        let a = check::<OnTime<Apbf>>(&t);
        assert_eq!(a.trigger(), Trigger::Hybrid);
        assert_eq!(
            check::<OnTime<Apbf>>(&t.clone().trigger(Trigger::Time)).trigger(),
            Trigger::Time
        );
        check::<OnTime<NaorYogev>>(&t);
        check::<OnTime<JumpingWindow>>(&t);
        check::<OnTime<DoubleBuffer>>(&t);
        check::<TimedTbf>(&t);
        check::<TimedSwbf>(&t);
        let c: ConcurrentApbf = t.build().unwrap();
        assert!(c.window() >= 60_000);
        assert!(matches!(
            t.build::<Apbf>(),
            Err(ParamError::OutOfRange { name: "window", .. })
        ));
        let count = Target::window(100).fpr(1e-2);
        assert!(matches!(
            count.build::<OnTime<Apbf>>(),
            Err(ParamError::OutOfRange { name: "window", .. })
        ));
    }

    /// Missing or bad inputs are typed errors, never panics.
    #[test]
    fn bad_targets_are_errors() {
        assert!(Target::window(100).build::<Apbf>().is_err()); // no fpr
        assert!(Target::window(0).fpr(1e-2).build::<Apbf>().is_err());
        assert!(Target::window(100).fpr(f64::NAN).build::<Apbf>().is_err());
        assert!(Target::window(100).fpr(1.5).build::<Swamp>().is_err());
        assert!(Target::time(f64::NAN, 5.0)
            .fpr(1e-2)
            .build::<OnTime<Apbf>>()
            .is_err());
        assert!(Target::time(1.0, -5.0)
            .fpr(1e-2)
            .build::<TimedTbf>()
            .is_err());
        assert!(Target::time(1.0, 5.0)
            .ticks_per_unit(0.0)
            .fpr(1e-2)
            .build::<OnTime<DoubleBuffer>>()
            .is_err());
        assert!(Target::time(60.0, 5.0)
            .fpr(1e-2)
            .segments(1)
            .build::<OnTime<JumpingWindow>>()
            .is_err());
        // memory: a limit for the others, the size of the Stable Bloom filter
        let small = Target::window(100_000).fpr(1e-3).max_memory_bits(1000);
        assert!(matches!(
            small.build::<Apbf>(),
            Err(ParamError::Unreachable { .. })
        ));
        assert!(Target::window(100)
            .fpr(1e-2)
            .build::<StableBloomFilter>()
            .is_err());
        let s: StableBloomFilter = Target::window(100)
            .fpr(1e-2)
            .max_memory_bits(1 << 16)
            .build()
            .unwrap();
        assert!(s.memory_bits() <= 1 << 17);
    }
}
