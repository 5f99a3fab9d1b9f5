//! The time pass's intervals: a ratio pooled over the run, its interval
//! over independent batches of moments.
//!
//! The moments of one run share its arrival history: two moments less
//! than the design's reach apart (T and its slack for a design over time)
//! query filter states built partly from the same keys, so their FPRs
//! move together. A Student-t interval over the moments, as if each were
//! an independent sample, was too narrow for that reason (docs/metrics.md,
//! "Calibration", has its measured coverage). The pass therefore measures
//! its moments in `batches` stretches separated by gaps of at least the
//! reach, in which arrivals go on and nothing is measured: no key is in
//! the filter at two batches' moments, so under Poisson arrivals the
//! batches are independent replicas, and an interval over them is exact
//! up to the normality of a batch's mean.
//!
//! Each figure is a ratio of sums over the run (false positives over
//! queries, keys lost over keys probed): its estimate is the pooled ratio
//! r = Σx / Σn, and its interval the cluster-sampling one,
//! r ± t · sqrt(Σ (x_b - r n_b)² / (B (B-1))) / n̄ over the B batches
//! that measured anything (t with B - 1 degrees of freedom for batches of
//! equal size, fewer for unequal ones), widened to the Clopper-Pearson interval of the pooled counts
//! where that is wider (few events in all, where a batch's mean is far
//! from normal, or batches that all measured the same ratio).

use crate::metrics::stats::{binomial_ci, t_value, wider};

/// Sums x and n per batch.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Batched {
    x: Vec<f64>,
    n: Vec<f64>,
}

impl Batched {
    /// Empty sums over `batches` batches.
    pub(crate) fn new(batches: usize) -> Batched {
        Batched {
            x: vec![0.0; batches],
            n: vec![0.0; batches],
        }
    }

    /// Adds `x` of `n` to batch `b`.
    pub(crate) fn add(&mut self, b: usize, x: f64, n: f64) {
        self.x[b] += x;
        self.n[b] += n;
    }

    /// Adds one trial to batch `b`.
    pub(crate) fn trial(&mut self, b: usize, yes: bool) {
        self.add(b, f64::from(u8::from(yes)), 1.0);
    }

    /// Σn.
    pub(crate) fn n(&self) -> f64 {
        self.n.iter().sum()
    }

    /// Σx.
    pub(crate) fn x(&self) -> f64 {
        self.x.iter().sum()
    }

    /// The pooled ratio Σx / Σn (NaN when Σn = 0).
    pub(crate) fn ratio(&self) -> f64 {
        let n = self.n();
        if n == 0.0 {
            f64::NAN
        } else {
            self.x() / n
        }
    }

    /// The cluster-sampling interval of the ratio over the batches that
    /// measured anything, clamped to `[lo, hi]` (module docs); `None` below
    /// two such batches or when every one measured the same ratio (zero
    /// width says nothing of the spread). A batch without trials (the
    /// worst moments of a swinging rate fall in a few batches) neither
    /// adds nor counts as a degree of freedom: counted, the interval over
    /// the worst moments covered 88.7% at 95% (`bloomlab calibrate
    /// --quick` at an earlier Drift, docs/metrics.md).
    pub(crate) fn over_batches(&self, level: f64, lo: f64, hi: f64) -> Option<(f64, f64)> {
        let parts: Vec<(f64, f64)> = self
            .x
            .iter()
            .zip(&self.n)
            .filter(|(_, &n)| n > 0.0)
            .map(|(&x, &n)| (x, n))
            .collect();
        let b = parts.len();
        if b < 2 {
            return None;
        }
        let n = self.n();
        let r = self.x() / n;
        let mean_n = n / b as f64;
        let ss: f64 = parts
            .iter()
            .map(|&(x, m)| ((x - r * m) / mean_n).powi(2))
            .sum();
        let se = (ss / (b as f64 * (b - 1) as f64)).sqrt();
        if !(se > 0.0 && se.is_finite()) {
            return None;
        }
        // batches of unequal size weigh unequally: the degrees of freedom
        // are those of Kish's effective number of batches, (Σn)² / Σn²,
        // less one (b - 1 for equal batches); with b - 1 the worst moments
        // of a rate swinging slower than a batch, most of them in two or
        // three batches, covered 94.2% at 95% over 2000 seeds (the
        // calibration's fpr_time_peak at an earlier Drift, docs/metrics.md)
        let effective = n * n / parts.iter().map(|&(_, m)| m * m).sum::<f64>();
        let t = t_value(level, (effective - 1.0).floor().max(1.0) as u64);
        Some(((r - t * se).clamp(lo, hi), (r + t * se).clamp(lo, hi)))
    }

