//! The pocket-dictionary sliding filter against its theory
//! (`ny_pocket::theory`): exact presence boundaries over many tag wraparounds
//! for random parameters, the FPR at the worst phase and over random phases
//! (with enough queries that the formula scaled by 5% either way fails), the
//! FPR of keys far beyond the window, and the stash at the default load.

mod common;

use bloomlab_filters::ny_pocket::{NyPocket, DEFAULT_MAX_LOAD};
use bloomlab_filters::NyPocketShape;
use bloomlab_filters::{Filter, SlidingFilter};
use common::{assert_rate, Keys, Rng, Z};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// With ε = 1e-12 no two keys collide at these sizes, so presence is
    /// exact: yes iff age <= φ + cg, for every age up to n + s + g, after
    /// every insertion of 10 windows, and at random ages across three tag
    /// cycles (an entry still stored when its tag value comes round again
    /// would answer yes there).
    #[test]
    fn presence_is_exactly_the_generations_rule(n in 2u64..300, c_frac in 0.0f64..1.0, salt in any::<u64>()) {
        let c = 1 + ((n - 1) as f64 * c_frac) as u64;
        let m = bloomlab_filters::naor_yogev::theory::slack_of(n, c).max(1);
        let mut f = NyPocket::new(NyPocketShape { window: n, slack: m, fpr: 1e-12, generations: Some(c), max_load: Some(0.9) }).unwrap();
        let (s, g) = (f.slack(), f.period());
        let keys = Keys::new(salt);
        let mut rng = Rng(salt);
        let cycle = (c + 2) * g;
        for t in 1..=10 * (n + s) {
            f.insert(keys.stream(t));
            let phase = (t - 1) % g + 1;
            for age in 1..=t.min(n + s + g) {
                prop_assert_eq!(f.contains(keys.stream(t + 1 - age)), age <= phase + c * g,
                    "n {} c {} t {} age {}", n, c, t, age);
            }
            for _ in 0..8 {
                let age = rng.range(1, t.min(3 * cycle));
                prop_assert_eq!(f.contains(keys.stream(t + 1 - age)), age <= phase + c * g,
                    "revived: n {} c {} t {} age {}", n, c, t, age);
            }
        }
    }
}

/// z-score of `x` successes in `n` trials against rate `p`.
fn z(x: u64, n: u64, p: f64) -> f64 {
    (x as f64 - n as f64 * p).abs() / (n as f64 * p * (1.0 - p)).sqrt()
}

/// FPR over `states` filter states at the phase `phase(state)`: (false
/// positives, queries, theory averaged over the states).
fn fpr_at_phases(
    f: &mut NyPocket,
    states: u64,
    per_state: u64,
    mut phase: impl FnMut(u64) -> u64,
) -> (u64, u64, f64) {
    let keys = Keys::new(0x05EE_D0F9_C4E7);
    let size = *f.sizing();
    let (n, s, g) = (f.window(), f.slack(), f.period());
    let (mut t, mut fp, mut q, mut theory, mut neg) = (0u64, 0u64, 0u64, 0.0, 0u64);
    for st in 0..states {
        let base = ((st + 2) * (n + s)).div_ceil(g) * g;
        let p = phase(st);
        while t < base + p {
            t += 1;
            f.insert(keys.stream(t));
        }
        for _ in 0..per_state {
            neg += 1;
            fp += f.contains(keys.negative(neg)) as u64;
            q += 1;
        }
        theory += size.fpr_at(p);
    }
    (fp, q, theory / states as f64)
}

#[test]
fn fpr_matches_theory_and_a_five_percent_change_would_fail() {
    for (n, m, eps, queries) in [
        (20_000u64, 2_000u64, 0.05, 2_000_000u64),
        (20_000, 20_000, 0.01, 4_000_000),
        (5_000, 5_000, 1e-3, 20_000_000),
    ] {
        let mut f = NyPocket::new(NyPocketShape {
            window: n,
            slack: m,
            fpr: eps,
            generations: None,
            max_load: None,
        })
        .unwrap();
        let g = f.period();
        let (fp, q, th) = fpr_at_phases(&mut f, 100, queries / 100, |_| g);
        assert!((th - f.sizing().fpr()).abs() < 1e-15 && th <= eps);
        let what = format!("worst-phase FPR n {n} m {m} eps {eps}");
        assert_rate(&what, fp, q, th);
        for scale in [0.95, 1.05] {
            assert!(
                z(fp, q, th * scale) > Z,
                "{what}: the test cannot tell the formula from {scale} x it"
            );
        }
        let mut f = NyPocket::new(NyPocketShape {
            window: n,
            slack: m,
            fpr: eps,
            generations: None,
            max_load: None,
        })
        .unwrap();
        let mut rng = Rng(9);
        let (fp, q, th) = fpr_at_phases(&mut f, 100, queries / 100, |_| rng.range(1, g));
        assert_rate(&format!("random-phase FPR n {n} eps {eps}"), fp, q, th);
        let avg = f.sizing().fpr_avg();
        assert!((avg - th).abs() < 0.05 * avg, "avg {avg} vs {th}");
    }
}

/// Keys whose entries expired long ago, at ages spanning several tag cycles,
/// are reported at the FPR.
#[test]
fn expired_keys_do_not_come_back_when_tags_wrap() {
    for c in [1u64, 2, 6] {
        let n = 3000;
        let shape = NyPocketShape {
            window: n,
            slack: n,
            fpr: 0.02,
            generations: Some(c),
            max_load: Some(DEFAULT_MAX_LOAD),
        };
        let mut f = NyPocket::new(shape).unwrap();
        let size = *f.sizing();
        let keys = Keys::new(0xABCD_EF01);
        let (s, g) = (f.slack(), f.period());
        let cycle = (c + 2) * g;
        let (mut yes, mut q, mut t, mut theory) = (0u64, 0u64, 0u64, 0.0);
        let mut rng = Rng(c);
        for _ in 0..400 {
            let until = t + rng.range(1, g);
            while t < until {
                t += 1;
                f.insert(keys.stream(t));
            }
            if t < 4 * cycle {
                continue;
            }
            for _ in 0..200 {
                let age = rng.range(n + s + 1, 4 * cycle);
                yes += f.contains(keys.stream(t + 1 - age)) as u64;
                q += 1;
                theory += size.fpr_at((t - 1) % g + 1);
            }
        }
        assert!(q > 20_000);
        assert_rate(&format!("expired keys, c = {c}"), yes, q, theory / q as f64);
    }
}

/// At the default load the stash stays small, and every key of the window
/// is found; the memory counts the stash's allocation.
#[test]
fn the_stash_stays_small_at_the_default_load() {
    let n = 1 << 16;
    let mut f = NyPocket::new(NyPocketShape {
        window: n,
        slack: n,
        fpr: 1e-3,
        generations: None,
        max_load: None,
    })
    .unwrap();
    let keys = Keys::new(0x57A5);
    for t in 1..=6 * n {
        f.insert(keys.stream(t));
    }
    for age in 1..=n {
        assert!(f.contains(keys.stream(6 * n + 1 - age)), "age {age}");
    }
    eprintln!("n = 2^16, eps 1e-3: max stash {}", f.max_stash());
    assert!(f.max_stash() < 64, "max stash {}", f.max_stash());
    assert_eq!(
        f.memory_bits(),
        f.sizing().memory_bits() + f.stash_capacity() as u64 * 128
    );
}
