use super::theory::Model;
use super::*;
use crate::hash::mix64;
use crate::Instrumented;

/// Under bursts, steady traffic and lulls: no key younger than T is lost;
/// a key is gone once T has passed after its generation's last insertion
/// (here: after the last insertion of all); the bits follow the
/// bookkeeping; no slice among the k newest passes its capacity.
#[test]
fn keeps_the_window_whatever_the_rate() {
    let t = 10_000u64;
    let mut f = Tlbf::with_fpr(t, 0.05, 0.01).unwrap();
    let (k, l) = (f.k() as usize, f.l() as usize);
    let mut now = 0u64;
    let mut log: Vec<(u64, u64)> = Vec::new();
    let mut most = 0;
    for i in 0..60_000u64 {
        // a burst of 10x the sized rate in one stretch, a lull of 3T in another
        now += match i {
            20_000..=30_000 => mix64(i) % 4,
            40_000 => 3 * t,
            _ => mix64(i) % 40,
        };
        f.advance(now);
        let key = mix64(i ^ 0x7155);
        f.insert(key);
        log.push((key, now));
        most = most.max(f.slices());
        let c = f.control();
        assert_eq!(c.slices.len(), f.bits.len());
        assert!(c.slices.len() >= k + l);
        for (s, b) in c.slices.iter().zip(&f.bits) {
            assert_eq!(s.size, b.len());
        }
        for s in c.slices.iter().take(k) {
            assert!(s.count <= s.capacity().max(1), "{s:?} past its capacity");
        }
        if i % 7 == 0 {
            for &(key, u) in log.iter().rev().take(300) {
                if now - u <= t {
                    assert!(f.contains(key), "a key {} old lost at {i}", now - u);
                }
            }
        }
    }
    // the burst added slices
    assert!(most > k + l + 5, "{most} slices at most");
    // T after the last insertion nothing is left
    f.advance(now + t + 1);
    assert!(log.iter().all(|&(key, _)| !f.contains(key)));
    assert_eq!(f.name(), "tlbf");
    let c = f.control();
    let bits: u64 = c.slices.iter().map(|s| s.size).sum();
    assert_eq!(
        f.memory_bits(),
        bits + META_BITS * f.slices() as u64 + 7 * 64
    );
    assert!(f.as_timed().is_some());
}

/// Memory follows the rate: a burst of 13x the sized rate makes the slices
/// larger, and they shrink back once the burst's slices expire.
#[test]
fn memory_follows_the_rate() {
    let t = 10_000u64;
    let mut f = Tlbf::with_fpr(t, 0.05, 0.01).unwrap();
    let mut now = 0;
    for i in 0..2_000u64 {
        now += 20;
        f.advance(now);
        f.insert(mix64(i + (1 << 41)));
    }
    let before = f.memory_bits();
    for i in 0..10_000u64 {
        now += 1 + (i % 2);
        f.advance(now);
        f.insert(mix64(i));
    }
    let burst = f.memory_bits();
    for i in 0..20_000u64 {
        now += 20;
        f.advance(now);
        f.insert(mix64(i + (1 << 40)));
    }
    let after = f.memory_bits();
    assert!(burst > 4 * before, "{before} then {burst}");
    assert!(after < 2 * before, "{before}, {burst}, then {after}");
}

