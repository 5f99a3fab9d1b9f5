//! The distinct-count baselines of the SWAMP paper: sliding HyperLogLog
//! (SWHLL; Chabchoub and Hébrail, Fusy et al.) and its one-bit variant,
//! sliding linear counting (SWLC).
//!
//! # Sliding HyperLogLog
//!
//! m = 2^p registers. A key's hash picks register j (top p bits) and
//! ρ = 1 + the number of leading zeros of the remaining bits. Where HLL keeps
//! max ρ, the sliding version keeps, per register, the *list of future
//! possible maxima* (LFPM): the (timestamp, ρ) pairs not dominated by a later
//! pair with ρ' ≥ ρ. An arrival drops the pairs it dominates and appends
//! itself, so each list is decreasing in ρ from oldest to newest, and the
//! register's value over the window is the ρ of its oldest live pair. The
//! estimate is HLL's, E = α_m m² / Σ_j 2^(-R_j), with the small-range
//! correction m ln(m/V) when E ≤ 2.5m and V registers are zero. Timestamps
//! wrap around; a sweep drops expired pairs (the shared wraparound clock, `clock.rs`). Memory: the live
//! pairs at b + 6 bits each (timestamp, ρ ≤ 64 - p + 1).
//!
//! # Sliding linear counting (SWLC)
//!
//! When the small-range correction is always active (the SWAMP paper's
//! settings), only whether a register is zero matters, so one bit per
//! register suffices; over a sliding window that bit is "written within the
//! last W arrivals", i.e. one timestamp per register. The estimate is
//! D̂ = m ln(m/V), V the registers with no live timestamp (capped at m ln m
//! when V = 0). With D distinct keys in the window, E\[V\] = m(1 - 1/m)^D
//! exactly: the same occupancy law as SWAMP's Z. Memory: m timestamps.

use crate::clock::Clock;
use crate::error::check_nonzero;
use crate::hash::mix64;
use crate::summary::{DistinctEstimator, WindowSummary};
use crate::ParamError;
use std::collections::VecDeque;

/// The default hash salt.
pub const SALT: u64 = 0xA409_3822_299F_31D0;

/// The register (top p bits of the key's hash) and ρ (1 + leading zeros of
/// the remaining bits) of a key, for m = 2^p registers.
pub fn register_of(key: u64, p: u32, salt: u64) -> (usize, u8) {
    let h = mix64(key ^ salt);
    let rest = h << p;
    (
        (h >> (64 - p)) as usize,
        (rest.leading_zeros().min(64 - p) + 1) as u8,
    )
}

/// E\[V\]: registers (bins) left empty by D distinct keys in m registers.
pub fn expected_empty(m: u64, d: f64) -> f64 {
    m as f64 * (d * (-1.0 / m as f64).ln_1p()).exp()
}

/// The linear-counting estimate m ln(m / V), capped at m ln m when V = 0.
pub fn linear_count(m: u64, v: u64) -> f64 {
    let mf = m as f64;
    mf * (mf / v.max(1) as f64).ln()
}

fn check_registers(m: u64) -> Result<u32, ParamError> {
    check_nonzero("registers", m)?;
    if !m.is_power_of_two() || !(16..=1 << 30).contains(&m) {
        return Err(ParamError::OutOfRange {
            name: "registers",
            value: m.to_string(),
            expected: "a power of two in 16..=2^30",
        });
    }
    Ok(m.trailing_zeros())
}

/// Sliding linear counting: one wraparound timestamp per register.
#[derive(Debug, Clone)]
pub struct Swlc {
    stamps: crate::bits::PackedInts,
    p: u32,
    clock: Clock,
    salt: u64,
}

impl Swlc {
    /// Window `w`, `m` registers (a power of two, 16..=2^30).
    pub fn new(w: u64, m: u64) -> Result<Swlc, ParamError> {
        check_nonzero("window", w)?;
        let p = check_registers(m)?;
        let clock = Clock::new(w, m);
        Ok(Swlc {
            stamps: crate::bits::PackedInts::new(m, clock.bits()),
            p,
            clock,
            salt: SALT,
        })
    }

    /// The same sketch hashing under another seed.
    pub fn with_seed(mut self, seed: u64) -> Swlc {
        self.salt = mix64(seed ^ SALT);
        self
    }

