//! Shared helpers of the integration tests: deterministic keys and
//! statistical checks that can fail.

#![allow(dead_code)]

use bloomlab_filters::hash::mix64;

/// Distinct stream keys (even) and never-inserted keys (odd) under a salt.
/// Streams that must be independent of each other need unrelated salts
/// (e.g. `mix64(i)`): salts that differ in a few low bits give overlapping
/// key sets.
pub struct Keys {
    salt: u64,
}

impl Keys {
    pub fn new(salt: u64) -> Self {
        Keys { salt }
    }
    /// The t-th inserted key (t >= 1).
    pub fn stream(&self, t: u64) -> u64 {
        mix64((2 * t) ^ self.salt)
    }
    /// The j-th never-inserted key.
    pub fn negative(&self, j: u64) -> u64 {
        mix64((2 * j + 1) ^ self.salt)
    }
}

/// A small deterministic generator (SplitMix64).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix64(self.0)
    }
    /// Uniform in lo..=hi.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + bloomlab_filters::hash::fastrange(self.next(), hi - lo + 1)
    }
}

/// Number of standard errors a deterministic-seed test allows: two-sided
/// p ≈ 7e-6, so a correct formula fails essentially never, while a formula off
/// by a few percent fails at the sample sizes used.
pub const Z: f64 = 4.5;

/// Asserts that `x` successes in `n` trials are consistent with rate `p`
/// (two-sided, normal approximation with continuity correction).
pub fn assert_rate(what: &str, x: u64, n: u64, p: f64) {
    let mean = n as f64 * p;
    let sd = (n as f64 * p * (1.0 - p)).sqrt();
    let z = ((x as f64 - mean).abs() - 0.5).max(0.0) / sd;
    assert!(
        z <= Z,
        "{what}: measured {x}/{n} = {:.4e}, theory {p:.4e}, z = {z:.1}",
        x as f64 / n as f64
    );
}

/// Asserts that `x` successes in `n` trials do not significantly exceed `p`
/// (one-sided).
pub fn assert_rate_at_most(what: &str, x: u64, n: u64, p: f64) {
    let mean = n as f64 * p;
    let sd = (n as f64 * p * (1.0 - p)).sqrt().max(1e-9);
    let z = (x as f64 - mean - 0.5) / sd;
    assert!(
        z <= Z,
        "{what}: measured {x}/{n} = {:.4e} exceeds the bound {p:.4e}, z = {z:.1}",
        x as f64 / n as f64
    );
}

/// Asserts that a sample mean is consistent with `expected`.
pub fn assert_mean(what: &str, samples: &[f64], expected: f64) {
    let n = samples.len() as f64;
    let mean = samples.iter().sum::<f64>() / n;
    let var = samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let se = (var / n).sqrt();
    let z = (mean - expected).abs() / se;
    assert!(
        z <= Z,
        "{what}: measured mean {mean:.5} ± {se:.5}, theory {expected:.5}, z = {z:.1}"
    );
}

/// Seconds a conformance check may take before it counts as a loop that
/// never ends (the checks take seconds in release builds; debug builds are
/// several times slower).
#[allow(dead_code)]
pub const DEADLINE_SECS: u64 = 300;

// `within`, the library's own test helper: one source for the unit tests
// and the integration tests
#[path = "../../src/testing.rs"]
mod testing;
#[allow(unused_imports)]
pub use testing::within;
