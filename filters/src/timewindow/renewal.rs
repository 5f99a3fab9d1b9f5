//! The hybrid trigger at a steady Poisson rate: a renewal theory of the keys
//! younger than T it loses.
//!
//! The fluid boundaries of [`super::theory`] end a generation exactly at τ
//! when the rate is at most g/τ, so they predict no lost key there. Real
//! arrivals fluctuate: a generation that receives its g-th key before τ ends
//! early, and a key younger than T = kept·τ is lost when kept + 1
//! generations end within its age. This module computes that loss for
//! Poisson arrivals of constant rate R.
//!
//! # Model
//!
//! [`OnTime`](super::OnTime) begins a new generation at the arrival that
//! finds g keys in the current one, or when τ has passed since the current
//! one began. For Poisson arrivals the generations' lengths form a Markov
//! renewal process with two kinds of end:
//!
//! - after a count end the next generation began at an arrival (its first
//!   key), so it ends on count after g more gaps: D = min(τ, G), G ~
//!   Gamma(g, R);
//! - after a time end it began between arrivals, so its count end comes
//!   after g + 1 gaps: G ~ Gamma(g + 1, R).
//!
//! A generation ends on time with probability P(G ≥ τ), which gives the
//! chain of end kinds and its stationary law π.
//!
//! A key arriving at a random moment (Poisson arrivals see time averages)
//! sits in a generation of kind e with probability ∝ π_e E\[D_e\], and the
//! time R₁ to the next switch has the forward-recurrence density
//! P(D_e > x)/E\[D_e\], which splits by how that generation ends: on time
//! with density P(G_e ≥ τ)/E\[D_e\] (uniform on (0, τ)), on count with
//! density P(x < G_e < τ)/E\[D_e\]. Its age at the j-th switch is
//! X_j = R₁ + D₂ + … + D_j, where the kinds chain on from R₁'s. A key
//! j switches after insertion answers yes with probability p_j (1 for
//! j ≤ kept), so a key of age a is lost with probability
//! Σ_j P(X_j ≤ a)(p_{j-1} - p_j), and averaged over ages uniform in
//! (0, T):
//!
//! loss = Σ_{j > kept} (p_{j-1} - p_j) E\[(T - X_j)⁺\] / T.
//!
//! With E_i = τ - D_i the deficits, T - X_j = Σ_{i=2..j} E_i - R₁ -
//! (j - 1 - kept)τ: the sum of the deficits is computed by convolution on a
//! lattice (each deficit's mass split between the two lattice points around
//! its cell's centre, which keeps its mean), and E\[(s - R₁ - mτ)⁺\] in
//! closed form for a time end and by two running sums for a count end.
//!
//! # What is left out
//!
//! - The key itself is one of the arrivals: it brings its generation's count
//!   end one gap nearer than a random moment sees it, an error of relative
//!   size 1/g in R₁.
//! - p_j is averaged over the phases of the fluid steady state, independent
//!   of how the switches fell.
//! - The lattice: at most 400 cells over the deficits' range of ±12
//!   standard deviations, so below a thousandth of a standard deviation of
//!   error in any mean.
//!
//! The filters crate's `time_vs_simulation` tests hold it to simulations of
//! the APBF's hybrid at rates from 0.9 to 2 times g/τ.

/// Generations ended by τ or by g keys, at a steady Poisson rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HybridRenewal {
    /// τ: the longest a generation lasts, in any time unit.
    pub tau: f64,
    /// g: keys that end a generation early.
    pub g: u64,
    /// R: arrivals per unit of time.
    pub rate: f64,
}

/// ln Γ(a) for a > 0 (Stirling's series after shifting a above 10).
fn ln_gamma(a: f64) -> f64 {
    let mut shift = 0.0;
    let mut x = a;
    while x < 10.0 {
        shift -= x.ln();
        x += 1.0;
    }
    let inv = 1.0 / x;
    let inv2 = inv * inv;
    let series = inv * (1.0 / 12.0 - inv2 * (1.0 / 360.0 - inv2 * (1.0 / 1260.0 - inv2 / 1680.0)));
    shift + (x - 0.5) * x.ln() - x + 0.5 * (2.0 * std::f64::consts::PI).ln() + series
}

