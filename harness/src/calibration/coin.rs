//! The synthetic membership filter whose answers are known exactly.

use bloomlab_filters::hash::mix64;
use bloomlab_filters::{Filter, Instrumented};
use std::collections::{HashMap, VecDeque};

/// Remembers its last `remember` insertions exactly; any other key is
/// "yes" with probability `p` (by a hash of the key, so a stream of
/// distinct random keys sees independent coins). Every query reads
/// `probes` cells; the i-th insertion reports i mod 1000 + 1 cells read.
///
/// Under a stream of distinct keys its figures are known exactly: the FPR
/// of any state is `p`, a key of age `a` is reported with probability 1
/// if `a <= remember` and `p` otherwise. The calibration
/// ([`super::calibrate`]) and the passes' tests measure it.
#[derive(Debug, Clone)]
pub struct Coin {
    remember: usize,
    recent: VecDeque<u64>,
    count: HashMap<u64, u32>,
    p: f64,
    probes: u32,
    inserted: u64,
}

impl Coin {
    /// A coin of bias `p` remembering `remember` keys, `probes` per query.
    pub fn new(remember: usize, p: f64, probes: u32) -> Coin {
        Coin {
            remember,
            recent: VecDeque::new(),
            count: HashMap::new(),
            p,
            probes,
            inserted: 0,
        }
    }
}

impl Filter for Coin {
    fn insert(&mut self, key: u64) {
        if self.remember == 0 {
            return;
        }
        self.recent.push_back(key);
        *self.count.entry(key).or_default() += 1;
        if self.recent.len() > self.remember {
            let old = self.recent.pop_front().expect("a full memory");
            let c = self.count.get_mut(&old).expect("a counted key");
            *c -= 1;
            if *c == 0 {
                self.count.remove(&old);
            }
        }
    }
    fn contains(&self, key: u64) -> bool {
        self.count.contains_key(&key)
            || (mix64(key ^ 0x5EED) as f64) < self.p * 18446744073709551616.0
    }
    fn memory_bits(&self) -> u64 {
        64 * self.remember as u64
    }
    fn name(&self) -> &'static str {
        "coin"
    }
}

impl Instrumented for Coin {
    fn contains_probes(&self, key: u64) -> (bool, u32) {
        (self.contains(key), self.probes)
    }
    /// The i-th insertion reports i mod 1000 + 1 cells: over any 1000k
    /// consecutive insertions each of 1..=1000 exactly k times.
    fn insert_probes(&mut self, key: u64) -> Option<u32> {
        self.insert(key);
        self.inserted += 1;
        Some((self.inserted % 1000 + 1) as u32)
    }
}
