//! Capability traits for sliding-window measurement: per-flow frequency,
//! distinct count and entropy of the last W arrivals, and [`ExactWindow`], the
//! exact answer every estimate is scored against.
//!
//! A *summary* sees a stream of 64-bit keys (flows) and answers questions about
//! the window of its last W arrivals. The SWAMP paper's problems:
//!
//! * frequency: f_y, the number of arrivals of y in the window
//!   ([`FrequencyEstimator`]);
//! * distinct count: D, the number of distinct keys in the window
//!   ([`DistinctEstimator`]);
//! * entropy: H = -Σ_i (f_i/W) log2(f_i/W) over the window's flows, in bits
//!   ([`EntropyEstimator`]).
//!
//! The method names carry a `summary_` prefix where they would otherwise
//! collide with [`Filter`](crate::Filter)'s, since SWAMP is both.

use crate::hash::KeyMap;
use std::collections::VecDeque;

/// A summary of the last [`summary_window`](WindowSummary::summary_window)
/// arrivals of a key stream.
pub trait WindowSummary {
    /// Records one arrival of `key`.
    fn record(&mut self, key: u64);

    /// W: the number of most recent arrivals summarised.
    fn summary_window(&self) -> u64;

    /// Bits of state, accounted as [`Filter::memory_bits`](crate::Filter::memory_bits)
    /// is: the payload a faithful implementation needs at this moment
    /// (structures whose size varies with the stream report their current
    /// size).
    fn summary_bits(&self) -> u64;

    /// Short name of the design.
    fn summary_name(&self) -> &'static str;

    /// This summary as a frequency estimator, if it is one.
    fn as_frequency(&self) -> Option<&dyn FrequencyEstimator> {
        None
    }

    /// This summary as a distinct-count estimator, if it is one.
    fn as_distinct(&self) -> Option<&dyn DistinctEstimator> {
        None
    }

    /// This summary as an entropy estimator, if it is one.
    fn as_entropy(&self) -> Option<&dyn EntropyEstimator> {
        None
    }
}

/// Estimates f_y, the window frequency of a key.
pub trait FrequencyEstimator: WindowSummary {
    /// The estimate of `key`'s window frequency.
    fn frequency(&self, key: u64) -> u64;

    /// Whether the estimate never falls below the true window frequency
    /// (SWAMP, WCSS); the conformance suite checks it for designs that say so.
    fn never_underestimates(&self) -> bool;
}

/// Estimates D, the number of distinct keys in the window.
pub trait DistinctEstimator: WindowSummary {
    /// The design's point estimate of D.
    fn distinct(&self) -> f64;

    /// What [`distinct`](DistinctEstimator::distinct) computes, for column
    /// names (`"mle"` for SWAMP's DistinctMLE).
    fn distinct_name(&self) -> &'static str {
        "estimate"
    }

    /// A one-sided estimate, never above D, if the design has one (SWAMP's
    /// DistinctLB).
    fn distinct_lower_bound(&self) -> Option<f64> {
        None
    }
}

/// Estimates the entropy of the window's flow distribution.
pub trait EntropyEstimator: WindowSummary {
    /// The estimate of H, in bits.
    fn entropy(&self) -> f64;
}

/// H = log2(n) - (Σ f log2 f) / n for a window of n arrivals whose flows have
/// frequencies f, given `sum_flogf` = Σ f log2 f. 0 for an empty window.
pub fn entropy_from_sum(n: u64, sum_flogf: f64) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let n = n as f64;
    (n.log2() - sum_flogf / n).max(0.0)
}

/// f log2 f, with 0 log 0 = 0.
#[inline]
pub fn flogf(f: u64) -> f64 {
    if f <= 1 {
        0.0
    } else {
        let x = f as f64;
        x * x.log2()
    }
}

/// The exact window: the last W keys and their counts. Ground truth for every
/// estimate, and a summary in its own right (the baseline that costs 64-bit
/// keys and counts per flow).
#[derive(Debug, Clone)]
pub struct ExactWindow {
    window: u64,
    keys: VecDeque<u64>,
    counts: KeyMap<u64>,
    sum_flogf: f64,
    sum_sq: u64,
}

impl ExactWindow {
    /// An empty window of `window` arrivals (at least 1).
    pub fn new(window: u64) -> Result<ExactWindow, crate::ParamError> {
        crate::error::check_nonzero("window", window)?;
        Ok(ExactWindow {
            window,
            keys: VecDeque::new(),
            counts: KeyMap::default(),
            sum_flogf: 0.0,
            sum_sq: 0,
        })
    }

    /// Arrivals currently in the window (W once full).
    pub fn len(&self) -> u64 {
        self.keys.len() as u64
    }

    /// True before the first arrival.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The counts of the window's flows.
    pub fn counts(&self) -> impl Iterator<Item = u64> + '_ {
        self.counts.values().copied()
    }

    /// The window's keys with their counts.
    pub fn flows(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.counts.iter().map(|(&k, &c)| (k, c))
    }

    /// The window's keys, oldest first.
    pub fn keys(&self) -> impl Iterator<Item = u64> + '_ {
        self.keys.iter().copied()
    }

    /// Σ f²: the second frequency moment of the window (kept up to date).
    pub fn second_moment(&self) -> f64 {
        self.sum_sq as f64
    }

    /// The exact entropy recomputed from the counts (no running sum).
    pub fn entropy_recomputed(&self) -> f64 {
        let s: f64 = self.counts.values().map(|&c| flogf(c)).sum();
        entropy_from_sum(self.len(), s)
    }
}

