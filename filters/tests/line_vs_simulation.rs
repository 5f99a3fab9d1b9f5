//! The line APBF's theory (the blocked APBF's exact programme with 16-bit
//! lanes over the correlated line loads) against simulation: FPR at the
//! worst and at random phases, P(yes | age) in the slack, and the rejection
//! of the approximation without the line loads' variance. The filters run
//! through the lazy clearing (their lines are cleaned only when written),
//! so these also test that it forgets exactly as a shift that clears.
//!
//! Queries that share one filter state are correlated through the block loads
//! (a crowded block is crowded for every query that lands in it), so counts are
//! not binomial: each test scores the mean of per-round rates, with rounds L
//! generations apart (every slice replaced between rounds), by its empirical
//! standard error.

mod common;

use bloomlab_filters::apbf::line::{default_lines as default_blocks, LineApbf, LineTheory};
use bloomlab_filters::window::shifts_at_age;
use bloomlab_filters::Filter;
use bloomlab_filters::LineApbfShape;
use common::{assert_mean, Keys, Rng, Z};

struct Sim {
    f: LineApbf,
    keys: Keys,
    t: u64,
    neg: u64,
}

impl Sim {
    fn new(k: u32, l: u32, g: u64, blocks: u64, salt: u64) -> Sim {
        let mut s = Sim {
            f: LineApbf::new(LineApbfShape {
                hashes: k,
                extra_slices: l,
                generation: g,
                lines: Some(blocks),
            })
            .unwrap(),
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
fn rounds(k: u32, l: u32, g: u64, blocks: u64, n: usize, per_round: u64) -> [Vec<f64>; 3] {
    let mut s = Sim::new(k, l, g, blocks, 0x5eed ^ k as u64);
    let t = s.f.theory();
    let mut rng = Rng(k as u64 * 31 + l as u64);
    let slices = (k + l) as u64;
    let (mut worst, mut random, mut random_theory) = (vec![], vec![], vec![]);
    for _ in 0..n {
        // at φ = g here
        worst.push(s.negative_rate(per_round));
        let u = rng.range(1, g);
        s.advance(u);
        random.push(s.negative_rate(per_round));
        random_theory.push(t.fpr_at(u).unwrap());
        s.advance(slices * g - u);
    }
    [worst, random, random_theory]
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn fpr_matches_the_exact_programme() {
    // (k, l, g, B): the default memory, a crowded filter, a high-accuracy one
    for (k, l, g, blocks) in [
        (10, 21, 200, default_blocks(10, 200).unwrap()),
        (6, 3, 300, default_blocks(6, 300).unwrap() / 2),
        (4, 9, 250, default_blocks(4, 250).unwrap()),
        (13, 18, 150, default_blocks(13, 150).unwrap()),
    ] {
        let t = LineTheory {
            k,
            l,
            g,
            lines: blocks,
        };
        // enough queries for about 20 false positives a round
        let per_round = (40 * blocks).max((20.0 / t.fpr().unwrap()) as u64);
        let [worst, random, random_theory] = rounds(k, l, g, blocks, 120, per_round);
        assert_mean(
            &format!("FPR at φ = g, k {k} l {l} B {blocks}"),
            &worst,
            t.fpr().unwrap(),
        );
        assert_mean(
            &format!("FPR at random φ, k {k} l {l} B {blocks}"),
            &random,
            mean(&random_theory),
        );
    }
}

#[test]
fn independent_slices_approximation_is_rejected() {
    // the line loads' variance raises the FPR; the approximation that
    // ignores it must be refuted by the same data that accepts the exact
    // programme
    let (k, l, g) = (10, 21, 200);
    let blocks = default_blocks(k, g).unwrap();
    let t = LineTheory {
        k,
        l,
        g,
        lines: blocks,
    };
    let [worst, ..] = rounds(k, l, g, blocks, 120, 40 * blocks);
    let m = mean(&worst);
    let var = worst.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (worst.len() - 1) as f64;
    let se = (var / worst.len() as f64).sqrt();
    let indep = t.fpr_independent(g);
    assert!(
        (m - indep) / se > Z,
        "independent approximation {indep:.3e} not rejected by {m:.3e} ± {se:.1e}"
    );
    assert_mean("exact", &worst, t.fpr().unwrap());
}

#[test]
fn presence_in_the_slack_matches_theory() {
    let (k, l, g) = (6u32, 3u32, 200u64);
    let blocks = default_blocks(k, g).unwrap() / 2;
    let mut s = Sim::new(k, l, g, blocks, 77);
    let t = s.f.theory();
    let slices = (k + l) as u64;
    let by_j = t.presence_by_shift(g).unwrap();
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
