//! The Stable Bloom filter's theory against simulation: the stable point,
//! the convergence curve, the stable FPR and the false-negative rate by age.
//! Two-sided checks at 4.5 standard errors, fixed seeds.

mod common;

use bloomlab_filters::stable::{theory::StableTheory, Decrement, StableBloomFilter};
use bloomlab_filters::Filter;
use bloomlab_filters::{StableShape, Target};
use common::{assert_mean, assert_rate, Keys};

fn configs() -> Vec<StableBloomFilter> {
    vec![
        StableBloomFilter::new(StableShape {
            cells: 4000,
            cell_bits: 1,
            hashes: 3,
            decrements: 4,
        })
        .unwrap(),
        StableBloomFilter::new(StableShape {
            cells: 4000,
            cell_bits: 2,
            hashes: 4,
            decrements: 9,
        })
        .unwrap(),
        Target::memory(18_000)
            .cell_bits(3)
            .hashes(5)
            .fpr(0.02)
            .build::<StableBloomFilter>()
            .unwrap(),
    ]
}

#[test]
fn convergence_curve_matches_theory() {
    for proto in configs() {
        let t = proto.theory();
        let horizon = t.steps_to_stable(1e-3);
        let checkpoints: Vec<u64> = [0.02, 0.1, 0.3, 0.6, 1.0, 2.0]
            .iter()
            .map(|f| ((horizon as f64 * f) as u64).max(1))
            .collect();
        let mut samples = vec![Vec::new(); checkpoints.len()];
        for run in 0..60u64 {
            let mut f = proto.clone().with_seed(run);
            let keys = Keys::new(bloomlab_filters::hash::mix64(run + 1000)); // unrelated streams per run
            let mut step = 0;
            for (c, &target) in checkpoints.iter().enumerate() {
                while step < target {
                    step += 1;
                    f.insert(keys.stream(step));
                }
                samples[c].push(f.count_zero_fraction());
            }
        }
        for (c, &target) in checkpoints.iter().enumerate() {
            assert_mean(
                &format!(
                    "(m={}, d={}, K={}, P={}) zero fraction at t={target}",
                    t.m, t.d, t.k, t.p
                ),
                &samples[c],
                t.zero_fraction_at(target),
            );
        }
    }
}

/// A filter run to its stable point, then sampled `rounds` times, `spacing`
/// insertions apart.
fn stable_samples(
    proto: &StableBloomFilter,
    rounds: u64,
    mut each: impl FnMut(&StableBloomFilter, &Keys, u64),
) {
    let t = proto.theory();
    let warm = 2 * t.steps_to_stable(1e-4);
    let spacing = t.steps_to_stable(1e-2);
    let mut f = proto.clone().with_seed(99);
    let keys = Keys::new(5);
    let mut step = 0;
    for r in 0..rounds {
        let until = if r == 0 { warm } else { step + spacing };
        while step < until {
            step += 1;
            f.insert(keys.stream(step));
        }
        each(&f, &keys, step);
    }
}

#[test]
fn stable_point_and_fpr_match_theory() {
    for proto in configs() {
        let t = proto.theory();
        let (mut zeros, mut fp, mut n, mut neg) = (Vec::new(), 0u64, 0u64, 0u64);
        stable_samples(&proto, 150, |f, keys, _| {
            zeros.push(f.count_zero_fraction());
            for _ in 0..4000 {
                neg += 1;
                fp += f.contains(keys.negative(neg)) as u64;
                n += 1;
            }
        });
        let what = format!("(m={}, d={}, K={}, P={})", t.m, t.d, t.k, t.p);
        assert_mean(
            &format!("{what} stable zero fraction"),
            &zeros,
            t.zero_fraction(),
        );
        assert_rate(&format!("{what} stable FPR"), fp, n, t.fpr());
    }
}

#[test]
fn false_negatives_by_age_match_theory() {
    for proto in configs() {
        let t = proto.theory();
        let what = format!("(m={}, d={}, K={}, P={})", t.m, t.d, t.k, t.p);
        // ages around the FNR's rise: from FNR 1% to 90% of its limit
        let lo = t.age_at_fnr(0.01).unwrap();
        let hi = t.age_at_fnr(0.9 * (1.0 - t.fpr())).unwrap();
        let ages: Vec<u64> = (0..8).map(|i| lo + (hi - lo) * i / 7).collect();
        let mut missed = vec![0u64; ages.len()];
        let mut n = 0u64;
        stable_samples(&proto, 400, |f, keys, step| {
            for (i, &age) in ages.iter().enumerate() {
                missed[i] += !f.contains(keys.stream(step + 1 - age)) as u64;
            }
            n += 1;
        });
        for (i, &age) in ages.iter().enumerate() {
            assert_rate(
                &format!("{what} FNR at age {age}"),
                missed[i],
                n,
                t.fnr_at_age(age),
            );
        }
        // and no key younger than Max + 1 is ever lost
        stable_samples(&proto, 50, |f, keys, step| {
            for age in 1..=t.max() {
                assert!(f.contains(keys.stream(step + 1 - age)));
            }
        });
    }
}

/// Adjacent decrements keep each cell's marginal probability P/m, so the mean
/// stable zero fraction is unchanged (the variance is not; see the harness
/// experiment for FPR and FNR).
#[test]
fn adjacent_decrements_keep_the_stable_point() {
    let proto = StableBloomFilter::new(StableShape {
        cells: 4000,
        cell_bits: 2,
        hashes: 4,
        decrements: 9,
    })
    .unwrap()
    .with_decrement(Decrement::Adjacent);
    let t: StableTheory = proto.theory();
    let mut zeros = Vec::new();
    stable_samples(&proto, 150, |f, _, _| zeros.push(f.count_zero_fraction()));
    assert_mean("adjacent: stable zero fraction", &zeros, t.zero_fraction());
}
