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
//! ## Two doors, one vocabulary
//!
//! Every design is made one of two ways: sized by [`Target`] from what the
//! application knows (this module), or given its exact shape by
//! `Design::new(DesignShape { .. })`, a struct of named fields beside each
//! design ([`ApbfShape`](crate::ApbfShape), [`StableShape`](crate::StableShape), ...). Summaries
//! that are not filters have a sizing on their shape instead
//! ([`WcssShape::for_error`](crate::WcssShape::for_error),
//! [`BroomShape::for_fpr`](crate::BroomShape::for_fpr)). Seeds go in one way:
//! [`Target::seed`], or `with_seed` on a design that takes one.
//!
//! The shapes and the builder name the papers' letters by words, and each
//! word means one thing across the crate (each design's docs and theory
//! keep its paper's letters, which is where `m` can mean bits, cells or a
//! slack):
//!
//! | word | meaning | papers' letters |
//! |---|---|---|
//! | `window` | insertions always reported | w, n, W |
//! | `window_ticks` | the window in clock ticks | T, t |
//! | `slack` | insertions past the window a key may still be reported | m (Naor-Yogev) |
//! | `hashes` | bits or cells a key sets and a query reads (slices written, for the APBF) | k, K |
//! | `extra_slices` | slices beyond `hashes` (the window in generations) | l |
//! | `generation` | insertions per generation | g |
//! | `generations` | generations per window | c (Naor-Yogev) |
//! | `bits`, `bits_per_slice`, `initial_bits_per_slice` | bits in all, per slice, per slice at first | m, m0 |
//! | `cells`, `cells_per_slice`, `cells_per_array` | cells in all, per slice, per array | m, s |
//! | `cell_bits` | bits per cell | d, s (Clock) |
//! | `arrays`, `queried_arrays` | arrays of cells; those a query reads | k, lo (sketches) |
//! | `fingerprint_bits`, `remainder_bits` | bits per fingerprint, per remainder | l (SWAMP), f, r |
//! | `decrements` | cells decremented per insertion | P |
//! | `quanta`, `quantum_ticks`, `quantum_keys` | time quanta per window, ticks and keys per quantum | r, δ, g (timing) |
//! | `segments`, `past_filters` | the jumping window's segments, the Forgetful filter's past filters | n, N |
//! | `group_bits`, `phase`, `phase_ticks`, `cycle` | SHE's groups and phase, the half-sliding clock's round | g, αW, C |
//! | `capacity`, `slots`, `moves_per_adapt` | the broom filter's keys, slots and frontier moves | n, S, c |
//! | `counters`, `registers`, `blocks` | WCSS counters, HLL registers, blocked APBF blocks | k, m, B |
//!
//! What is not here: a preference for speed over memory. The sizings
//! choose the least memory their theory allows (the APBF's (k, l), the
//! Naor-Yogev c); which configuration is faster depends on the machine and
//! the traffic, and bloomlab measures it rather than assuming it.

use crate::error::{check_nonzero, check_probability};
use crate::timewindow::Trigger;
use crate::ParamError;

mod count;
mod time;

pub use time::{apbf_generations, tbf_keys};