/// One kind of generation (by how the one before it ended): the lattice law
/// of its deficit τ - D when it ends on count, and P(it ends on time).
struct Kind {
    /// Mass at lattice point i·h of a count end's deficit.
    count: Vec<f64>,
    /// The first point with mass.
    first: usize,
    /// P(G ≥ τ): the generation ends on time (deficit 0).
    time: f64,
}

impl Kind {
    /// Deficits of a generation whose count end needs `shape` gaps, on the
    /// lattice of step h with `points` points.
    fn new(shape: f64, rate: f64, tau: f64, h: f64, points: usize) -> Kind {
        let ln_norm = shape * rate.ln() - ln_gamma(shape);
        let density = |y: f64| {
            if y <= 0.0 {
                0.0
            } else {
                (ln_norm + (shape - 1.0) * y.ln() - rate * y).exp()
            }
        };
        let mut count = vec![0.0; points + 1];
        let mut total = 0.0;
        for cell in 0..points {
            // deficits [cell·h, (cell + 1)·h] are G in [τ - (cell + 1)h, τ - cell·h]
            let (lo, hi) = (tau - (cell + 1) as f64 * h, tau - cell as f64 * h);
            if hi <= 0.0 {
                break;
            }
            let mass = simpson(&density, lo.max(0.0), hi);
            count[cell] += mass / 2.0;
            count[cell + 1] += mass / 2.0;
            total += mass;
        }
        let first = count.iter().position(|&p| p > 0.0).unwrap_or(count.len());
        Kind {
            count,
            first,
            time: (1.0 - total).max(0.0),
        }
    }

    /// E[deficit; count end].
    fn deficit(&self, h: f64) -> f64 {
        self.count
            .iter()
            .enumerate()
            .map(|(i, p)| i as f64 * h * p)
            .sum()
    }
}

/// ∫ f over [a, b] by Simpson's rule on 16 intervals.
fn simpson(f: &dyn Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    const N: usize = 16;
    let h = (b - a) / N as f64;
    let mut s = f(a) + f(b);
    for i in 1..N {
        s += f(a + i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 };
    }
    s * h / 3.0
}

