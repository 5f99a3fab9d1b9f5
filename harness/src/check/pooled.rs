//! Pooled tests and power: the per-row z tests (Bonferroni over every row
//! and column) cannot see a small bias that moves every row of a column the
//! same way, so each column of an experiment's results is also tested as a
//! whole. Stouffer's z (the rows' z-scores summed over the square root of
//! their number) catches a common shift; a sign test (how many rows moved
//! up) catches a common direction that a few noisy rows would hide from the
//! sum. Rows of the results tables are independent points (their own
//! seeds), which both tests assume; the age-profile and convergence tables,
//! whose rows share filter states, are tested row by row only.

use statrs::distribution::{Binomial, ContinuousCDF, DiscreteCDF, Normal};

/// Fewest rows a column needs for a pooled test.
pub const MIN_ROWS: usize = 3;

/// The z quantile a standard normal passes with probability `p` (upper).
fn z_upper(p: f64) -> f64 {
    Normal::new(0.0, 1.0)
        .expect("standard normal")
        .inverse_cdf(1.0 - p)
}

/// Stouffer's combined z of independent z-scores.
pub fn stouffer(z: &[f64]) -> f64 {
    z.iter().sum::<f64>() / (z.len() as f64).sqrt()
}

/// Two-sided p-value of `up` of `n` rows moving up when each moves up with
/// probability 1/2.
pub fn sign_test(up: u64, n: u64) -> f64 {
    if n == 0 {
        return 1.0;
    }
    let b = Binomial::new(0.5, n).expect("binomial");
    let tail = b.cdf(up.min(n - up));
    (2.0 * tail).min(1.0)
}

/// The verdict on one column pooled over its rows.
#[derive(Debug, Clone, PartialEq)]
pub struct PooledResult {
    /// Rows pooled.
    pub rows: usize,
    /// Stouffer's z.
    pub z: f64,
    /// Rows that moved up, of those that moved.
    pub up: u64,
    /// Rows that moved.
    pub moved: u64,
    /// The sign test's two-sided p-value.
    pub p_sign: f64,
}

impl PooledResult {
    /// Tests the z-scores of one column's rows.
    pub fn of(z: &[f64]) -> PooledResult {
        let moved = z.iter().filter(|&&x| x != 0.0).count() as u64;
        let up = z.iter().filter(|&&x| x > 0.0).count() as u64;
        PooledResult {
            rows: z.len(),
            z: stouffer(z),
            up,
            moved,
            p_sign: sign_test(up, moved),
        }
    }

    /// Whether either test rejects at `alpha` for this column (split
    /// between the two tests).
    pub fn fails(&self, alpha: f64) -> bool {
        self.z.abs() > z_upper(alpha / 4.0) || self.p_sign < alpha / 2.0
    }

    /// Whether it is worth reporting (either test at 1%).
    pub fn moved(&self) -> bool {
        self.z.abs() > z_upper(0.005) || self.p_sign < 0.01
    }
}

/// The smallest relative shift of every row of a column (each row's value
/// times 1 + delta) that the pooled Stouffer test detects with probability
/// `power`, at significance `alpha` for this column. `signal` holds each
/// row's value over the standard error of its difference (baseline and run
/// together). None when no row carries signal.
pub fn pooled_shift(signal: &[f64], alpha: f64, power: f64) -> Option<f64> {
    let sum: f64 = signal.iter().filter(|s| s.is_finite()).sum();
    if sum <= 0.0 || signal.len() < MIN_ROWS {
        return None;
    }
    // E[Z] = delta * sum / sqrt(n) must reach z_fail + z_power
    let need = z_upper(alpha / 4.0) + z_upper(1.0 - power);
    Some(need * (signal.len() as f64).sqrt() / sum)
}