    /// Registers with no live timestamp (V).
    pub fn empty_registers(&self) -> u64 {
        (0..self.stamps.len())
            .filter(|&j| !self.clock.live(self.stamps.get(j)))
            .count() as u64
    }
}

impl WindowSummary for Swlc {
    fn record(&mut self, key: u64) {
        let code = self.clock.tick();
        self.stamps
            .set(register_of(key, self.p, self.salt).0 as u64, code);
        self.clock.clear_dead(&mut self.stamps);
    }

    fn summary_window(&self) -> u64 {
        self.clock.window()
    }

    fn summary_bits(&self) -> u64 {
        self.stamps.len() * self.clock.bits() as u64 + 128
    }

    fn summary_name(&self) -> &'static str {
        "swlc"
    }

    fn as_distinct(&self) -> Option<&dyn DistinctEstimator> {
        Some(self)
    }
}

impl DistinctEstimator for Swlc {
    fn distinct(&self) -> f64 {
        linear_count(self.stamps.len(), self.empty_registers())
    }
}

/// Sliding HyperLogLog with a list of future possible maxima per register.
#[derive(Debug, Clone)]
pub struct SlidingHll {
    lists: Vec<VecDeque<(u64, u8)>>,
    p: u32,
    clock: Clock,
    pairs: u64,
    salt: u64,
}

impl SlidingHll {
    /// Window `w`, `m` registers (a power of two, 16..=2^30).
    pub fn new(w: u64, m: u64) -> Result<SlidingHll, ParamError> {
        check_nonzero("window", w)?;
        let p = check_registers(m)?;
        Ok(SlidingHll {
            lists: vec![VecDeque::new(); m as usize],
            p,
            clock: Clock::new(w, m),
            pairs: 0,
            salt: SALT,
        })
    }

    /// The same sketch hashing under another seed.
    pub fn with_seed(mut self, seed: u64) -> SlidingHll {
        self.salt = mix64(seed ^ SALT);
        self
    }

    /// The registers' values over the window.
    pub fn registers(&self) -> impl Iterator<Item = u8> + '_ {
        self.lists.iter().map(|l| {
            l.iter()
                .find(|&&(c, _)| self.clock.live(c))
                .map_or(0, |&(_, r)| r)
        })
    }

    /// Live (timestamp, ρ) pairs stored.
    pub fn pairs(&self) -> u64 {
        self.pairs
    }

    fn prune(&mut self, j: usize) {
        let clock = self.clock;
        let l = &mut self.lists[j];
        while l.front().is_some_and(|&(c, _)| !clock.live(c)) {
            l.pop_front();
            self.pairs -= 1;
        }
    }
}

impl WindowSummary for SlidingHll {
    fn record(&mut self, key: u64) {
        let code = self.clock.tick();
        let (j, rho) = register_of(key, self.p, self.salt);
        let l = &mut self.lists[j];
        while l.back().is_some_and(|&(_, r)| r <= rho) {
            l.pop_back();
            self.pairs -= 1;
        }
        l.push_back((code, rho));
        self.pairs += 1;
        self.prune(j);
        for j in self.clock.sweep() {
            self.prune(j as usize);
        }
    }

    fn summary_window(&self) -> u64 {
        self.clock.window()
    }

    fn summary_bits(&self) -> u64 {
        self.pairs * (self.clock.bits() as u64 + 6) + 128
    }

    fn summary_name(&self) -> &'static str {
        "swhll"
    }

    fn as_distinct(&self) -> Option<&dyn DistinctEstimator> {
        Some(self)
    }
}

impl DistinctEstimator for SlidingHll {
    fn distinct(&self) -> f64 {
        let m = self.lists.len() as u64;
        let mf = m as f64;
        let (mut sum, mut zeros) = (0.0, 0u64);
        for r in self.registers() {
            sum += 2f64.powi(-(r as i32));
            zeros += (r == 0) as u64;
        }
        let alpha = match m {
            16 => 0.673,
            32 => 0.697,
            64 => 0.709,
            _ => 0.7213 / (1.0 + 1.079 / mf),
        };
        let e = alpha * mf * mf / sum;
        if e <= 2.5 * mf && zeros > 0 {
            linear_count(m, zeros)
        } else {
            e
        }
    }
}