impl ExactWindow {
    /// Records an arrival of `key` and returns the key whose last arrival
    /// left the window with it, if any (the key then has no arrival in the
    /// window, unless it is `key` itself).
    pub fn push(&mut self, key: u64) -> Option<u64> {
        let mut gone = None;
        if self.keys.len() as u64 == self.window {
            let old = self.keys.pop_front().expect("full window");
            let c = self.counts.get_mut(&old).expect("counted");
            self.sum_flogf += flogf(*c - 1) - flogf(*c);
            self.sum_sq -= 2 * *c - 1;
            *c -= 1;
            if *c == 0 {
                self.counts.remove(&old);
                gone = Some(old);
            }
        }
        self.keys.push_back(key);
        let c = self.counts.entry(key).or_insert(0);
        self.sum_flogf += flogf(*c + 1) - flogf(*c);
        self.sum_sq += 2 * *c + 1;
        *c += 1;
        gone
    }
}

impl WindowSummary for ExactWindow {
    fn record(&mut self, key: u64) {
        self.push(key);
    }

    fn summary_window(&self) -> u64 {
        self.window
    }

    /// 64 bits per buffered key plus 128 per flow (key and count).
    fn summary_bits(&self) -> u64 {
        64 * self.keys.len() as u64 + 128 * self.counts.len() as u64
    }

    fn summary_name(&self) -> &'static str {
        "exact"
    }

    fn as_frequency(&self) -> Option<&dyn FrequencyEstimator> {
        Some(self)
    }

    fn as_distinct(&self) -> Option<&dyn DistinctEstimator> {
        Some(self)
    }

    fn as_entropy(&self) -> Option<&dyn EntropyEstimator> {
        Some(self)
    }
}

impl FrequencyEstimator for ExactWindow {
    fn frequency(&self, key: u64) -> u64 {
        self.counts.get(&key).copied().unwrap_or(0)
    }

    fn never_underestimates(&self) -> bool {
        true
    }
}

impl DistinctEstimator for ExactWindow {
    fn distinct(&self) -> f64 {
        self.counts.len() as f64
    }

    fn distinct_lower_bound(&self) -> Option<f64> {
        Some(self.counts.len() as f64)
    }
}

impl EntropyEstimator for ExactWindow {
    fn entropy(&self) -> f64 {
        entropy_from_sum(self.len(), self.sum_flogf)
    }
}

crate::persist::codec_struct!(ExactWindow {
    window,
    keys,
    counts,
    sum_flogf,
    sum_sq
});

impl ExactWindow {
    /// The invariants of a loaded window: at most `window` keys, counted
    /// exactly in `counts`.
    pub(crate) fn check(&self) -> Result<(), String> {
        use crate::persist::ensure;
        ensure(self.window >= 1 && self.len() <= self.window, || {
            format!("{} keys in a window of {}", self.len(), self.window)
        })?;
        let mut counts: KeyMap<u64> = KeyMap::default();
        for &k in &self.keys {
            *counts.entry(k).or_default() += 1;
        }
        ensure(counts == self.counts, || {
            "counts that are not the keys'".into()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_window_slides() {
        let mut e = ExactWindow::new(3).unwrap();
        for k in [1, 2, 1, 3, 3] {
            e.record(k);
        }
        // window: 1, 3, 3
        assert_eq!(e.frequency(1), 1);
        assert_eq!(e.frequency(2), 0);
        assert_eq!(e.frequency(3), 2);
        assert_eq!(e.distinct(), 2.0);
        let h = -(1.0f64 / 3.0) * (1.0f64 / 3.0).log2() - (2.0f64 / 3.0) * (2.0f64 / 3.0).log2();
        assert!((e.entropy() - h).abs() < 1e-12);
        assert!((e.entropy_recomputed() - h).abs() < 1e-12);
        assert_eq!(e.second_moment(), 5.0);
        assert_eq!(e.keys().collect::<Vec<_>>(), [1, 3, 3]);
        // 1 leaves with its last arrival; 3 does not
        assert_eq!(e.push(2), Some(1));
        assert_eq!(e.push(2), None);
        assert!(ExactWindow::new(0).is_err());
        // the window is 3, 2, 2: three keys, two flows
        assert_eq!(e.summary_bits(), 64 * 3 + 128 * 2);
        assert_eq!((e.summary_window(), e.summary_name()), (3, "exact"));
        assert!(!e.is_empty() && ExactWindow::new(5).unwrap().is_empty());
        assert_eq!(e.distinct_name(), "estimate");
        assert_eq!(e.distinct_lower_bound(), Some(2.0));
    }

    /// The defaults of the estimator traits, for a design that overrides
    /// none: its point estimate is named "estimate" and it has no lower bound.
    #[test]
    fn estimator_defaults() {
        struct Plain;
        impl WindowSummary for Plain {
            fn record(&mut self, _: u64) {}
            fn summary_window(&self) -> u64 {
                1
            }
            fn summary_bits(&self) -> u64 {
                0
            }
            fn summary_name(&self) -> &'static str {
                "plain"
            }
        }
        impl DistinctEstimator for Plain {
            fn distinct(&self) -> f64 {
                0.0
            }
        }
        let p = Plain;
        assert_eq!(
            (p.distinct_name(), p.distinct_lower_bound()),
            ("estimate", None)
        );
        assert!(
            p.as_frequency().is_none() && p.as_distinct().is_none() && p.as_entropy().is_none()
        );
    }
}