    /// The interval of a rate of counted trials: the wider of the
    /// interval over batches and the Clopper-Pearson one of the pooled
    /// counts (module docs). Both hold the pooled ratio.
    pub(crate) fn rate_interval(&self, level: f64) -> (f64, f64) {
        let pooled = binomial_ci(self.x().round() as u64, self.n().round() as u64, level);
        wider(pooled, self.over_batches(level, 0.0, 1.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The interval over batches is the cluster ratio estimator's: with
    /// equal n per batch, the Student-t interval of the batch rates.
    #[test]
    fn equal_batches_give_the_t_interval_of_their_rates() {
        let mut b = Batched::new(4);
        for (i, x) in [10.0, 14.0, 8.0, 12.0].into_iter().enumerate() {
            b.add(i, x, 100.0);
        }
        let mut w = crate::metrics::stats::Welford::default();
        [0.10, 0.14, 0.08, 0.12].into_iter().for_each(|r| w.add(r));
        let (lo, hi) = b.over_batches(0.95, 0.0, 1.0).unwrap();
        let (wl, wh) = w.ci(0.95);
        assert!((lo - wl).abs() < 1e-12 && (hi - wh).abs() < 1e-12);
        assert_eq!(b.ratio(), 0.11);
        // the pooled Clopper-Pearson interval of 44 of 400 is narrower
        // here: the batches' spread decides
        assert_eq!(b.rate_interval(0.95), (lo, hi));
    }

    /// Batches that all measured the same ratio (no false positive
    /// anywhere, say) give no interval over batches: the pooled counts'
    /// Clopper-Pearson interval stands, and holds the estimate.
    #[test]
    fn no_spread_falls_back_to_the_pooled_counts() {
        let mut b = Batched::new(5);
        (0..5).for_each(|i| b.add(i, 0.0, 2000.0));
        assert_eq!(b.over_batches(0.99, 0.0, 1.0), None);
        assert_eq!(b.rate_interval(0.99), binomial_ci(0, 10_000, 0.99));
        let one = {
            let mut b = Batched::new(1);
            b.add(0, 3.0, 2000.0);
            b
        };
        assert_eq!(one.rate_interval(0.99), binomial_ci(3, 2000, 0.99));
    }

    /// Unequal batches (the worst moments fall unevenly): the interval
    /// still holds the pooled ratio, and a batch without trials changes
    /// nothing, not even the degrees of freedom.
    #[test]
    fn unequal_batches_hold_the_pooled_ratio() {
        let mut b = Batched::new(4);
        b.add(0, 30.0, 1000.0);
        b.add(1, 0.0, 0.0);
        b.add(2, 90.0, 2000.0);
        b.add(3, 10.0, 500.0);
        let r = b.ratio();
        let (lo, hi) = b.rate_interval(0.95);
        assert!(lo < r && r < hi, "{lo} {r} {hi}");
        let mut three = Batched::new(3);
        three.add(0, 30.0, 1000.0);
        three.add(1, 90.0, 2000.0);
        three.add(2, 10.0, 500.0);
        assert_eq!(
            b.over_batches(0.95, 0.0, 1.0),
            three.over_batches(0.95, 0.0, 1.0)
        );
    }
}
