//! The distinct-count baselines of the SWAMP paper: sliding HyperLogLog
//! (SWHLL; Chabchoub and Hébrail, Fusy et al.), and the register hashing
//! and occupancy law it shares with its one-bit variant, sliding linear
//! counting ([`super::swlc`]).
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

/// The most registers a sketch takes: 2^24, so that a sliding HLL's list
/// heads (32 bytes a register) stay within 512 MiB and a query's scan of the
/// registers within milliseconds.
pub const MAX_REGISTERS: u64 = 1 << 24;

pub(super) fn check_registers(m: u64) -> Result<u32, ParamError> {
    check_nonzero("registers", m)?;
    if !m.is_power_of_two() || !(16..=MAX_REGISTERS).contains(&m) {
        return Err(ParamError::OutOfRange {
            name: "registers",
            value: m.to_string(),
            expected: "a power of two in 16..=2^24",
        });
    }
    Ok(m.trailing_zeros())
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

/// The shape of a [`SlidingHll`]: what [`SlidingHll::new`] takes, each paper letter
/// by a word (see [`crate::build`] for the words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlidingHllShape {
    /// The window, in insertions (`w`).
    pub window: u64,
    /// Registers (a power of two, 16..=2^24) (`m`).
    pub registers: u64,
}

impl SlidingHll {
    /// Window `w`, `m` registers (a power of two, 16..=2^24).
    pub fn new(shape: SlidingHllShape) -> Result<SlidingHll, ParamError> {
        let SlidingHllShape {
            window: w,
            registers: m,
        } = shape;
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

crate::persist::codec_struct!(SlidingHll {
    lists,
    p,
    clock,
    pairs,
    salt
});

/// The invariants of a loaded sketch of `registers` registers.
pub(super) fn check_sketch(registers: u64, p: u32, clock: &Clock) -> Result<(), String> {
    let p_of = check_registers(registers).map_err(|e| e.to_string())?;
    crate::persist::ensure(p_of == p && clock.len() == registers, || {
        format!("{registers} registers with p = {p}")
    })
}

impl crate::persist::sealed::Design for SlidingHll {
    fn tag() -> String {
        "swhll".into()
    }
    fn check(&self) -> Result<(), String> {
        check_sketch(self.lists.len() as u64, self.p, &self.clock)?;
        let pairs: usize = self.lists.iter().map(|l| l.len()).sum();
        crate::persist::ensure(pairs as u64 == self.pairs, || {
            format!("{pairs} pairs counted as {}", self.pairs)
        })?;
        // a stamp past the clock's codes made every age computation
        // overflow (a panic in a debug build)
        crate::persist::ensure(
            self.lists
                .iter()
                .flatten()
                .all(|&(c, rho)| self.clock.valid_code(c) && rho as u32 <= 65 - self.p),
            || "a pair whose stamp or rank the sketch cannot hold".into(),
        )
    }
}

crate::persist::persists!(SlidingHll);

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::sketches::Swlc;

    /// ρ and the register written out bit by bit from the hash.
    fn register_by_hand(key: u64, p: u32, salt: u64) -> (usize, u8) {
        let h = mix64(key ^ salt);
        let j = (0..p).fold(0usize, |acc, i| (acc << 1) | ((h >> (63 - i)) & 1) as usize);
        let mut rho = 1u8;
        for i in p..64 {
            if (h >> (63 - i)) & 1 == 1 {
                break;
            }
            rho += 1;
        }
        (j, rho)
    }

    #[test]
    fn registers_and_rho_are_the_hash_s_top_bits_and_leading_zeros() {
        for p in [4u32, 7, 10] {
            let mut rhos = [0u32; 8];
            for key in 0..20_000u64 {
                let got = register_of(key, p, SALT);
                assert_eq!(got, register_by_hand(key, p, SALT), "p {p} key {key}");
                rhos[(got.1 as usize).min(7)] += 1;
            }
            // ρ = r with probability 2^-r
            assert!((9_000..11_000).contains(&rhos[1]), "p {p}: {rhos:?}");
            assert!((4_400..5_600).contains(&rhos[2]), "p {p}: {rhos:?}");
        }
    }

    #[test]
    fn occupancy_and_linear_counting_formulas() {
        // E[V] = m (1 - 1/m)^D
        assert!((expected_empty(16, 3.0) - 16.0 * (15.0f64 / 16.0).powi(3)).abs() < 1e-12);
        assert_eq!(expected_empty(64, 0.0), 64.0);
        assert!((linear_count(64, 16) - 64.0 * 4f64.ln()).abs() < 1e-12);
        assert_eq!(linear_count(64, 64), 0.0);
        // V = 0 is capped at m ln m
        assert!((linear_count(64, 0) - 64.0 * 64f64.ln()).abs() < 1e-12);
    }

    #[test]
    fn register_counts_are_powers_of_two_in_range() {
        assert_eq!(check_registers(16), Ok(4));
        assert_eq!(check_registers(1 << 24), Ok(24));
        assert!(
            Swlc::new(crate::SwlcShape {
                window: 10,
                registers: 16
            })
            .is_ok()
                && SlidingHll::new(crate::SlidingHllShape {
                    window: 10,
                    registers: 16
                })
                .is_ok()
        );
        for m in [0u64, 8, 48, 1 << 25, 1 << 30] {
            assert!(
                Swlc::new(crate::SwlcShape {
                    window: 10,
                    registers: m
                })
                .is_err()
                    && SlidingHll::new(crate::SlidingHllShape {
                        window: 10,
                        registers: m
                    })
                    .is_err(),
                "{m}"
            );
        }
        assert!(
            Swlc::new(crate::SwlcShape {
                window: 0,
                registers: 16
            })
            .is_err()
                && SlidingHll::new(crate::SlidingHllShape {
                    window: 0,
                    registers: 16
                })
                .is_err()
        );
    }

    /// The window's last `w` keys.
    pub(in crate::sketches) fn window_of(stream: &[u64], t: usize, w: u64) -> &[u64] {
        &stream[(t + 1).saturating_sub(w as usize)..=t]
    }

    pub(in crate::sketches) fn stream(n: usize, flows: u64) -> Vec<u64> {
        (0..n as u64).map(|t| mix64(t ^ 77) % flows).collect()
    }

    /// The list of future possible maxima of a register, from the window:
    /// its arrivals not dominated by a later one with ρ' ≥ ρ.
    fn lfpm_sizes(window: &[u64], p: u32, salt: u64) -> u64 {
        let regs: Vec<(usize, u8)> = window.iter().map(|&k| register_of(k, p, salt)).collect();
        (0..regs.len())
            .filter(|&i| {
                !regs[i + 1..]
                    .iter()
                    .any(|&(j, r)| j == regs[i].0 && r >= regs[i].1)
            })
            .count() as u64
    }

    #[test]
    fn sliding_hll_keeps_exactly_the_future_possible_maxima() {
        // expired pairs leave a list at its register's next arrival or at the
        // sweep, so a list is its live LFPM behind a few dead pairs at the
        // front; memory counts every stored pair
        let (w, p) = (120u64, 4u32);
        let keys = stream(25 * w as usize, 3_000);
        let mut f = SlidingHll::new(crate::SlidingHllShape {
            window: w,
            registers: 1 << p,
        })
        .unwrap()
        .with_seed(0x30);
        let salt = mix64(0x30 ^ SALT);
        let bits = crate::clock::stamp_bits(w) as u64;
        let mut dead_seen = false;
        for t in 0..keys.len() {
            f.record(keys[t]);
            let (mut stored, mut live) = (0, 0);
            for l in &f.lists {
                let dead = l.iter().take_while(|&&(c, _)| !f.clock.live(c)).count();
                assert!(l.iter().skip(dead).all(|&(c, _)| f.clock.live(c)), "t {t}");
                let rhos: Vec<u8> = l.iter().skip(dead).map(|&(_, r)| r).collect();
                assert!(rhos.windows(2).all(|x| x[0] > x[1]), "t {t}: {rhos:?}");
                stored += l.len() as u64;
                live += (l.len() - dead) as u64;
                dead_seen |= dead > 0;
            }
            assert_eq!(live, lfpm_sizes(window_of(&keys, t, w), p, salt), "t {t}");
            assert_eq!(f.pairs(), stored, "t {t}");
            assert_eq!(f.summary_bits(), stored * (bits + 6) + 128, "t {t}");
        }
        assert!(dead_seen);
        assert_eq!((f.summary_window(), f.summary_name()), (w, "swhll"));
        assert!(f.as_distinct().is_some());
    }

    /// HLL's estimate (Flajolet et al. 2007) from the registers: α_m m² /
    /// Σ 2^-R with α_16 = 0.673, α_32 = 0.697, α_64 = 0.709 and
    /// 0.7213 / (1 + 1.079/m) above, and linear counting when that is at
    /// most 2.5m with an empty register.
    fn hll_estimate(regs: &[u8]) -> f64 {
        let m = regs.len() as f64;
        let alpha = [(16.0, 0.673), (32.0, 0.697), (64.0, 0.709)]
            .iter()
            .find(|&&(n, _)| n == m)
            .map_or(0.7213 / (1.0 + 1.079 / m), |&(_, a)| a);
        let e = alpha * m * m / regs.iter().map(|&r| 0.5f64.powi(r as i32)).sum::<f64>();
        let zeros = regs.iter().filter(|&&r| r == 0).count() as f64;
        if e <= 2.5 * m && zeros > 0.0 {
            m * (m / zeros).ln()
        } else {
            e
        }
    }

    #[test]
    fn sliding_hll_estimates_as_hll_of_its_registers() {
        // windows small and large against each register count, so both the
        // linear-counting and the raw branch are taken
        for m in [16u64, 32, 64, 256] {
            for w in [20u64, 2_000] {
                let mut f = SlidingHll::new(crate::SlidingHllShape {
                    window: w,
                    registers: m,
                })
                .unwrap()
                .with_seed(m);
                let (mut linear, mut raw) = (0, 0);
                for t in 0..3 * w {
                    f.record(mix64(t));
                    let regs: Vec<u8> = f.registers().collect();
                    let want = hll_estimate(&regs);
                    assert!(
                        (f.distinct() - want).abs() <= 1e-9 * want,
                        "m {m} w {w} t {t}"
                    );
                    if regs.contains(&0) && want < 2.5 * m as f64 {
                        linear += 1
                    } else {
                        raw += 1
                    }
                }
                if w == 2_000 {
                    assert!(raw > 0, "m {m}: the raw estimate is reached");
                } else if m >= 64 {
                    assert!(linear > 0, "m {m}: linear counting is reached");
                }
            }
        }
    }

    #[test]
    fn no_empty_register_means_the_raw_estimate_even_when_small() {
        // 16 keys, one per register, each with rho = 1: E = 0.673 * 256 / 8
        // = 21.5 <= 2.5m, but no register is empty, so no linear counting
        let mut keys = [None; 16];
        for key in 0u64.. {
            let (j, rho) = register_of(key, 4, SALT);
            if rho == 1 && keys[j].is_none() {
                keys[j] = Some(key);
                if keys.iter().all(|k| k.is_some()) {
                    break;
                }
            }
        }
        let mut f = SlidingHll::new(crate::SlidingHllShape {
            window: 16,
            registers: 16,
        })
        .unwrap();
        for k in keys {
            f.record(k.unwrap());
        }
        assert!(f.registers().all(|r| r == 1));
        assert!(
            (f.distinct() - 0.673 * 256.0 / 8.0).abs() < 1e-9,
            "{}",
            f.distinct()
        );
    }

    /// mix64's inverse: each xorshift undone by repeating it, each multiply
    /// by the constant's inverse mod 2^64 (Newton's iteration).
    fn unmix64(mut x: u64) -> u64 {
        let unshift = |x: u64, s: u32| (1..=64 / s).fold(x, |y, _| x ^ (y >> s));
        let inverse = |c: u64| {
            (0..6).fold(c, |y, _| {
                y.wrapping_mul(2u64.wrapping_sub(c.wrapping_mul(y)))
            })
        };
        x = unshift(x, 31);
        x = x.wrapping_mul(inverse(crate::hash::MIX64_MUL[1]));
        x = unshift(x, 27);
        x = x.wrapping_mul(inverse(crate::hash::MIX64_MUL[0]));
        unshift(x, 30)
    }

    #[test]
    fn rho_is_capped_when_the_remaining_bits_are_all_zero() {
        for x in [1u64, 12345, u64::MAX, 1 << 63] {
            assert_eq!(mix64(unmix64(x)), x);
        }
        // the key whose hash is register 5 followed by zeros: rho = 64 - p + 1
        for p in [4u32, 10] {
            let key = unmix64(5 << (64 - p)) ^ SALT;
            assert_eq!(register_of(key, p, SALT), (5, (64 - p + 1) as u8));
        }
    }
}