/// The smallest relative shift of one row that its own z test (threshold
/// `z_fail`) detects with probability `power`: the best row's.
pub fn row_shift(signal: &[f64], z_fail: f64, power: f64) -> Option<f64> {
    let best = signal
        .iter()
        .copied()
        .filter(|s| s.is_finite() && *s > 0.0)
        .fold(0.0, f64::max);
    (best > 0.0).then(|| (z_fail + z_upper(1.0 - power)) / best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noise_passes_and_a_common_shift_fails() {
        // standard normal noise: a fixed pseudo-random sample
        let noise: Vec<f64> = (0..40)
            .map(|i| {
                let u = (bloomlab_filters::hash::mix64(i) >> 11) as f64 / (1u64 << 53) as f64;
                Normal::new(0.0, 1.0)
                    .unwrap()
                    .inverse_cdf(u.clamp(1e-9, 1.0 - 1e-9))
            })
            .collect();
        assert!(!PooledResult::of(&noise).fails(0.01 / 50.0));
        // every row 1.2 standard errors low: no row fails alone (z > 4),
        // the column does
        let biased: Vec<f64> = noise.iter().map(|z| z * 0.3 - 1.2).collect();
        let r = PooledResult::of(&biased);
        assert!(r.fails(0.01 / 50.0), "{r:?}");
        assert!(biased.iter().all(|z| z.abs() < 4.0));
    }

    #[test]
    fn sign_test_and_power() {
        assert!((sign_test(5, 10) - 1.0).abs() < 1e-12);
        assert!(sign_test(0, 10) < 0.002 && sign_test(10, 10) < 0.002);
        // 16 rows each with value/se 100: a shift of about 0.9% is seen
        let d = pooled_shift(&[100.0; 16], 0.01, 0.9).unwrap();
        assert!(d > 0.005 && d < 0.02, "{d}");
        assert!(pooled_shift(&[0.0; 16], 0.01, 0.9).is_none());
        let r = row_shift(&[10.0, 50.0], 4.0, 0.9).unwrap();
        assert!((r - (4.0 + 1.2816) / 50.0).abs() < 1e-3, "{r}");
    }

    #[test]
    fn stouffer_sees_a_shift_the_sign_test_cannot() {
        assert!((stouffer(&[1.0, 2.0, 3.0]) - 6.0 / 3f64.sqrt()).abs() < 1e-12);
        assert!((stouffer(&[2.0; 16]) - 8.0).abs() < 1e-12);
        // half the rows far up, half a little down: as many up as down, so
        // only the sum sees it
        let z: Vec<f64> = (0..40)
            .map(|i| if i % 2 == 0 { 3.0 } else { -0.1 })
            .collect();
        let r = PooledResult::of(&z);
        assert_eq!((r.rows, r.up, r.moved), (40, 20, 40));
        assert!(r.p_sign > 0.5, "{r:?}");
        assert!(r.fails(0.01 / 50.0) && r.moved(), "{r:?}");
        // the thresholds: at alpha = 0.01 the sum's z must pass
        // z(0.0025) = 2.81 (half of alpha, two-sided) and the sign test's p
        // fall below 0.005
        let r = PooledResult::of(&[3.0, 3.0, -0.7, -0.7]);
        assert!((r.z - 2.3).abs() < 1e-12 && r.p_sign == 1.0);
        assert!(!r.fails(0.01) && !r.moved(), "{r:?}");
        // eight rows all a little down: p = 2/256 = 0.0078, between the
        // two, so reported as moved but no failure
        let r = PooledResult::of(&[-0.1; 8]);
        assert!((r.p_sign - 2.0 / 256.0).abs() < 1e-12, "{r:?}");
        assert!(!r.fails(0.01) && r.moved(), "{r:?}");
        assert!(PooledResult::of(&[-0.1; 10]).fails(0.01));
        // rows that did not move count for neither side
        let r = PooledResult::of(&[0.0, 0.0, 1.0, -1.0]);
        assert_eq!((r.up, r.moved), (1, 2));
        assert!(!r.fails(0.01) && !r.moved());
    }
}
