//! The clock of time quanta the timestamp designs use over a window of
//! time ([`super::TimedTbf`], [`super::TimedSwbf`]): a quantum lasts δ, on a
//! grid from time 0, or with a cap (the hybrid) ends earlier at its g-th
//! insertion, the next one then starting at that moment.

use crate::error::check_nonzero;
use crate::ParamError;

/// Quanta of at most δ time units (and, with a cap, at most g insertions);
/// a window of r of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Quanta {
    delta: u64,
    r: u64,
    pub(super) cap: Option<u64>,
    /// Insertions in the current quantum.
    count: u64,
    /// When the current quantum began.
    start: u64,
    now: u64,
}

impl Quanta {
    /// r quanta of δ, capped at `cap` insertions each if given.
    pub(crate) fn new(r: u64, delta: u64, cap: Option<u64>) -> Result<Quanta, ParamError> {
        check_nonzero("r", r)?;
        check_nonzero("delta", delta)?;
        if let Some(g) = cap {
            check_nonzero("g", g)?;
        }
        r.checked_add(1)
            .and_then(|w| w.checked_mul(cap.unwrap_or(1)))
            .and(r.checked_mul(delta))
            .ok_or(ParamError::TooLarge {
                what: "r, delta or g",
                limit: "2^64 - 1 for (r + 1) g and r delta".into(),
            })?;
        Ok(Quanta {
            delta,
            r,
            cap,
            count: 0,
            start: 0,
            now: 0,
        })
    }

    /// Moves the clock to `now` (never back) and returns how many quanta
    /// ended on time.
    pub(crate) fn advance(&mut self, now: u64) -> u64 {
        if now <= self.now {
            return 0;
        }
        self.now = now;
        let due = (now - self.start) / self.delta;
        if due > 0 {
            self.start += due * self.delta;
            self.count = 0;
        }
        due
    }

    /// Counts an insertion; returns 1 if its quantum had already taken its
    /// cap of insertions, so that a new one starts now, else 0.
    pub(crate) fn on_insert(&mut self) -> u64 {
        let ended = match self.cap {
            Some(g) if self.count >= g => {
                self.start = self.now;
                self.count = 0;
                1
            }
            _ => 0,
        };
        self.count += 1;
        ended
    }

    pub(crate) fn now(&self) -> u64 {
        self.now
    }

    pub(crate) fn delta(&self) -> u64 {
        self.delta
    }

    pub(crate) fn r(&self) -> u64 {
        self.r
    }

    /// T = rδ.
    pub(crate) fn window(&self) -> u64 {
        self.r * self.delta
    }
}

crate::persist::codec_struct!(Quanta {
    delta,
    r,
    cap,
    count,
    start,
    now
});

impl Quanta {
    /// The invariants of a loaded clock.
    pub(crate) fn check(&self) -> Result<(), String> {
        let fresh = Quanta::new(self.r, self.delta, self.cap).map_err(|e| e.to_string())?;
        crate::persist::ensure(
            self.start <= self.now
                && self.now - self.start < fresh.delta
                && self.cap.is_none_or(|g| self.count <= g),
            || {
                format!(
                    "quantum begun at {} of {} holding {}",
                    self.start, self.now, self.count
                )
            },
        )
    }
}