/// Poisson arrivals whose rate triples at 250 000: (time, key index).
fn stream(run: u64, end: f64) -> Vec<u64> {
    let rate = |x: f64| if x < 250_000.0 { 0.01 } else { 0.03 };
    let (mut now, mut v) = (0.0f64, Vec::new());
    for i in 0.. {
        let u = ((mix64(run << 32 | i) >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
        now += -u.ln() / rate(now);
        if now > end {
            break;
        }
        v.push(now as u64);
    }
    v
}

fn cum(x: f64) -> f64 {
    let x = x.max(0.0);
    0.01 * x.min(250_000.0) + 0.03 * (x - 250_000.0).max(0.0)
}

/// The filter's exact fills given its bookkeeping, 1 - (1 - 1/m)^c per
/// slice (0 once expired).
fn fills_of(f: &Tlbf, now: u64) -> Vec<f64> {
    let c = f.control();
    c.slices
        .iter()
        .enumerate()
        .map(|(i, s)| {
            if c.expired(i, now) {
                0.0
            } else {
                1.0 - (1.0 - 1.0 / s.size as f64).powf(s.count as f64)
            }
        })
        .collect()
}

/// Measured against the theory, under Poisson arrivals whose rate triples:
/// 300 filters, each queried at one moment with 2000 never-inserted keys.
/// Given each filter's own bookkeeping the bits' theory is exact; the
/// model's bookkeeping (replicas) matches the filters' in slices and FPR:
/// measured 9.16e-3, given the bookkeeping 9.03e-3, model 9.05e-3; 42.24
/// slices, model 42.27.
#[test]
fn theory_matches_simulation_under_a_changing_rate() {
    let t = 100_000u64;
    let runs = 300u64;
    let (mut fp, mut queries) = (0u64, 0u64);
    let (mut model, mut given, mut model_se) = (0.0, 0.0, 0.0);
    let (mut slices, mut model_slices) = (0.0, 0.0);
    for run in 0..runs {
        let mut f = Tlbf::with_fpr(t, 0.01, 0.01).unwrap();
        let mut m = Model::new(&f);
        let end = 200_000.0 + (mix64(run) % 200_000) as f64;
        for (i, at) in stream(run, end).into_iter().enumerate() {
            f.advance(at);
            f.insert(mix64(i as u64 ^ run << 40));
        }
        f.advance(end as u64);
        given += crate::apbf::theory::match_probability(&fills_of(&f, end as u64), f.k());
        slices += f.slices() as f64;
        // the model at the same moment (its replicas are its own)
        let at = m.moment(end, &cum);
        model += at.fpr();
        model_se += at.fpr_se();
        model_slices += at.slices();
        for q in 0..2000u64 {
            fp += f.contains(mix64(q | 1 << 62 | run << 45)) as u64;
            queries += 1;
        }
    }
    let n = runs as f64;
    let (measured, given, slices) = (fp as f64 / queries as f64, given / n, slices / n);
    let (model, model_se, model_slices) = (model / n, model_se / n, model_slices / n);
    let se = (given * (1.0 - given) / queries as f64).sqrt();
    eprintln!(
        "measured {measured}; given the bookkeeping {given}; model {model} (se {model_se}); \
         slices {slices}, model {model_slices}"
    );
    // the bits, given the bookkeeping: a binomial's four standard errors
    assert!(
        (measured - given).abs() < 4.0 * se,
        "{measured} against {given}"
    );
    // the model: four of the binomial's and its replicas' standard errors
    // (a fluid bookkeeping, 0.0109 with 37.5 slices, fails both)
    assert!(
        (measured - model).abs() < 4.0 * (se + model_se),
        "measured {measured}, model {model}"
    );
    assert!(
        (slices - model_slices).abs() < 0.01 * slices,
        "{slices} slices, model {model_slices}"
    );
}

/// P(yes) by age against the model: a key younger than T is sure; a key
/// long gone is a false positive; in between, measured over many filters.
#[test]
fn presence_by_age_matches_the_model() {
    let t = 100_000u64;
    let end = 390_000.0;
    let ages = [0.5, 1.02, 1.05, 1.2, 2.0];
    let mut yes = [0u64; 5];
    let mut asked = [0u64; 5];
    let f0 = Tlbf::with_fpr(t, 0.01, 0.01).unwrap();
    let at = Model::new(&f0).moment(end, &cum);
    for run in 0..200u64 {
        let mut f = Tlbf::with_fpr(t, 0.01, 0.01).unwrap();
        let times = stream(run + 1000, end);
        for (i, &u) in times.iter().enumerate() {
            f.advance(u);
            f.insert(mix64(i as u64 ^ run << 40));
        }
        f.advance(end as u64);
        for (i, &u) in times.iter().enumerate() {
            let age = (end - u as f64) / t as f64;
            for (j, &a) in ages.iter().enumerate() {
                if (age - a).abs() < 0.01 {
                    asked[j] += 1;
                    yes[j] += f.contains(mix64(i as u64 ^ run << 40)) as u64;
                }
            }
        }
    }
    for (j, &a) in ages.iter().enumerate() {
        let p = at.presence(end - a * t as f64);
        let measured = yes[j] as f64 / asked[j] as f64;
        let se = (p * (1.0 - p) / asked[j] as f64).sqrt();
        eprintln!("age {a} T: measured {measured} of {}, model {p}", asked[j]);
        assert!(
            (measured - p).abs() < 4.0 * se + 0.05 * p + 1e-3,
            "age {a} T: measured {measured}, model {p}"
        );
    }
    assert_eq!(at.presence(end - 0.5 * t as f64), 1.0);
}

/// The model resumes where it stopped: asking at t1 then t2 gives what a
/// fresh model gives at t2; asking earlier starts again; it is seeded.
#[test]
fn the_model_resumes_and_is_reproducible() {
    let f = Tlbf::with_fpr(100_000, 0.01, 0.01).unwrap();
    let mut a = Model::new(&f);
    let _ = a.moment(150_000.0, &cum);
    let x = a.moment(320_000.0, &cum);
    let y = Model::new(&f).moment(320_000.0, &cum);
    assert_eq!(x.fpr(), y.fpr());
    assert_eq!(x.slices(), y.slices());
    let back = a.moment(150_000.0, &cum);
    assert_eq!(back.fpr(), Model::new(&f).moment(150_000.0, &cum).fpr());
    assert!(x.bits() > 0.0 && x.fpr() > 0.0 && x.fpr() < 1.0);
}

/// The sizing, and the refusals.
#[test]
fn sizing_and_bad_parameters() {
    let f = Tlbf::with_fpr(10_000, 0.1, 0.01).unwrap();
    let (k, l) = crate::apbf::theory::choose_kl(0.01, crate::apbf::DEFAULT_MAX_L).unwrap();
    assert_eq!((f.k(), f.l(), f.slices()), (k, l, (k + l) as usize));
    let m0 = (1000.0 * k as f64 / (l as f64 * std::f64::consts::LN_2)).ceil() as u64;
    assert_eq!(f.control().slices[0].size, m0);
    assert_eq!(f.window_time(), 10_000);
    assert!(Tlbf::new(crate::TlbfShape {
        hashes: 0,
        extra_slices: 3,
        window_ticks: 10,
        initial_bits_per_slice: 100
    })
    .is_err());
    assert!(Tlbf::new(crate::TlbfShape {
        hashes: 3,
        extra_slices: 0,
        window_ticks: 10,
        initial_bits_per_slice: 100
    })
    .is_err());
    assert!(Tlbf::new(crate::TlbfShape {
        hashes: 3,
        extra_slices: 3,
        window_ticks: 0,
        initial_bits_per_slice: 100
    })
    .is_err());
    assert!(Tlbf::new(crate::TlbfShape {
        hashes: 3,
        extra_slices: 3,
        window_ticks: 10,
        initial_bits_per_slice: 5
    })
    .is_err());
    assert!(Tlbf::with_fpr(100, 0.0, 0.01).is_err());
    assert!(Tlbf::with_fpr(100, f64::NAN, 0.01).is_err());
    assert!(Tlbf::with_fpr(100, 1.0, 1.0).is_err());
    assert!(Tlbf::with_fpr(100, 1e30, 0.01).is_err());
    // a clock too coarse for the window: T/l under 2 ticks (T = 10 s in
    // seconds ran at FPR 0.83 for 0.01 with 5x the memory; issue 55)
    let e = Tlbf::with_fpr(10, 1000.0, 0.01).unwrap_err().to_string();
    assert!(e.contains("finer unit"), "{e}");
    assert!(Tlbf::new(crate::TlbfShape {
        hashes: 3,
        extra_slices: 3,
        window_ticks: 5,
        initial_bits_per_slice: 100
    })
    .is_err());
    assert!(Tlbf::new(crate::TlbfShape {
        hashes: 3,
        extra_slices: 3,
        window_ticks: 6,
        initial_bits_per_slice: 100
    })
    .is_ok());
}

/// At the coarsest clock accepted, two ticks a generation, and at ms and
/// ns, the FPR of a steady rate is the APBF's F(k, l) within sampling: the
/// unit does not matter once accepted.
#[test]
fn any_clock_unit_accepted_gives_the_same_fpr() {
    let (k, l) = crate::apbf::theory::choose_kl(0.01, crate::apbf::DEFAULT_MAX_L).unwrap();
    let bound = crate::apbf::theory::fpr(k, l);
    for ticks_per_window in [2 * l as u64, 10_000, 10_000_000_000] {
        let per_tick = 10_000.0 / ticks_per_window as f64;
        let mut f = Tlbf::with_fpr(ticks_per_window, per_tick, 0.01).unwrap();
        let (mut fp, mut n) = (0u64, 0u64);
        for i in 0..200_000u64 {
            f.advance((i as f64 / per_tick) as u64);
            f.insert(crate::hash::mix64(i));
            if i > 50_000 && i % 3 == 0 {
                n += 1;
                fp += f.contains(crate::hash::mix64(u64::MAX - i)) as u64;
            }
        }
        let rate = fp as f64 / n as f64;
        let sd = (bound * (1.0 - bound) / n as f64).sqrt();
        assert!(
            rate < bound + 4.5 * sd,
            "{ticks_per_window} ticks: FPR {rate} against {bound}"
        );
    }
}

/// Counted lines of never-inserted keys against the lines theory given
/// each filter's bits (each slice's fill; an expired slice costs no line),
/// with and without a lull that expires the oldest slices. Over filters:
/// within one filter the slices that share a hash function (i and i + k)
/// map a key to the same relative position, so their bits correlate by
/// chance (pair hits 0.249 against 0.222 independent, in one filter seen);
/// the correlation averages out over filters, as the FPR's does. 100
/// filters of 20,000 queries each; the per-filter differences' mean within
/// 4 of its standard errors.
#[test]
fn counted_lines_match_the_theory_given_the_bits() {
    use crate::apbf::lines::{query_lines, QueryPath};
    let t = 100_000u64;
    for lull in [0u64, 60_000] {
        let mut diffs = crate::testing::Moments::default();
        let (mut counted, mut theory) = (0.0, 0.0);
        for run in 0..100u64 {
            let mut f = Tlbf::with_fpr(t, 0.01, 0.01).unwrap();
            let arrivals = stream(run, 300_000.0);
            let last = *arrivals.last().unwrap();
            for (i, at) in arrivals.into_iter().enumerate() {
                f.advance(at);
                f.insert(mix64(i as u64 ^ run << 40));
            }
            let now = last + lull;
            f.advance(now);
            let c = f.control();
            let expired = |i: usize| c.expired(i, now);
            let q: Vec<f64> = (0..f.slices())
                .map(|i| {
                    let b = &f.bits[i];
                    let fill = b.count_ones_in(0, b.len() - 1) as f64 / b.len() as f64;
                    if expired(i) {
                        0.0
                    } else {
                        fill
                    }
                })
                .collect();
            let cost: Vec<f64> = (0..q.len()).map(|i| (!expired(i)) as u8 as f64).collect();
            let want = query_lines(&q, &cost, f.k(), QueryPath::Algorithm1).unwrap();
            let mut tally = crate::testing::Tally::default();
            for i in 0..20_000u64 {
                let key = mix64(i | 1 << 62 | run << 45);
                let (yes, lines) = f.lines_read(key);
                assert_eq!(yes, f.contains(key));
                tally.add(lines);
            }
            diffs.add_f64(tally.mean() - want);
            counted += tally.mean() / 100.0;
            theory += want / 100.0;
        }
        eprintln!(
            "lull {lull}: {counted:.4} lines counted, theory {theory:.4}; difference {:.4} ± {:.4}",
            diffs.mean(),
            diffs.se()
        );
        assert!(
            diffs.mean().abs() <= 4.0 * diffs.se() + 1e-9,
            "lull {lull}: {counted} against {theory}"
        );
    }
}

/// A clock that does not start at 0 (Unix milliseconds): the filter sizes
/// its generations exactly as one whose clock starts at 0 under the same
/// traffic. The first generation was measured from time 0, 2^41 ms long,
/// and the generations stayed at 37,501 keys instead of 93,750 (issue 56).
#[test]
fn a_clock_that_does_not_start_at_zero_sizes_as_one_that_does() {
    let base = 1u64 << 41;
    let mut a = Tlbf::with_fpr(600_000, 5.0, 1e-3).unwrap();
    let mut b = a.clone();
    for i in 0..400_000u64 {
        a.advance(i / 5);
        b.advance(base + i / 5);
        a.insert(crate::hash::mix64(i));
        b.insert(crate::hash::mix64(i));
    }
    assert_eq!(a.control().gen_size, b.control().gen_size);
    assert_eq!(a.memory_bits(), b.memory_bits());
    let g = a.control().gen_size as f64;
    // T·R/l keys a generation at the steady rate
    let want = 600_000.0 * 5.0 / a.l() as f64;
    assert!((g / want - 1.0).abs() < 0.05, "{g} against {want}");
    for i in (0..400_000u64).step_by(997) {
        assert_eq!(
            a.contains(crate::hash::mix64(i)),
            b.contains(crate::hash::mix64(i))
        );
    }
}

/// The memory estimate covers what the filter grows to under rates of 4
/// and 200 times its sizing (above the 64x cap), and is within 8x of it.
#[test]
fn the_memory_estimate_covers_the_growth() {
    for ratio in [1.0f64, 4.0, 200.0] {
        let mut f = Tlbf::with_fpr(10_000, 0.5, 0.01).unwrap();
        let per_tick = 0.5 * ratio;
        let mut peak = 0;
        for i in 0..(per_tick * 40_000.0) as u64 {
            f.advance((i as f64 / per_tick) as u64);
            f.insert(crate::hash::mix64(i));
            peak = peak.max(f.memory_bits());
        }
        let est = f.memory_at(ratio);
        assert!(
            peak <= est,
            "ratio {ratio}: grew to {peak}, estimated {est}"
        );
        assert!(
            est <= 8 * peak,
            "ratio {ratio}: estimate {est} against {peak}"
        );
    }
}
