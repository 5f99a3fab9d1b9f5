//! The simulation both exact-loads designs are tested by (the blocked APBF,
//! `blocked_vs_simulation.rs`; the line APBF, `line_vs_simulation.rs`): a
//! filter fed a stream of distinct keys, its FPR scored per round, and the
//! three checks of its theory.
//!
//! Queries that share one filter state are correlated through the block
//! (line) loads (a crowded block is crowded for every query that lands in
//! it), so counts are not binomial: each check scores the mean of per-round
//! rates, with rounds k + l generations apart (every slice replaced between
//! rounds), by its empirical standard error.

use crate::common::{assert_mean, Keys, Rng, Z};
use bloomlab_filters::window::shifts_at_age;
use bloomlab_filters::Filter;

/// A design with the exact programme's theory, built from (k, l, g, B).
pub trait Exact: Filter + Sized {
    /// The filter with k, l, g and B blocks (lines).
    fn make(k: u32, l: u32, g: u64, blocks: u64) -> Self;
    /// Its worst-phase FPR in theory, built from the same (k, l, g, B)
    /// without a filter.
    fn theory_fpr(k: u32, l: u32, g: u64, blocks: u64) -> f64;
    /// FPR at phase φ.
    fn fpr_at(&self, phase: u64) -> f64;
    /// The slices at their mean fills.
    fn fpr_independent(&self, phase: u64) -> f64;
    /// P(yes | j shifts).
    fn presence_by_shift(&self, phase: u64) -> Vec<f64>;
}

struct Sim<F> {
    f: F,
    keys: Keys,
    t: u64,
    neg: u64,
}

impl<F: Exact> Sim<F> {
    fn new(k: u32, l: u32, g: u64, blocks: u64, salt: u64) -> Sim<F> {
        let mut s = Sim {
            f: F::make(k, l, g, blocks),
            keys: Keys::new(salt),
            t: 0,
            neg: 0,
        };
        s.advance((k + l + 1) as u64 * g);
        s
    }
    fn advance(&mut self, n: u64) {
        for _ in 0..n {
            self.t += 1;
            self.f.insert(self.keys.stream(self.t));
        }
    }
    fn negative_rate(&mut self, n: u64) -> f64 {
        let mut yes = 0;
        for _ in 0..n {
            self.neg += 1;
            yes += self.f.contains(self.keys.negative(self.neg)) as u64;
        }
        yes as f64 / n as f64
    }
    fn at_age(&self, age: u64) -> u64 {
        self.keys.stream(self.t + 1 - age)
    }
}

/// Per-round FPR at φ = g, and at a random phase with the theory for it.
fn rounds<F: Exact>(
    k: u32,
    l: u32,
    g: u64,
    blocks: u64,
    n: usize,
    per_round: u64,
) -> [Vec<f64>; 3] {
    let mut s = Sim::<F>::new(k, l, g, blocks, 0x5eed ^ k as u64);
    let mut rng = Rng(k as u64 * 31 + l as u64);
    let slices = (k + l) as u64;
    let (mut worst, mut random, mut random_theory) = (vec![], vec![], vec![]);
    for _ in 0..n {
        // at φ = g here
        worst.push(s.negative_rate(per_round));
        let u = rng.range(1, g);
        s.advance(u);
        random.push(s.negative_rate(per_round));
        random_theory.push(s.f.fpr_at(u));
        s.advance(slices * g - u);
    }
    [worst, random, random_theory]
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// The FPR at the worst and at random phases against the theory, for each
/// (k, l, g, B).
pub fn fpr_matches_the_exact_programme<F: Exact>(configs: &[(u32, u32, u64, u64)]) {
    for &(k, l, g, blocks) in configs {
        let fpr = F::theory_fpr(k, l, g, blocks);
        // enough queries for about 20 false positives a round
        let per_round = (40 * blocks).max((20.0 / fpr) as u64);
        let [worst, random, random_theory] = rounds::<F>(k, l, g, blocks, 120, per_round);
        assert_mean(
            &format!("FPR at φ = g, k {k} l {l} B {blocks}"),
            &worst,
            fpr,
        );
        assert_mean(
            &format!("FPR at random φ, k {k} l {l} B {blocks}"),
            &random,
            mean(&random_theory),
        );
    }
}

/// The approximation without the loads' variance refuted by the same data
/// that accepts the exact programme.
pub fn independent_slices_approximation_is_rejected<F: Exact>(k: u32, l: u32, g: u64, blocks: u64) {
    let [worst, ..] = rounds::<F>(k, l, g, blocks, 120, 40 * blocks);
    let m = mean(&worst);
    let var = worst.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (worst.len() - 1) as f64;
    let se = (var / worst.len() as f64).sqrt();
    let indep = F::make(k, l, g, blocks).fpr_independent(g);
    assert!(
        (m - indep) / se > Z,
        "independent approximation {indep:.3e} not rejected by {m:.3e} ± {se:.1e}"
    );
    assert_mean("exact", &worst, F::theory_fpr(k, l, g, blocks));
}

/// P(yes | j shifts) at φ = g against the theory, no false negative up to
/// j = l.
pub fn presence_in_the_slack_matches_theory<F: Exact>(k: u32, l: u32, g: u64, blocks: u64) {
    let mut s = Sim::<F>::new(k, l, g, blocks, 77);
    let slices = (k + l) as u64;
    let by_j = s.f.presence_by_shift(g);
    let mut per_j: Vec<Vec<f64>> = vec![Vec::new(); slices as usize + 1];
    for _ in 0..150 {
        // at φ = g: keys of age a were shifted j(a) times
        let mut yes = vec![(0u64, 0u64); slices as usize + 1];
        for age in 1..=(slices + 1) * g {
            let j = shifts_at_age(age, g, g).min(slices) as usize;
            let y = s.f.contains(s.at_age(age)) as u64;
            yes[j].0 += y;
            yes[j].1 += 1;
        }
        for (j, &(y, n)) in yes.iter().enumerate() {
            per_j[j].push(y as f64 / n as f64);
        }
        s.advance(slices * g);
    }
    for j in 0..=slices as usize {
        if j <= l as usize {
            assert!(
                per_j[j].iter().all(|&r| r == 1.0),
                "false negative at j = {j}"
            );
        } else {
            assert_mean(&format!("P(yes | {j} shifts)"), &per_j[j], by_j[j]);
        }
    }
}
