//! The synthetic time-window filter whose figures are known exactly while
//! the moments of one run share their keys, as a real design's do.

use bloomlab_filters::hash::mix64;
use bloomlab_filters::hash::KeyMap;
use bloomlab_filters::{Filter, Instrumented, TimedFilter};
use std::collections::VecDeque;

/// Salts of the two hashes of a key: its share of the state, its coin.
const SHARE: u64 = 0xD41F_7000_0000_0001;
const COIN: u64 = 0xD41F_7000_0000_0002;

/// A key's share of the state: uniform in [-1/2, 1/2), in units of 2^-32.
fn share(key: u64) -> i64 {
    (mix64(key ^ SHARE) >> 32) as i64 - (1 << 31)
}

/// A key's coin: uniform in [0, 1).
fn coin(key: u64) -> f64 {
    super::unit(key ^ COIN)
}

/// μ: the expected keys of a window of `window` ns at `rate` keys a
/// second.
pub(super) fn mean_keys(rate: f64, window: u64) -> f64 {
    rate * window as f64 / 1e9
}

/// L(now) = (Λ(now) - Λ(now - window)) / μ: the expected keys of the last
/// window over their mean, Λ the arrivals' cumulative mean (`cum`, by a
/// time in ns).
pub(super) fn load(cum: &dyn Fn(f64) -> f64, now: f64, window: u64, mu: f64) -> f64 {
    (cum(now) - cum(now - window as f64)) / mu
}

/// Holds the keys of the last T of time. Its state is Z, the sum over
/// those keys of a uniform share in [-1/2, 1/2) drawn from each key's
/// hash, and the load L(t) = (Λ(t) - Λ(t - T)) / μ, the expected keys of
/// the last T over μ (the expected keys of a window at the mean rate, Λ
/// the arrival process's cumulative mean). It answers:
///
/// - a key it holds: no with probability q · (1 + Z' / scale), Z' the
///   state without the key's own share;
/// - any other key: yes with probability p · (L(t) + Z / scale);
///
/// each by a second hash of the key (a coin independent of the shares).
/// The shares are independent of the arrival times and have mean 0, so
/// under distinct random keys the FPR at a moment is p · L(t) and the loss
/// of a held key is q exactly, whatever the times of the keys; yet two
/// moments less than T apart share keys and their answers move together
/// (a relative spread of `spread` at the mean rate), which is what an
/// interval over the moments must allow for. (The probabilities leave
/// [0, 1] only when |Z| passes scale, over six standard deviations at the
/// calibration's points: below 1e-9 per moment.)
pub struct Drift {
    window: u64,
    p: f64,
    q: f64,
    mu: f64,
    scale: f64,
    cum: Box<dyn Fn(f64) -> f64 + Send + Sync>,
    now: u64,
    held: VecDeque<(u64, u64)>,
    count: KeyMap<u32>,
    z: i64,
}

impl Drift {
    /// A drift over `window` ns whose arrivals have cumulative mean `cum`
    /// (expected keys by a time in ns) and mean rate `rate` per second;
    /// biases `p` and `q`, and a relative spread `spread` of its FPR at
    /// the mean rate.
    pub fn new(
        window: u64,
        rate: f64,
        (p, q, spread): (f64, f64, f64),
        cum: Box<dyn Fn(f64) -> f64 + Send + Sync>,
    ) -> Drift {
        let mu = mean_keys(rate, window);
        Drift {
            window,
            p,
            q,
            mu,
            // sd(Z) = sqrt(μ / 12) at the mean rate
            scale: (mu / 12.0).sqrt() / spread,
            cum,
            now: 0,
            held: VecDeque::new(),
            count: KeyMap::default(),
            z: 0,
        }
    }

    /// L(t) at the filter's clock.
    fn load(&self) -> f64 {
        load(&*self.cum, self.now as f64, self.window, self.mu)
    }
}

impl Filter for Drift {
    fn insert(&mut self, key: u64) {
        self.held.push_back((self.now, key));
        *self.count.entry(key).or_default() += 1;
        self.z += share(key);
    }
    fn contains(&self, key: u64) -> bool {
        let z = self.z as f64 / 4_294_967_296.0;
        if self.count.contains_key(&key) {
            let others = z - share(key) as f64 / 4_294_967_296.0;
            coin(key) >= self.q * (1.0 + others / self.scale)
        } else {
            coin(key) < self.p * (self.load() + z / self.scale)
        }
    }
    fn memory_bits(&self) -> u64 {
        128 * self.held.len() as u64
    }
    fn name(&self) -> &'static str {
        "drift"
    }
}

impl Instrumented for Drift {
    fn as_timed(&mut self) -> Option<&mut dyn TimedFilter> {
        Some(self)
    }
}

impl TimedFilter for Drift {
    fn advance(&mut self, now: u64) {
        self.now = self.now.max(now);
        while let Some(&(at, key)) = self.held.front() {
            if at + self.window > self.now {
                break;
            }
            self.held.pop_front();
            self.z -= share(key);
            let c = self.count.get_mut(&key).expect("a held key");
            *c -= 1;
            if *c == 0 {
                self.count.remove(&key);
            }
        }
    }
    fn now(&self) -> u64 {
        self.now
    }
    fn window_time(&self) -> u64 {
        self.window
    }
    fn slack_time(&self) -> u64 {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys leave at T; the state is the sum of the held keys' shares.
    #[test]
    fn holds_the_last_window_of_keys() {
        let mut d = Drift::new(
            1000,
            1e6,
            (0.2, 0.2, 0.15),
            Box::new(|t| t.max(0.0) / 1000.0),
        );
        for t in 0..10u64 {
            d.advance(t * 300);
            d.insert(t + 1);
        }
        d.advance(3000);
        // inserted at 2100, 2400, 2700: younger than 1000 at 3000
        assert_eq!(d.held.len(), 3);
        assert_eq!(d.z, share(8) + share(9) + share(10));
        assert!((d.load() - 1.0).abs() < 1e-12);
    }
}