/// Largest l the slack-constrained APBF choice considers.
pub use crate::apbf::MAX_L_WITH_SLACK;
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
    generations: Option<u64>,
    hashes: Option<u32>,
    extra_slices: Option<u32>,
    cell_bits: Option<u32>,
    max_load: Option<f64>,
    burst: Option<f64>,
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

    /// A size of `bits` bits and no window: the Stable Bloom filter's
    /// target (it forgets at a rate its memory and FPR set, not after a
    /// window). A design with a window refuses it (its window is 0).
    pub fn memory(bits: u64) -> Target {
        Target::of(Window::Count(0)).max_memory_bits(bits)
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
            generations: None,
            hashes: None,
            extra_slices: None,
            cell_bits: None,
            max_load: None,
            burst: None,
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

    /// The seed the design takes, if it takes one (default 0), per design:
    /// - [`ConcurrentApbf`](crate::ConcurrentApbf): its key hasher's seed
    ///   (the concurrent filter hashes the keys itself);
    /// - the broom filter: its hash functions' salt;
    /// - the Naor-Yogev filter (and over time): its displacement walk;
    /// - the Stable Bloom filter: its random decrements;
    /// - SWAMP: its fingerprints' salt;
    /// - every other design: nothing. They store hashes the caller made:
    ///   the seed that matters against an adversary is then
    ///   [`Keyed`](crate::Keyed)'s hasher seed.
    ///
    /// Where keys may come from someone aiming for false positives, keep
    /// the hashing seed secret: give `Keyed` (or, for `ConcurrentApbf`,
    /// this) a random seed and store it with the saves; the default 0 is
    /// public.
    pub fn seed(mut self, seed: u64) -> Target {
        self.seed = seed;
        self
    }

    /// What ends the APBF's generations over time (the APBF over time and
    /// the concurrent APBF). Default [`Trigger::Time`]: every key younger
    /// than T is reported whatever the arrivals, and the FPR meets the
    /// target while the rate stays within the peak (it climbs in a burst
    /// above it). [`Trigger::Hybrid`] also ends a generation on g
    /// insertions, which bounds the FPR in any burst but loses keys younger
    /// than T whenever a generation fills in less than τ, which batches at
    /// exactly the sized rate do (the arrival arm's
    /// `the_hybrid_apbf_loses_keys_under_batches` in
    /// `filters/tests/conformance/arrivals.rs`; issue 56 reported 20% of the
    /// ids 599 s old lost under batches of a second's ids).
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

    /// The Naor-Yogev filters' generations per window, the trade-off c
    /// (default: the least memory).
    pub fn generations(mut self, c: u64) -> Target {
        self.generations = Some(c);
        self
    }

    /// The hash functions k, instead of the sizing's choice: the APBF's
    /// and the blocked APBF's slices written per insertion (with
    /// [`extra_slices`](Self::extra_slices); the blocked APBF then takes
    /// the fewest blocks meeting the FPR), the Stable Bloom filter's cells
    /// per key (with [`cell_bits`](Self::cell_bits)). Other designs
    /// ignore it.
    pub fn hashes(mut self, k: u32) -> Target {
        self.hashes = Some(k);
        self
    }

    /// The APBF's extra slices l, instead of the sizing's choice: k is
    /// then the smallest meeting the FPR (unless [`hashes`](Self::hashes)
    /// gives it too). Read by the APBF and the blocked APBF.
    pub fn extra_slices(mut self, l: u32) -> Target {
        self.extra_slices = Some(l);
        self
    }

    /// The Stable Bloom filter's bits per cell d: with
    /// [`hashes`](Self::hashes), the filter has ⌊memory / d⌋ cells and
    /// the fewest decrements per insertion whose stable FPR meets the
    /// target (instead of the d, K and P of longest memory).
    pub fn cell_bits(mut self, d: u32) -> Target {
        self.cell_bits = Some(d);
        self
    }

    /// The Naor-Yogev table's largest load (default
    /// [`naor_yogev::DEFAULT_MAX_LOAD`](crate::naor_yogev::DEFAULT_MAX_LOAD)).
    pub fn max_load(mut self, load: f64) -> Target {
        self.max_load = Some(load);
        self
    }

    /// The largest batch, in keys: in any interval of length t at most
    /// R·t + `burst` keys arrive (a token bucket of rate R and depth
    /// `burst`). Default: one time unit's keys at the peak rate, R (a batch
    /// of a second's ids when the unit is the second), or one clock tick's
    /// if a tick is longer than the unit.
    ///
    /// The designs that take only the hybrid trigger (the Naor-Yogev filter
    /// and SWBF over time, whose dictionaries would overflow on time alone)
    /// size their generations for R·τ + `burst` keys (τ rounded up to whole
    /// ticks), so that within this bound no generation fills before τ and
    /// no key younger than T is lost. When not given, the headroom is one
    /// unit's keys plus 6√(R·τ), which covers Poisson arrivals to six
    /// standard deviations as well. `burst(0.0)` is the papers' sizing,
    /// g = R·τ: Poisson or batched arrivals at the sized rate then end some
    /// generations on count and lose keys younger than T (docs/time.md).
    /// The other time designs keep every key younger than T whatever the
    /// arrivals and ignore it.
    pub fn burst(mut self, keys: f64) -> Target {
        self.burst = Some(keys);
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
    pub(crate) fn the_fpr(&self) -> Result<f64, ParamError> {
        let e = self.fpr.ok_or(ParamError::Unreachable {
            target: "a size without an fpr (give Target::fpr)".into(),
        })?;
        check_probability("fpr", e)
    }

    /// The count window, or the error of a design that takes only one.
    pub(crate) fn count(&self, design: &str) -> Result<u64, ParamError> {
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
    pub(crate) fn time_window(&self, design: &str) -> Result<(f64, f64, f64), ParamError> {
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
    pub(crate) fn within_slack(&self, design: &str, slack: u64) -> Result<(), ParamError> {
        match self.max_slack {
            Some(max) if slack > max => Err(ParamError::Unreachable {
                target: format!("{design} with slack at most {max} (its slack is {slack})"),
            }),
            _ => Ok(()),
        }
    }
}

/// The keys a generation of a hybrid-only design is sized for so that it
/// never fills before τ ends within the target's arrivals: R·τ (τ in
/// ticks, rounded up) + the burst given, or by default one unit's keys +
/// 6√(R·τ) (see [`Target::burst`]).
fn hybrid_generation(t: &Target, rate: f64, ticks: f64, tau: u64) -> Result<u64, ParamError> {
    let per_tau = rate * tau as f64 / ticks;
    let headroom = match t.burst {
        Some(b) if b.is_finite() && b >= 0.0 => b,
        Some(b) => {
            return Err(ParamError::OutOfRange {
                name: "burst",
                value: b.to_string(),
                expected: "finite and at least 0",
            })
        }
        None => rate * (1.0f64).max(1.0 / ticks) + 6.0 * per_tau.sqrt(),
    };
    let keys = (per_tau + headroom).ceil();
    if keys.is_nan() || keys >= 1e15 {
        return Err(ParamError::TooLarge {
            what: "keys per generation",
            limit: "1e15".into(),
        });
    }
    Ok((keys as u64).max(1))
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

/// A design [`Target::build`] can size.
pub trait Build: crate::Filter + Sized {
    /// Whether the target's memory is a limit to check (false where it is
    /// the design's size itself).
    const MEMORY_IS_A_LIMIT: bool = true;
    /// The design sized for `target`.
    fn build(target: &Target) -> Result<Self, ParamError>;
}

#[cfg(test)]
mod tests;
