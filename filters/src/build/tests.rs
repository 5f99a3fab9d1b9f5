use super::*;
use crate::apbf::blocked::concurrent::ConcurrentApbf;
use crate::apbf::theory as apbf_theory;
use crate::naor_yogev::NaorYogev;
use crate::segmented::{A2Buffer, DoubleBuffer, ForgetfulBloom, JumpingWindow};
use crate::timewindow::{OnTime, Trigger};
use crate::timing::{TimedSwbf, TimedTbf};
use crate::{Apbf, BlockedApbf, Broom, NyPocket, StableBloomFilter, Swamp, Swbf, TimingBloom};
use crate::{Filter, SlidingFilter, TimedFilter};

/// Every count design built for a window gives at least that window,
/// within the largest slack asked for when it has one.
#[test]
fn count_designs_meet_their_window() {
    let t = Target::window(5000).fpr(1e-2);
    fn check<F: Build + SlidingFilter>(t: &Target) -> F {
        let f: F = t.build().unwrap();
        assert!(f.window() >= 5000, "{}: window {}", f.name(), f.window());
        f
    }
    check::<Apbf>(&t);
    check::<BlockedApbf>(&t);
    check::<NaorYogev>(&t);
    check::<NyPocket>(&t);
    check::<Swamp>(&t);
    check::<TimingBloom>(&t);
    check::<Swbf>(&t);
    check::<JumpingWindow>(&t);
    check::<DoubleBuffer>(&t);
    check::<A2Buffer>(&t);
    check::<ForgetfulBloom>(&t);
    check::<crate::sliding_sketch::SlidingBloom>(&t);
    check::<crate::half_sliding::HalfSliding>(&t);
    check::<crate::clock_sketch::ClockBloom>(&t);
    check::<crate::she::SheBloom>(&t);
    let b: Broom = t.build().unwrap();
    assert!(b.name() == "broom");
    // a largest slack: the APBF and Naor-Yogev are sized within it
    let s = t.clone().max_slack(1000);
    assert!(check::<Apbf>(&s).slack() <= 1000);
    assert!(check::<NaorYogev>(&s).slack() <= 1000);
    // the others are checked against it
    assert!(matches!(
        s.build::<DoubleBuffer>(),
        Err(ParamError::Unreachable { .. })
    ));
    let c: ConcurrentApbf = t.build().unwrap();
    assert_eq!(c.window(), BlockedApbf::build(&t).unwrap().window());
}

/// The APBF's sizing is its theory's: the (k, l) of fewest bits meeting
/// the FPR, and within a slack the choice among larger l.
#[test]
fn apbf_sizing_is_its_theory() {
    let f: Apbf = Target::window(10_000).fpr(1e-3).build().unwrap();
    assert_eq!(
        (f.k(), f.l()),
        apbf_theory::choose_kl(1e-3, crate::apbf::DEFAULT_MAX_L).unwrap()
    );
    assert!(f.theory().fpr() <= 1e-3);
    let g: Apbf = Target::window(10_000)
        .fpr(1e-3)
        .max_slack(2000)
        .build()
        .unwrap();
    let (k, l) = apbf_theory::choose_kl_with_slack(1e-3, 10_000, 2000, MAX_L_WITH_SLACK).unwrap();
    assert_eq!((g.k(), g.l()), (k, l));
}

/// Time designs: the window of time asked for (T in ticks), and the
/// count designs refuse a time window and the other way round.
#[test]
fn time_designs_meet_their_window_of_time() {
    let t = Target::time(60.0, 100.0).ticks_per_unit(1000.0).fpr(1e-2);
    fn check<F: Build + TimedFilter>(t: &Target) -> F {
        let f: F = t.build().unwrap();
        assert!(
            f.window_time() >= 60_000,
            "{}: {}",
            f.name(),
            f.window_time()
        );
        f
    }
    // the time trigger by default: it keeps every key younger than T
    let a = check::<OnTime<Apbf>>(&t);
    assert_eq!(a.trigger(), Trigger::Time);
    assert_eq!(
        check::<OnTime<Apbf>>(&t.clone().trigger(Trigger::Hybrid)).trigger(),
        Trigger::Hybrid
    );
    check::<OnTime<NaorYogev>>(&t);
    check::<OnTime<JumpingWindow>>(&t);
    check::<OnTime<DoubleBuffer>>(&t);
    check::<TimedTbf>(&t);
    check::<TimedSwbf>(&t);
    check::<crate::sliding_sketch::TimedSlidingBloom>(&t);
    check::<crate::half_sliding::TimedHalfSliding>(&t);
    check::<crate::clock_sketch::TimedClockBloom>(&t);
    check::<crate::tlbf::Tlbf>(&t);
    check::<crate::she::TimedSheBloom>(&t);
    let c: ConcurrentApbf = t.build().unwrap();
    assert!(c.window() >= 60_000);
    assert_eq!(c.trigger(), Some(Trigger::Time));
    // the hybrid-only designs: a generation holds R·τ + one unit's keys +
    // 6√(R·τ) by default, exactly R·τ (rounded up) at burst 0
    let ny: OnTime<NaorYogev> = t.build().unwrap();
    let per_tau = 100.0 * ny.tau() as f64 / 1000.0;
    let g = crate::Generational::generation_size(ny.inner()) as f64;
    assert!(g >= per_tau + 100.0 + 6.0 * per_tau.sqrt(), "{g} {per_tau}");
    let sw: TimedSwbf = t.clone().burst(0.0).build().unwrap();
    assert_eq!(sw.g() as f64, (100.0 * sw.delta() as f64 / 1000.0).ceil());
    assert!(t.clone().burst(-1.0).build::<TimedSwbf>().is_err());
    assert!(matches!(
        t.build::<Apbf>(),
        Err(ParamError::OutOfRange { name: "window", .. })
    ));
    let count = Target::window(100).fpr(1e-2);
    assert!(matches!(
        count.build::<OnTime<Apbf>>(),
        Err(ParamError::OutOfRange { name: "window", .. })
    ));
}

