use super::*;

/// The calibration over 1000 seeds at both levels: every kind covers, and
/// a 6% shift of any one interval (up or down) makes that kind clearly
/// short, so the CI check (`bloomlab calibrate --quick --check`) fails on
/// such a shift.
#[test]
fn every_kind_covers_and_a_six_per_cent_shift_is_caught() {
    let cases = cases();
    for level in [0.95, 0.99] {
        let observed = observe(&cases, 1000, level).unwrap();
        for (c, o) in cases.iter().zip(&observed) {
            let as_is = coverage(*c, level, o, 1.0);
            assert_eq!(as_is.verdict, Verdict::Covers, "{}: {as_is:?}", c.interval);
            assert!(!as_is.clearly_short());
            assert_eq!(as_is.estimate_outside, 0, "{}", c.interval);
            for shift in [1.06, 0.94] {
                let moved = coverage(*c, level, o, shift);
                assert!(
                    moved.clearly_short(),
                    "{} shifted by {shift}: {moved:?}",
                    c.interval
                );
            }
        }
    }
}

#[test]
fn verdicts_follow_the_definition() {
    let case = cases()[0];
    // 200 seeds at 95%: two standard errors are 3.1 points
    let obs = |covered: usize| -> Vec<Observed> {
        (0..200)
            .map(|i| {
                if i < covered {
                    (0.2, 0.1, 0.3)
                } else {
                    (0.5, 0.4, 0.6)
                }
            })
            .collect()
    };
    assert_eq!(
        coverage(case, 0.95, &obs(190), 1.0).verdict,
        Verdict::Covers
    );
    assert_eq!(
        coverage(case, 0.95, &obs(184), 1.0).verdict,
        Verdict::Covers
    );
    assert_eq!(coverage(case, 0.95, &obs(183), 1.0).verdict, Verdict::Short);
    assert_eq!(coverage(case, 0.95, &obs(200), 1.0).verdict, Verdict::Wide);
    assert_eq!(
        coverage(case, 0.99, &obs(200), 1.0).verdict,
        Verdict::Covers
    );
}

#[test]
fn the_same_numbers_whatever_the_thread_count() {
    let case = cases()[1];
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let a = one.install(|| observe(&[case], 8, 0.95).unwrap());
    let b = observe(&[case], 8, 0.95).unwrap();
    assert_eq!(a, b);
}
