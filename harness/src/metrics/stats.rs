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

/// The q-quantile of Beta(a, b), by bisection (up to 100 halvings: far
/// below f64 resolution of any interval we print).
///
/// It stops once the midpoint is an end of the bracket (the two ends are
/// adjacent floats or equal): from there every further halving leaves the
/// bracket as it is or closes it onto that end, so the answer is the one
/// all 100 halvings give, to the bit (`stops_where_all_halvings_end`),
/// after about 54 + log2(1/p) of the beta function's evaluations for a
/// bound p: 60 near 1e-2, 70 near 1e-5, all 100 below about 1e-14.
fn beta_quantile(a: f64, b: f64, q: f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        let at_end = mid == lo || mid == hi;
        if statrs::function::beta::beta_reg(a, b, mid) < q {
            lo = mid;
        } else {
            hi = mid;
        }
        if at_end {
            break;
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
    /// The squared standard error of the mean, s²/n (NaN below two
    /// observations).
    pub fn var_of_mean(&self) -> f64 {
        if self.n < 2 {
            f64::NAN
        } else {
            self.m2 / (self.n - 1) as f64 / self.n as f64
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

/// The interval of E\[e²\] from one squared error e² per round (the
/// summaries' squared relative errors): the wider of the Student t
/// interval over the rounds and the chi-square interval of a zero-mean
/// normal error's variance, (n m / χ²(n, 1 - α/2), n m / χ²(n, α/2)) for
/// the mean m of n squared errors. A squared error is skewed (a normal
/// error's is χ² with one degree of freedom), which the t interval alone
/// does not allow for at 20 rounds (docs/metrics.md, "Calibration", has
/// its coverage). NaN below two rounds.
pub fn mean_square_ci(w: &Welford, level: f64) -> (f64, f64) {
    let n = w.count();
    if n < 2 {
        return (f64::NAN, f64::NAN);
    }
    let t = w.ci_within(level, 0.0, f64::INFINITY);
    let chi = statrs::distribution::ChiSquared::new(n as f64).expect("n >= 2");
    let a = (1.0 - level) / 2.0;
    let sum = w.mean() * n as f64;
    let chi = (sum / chi.inverse_cdf(1.0 - a), sum / chi.inverse_cdf(a));
    wider(t, Some(chi))
}

/// The wider of interval `a` and interval `b`, where there is a `b`.
pub fn wider(a: (f64, f64), b: Option<(f64, f64)>) -> (f64, f64) {
    b.map_or(a, |b| (a.0.min(b.0), a.1.max(b.1)))
}

/// The interval of a rate measured by `rounds` whose queries share a
/// state within a round: the wider of the Clopper-Pearson interval of the
/// pooled `x` of `n` and the Student t over the rounds' rates (none below
/// two rounds or at zero width, which says nothing of the spread). The
/// pooled interval alone misses the spread between states; the rounds'
/// alone has none where every round said the same.
pub fn pooled_or_rounds_ci(x: u64, n: u64, rounds: &Welford, level: f64) -> (f64, f64) {
    let t = (rounds.count() >= 2)
        .then(|| rounds.ci_within(level, 0.0, 1.0))
        .filter(|ci| ci.1 > ci.0);
    wider(binomial_ci(x, n, level), t)
}

/// Whether `t` lies in the interval; `None` when there is no interval (too
/// few rounds or queries) or it has zero width (every round measured the
/// same value, so the sample says nothing of its spread): the tables leave
/// the verdict blank and `measure` says "not enough data".
pub fn in_interval(t: f64, (lo, hi): (f64, f64)) -> Option<bool> {
    (lo.is_finite() && hi.is_finite() && hi > lo).then_some(t >= lo && t <= hi)
}

/// Successes over trials.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Binomial {
    pub(crate) x: u64,
    pub(crate) n: u64,
}

impl Binomial {
    /// The rate of the trials added since `before` (NaN if none).
    pub(crate) fn since(&self, before: &Binomial) -> f64 {
        Binomial {
            x: self.x - before.x,
            n: self.n - before.n,
        }
        .rate()
    }
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

    /// [`beta_quantile`]'s early stop gives what all 100 halvings give,
    /// to the bit, over counts from 0 of 3 to 4000 of 2e7 and both ends of
    /// 95% and 99% intervals.
    #[test]
    fn stops_where_all_halvings_end() {
        fn full(a: f64, b: f64, q: f64) -> f64 {
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
        let mut compared = 0;
        for (x, n) in [
            (0u64, 3u64),
            (1, 3),
            (3, 3),
            (1, 1000),
            (7, 200),
            (500, 1000),
            (999, 1000),
            (1, 1_000_000_000),
            (4000, 20_000_000),
            (12_345, 67_890),
        ] {
            for level in [0.95, 0.99] {
                let a = (1.0 - level) / 2.0;
                let (xf, nf) = (x as f64, n as f64);
                if x > 0 {
                    let (p, q) = (xf, nf - xf + 1.0);
                    assert_eq!(beta_quantile(p, q, a).to_bits(), full(p, q, a).to_bits());
                    compared += 1;
                }
                if x < n {
                    let (p, q) = (xf + 1.0, nf - xf);
                    let (got, want) = (beta_quantile(p, q, 1.0 - a), full(p, q, 1.0 - a));
                    assert_eq!(got.to_bits(), want.to_bits(), "{x} of {n} at {level}");
                    compared += 1;
                }
            }
        }
        assert_eq!(compared, 36);
    }

    /// A zero-width interval decides no verdict: every round measured the
    /// same, which says nothing of the spread (one round of the Stable
    /// filter gave "THEORY OUTSIDE THE INTERVAL" from [0.7489, 0.7489]).
    #[test]
    fn a_zero_width_interval_gives_no_verdict() {
        assert_eq!(in_interval(0.7692, (0.7489, 0.7489)), None);
        assert_eq!(in_interval(0.7489, (0.7489, 0.7489)), None);
        assert_eq!(in_interval(0.5, (f64::NAN, 1.0)), None);
        assert_eq!(in_interval(0.5, (0.4, 0.6)), Some(true));
        assert_eq!(in_interval(0.7, (0.4, 0.6)), Some(false));
    }

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

    #[test]
    fn welford_against_the_textbook_formulas() {
        let xs = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0];
        let mut w = Welford::default();
        assert!(w.mean().is_nan() && w.ci(0.95).0.is_nan());
        w.add(xs[0]);
        assert_eq!((w.count(), w.mean()), (1, 3.0));
        assert!(w.ci(0.95).1.is_nan(), "one observation: no interval");
        for &x in &xs[1..] {
            w.add(x);
        }
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        assert_eq!(w.count(), 8);
        assert!((w.mean() - mean).abs() < 1e-12);
        let half = t_value(0.95, 7) * (var / n).sqrt();
        let (lo, hi) = w.ci(0.95);
        assert!((lo - (mean - half)).abs() < 1e-12 && (hi - (mean + half)).abs() < 1e-12);
        // t(0.95, 7) = 2.3646 from tables
        assert!((t_value(0.95, 7) - 2.3646).abs() < 1e-4);
        assert_eq!(
            w.ci_within(0.95, 3.0, 4.0),
            (lo.clamp(3.0, 4.0), hi.clamp(3.0, 4.0))
        );
        assert_eq!(w.ci_within(0.95, 3.0, 4.0), (3.0, 4.0));
        // pooling two halves gives the whole
        let (mut a, mut b) = (Welford::default(), Welford::default());
        for (i, &x) in xs.iter().enumerate() {
            if i < 3 {
                a.add(x)
            } else {
                b.add(x)
            }
        }
        let m = Welford::merge(&a, &b);
        assert_eq!(m.count(), 8);
        assert!((m.mean() - mean).abs() < 1e-12);
        assert!((m.ci(0.95).0 - lo).abs() < 1e-12 && (m.ci(0.95).1 - hi).abs() < 1e-12);
        assert_eq!(
            Welford::merge(&Welford::default(), &Welford::default()).count(),
            0
        );
        assert_eq!(Welford::merge(&a, &Welford::default()).mean(), a.mean());
    }

    #[test]
    fn normal_quantiles_intervals_and_rates() {
        assert!((z_value(0.95) - 1.959964).abs() < 1e-6);
        assert!((z_value(0.99) - 2.575829).abs() < 1e-6);
        // beyond 1000 degrees of freedom the t quantile is the normal one
        assert_eq!(t_value(0.99, 1001), z_value(0.99));
        assert!(t_value(0.99, 1000) > z_value(0.99));
        assert_eq!(in_interval(0.5, (0.0, 1.0)), Some(true));
        assert_eq!(in_interval(1.0, (0.0, 1.0)), Some(true));
        assert_eq!(in_interval(0.0, (0.0, 1.0)), Some(true));
        assert_eq!(in_interval(1.5, (0.0, 1.0)), Some(false));
        assert_eq!(in_interval(-0.5, (0.0, 1.0)), Some(false));
        assert_eq!(in_interval(0.5, (f64::NAN, 1.0)), None);
        assert_eq!(in_interval(0.5, (0.0, f64::INFINITY)), None);
        let mut b = Binomial::default();
        assert!(b.rate().is_nan());
        for i in 0..10 {
            b.add(i % 4 == 0);
        }
        assert_eq!((b.x, b.n, b.rate()), (3, 10, 0.3));
        assert!(binomial_ci(1, 0, 0.95).0.is_nan());
        // 95% Clopper-Pearson for 1 of 20: (0.00127, 0.2487) from tables
        let (lo, hi) = binomial_ci(1, 20, 0.95);
        assert!(
            (lo - 0.001265).abs() < 1e-5 && (hi - 0.248732).abs() < 1e-5,
            "{lo} {hi}"
        );
    }

    /// The rounds' interval where it is wider than the pooled one, and the
    /// wider of two: the rounds give none below two rounds or at zero width.
    #[test]
    fn the_rounds_interval_widens_the_pooled_one() {
        let mut b = Welford::default();
        for x in [0.1, 0.3, 0.2, 0.2] {
            b.add(x);
        }
        // 80 of 400 pooled: Clopper-Pearson is narrower than the rounds'
        let (lo, hi) = pooled_or_rounds_ci(80, 400, &b, 0.99);
        // mean 0.2; se = sqrt(var(b)/4) = sqrt(0.02/3/4)
        let se = (0.02f64 / 3.0 / 4.0).sqrt();
        let t = t_value(0.99, 3);
        assert!((lo - (0.2 - t * se).max(0.0)).abs() < 1e-12);
        assert!((hi - (0.2 + t * se)).abs() < 1e-12);
        assert_eq!(wider((0.15, 0.25), Some((lo, hi))), (lo, hi));
        assert_eq!(wider((lo - 0.01, 0.25), Some((lo, hi))), (lo - 0.01, hi));
        assert_eq!(wider((0.15, 0.25), None), (0.15, 0.25));
        let mut c = Welford::default();
        c.add(0.1);
        c.add(0.1);
        let pooled = binomial_ci(40, 400, 0.99);
        assert_eq!(pooled_or_rounds_ci(40, 400, &c, 0.99), pooled);
        assert_eq!(
            pooled_or_rounds_ci(40, 400, &Welford::default(), 0.99),
            pooled
        );
    }

    /// Twenty rounds of one squared normal error each (the summaries'
    /// distinct counts): the Student t interval of their mean alone is
    /// short at 95% and 99% (a squared error is skewed), the wider of it and the
    /// chi-square interval covers. Prints both coverages over 20 000
    /// replications (`-- --nocapture`).
    #[test]
    fn squared_normal_errors_need_the_chi_square_interval() {
        use rand::SeedableRng;
        use rand_distr::{Distribution, StandardNormal};
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        for level in [0.95, 0.99] {
            let (mut t_only, mut both) = (0u32, 0u32);
            let reps = 20_000;
            for _ in 0..reps {
                let mut w = Welford::default();
                for _ in 0..20 {
                    let z: f64 = StandardNormal.sample(&mut rng);
                    w.add(z * z);
                }
                let (a, b) = w.ci_within(level, 0.0, f64::INFINITY);
                t_only += u32::from(a <= 1.0 && 1.0 <= b);
                let (a, b) = mean_square_ci(&w, level);
                both += u32::from(a <= 1.0 && 1.0 <= b);
            }
            let (t, c) = (
                f64::from(t_only) / reps as f64,
                f64::from(both) / reps as f64,
            );
            println!("at {level}: Student t alone {t:.4}, the wider with chi-square {c:.4}");
            let se = (level * (1.0 - level) / reps as f64).sqrt();
            assert!(c >= level - 2.0 * se, "{c}");
            assert!(t < level - 3.0 * se, "{t}");
        }
    }
}
