//! The interval kinds calibrated, each at its point and with its truth.

use super::{
    blur, coin, AttackPoint, Case, CoinPoint, DriftPoint, Point, Source, StablePoint, Truth,
};
use crate::metrics::columns::col;

/// The interval kinds calibrated, each at its point.
pub fn cases() -> Vec<Case> {
    let mut cases = coin_cases();
    cases.extend(drift_cases());
    cases.extend(attack_cases());
    cases.extend(blur_cases());
    cases.extend(stable_cases());
    cases
}

/// Seeds of a Stable filter's pooled truth: 22 times as precise as one
/// seed's estimate.
const STABLE_POOL: u64 = 500;

/// The membership pass's kinds again, at a real design whose round
/// answers all its queries from one state: a Stable Bloom filter of 2048
/// two-bit cells, K = 3, P = 13 (a stable FPR near 0.1), its FNR over
/// ages 1 ..= 400 (about 0.3), each figure's truth pooled over 500 seeds.
fn stable_cases() -> Vec<Case> {
    let point = Point::Stable(StablePoint {
        m: 2048,
        d: 2,
        k: 3,
        p: 13,
        window: 400,
    });
    let case = |interval, column, source| Case {
        interval,
        column,
        source,
        point,
        truth: Truth::Pooled(STABLE_POOL),
        wide: None,
    };
    vec![
        case(
            "fpr (Stable filter): Clopper-Pearson over the pooled queries",
            col::FPR,
            Source::Row(col::FPR),
        ),
        case(
            "fpr_avg (Stable filter): Student t over the rounds' rates",
            col::FPR_AVG,
            Source::Row(col::FPR_AVG),
        ),
        case(
            "fnr (Stable filter): the wider of Clopper-Pearson over the sampled ages and a Student t over the rounds",
            col::FNR,
            Source::Row(col::FNR),
        ),
        case(
            "zero_fraction (Stable filter): Student t over the rounds",
            col::ZERO_FRACTION,
            Source::Row(col::ZERO_FRACTION),
        ),
        case(
            "p_yes (Stable filter's FNR by age, ages 257-320): the wider of Clopper-Pearson and Student t",
            col::P_YES,
            Source::Profile(300),
        ),
    ]
}

/// The summaries' errors, at a `Blur`: the count's over 20 rounds (each a
/// mean over 256 arrivals), the distinct count's and the entropy's, one
/// error a round, over 200 (over 20 their intervals are so wide that a 6%
/// shift moves their coverage by less than the calibration can see).
fn blur_cases() -> Vec<Case> {
    let case = |interval, column, rounds, truth| Case {
        interval,
        column,
        source: Source::Row(column),
        point: Point::Blur(rounds),
        truth: Truth::Exact(truth),
        wide: None,
    };
    vec![
        case(
            "count_rmse: square root of a Student t over the rounds' mean squared errors",
            col::COUNT_RMSE,
            20,
            blur::COUNT_MSE.sqrt(),
        ),
        case(
            "distinct_rel_rmse: square root of the wider of a Student t over the rounds' squared errors and a chi-square interval",
            col::DISTINCT_REL_RMSE,
            200,
            blur::DISTINCT_REL_MSE.sqrt(),
        ),
        case(
            "entropy_error: Student t over the rounds",
            col::ENTROPY_ERROR,
            200,
            blur::ENTROPY_ERROR,
        ),
        case(
            "distinct_lb: Student t over the rounds",
            col::DISTINCT_LB,
            200,
            blur::LB_OVER_D * blur::W as f64,
        ),
        case(
            "distinct_lb_rel_rmse: square root of the wider of a Student t over the rounds' squared errors and a chi-square interval",
            col::DISTINCT_LB_REL_RMSE,
            200,
            blur::LB_REL_MSE.sqrt(),
        ),
    ]
}

/// Why one attack's interval is wide.
const REPLAYS: &str = "a replay is not a random draw (a filter that holds still answers yes to \
    every one), so the binomial spread of all the window's queries overstates the window's; \
    no exact construction is known for a filter whose replays' answers are themselves random \
    (one that adapts, or inserts during the attack), and with runs >= 2 the interval over \
    attacks applies";

/// Why a rare event's interval is wide.
const RARE: &str = "about one false positive in all: at an expected count of 1 an exact \
    interval of a count covers well above its level (Clopper-Pearson's covers 98.1% at 95%, \
    the chance of at most 3 events), and a Student t interval over rounds whose rates are 0 \
    but for one or a few reaches down to 0 and up past the truth nearly always";

/// The adversary's sustained FPR, at a coin of bias 0.2 half of whose
/// queries are replays: one attack, and five.
fn attack_cases() -> Vec<Case> {
    let one = AttackPoint {
        p: 0.2,
        replay_every: 2,
        runs: 1,
    };
    let five = AttackPoint { runs: 5, ..one };
    let case = |interval, point: AttackPoint, wide| Case {
        interval,
        column: col::SUSTAINED_FPR,
        source: Source::Row(col::SUSTAINED_FPR),
        point: Point::Attack(point),
        truth: Truth::Exact(point.truth()),
        wide,
    };
    vec![
        case(
            "sustained_fpr (one attack): Clopper-Pearson over the last window",
            one,
            Some(REPLAYS),
        ),
        case(
            "sustained_fpr (5 attacks): Student t over the attacks",
            five,
            None,
        ),
    ]
}