/// Missing or bad inputs are typed errors, never panics.
#[test]
fn bad_targets_are_errors() {
    assert!(Target::window(100).build::<Apbf>().is_err()); // no fpr
    assert!(Target::window(0).fpr(1e-2).build::<Apbf>().is_err());
    assert!(Target::window(100).fpr(f64::NAN).build::<Apbf>().is_err());
    assert!(Target::window(100).fpr(1.5).build::<Swamp>().is_err());
    assert!(Target::time(f64::NAN, 5.0)
        .fpr(1e-2)
        .build::<OnTime<Apbf>>()
        .is_err());
    assert!(Target::time(1.0, -5.0)
        .fpr(1e-2)
        .build::<TimedTbf>()
        .is_err());
    assert!(Target::time(1.0, 5.0)
        .ticks_per_unit(0.0)
        .fpr(1e-2)
        .build::<OnTime<DoubleBuffer>>()
        .is_err());
    assert!(Target::time(60.0, 5.0)
        .fpr(1e-2)
        .segments(1)
        .build::<OnTime<JumpingWindow>>()
        .is_err());
    // memory: a limit for the others, the size of the Stable Bloom filter
    let small = Target::window(100_000).fpr(1e-3).max_memory_bits(1000);
    assert!(matches!(
        small.build::<Apbf>(),
        Err(ParamError::Unreachable { .. })
    ));
    assert!(Target::window(100)
        .fpr(1e-2)
        .build::<StableBloomFilter>()
        .is_err());
    let s: StableBloomFilter = Target::window(100)
        .fpr(1e-2)
        .max_memory_bits(1 << 16)
        .build()
        .unwrap();
    assert!(s.memory_bits() <= 1 << 17);
    // a target of memory alone: the Stable filter's; a windowed design refuses it
    let m: StableBloomFilter = Target::memory(1 << 16).fpr(1e-2).build().unwrap();
    assert_eq!(m.theory().fpr(), s.theory().fpr());
    assert!(Target::memory(1 << 16).fpr(1e-2).build::<Apbf>().is_err());
}

#[test]
fn the_options_replace_the_sized_constructors() {
    // l given: the smallest k meeting the FPR (the old with_fpr_and_l)
    let a: Apbf = Target::window(7000)
        .fpr(1e-3)
        .extra_slices(5)
        .build()
        .unwrap();
    assert_eq!(a.l(), 5);
    assert!(crate::apbf::theory::fpr(a.k(), 5) <= 1e-3);
    assert!(crate::apbf::theory::fpr(a.k() - 1, 5) > 1e-3);
    // (k, l) given: built as given when it meets the FPR, refused when not
    let b: Apbf = Target::window(7000)
        .fpr(1e-2)
        .hashes(10)
        .extra_slices(7)
        .build()
        .unwrap();
    assert_eq!((b.k(), b.l(), b.window()), (10, 7, 7000));
    let miss = Target::window(7000).fpr(1e-6).hashes(4).extra_slices(7);
    assert!(matches!(
        miss.build::<Apbf>(),
        Err(ParamError::Unreachable { .. })
    ));
    assert!(Target::window(7000)
        .fpr(1e-3)
        .hashes(4)
        .build::<Apbf>()
        .is_err());
    assert!(Target::window(7000)
        .fpr(1e-3)
        .extra_slices(0)
        .build::<Apbf>()
        .is_err());
    // the blocked APBF at a given (k, l): the fewest blocks meeting the FPR
    let c: BlockedApbf = Target::window(10_000)
        .fpr(1.5e-3)
        .hashes(11)
        .extra_slices(10)
        .build()
        .unwrap();
    assert_eq!((c.k(), c.l()), (11, 10));
    assert!(c.theory().fpr().unwrap() <= 1.5e-3);
    // the Stable filter with d and K given: P from the FPR (the old with_fpr_for)
    let d: StableBloomFilter = Target::memory(30_000)
        .fpr(0.02)
        .cell_bits(3)
        .hashes(5)
        .build()
        .unwrap();
    assert_eq!((d.m(), d.d(), d.k()), (10_000, 3, 5));
    assert!(d.theory().fpr() <= 0.02);
    assert!(Target::memory(30_000)
        .fpr(0.02)
        .cell_bits(3)
        .build::<StableBloomFilter>()
        .is_err());
    // the Naor-Yogev generations (the old with_c)
    let n: NyPocket = Target::window(4096)
        .fpr(1e-3)
        .generations(4)
        .build()
        .unwrap();
    assert_eq!(n.sizing().c, 4);
}
