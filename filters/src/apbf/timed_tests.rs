use super::*;
use crate::hash::mix64;
use crate::{Filter, TimedFilter};
use rand::{Rng, SeedableRng};

/// Random timestamps: mostly short gaps, sometimes a burst (zero gaps) and
/// sometimes a lull of several generations.
fn gaps(seed: u64, n: usize, tau: u64) -> Vec<u64> {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    (0..n)
        .map(|_| match rng.random_range(0..100) {
            0..=29 => 0,
            30..=97 => rng.random_range(0..tau / 20),
            _ => rng.random_range(0..4 * tau),
        })
        .collect()
}

/// Inserts keys at the given gaps; after each, checks every key still
/// inside its guarantee. `guaranteed(age_time, later_insertions)`.
fn check_guarantee(mut f: TimedApbf, gaps: &[u64], guaranteed: impl Fn(u64, u64) -> bool) {
    let mut now = 0u64;
    let mut keys: Vec<(u64, u64)> = Vec::new();
    for (i, &gap) in gaps.iter().enumerate() {
        now += gap;
        f.advance(now);
        let key = mix64(i as u64);
        f.insert(key);
        keys.push((key, now));
        let n = keys.len() as u64;
        for (j, &(key, at)) in keys.iter().enumerate().rev() {
            let later = n - 1 - j as u64;
            if !guaranteed(now - at, later) {
                continue;
            }
            assert!(f.contains(key), "key {j} of age {} lost", now - at);
        }
        keys.retain(|&(_, at)| now - at < f.window_time() + f.slack_time());
    }
}

#[test]
fn the_time_trigger_reports_every_key_younger_than_l_tau() {
    for seed in 0..4 {
        let f = TimedApbf::new(
            crate::ApbfShape {
                hashes: 3,
                extra_slices: 4,
                generation: 50,
            },
            1000,
            Trigger::Time,
        )
        .unwrap();
        let t = f.window_time();
        assert_eq!(t, 4000);
        check_guarantee(f, &gaps(seed, 3000, 1000), |age, _| age < t);
    }
}

#[test]
fn the_hybrid_reports_every_key_within_its_mixed_rule() {
    for seed in 0..4 {
        let (k, l, g, tau) = (3, 4, 50, 1000);
        let f = TimedApbf::new(
            crate::ApbfShape {
                hashes: k,
                extra_slices: l,
                generation: g,
            },
            tau,
            Trigger::Hybrid,
        )
        .unwrap();
        check_guarantee(f, &gaps(seed, 3000, tau), |age, later| {
            age / tau + later / g < l as u64
        });
    }
}

/// The rule is tight: a key right at the edge of the window is lost.
#[test]
fn keys_older_than_the_window_are_lost() {
    let mut f = TimedApbf::new(
        crate::ApbfShape {
            hashes: 2,
            extra_slices: 3,
            generation: 10,
        },
        100,
        Trigger::Time,
    )
    .unwrap();
    f.advance(5);
    let key = mix64(1);
    f.insert(key);
    // the generation began at 0: the (l + 1)-th shift after it is at 400
    f.advance(399);
    assert!(f.contains(key));
    f.advance(400);
    f.advance(600);
    assert!(!f.contains(key));
    // time does not run backwards
    f.advance(10);
    assert_eq!(f.now(), 600);
}

/// After a lull of (k + l)τ every slice has been cleared: nothing older
/// is remembered, however few keys came since (the count-based APBF keeps
/// them for ever).
#[test]
fn a_lull_of_k_plus_l_generations_empties_the_filter() {
    for trigger in [Trigger::Time, Trigger::Hybrid] {
        let mut f = TimedApbf::new(
            crate::ApbfShape {
                hashes: 3,
                extra_slices: 2,
                generation: 20,
            },
            100,
            trigger,
        )
        .unwrap();
        for i in 0..500u64 {
            f.advance(i);
            f.insert(mix64(i));
        }
        f.advance(499 + 5 * 100);
        let bits = &f.inner().bits;
        assert_eq!(bits.count_ones_in(0, bits.len()), 0, "{trigger:?}");
        if trigger == Trigger::Time {
            assert_eq!(f.generation_start(), 900);
        }
    }
}

/// The hybrid never puts more than g keys in a generation; the time
/// trigger does under a burst.
#[test]
fn only_the_hybrid_caps_a_generation_at_g() {
    let mut time = TimedApbf::new(
        crate::ApbfShape {
            hashes: 3,
            extra_slices: 2,
            generation: 20,
        },
        100,
        Trigger::Time,
    )
    .unwrap();
    let mut hybrid = TimedApbf::new(
        crate::ApbfShape {
            hashes: 3,
            extra_slices: 2,
            generation: 20,
        },
        100,
        Trigger::Hybrid,
    )
    .unwrap();
    let mut most = (0, 0);
    for i in 0..1000u64 {
        for f in [&mut time, &mut hybrid] {
            f.advance(i / 10); // ten keys per time unit: 50 g per τ
            f.insert(mix64(i));
        }
        most = (
            most.0.max(time.in_generation()),
            most.1.max(hybrid.in_generation()),
        );
    }
    assert_eq!(most, (1000, 20));
    assert_eq!(hybrid.inserted(), 1000);
}

#[test]
fn parameters_and_sizing() {
    assert!(TimedApbf::new(
        crate::ApbfShape {
            hashes: 3,
            extra_slices: 2,
            generation: 20
        },
        0,
        Trigger::Time
    )
    .is_err());
    assert!(TimedApbf::new(
        crate::ApbfShape {
            hashes: 3,
            extra_slices: 2,
            generation: 0
        },
        10,
        Trigger::Time
    )
    .is_err());
    assert!(TimedApbf::new(
        crate::ApbfShape {
            hashes: 3,
            extra_slices: 2,
            generation: 20
        },
        u64::MAX / 4,
        Trigger::Time
    )
    .is_err());
    let target = crate::Target::time(50_000.0, 20.0).fpr(1e-3);
    let f: TimedApbf = target.clone().trigger(Trigger::Hybrid).build().unwrap();
    assert!(f.window_time() >= 50_000 && f.window_time() < 50_000 + f.l() as u64);
    assert_eq!(f.g(), 1_000_000u64.div_ceil(f.l() as u64));
    assert!(f.theory().count_based().fpr() <= 1.01e-3);
    assert_eq!(f.name(), "apbf_hybrid");
    assert_eq!(f.slack_time(), f.k() as u64 * f.tau());
    assert_eq!(f.memory_bits(), (f.k() + f.l()) as u64 * f.m() + 4 * 64);
    assert_eq!(f.trigger(), Trigger::Hybrid);
    assert!(crate::Target::time(0.0, 10.0)
        .fpr(0.01)
        .build::<TimedApbf>()
        .is_err());
    assert!(target.fpr(1.5).build::<TimedApbf>().is_err());
}