/// The membership pass's kinds, at `Coin`s.
fn coin_cases() -> Vec<Case> {
    let coin = CoinPoint {
        w: 256,
        s: 0,
        remember: 256,
        p: 0.2,
        guaranteed: true,
        varying: false,
        fpr_queries: 20_000,
    };
    // half the window forgotten: ages 1..=128 reported surely, the rest
    // with probability 0.3, so FNR = 0.5 · 0.7 over the window's ages
    let forget = CoinPoint {
        w: 256,
        s: 0,
        remember: 128,
        p: 0.3,
        guaranteed: false,
        varying: false,
        fpr_queries: 20_000,
    };
    // a slack of 64 of which the coin remembers 32: PWS = 32 + 0.3 · 32
    let slack = CoinPoint {
        w: 256,
        s: 64,
        remember: 288,
        p: 0.3,
        guaranteed: true,
        varying: false,
        fpr_queries: 20_000,
    };
    // costs and a zero fraction that vary by key, means 4, 2 and 1/2
    let varying = CoinPoint {
        varying: true,
        ..coin
    };
    // about one false positive in the 40 000 queries of a phase's rounds:
    // most seeds see none, or one, and take the fallbacks
    let rare = CoinPoint {
        p: 2.5e-5,
        fpr_queries: 40_000,
        ..coin
    };
    let of_row = |interval, column, point, truth| Case {
        interval,
        column,
        source: Source::Row(column),
        point: Point::Coin(point),
        truth: Truth::Exact(truth),
        wide: None,
    };
    vec![
        of_row(
            "fpr: worst phase, Clopper-Pearson over the pooled queries",
            col::FPR,
            coin,
            0.2,
        ),
        of_row(
            "fpr_avg: Student t over the rounds' rates",
            col::FPR_AVG,
            coin,
            0.2,
        ),
        of_row(
            "fpr_expired: Clopper-Pearson over the pooled queries",
            col::FPR_EXPIRED,
            coin,
            0.2,
        ),
        of_row(
            "fnr: the wider of Clopper-Pearson over the sampled ages and a Student t over the rounds",
            col::FNR,
            forget,
            0.35,
        ),
        of_row(
            "npws_peak: Student t over the rounds' PWS",
            col::NPWS_PEAK,
            slack,
            41.6 / 256.0,
        ),
        of_row(
            "npws_avg: Student t over the rounds' PWS",
            col::NPWS_AVG,
            slack,
            41.6 / 256.0,
        ),
        Case {
            interval:
                "p_yes (age profile, ages 161-192): the wider of Clopper-Pearson and Student t",
            column: col::P_YES,
            source: Source::Profile(192),
            point: Point::Coin(forget),
            truth: Truth::Exact(0.3),
            wide: None,
        },
        of_row(
            "probes_negative: Student t over the rounds' means",
            col::PROBES_NEGATIVE,
            varying,
            f64::from(coin::VARYING_PROBES),
        ),
        of_row(
            "lines_query_negative: Student t over the rounds' means",
            col::LINES_QUERY_NEGATIVE,
            varying,
            2.0,
        ),
        of_row(
            "zero_fraction: Student t over the rounds (one state pair each)",
            col::ZERO_FRACTION,
            varying,
            0.5,
        ),
        Case {
            wide: Some(RARE),
            ..of_row(
                "fpr (rare false positives): Clopper-Pearson over the pooled queries",
                col::FPR,
                rare,
                2.5e-5,
            )
        },
        Case {
            wide: Some(RARE),
            ..of_row(
                "fpr_avg (rare false positives): Student t over the rounds, Clopper-Pearson when none differ",
                col::FPR_AVG,
                rare,
                2.5e-5,
            )
        },
    ]
}

/// The time pass's kinds, at `Drift`s of T = 1 s: 500 keys per second
/// steady, and swinging by 30% over 8 s (the worst moments then differ
/// from the others).
fn drift_cases() -> Vec<Case> {
    let steady = DriftPoint {
        rate: 500.0,
        amplitude: 0.0,
        period: 1.0,
        p: 0.2,
        q: 0.2,
        spread: 0.08,
    };
    let swing = DriftPoint {
        amplitude: 0.3,
        period: 8.0,
        ..steady
    };
    // about one false positive in the run's 40 000 queries: most seeds
    // take the pooled counts' Clopper-Pearson interval
    let rare = DriftPoint {
        p: 2.5e-5,
        ..steady
    };
    let case = |interval, column, source, point, truth| Case {
        interval,
        column,
        source,
        point: Point::Drift(point),
        truth,
        wide: None,
    };
    let of_row =
        |interval, column, truth| case(interval, column, Source::Row(column), steady, truth);
    vec![
        of_row(
            "fpr_time_avg: over 10 batches, or Clopper-Pearson if wider",
            col::FPR_TIME_AVG,
            Truth::Exact(0.2),
        ),
        case(
            "fpr_time_peak (worst moments of a swinging rate): over 10 batches, or Clopper-Pearson if wider",
            col::FPR_TIME_PEAK,
            Source::Row(col::FPR_TIME_PEAK),
            swing,
            Truth::Theory,
        ),
        of_row(
            "fnr_time: over 10 batches, or Clopper-Pearson if wider",
            col::FNR_TIME,
            Truth::Exact(0.2),
        ),
        of_row(
            "p_yes_past_window: over 10 batches, or Clopper-Pearson if wider",
            col::P_YES_PAST_WINDOW,
            Truth::Exact(0.2),
        ),
        Case {
            wide: Some(RARE),
            ..case(
                "fpr_time_avg (rare false positives): over 10 batches, or Clopper-Pearson if wider",
                col::FPR_TIME_AVG,
                Source::Row(col::FPR_TIME_AVG),
                rare,
                Truth::Exact(2.5e-5),
            )
        },
        case(
            "p_yes (age by time, 0.5-0.6 T): over 10 batches, or Clopper-Pearson if wider",
            col::P_YES,
            Source::AgeTime(0.55),
            steady,
            Truth::Exact(0.8),
        ),
    ]
}