impl HybridRenewal {
    /// The share of keys of age uniform in (0, kept·τ) answered no, given
    /// `presence(j)`: P(yes) for a key `j` switches after its insertion
    /// (1 for j ≤ kept), for j up to `forgotten` (nothing changes after).
    ///
    /// Returns 0 when the generations (almost) never end on count, and
    /// `None` for parameters it cannot model (a rate or τ not positive and
    /// finite, g = 0, kept = 0 or forgotten ≤ kept).
    pub fn loss(&self, kept: u64, forgotten: u64, presence: &dyn Fn(u64) -> f64) -> Option<f64> {
        let (tau, rate, g) = (self.tau, self.rate, self.g as f64);
        let valid = tau.is_finite() && tau > 0.0 && rate.is_finite() && rate > 0.0;
        if !valid || self.g == 0 || kept == 0 || forgotten <= kept {
            return None;
        }
        // the deficits' range: G within ±12 sd of its mean, for both kinds
        let sd = |shape: f64| shape.sqrt() / rate;
        let lo = (tau - (g + 1.0) / rate - 12.0 * sd(g + 1.0)).max(0.0);
        let hi = (tau - g / rate + 12.0 * sd(g)).min(tau);
        if hi <= 0.0 {
            return Some(0.0);
        }
        // a lattice of at most 400 cells over [lo, hi] and 200,000 points in
        // all, with τ a whole number of steps
        let max_sum = (forgotten - 1) as f64 * hi;
        let h0 = ((hi - lo) / 400.0).max(max_sum / 200_000.0);
        let steps_per_tau = (tau / h0).ceil().max(1.0);
        let h = tau / steps_per_tau;
        let points = (hi / h).ceil() as usize + 1;
        let kinds = [
            Kind::new(g, rate, tau, h, points),
            Kind::new(g + 1.0, rate, tau, h, points),
        ];
        // the chain of end kinds (0: count, 1: time) and its stationary law
        let (to_time_after_count, to_time_after_time) = (kinds[0].time, kinds[1].time);
        let pi_time = to_time_after_count / (1.0 - to_time_after_time + to_time_after_count);
        let pi = [1.0 - pi_time, pi_time];
        let mean_len = |e: usize| tau - kinds[e].deficit(h);
        let norm = pi[0] * mean_len(0) + pi[1] * mean_len(1);
        let w = [pi[0] / norm, pi[1] / norm];
        let first = Forward::new(&kinds, w, tau, h, steps_per_tau as usize);

        // S: the deficits' sum after n full generations, by the kind of the
        // last end, starting from R₁'s end kind
        let window = kept as f64 * tau;
        let mut total = 0.0;
        for start in 0..2 {
            let mut sum = [vec![0.0; 1], vec![0.0; 1]];
            sum[start][0] = 1.0;
            for n in 1..forgotten {
                sum = step(&sum, &kinds);
                let j = n + 1;
                if j <= kept {
                    continue;
                }
                let weight = presence(j - 1) - presence(j);
                if weight == 0.0 {
                    continue;
                }
                let shift = (j - 1 - kept) as f64 * tau;
                let expected: f64 = sum
                    .iter()
                    .flat_map(|s| s.iter().enumerate())
                    .map(|(i, p)| p * first.excess(start, i as f64 * h - shift))
                    .sum();
                total += weight * expected;
            }
        }
        Some((total / window).clamp(0.0, 1.0))
    }
}

/// One more generation: convolve the sums with each kind's deficits.
fn step(sum: &[Vec<f64>; 2], kinds: &[Kind; 2]) -> [Vec<f64>; 2] {
    let len = sum[0].len().max(sum[1].len()) + kinds[0].count.len();
    let mut next = [vec![0.0; len], vec![0.0; len]];
    for (e, s) in sum.iter().enumerate() {
        let kind = &kinds[e];
        for (i, &p) in s.iter().enumerate() {
            if p == 0.0 {
                continue;
            }
            next[1][i] += p * kind.time;
            for (d, &q) in kind.count.iter().enumerate().skip(kind.first) {
                next[0][i + d] += p * q;
            }
        }
    }
    for s in &mut next {
        while s.len() > 1 && s.last() == Some(&0.0) {
            s.pop();
        }
    }
    next
}

/// R₁, the time from a key's arrival to the next switch, jointly with how
/// that switch comes: E[(z - R₁)⁺; kind] for each kind.
struct Forward {
    tau: f64,
    h: f64,
    /// P(R₁'s switch ends on time).
    time: f64,
    /// E[(x_k - R₁)⁺; count end] at x_k = k·h, k = 0 ..= τ/h.
    count_excess: Vec<f64>,
    /// P(R₁'s switch ends on count).
    count: f64,
}

impl Forward {
    fn new(kinds: &[Kind; 2], w: [f64; 2], tau: f64, h: f64, steps: usize) -> Forward {
        // density of R₁ at x with a count end: Σ_e w_e P(x < G_e < τ), and
        // P(x < G_e < τ) is the mass of deficits below τ - x
        let mut below = vec![0.0; steps + 2];
        for (e, kind) in kinds.iter().enumerate() {
            let mut acc = 0.0;
            for (d, slot) in below.iter_mut().enumerate() {
                let here = kind.count.get(d).copied().unwrap_or(0.0);
                // deficits < d·h: all the lower points and half of this one
                *slot += w[e] * (acc + here / 2.0);
                acc += here;
            }
        }
        let density = |k: usize| below[steps - k];
        let (mut cdf, mut excess) = (0.0, vec![0.0; steps + 1]);
        for k in 1..=steps {
            let step_mass = (density(k - 1) + density(k)) / 2.0 * h;
            excess[k] = excess[k - 1] + (cdf + step_mass / 2.0) * h;
            cdf += step_mass;
        }
        Forward {
            tau,
            h,
            time: w.iter().zip(kinds).map(|(w, k)| w * k.time * tau).sum(),
            count_excess: excess,
            count: cdf,
        }
    }

