//! The generations' clock of the concurrent filters ([`ConcurrentApbf`] and
//! [`ConcurrentLineApbf`]): what ends a generation ([`Shift`]), when the
//! current one began and the latest time the clock was moved to, and the
//! lock that shifts take. Each filter keeps its own state word (what a
//! claim reads); this is the part they share.
//!
//! [`ConcurrentApbf`]: crate::ConcurrentApbf
//! [`ConcurrentLineApbf`]: crate::ConcurrentLineApbf

use crate::persist::{ensure, Codec, LoadError, Reader, Writer};
use crate::timewindow::Trigger;
use crate::ParamError;
use std::sync::atomic::{AtomicU64, Ordering::*};
use std::sync::{Mutex, MutexGuard};

/// What ends a generation of a concurrent filter: g insertions, or a
/// [`Trigger`] with its τ. Crate-private: the public constructors take a
/// [`Trigger`] and τ, the one trigger type of the crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shift {
    /// Every g insertions: a window of l g insertions.
    Count,
    /// Every τ time units on a grid from the filter's start: a window of lτ
    /// of time.
    Time(u64),
    /// After τ or g insertions, whichever first.
    Hybrid(u64),
}

impl Shift {
    /// The shift of `trigger` with τ = `tau`, checked: τ >= 1 and the
    /// window and slack of time, (k + l)τ, in a u64.
    pub(crate) fn timed(trigger: Trigger, tau: u64, slices: u64) -> Result<Self, ParamError> {
        crate::error::check_nonzero("tau", tau)?;
        if slices.checked_mul(tau).is_none() {
            return Err(ParamError::TooLarge {
                what: "(k + l) times tau",
                limit: "2^64 - 1".into(),
            });
        }
        Ok(match trigger {
            Trigger::Time => Shift::Time(tau),
            Trigger::Hybrid => Shift::Hybrid(tau),
        })
    }
}

impl Codec for Shift {
    fn put(&self, w: &mut Writer) {
        match *self {
            Shift::Count => (0u8, 0u64).put(w),
            Shift::Time(t) => (1u8, t).put(w),
            Shift::Hybrid(t) => (2u8, t).put(w),
        }
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, LoadError> {
        match <(u8, u64)>::get(r)? {
            (0, _) => Ok(Shift::Count),
            (1, t) => Ok(Shift::Time(t)),
            (2, t) => Ok(Shift::Hybrid(t)),
            (v, _) => Err(LoadError::Invalid(format!("shift kind {v}"))),
        }
    }
}

/// The trigger, the clock and the shift lock of a concurrent filter.
#[derive(Debug)]
pub(crate) struct SharedClock {
    shift: Shift,
    /// When the current generation began (time triggers).
    start: AtomicU64,
    /// The latest time the clock was moved to.
    now: AtomicU64,
    shifting: Mutex<()>,
}

impl SharedClock {
    /// A clock of `shift` whose generation began at `start`, at `now`.
    pub(crate) fn new(shift: Shift, start: u64, now: u64) -> Self {
        SharedClock {
            shift,
            start: AtomicU64::new(start),
            now: AtomicU64::new(now),
            shifting: Mutex::new(()),
        }
    }

    pub(crate) fn shift(&self) -> Shift {
        self.shift
    }

    /// The shift lock (a poisoned lock is taken all the same: a shift
    /// leaves the state consistent at every step).
    pub(crate) fn lock(&self) -> MutexGuard<'_, ()> {
        self.shifting.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether g insertions end a generation (count and hybrid triggers).
    pub(crate) fn by_count(&self) -> bool {
        matches!(self.shift, Shift::Count | Shift::Hybrid(_))
    }

    /// τ, or 0 for the count trigger.
    pub(crate) fn tau_or_zero(&self) -> u64 {
        match self.shift {
            Shift::Count => 0,
            Shift::Time(t) | Shift::Hybrid(t) => t,
        }
    }

    /// τ (None for the count trigger).
    pub(crate) fn tau(&self) -> Option<u64> {
        Some(self.tau_or_zero()).filter(|&t| t > 0)
    }

    /// The trigger (None for count generations).
    pub(crate) fn trigger(&self) -> Option<Trigger> {
        match self.shift {
            Shift::Count => None,
            Shift::Time(_) => Some(Trigger::Time),
            Shift::Hybrid(_) => Some(Trigger::Hybrid),
        }
    }

    /// The window of l generations: l g insertions for count generations,
    /// lτ time units otherwise.
    pub(crate) fn window(&self, l: u32, g: u64) -> u64 {
        l as u64 * self.tau().unwrap_or(g)
    }

    pub(crate) fn now(&self) -> u64 {
        self.now.load(Acquire)
    }

    pub(crate) fn start(&self) -> u64 {
        self.start.load(Acquire)
    }

    /// Moves the clock to `now` (never back) and makes the shifts due by
    /// then (at most `slices`, which clear everything), each by
    /// `shift_once` under the shift lock, or waits for the thread making
    /// them: an insertion after this returns is in a generation begun
    /// within τ of `now`. Does nothing for count generations.
    pub(crate) fn advance(&self, now: u64, slices: u64, mut shift_once: impl FnMut()) {
        let tau = self.tau_or_zero();
        if tau == 0 {
            return;
        }
        self.now.fetch_max(now, AcqRel);
        // even when another thread moved the clock further, the shifts due
        // by `now` must be made before this returns (an insertion after it
        // belongs to a generation begun within τ of `now`): wait for them
        if now.saturating_sub(self.start.load(Acquire)) < tau {
            return;
        }
        let _guard = self.lock();
        let start = self.start.load(Acquire);
        let now = self.now.load(Acquire);
        let due = now.saturating_sub(start) / tau;
        for _ in 0..due.min(slices) {
            shift_once();
        }
        self.start.store(start + due * tau, Release);
    }

    /// Under the shift lock, after a shift that g insertions made: the new
    /// generation begins now.
    pub(crate) fn restart(&self) {
        self.start.store(self.now.load(Acquire), Release);
    }

    /// Under the shift lock: the generation's start and the clock as a
    /// snapshot keeps them, the clock no later than the last completed
    /// shift allows (an `advance` waiting for the lock has not happened yet
    /// in the copy; its shifts are made by the next `advance` of the
    /// restored filter).
    pub(crate) fn snapshot(&self) -> (u64, u64) {
        let start = self.start.load(Acquire);
        let now = match self.tau_or_zero() {
            0 => self.now.load(Acquire),
            t => self.now.load(Acquire).min(start + t - 1),
        };
        (start, now)
    }

    /// The checks a loaded clock must pass, for a filter of l generations
    /// of g: τ >= 1 for a time trigger, a generation begun within τ of the
    /// clock, and a window that fits a u64.
    pub(crate) fn check(&self, k: u32, l: u32, g: u64) -> Result<(), String> {
        let tau = self.tau_or_zero();
        let (start, now) = (self.start.load(Relaxed), self.now.load(Relaxed));
        ensure(self.shift == Shift::Count || tau >= 1, || "tau is 0".into())?;
        ensure(tau == 0 || (start <= now && now - start < tau), || {
            format!("generation begun at {start} of {now}")
        })?;
        ensure(
            l as u64 * k as u64 >= 1 && (l as u64).checked_mul(tau.max(g)).is_some(),
            || "a window that overflows".into(),
        )
    }
}
