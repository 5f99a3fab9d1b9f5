//! Intervals and running statistics: Clopper-Pearson, Student-t, Welford.

use statrs::distribution::{ContinuousCDF, Normal};

/// Clopper-Pearson ("exact") interval for `x` successes in `n` trials
/// (NaN, NaN: no interval, for no trials).
///
/// The bounds solve I_p(x, n-x+1) = α/2 and I_p(x+1, n-x) = 1-α/2 for p, by
/// bisection on the regularised incomplete beta function (statrs's
/// `inverse_cdf` of Beta stalls for parameters like (4000, 2e7)).
pub fn binomial_ci(x: u64, n: u64, level: f64) -> (f64, f64) {
    if n == 0 {
        return (f64::NAN, f64::NAN);
    }
    let a = (1.0 - level) / 2.0;
    let (xf, nf) = (x as f64, n as f64);
    let lo = if x == 0 {
        0.0
    } else {
        beta_quantile(xf, nf - xf + 1.0, a)
    };
    let hi = if x == n {
        1.0
    } else {
        beta_quantile(xf + 1.0, nf - xf, 1.0 - a)
    };
    (lo, hi)
}

/// The q-quantile of Beta(a, b), by bisection (100 halvings: far below f64
/// resolution of any interval we print).
fn beta_quantile(a: f64, b: f64, q: f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if statrs::function::beta::beta_reg(a, b, mid) < q {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Two-sided normal quantile for `level`.
pub fn z_value(level: f64) -> f64 {
    Normal::new(0.0, 1.0)
        .unwrap()
        .inverse_cdf(1.0 - (1.0 - level) / 2.0)
}

/// Two-sided Student-t quantile for `level` with `df` degrees of freedom
/// (the normal quantile beyond 1000).
pub fn t_value(level: f64, df: u64) -> f64 {
    if df > 1000 {
        return z_value(level);
    }
    statrs::distribution::StudentsT::new(0.0, 1.0, df as f64)
        .expect("df >= 1")
        .inverse_cdf(1.0 - (1.0 - level) / 2.0)
}

/// Running mean and variance (Welford).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Welford {
    n: u64,
    mean: f64,
    m2: f64,
}

impl Welford {
    /// Adds an observation.
    pub fn add(&mut self, x: f64) {
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
    }
    /// The two samples pooled (Chan et al.).
    pub fn merge(a: &Welford, b: &Welford) -> Welford {
        let n = a.n + b.n;
        if n == 0 {
            return Welford::default();
        }
        let d = b.mean - a.mean;
        Welford {
            n,
            mean: a.mean + d * b.n as f64 / n as f64,
            m2: a.m2 + b.m2 + d * d * (a.n as f64 * b.n as f64) / n as f64,
        }
    }
    /// Observations so far.
    pub fn count(&self) -> u64 {
        self.n
    }
    /// The mean (NaN when empty).
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            f64::NAN
        } else {
            self.mean
        }
    }
    /// Student-t interval of the mean (n - 1 degrees of freedom: with the 3
    /// rounds of a large window, a normal quantile made intervals far too
    /// narrow).
    pub fn ci(&self, level: f64) -> (f64, f64) {
        if self.n < 2 {
            return (f64::NAN, f64::NAN);
        }
        let se = (self.m2 / (self.n - 1) as f64 / self.n as f64).sqrt();
        let t = t_value(level, self.n - 1);
        (self.mean - t * se, self.mean + t * se)
    }
    /// The Student-t interval clamped to the quantity's range `[lo, hi]`
    /// (a rate to [0, 1], a count to [0, inf)): the symmetric interval of a
    /// skewed quantity can pass its bounds, which no value can.
    pub fn ci_within(&self, level: f64, lo: f64, hi: f64) -> (f64, f64) {
        let (a, b) = self.ci(level);
        (a.clamp(lo, hi), b.clamp(lo, hi))
    }
}

/// Whether `t` lies in the interval; `None` when there is no interval (too
/// few rounds or queries), which the tables leave blank.
pub fn in_interval(t: f64, (lo, hi): (f64, f64)) -> Option<bool> {
    (lo.is_finite() && hi.is_finite()).then_some(t >= lo && t <= hi)
}

/// Successes over trials.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Binomial {
    pub(crate) x: u64,
    pub(crate) n: u64,
}

impl Binomial {
    pub(crate) fn add(&mut self, yes: bool) {
        self.x += yes as u64;
        self.n += 1;
    }
    pub(crate) fn rate(&self) -> f64 {
        if self.n == 0 {
            f64::NAN
        } else {
            self.x as f64 / self.n as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clopper_pearson_known_values() {
        // n = 10, x = 3, 95%: (0.0667, 0.6525) from standard tables.
        let (lo, hi) = binomial_ci(3, 10, 0.95);
        assert!(
            (lo - 0.06674).abs() < 1e-4 && (hi - 0.65245).abs() < 1e-4,
            "{lo} {hi}"
        );
        assert_eq!(binomial_ci(0, 10, 0.95).0, 0.0);
        assert_eq!(binomial_ci(10, 10, 0.95).1, 1.0);
        // large n, small p: close to the normal interval
        let (lo, hi) = binomial_ci(4000, 40_000_000, 0.99);
        let se = (1e-4f64 * (1.0 - 1e-4) / 4e7).sqrt();
        assert!((lo - (1e-4 - 2.5758 * se)).abs() / 1e-4 < 0.01, "{lo}");
        assert!((hi - (1e-4 + 2.5758 * se)).abs() / 1e-4 < 0.01, "{hi}");
        // extreme parameters stay fast and ordered
        let (lo, hi) = binomial_ci(3, 2_000_000_000, 0.99);
        assert!(0.0 < lo && lo < 1.5e-9 && hi > 1.5e-9 && hi < 1e-8);
    }

    #[test]
    fn t_quantiles() {
        assert!((t_value(0.99, 2) - 9.925).abs() < 1e-3);
        assert!((t_value(0.99, 149) - 2.609).abs() < 1e-3);
        assert!((t_value(0.99, 5000) - 2.5758).abs() < 1e-3);
    }
}