    /// E[(z - R₁)⁺; R₁'s switch is of kind `kind`] (0: count, 1: time).
    fn excess(&self, kind: usize, z: f64) -> f64 {
        if z <= 0.0 {
            return 0.0;
        }
        if kind == 1 {
            // uniform on (0, τ) with total mass `time`
            let per = self.time / self.tau;
            return if z <= self.tau {
                per * z * z / 2.0
            } else {
                self.time * (z - self.tau / 2.0)
            };
        }
        let last = self.count_excess.len() - 1;
        let x = z / self.h;
        if x >= last as f64 {
            return self.count_excess[last] + self.count * (z - self.tau);
        }
        let i = x.floor() as usize;
        let f = x - i as f64;
        self.count_excess[i] * (1.0 - f) + self.count_excess[i + 1] * f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ln_gamma_matches_factorials() {
        for (a, fact) in [(1.0, 1.0f64), (5.0, 24.0), (11.0, 3_628_800.0)] {
            assert!((ln_gamma(a) - fact.ln()).abs() < 1e-10, "{a}");
        }
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-10);
    }

    /// The kinds' laws sum to one, and the forward recurrence's two parts
    /// sum to one (a key is somewhere in a generation).
    #[test]
    fn the_laws_are_probabilities() {
        for rate in [500.0, 1000.0, 2000.0] {
            let (tau, g) = (1.0, 1000.0);
            let h = 1e-3;
            let points = 1001;
            let kinds = [
                Kind::new(g, rate, tau, h, points),
                Kind::new(g + 1.0, rate, tau, h, points),
            ];
            for k in &kinds {
                let total: f64 = k.count.iter().sum::<f64>() + k.time;
                assert!((total - 1.0).abs() < 1e-9, "{rate}: {total}");
            }
            let pi_time = kinds[0].time / (1.0 - kinds[1].time + kinds[0].time);
            let pi = [1.0 - pi_time, pi_time];
            let norm = pi[0] * (tau - kinds[0].deficit(h)) + pi[1] * (tau - kinds[1].deficit(h));
            let f = Forward::new(&kinds, [pi[0] / norm, pi[1] / norm], tau, h, 1000);
            assert!(
                (f.time + f.count - 1.0).abs() < 1e-3,
                "{rate}: {}",
                f.time + f.count
            );
        }
    }

    /// Far below g/τ nothing ends on count; far above, every generation
    /// lasts about g/R and a key survives only kept of them.
    #[test]
    fn the_limits_are_right() {
        let kept_only = |j: u64| if j <= 6 { 1.0 } else { 0.0 };
        let slow = HybridRenewal {
            tau: 1.0,
            g: 1000,
            rate: 500.0,
        };
        assert_eq!(slow.loss(6, 7, &kept_only), Some(0.0));
        // at 4 g/τ generations last τ/4 ± 0.8%: a key is lost once 7 of
        // them end, after R₁ + 6·τ/4 on average, R₁ about τ/8: ages above
        // 1.625τ of the window's 6τ, a share 0.729
        let fast = HybridRenewal {
            tau: 1.0,
            g: 1000,
            rate: 4000.0,
        };
        let loss = fast.loss(6, 7, &kept_only).unwrap();
        assert!((loss - (6.0 - 1.625) / 6.0).abs() < 2e-3, "{loss}");
        assert_eq!(fast.loss(0, 7, &kept_only), None);
    }
}
