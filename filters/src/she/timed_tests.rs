use super::*;
use crate::hash::mix64;
use crate::Instrumented;

/// Bit for bit against the definition, under bursts, steady traffic and
/// lulls: a group's bits are those its keys set since its last clearing (a
/// touch in a phase of the other parity than the stamp's), and the query
/// sees them when the stamp matches the phase; a key at most T old is
/// always reported.
#[test]
fn groups_follow_the_definition_and_keep_the_window() {
    let (t, k, m, g, phase) = (1000u64, 3u32, 64u64, 8u64, 1500u64);
    let mut f = TimedSheBloom::new(crate::TimedSheBloomShape {
        window_ticks: t,
        hashes: k,
        bits: m,
        group_bits: g,
        phase_ticks: phase,
    })
    .unwrap();
    let mut now = 0u64;
    // (key, time) of every insertion
    let mut log: Vec<(u64, u64)> = Vec::new();
    for i in 0..3000u64 {
        now += crate::sliding_sketch::sweep::testing::gap(i, 20, 4 * phase, 60);
        f.advance(now);
        let key = mix64(i ^ 0x5E);
        f.insert(key);
        log.push((key, now));
        if i % 37 == 0 {
            let fr = &f;
            for j in 0..m / g {
                // the group's touches (phase numbers), oldest first
                let touches: Vec<(i128, u64, u64)> = log
                    .iter()
                    .flat_map(|&(key, u)| {
                        (0..k)
                            .map(move |b| fr.cell(key, b))
                            .filter(move |c| c / g == j)
                            .map(move |c| (fr.phase_of(j, u as i128), c, u))
                    })
                    .collect();
                // replay the stamp rule
                let mut stamp = f.phase_of(j, 0) & 1;
                let mut bits = 0u64;
                for &(q, c, _) in &touches {
                    if q & 1 != stamp {
                        bits = 0;
                        stamp = q & 1;
                    }
                    bits |= 1 << (c - j * g);
                }
                for b in 0..g {
                    assert_eq!(
                        f.bits.get(j * g + b),
                        bits >> b & 1 == 1,
                        "group {j} bit {b}"
                    );
                }
                assert_eq!(f.stamps.get(j), stamp == 1, "group {j} stamp");
            }
        }
        for &(key, u) in log.iter().rev().take(40) {
            if now - u <= t {
                assert!(f.contains(key), "a key {} old lost", now - u);
            }
        }
    }
    assert_eq!((f.window_time(), f.slack_time()), (t, phase - t));
    assert_eq!(f.name(), "she_bloom_time");
    assert_eq!(f.memory_bits(), m + m / g + 64);
    assert!(f.as_timed().is_some());
    let (_, probes) = f.contains_probes(mix64(1 << 60));
    assert!((1..=k).contains(&probes));
}

/// The 1-bit timestamp over time: one phase after a burst (then nothing)
/// every group's stamp is unlike its phase and the keys are gone, but for
/// those whose k groups all flipped within the window (about (T/P)^k); two
/// phases after, the stamps match again and every key is back, 8T old.
#[test]
fn a_lull_of_two_phases_brings_stale_keys_back() {
    let (t, phase) = (1000u64, 4000u64);
    let mut f = TimedSheBloom::new(crate::TimedSheBloomShape {
        window_ticks: t,
        hashes: 4,
        bits: 4096,
        group_bits: 64,
        phase_ticks: phase,
    })
    .unwrap();
    f.advance(3000);
    for i in 0..300u64 {
        f.insert(mix64(i));
    }
    f.advance(3000 + phase);
    let shown = (0..300u64).filter(|&i| f.contains(mix64(i))).count();
    assert!(shown < 15, "{shown} of 300 keys shown one phase on");
    f.advance(3000 + 2 * phase);
    let shown = (0..300u64).filter(|&i| f.contains(mix64(i))).count();
    assert_eq!(shown, 300, "keys back after two phases");
}

/// The theory's FPR and P(yes) against simulation: many filters under
/// Poisson arrivals whose rate triples, and in a second run with a lull of
/// a little over two phases, where the stale bits come back.
#[test]
fn theory_matches_simulation() {
    let (t, phase) = (100_000u64, 150_000u64);
    let (k, m, g) = (6u32, 1u64 << 16, 64u64);
    for lull in [false, true] {
        let rate = move |x: f64| {
            if lull && (300_000.0..620_000.0).contains(&x) {
                0.0
            } else if x < 250_000.0 {
                0.01
            } else {
                0.03
            }
        };
        let cum = move |x: f64| {
            let x = x.max(0.0);
            let base = 0.01 * x.min(250_000.0) + 0.03 * (x - 250_000.0).max(0.0);
            if lull {
                base - 0.03 * (x.min(620_000.0) - 300_000.0).max(0.0)
            } else {
                base
            }
        };
        let (mut fp, mut queries, mut predicted) = (0u64, 0u64, 0.0);
        let (mut old_yes, mut old_n, mut old_p) = (0u64, 0u64, 0.0);
        let runs = 300u64;
        for run in 0..runs {
            let mut f = TimedSheBloom::new(crate::TimedSheBloomShape {
                window_ticks: t,
                hashes: k,
                bits: m,
                group_bits: g,
                phase_ticks: phase,
            })
            .unwrap();
            let end = 650_000.0 + (mix64(run) % 100_000) as f64;
            let (mut now, mut i) = (0.0f64, 0u64);
            let mut log = Vec::new();
            loop {
                let u = ((mix64(run << 32 | i) >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
                let r = rate(now);
                now += if r == 0.0 { 1000.0 } else { -u.ln() / r };
                if now > end {
                    break;
                }
                if r == 0.0 {
                    continue;
                }
                f.advance(now as u64);
                let key = mix64(i ^ run << 40);
                f.insert(key);
                log.push((key, now));
                i += 1;
            }
            f.advance(end as u64);
            let th = f.theory_at(end, &cum);
            predicted += th.fpr();
            for q in 0..1000u64 {
                fp += f.contains(mix64(q | 1 << 62 | run << 45)) as u64;
                queries += 1;
            }
            // keys from 2.5 to 3 phases ago
            for &(key, u) in log.iter().filter(|&&(_, u)| {
                let a = end - u;
                a > 2.5 * phase as f64 && a < 3.0 * phase as f64
            }) {
                old_yes += f.contains(key) as u64;
                old_n += 1;
                old_p += th.presence(u);
            }
        }
        let p = predicted / runs as f64;
        let measured = fp as f64 / queries as f64;
        let se = (p * (1.0 - p) / queries as f64).sqrt();
        let (old_m, old_t) = (old_yes as f64 / old_n as f64, old_p / old_n as f64);
        let old_se = (old_t * (1.0 - old_t) / old_n as f64).sqrt();
        eprintln!(
            "lull {lull}: measured {measured}, theory {p}; keys 2.5-3 phases old: {old_m} (theory {old_t}, {old_n})"
        );
        assert!(
            (measured - p).abs() < 4.0 * se + 0.03 * p,
            "lull {lull}: measured {measured}, theory {p}"
        );
        assert!(
            (old_m - old_t).abs() < 4.0 * old_se + 0.03 * old_t,
            "lull {lull}: old keys {old_m}, theory {old_t}"
        );
    }
}

/// The sizing and the refusals.
#[test]
fn sizing_and_bad_parameters() {
    let f = TimedSheBloom::with_fpr(10_000, 0.1, 0.01).unwrap();
    let s = crate::she::theory::sizing(1000, 0.01).unwrap();
    assert_eq!((f.k(), f.m(), f.group()), (s.k, s.m, CODE_GROUP));
    assert_eq!(f.phase(), s.phase * 10);
    assert!(TimedSheBloom::new(crate::TimedSheBloomShape {
        window_ticks: 0,
        hashes: 3,
        bits: 64,
        group_bits: 8,
        phase_ticks: 10
    })
    .is_err());
    assert!(TimedSheBloom::new(crate::TimedSheBloomShape {
        window_ticks: 10,
        hashes: 0,
        bits: 64,
        group_bits: 8,
        phase_ticks: 10
    })
    .is_err());
    assert!(TimedSheBloom::new(crate::TimedSheBloomShape {
        window_ticks: 10,
        hashes: 3,
        bits: 64,
        group_bits: 7,
        phase_ticks: 10
    })
    .is_err());
    assert!(TimedSheBloom::new(crate::TimedSheBloomShape {
        window_ticks: 10,
        hashes: 3,
        bits: 64,
        group_bits: 8,
        phase_ticks: 9
    })
    .is_err());
    assert!(TimedSheBloom::with_fpr(100, 1.0, 0.0).is_err());
    assert!(TimedSheBloom::with_fpr(100, f64::NAN, 0.01).is_err());
}

/// A group at a moment by the definition: (flipped within T, fill,
/// [(phase D, P(D))], offset).
type GroupByDefinition = (bool, f64, Vec<(f64, f64)>, f64);

/// P(yes) summed over runs of groups equals the sum group by group (the
/// definition in the module docs), for keys of every age, under a rate
/// with a lull of two phases and one of half a phase.
#[test]
fn presence_by_runs_of_groups_is_the_sum_over_groups() {
    let (t, k, m, g, phase) = (1000u64, 3u32, 4096u64, 64u64, 1300u64);
    let f = TimedSheBloom::new(crate::TimedSheBloomShape {
        window_ticks: t,
        hashes: k,
        bits: m,
        group_bits: g,
        phase_ticks: phase,
    })
    .unwrap();
    // keys per time unit: 0.5, none over [4000, 6600), 0.5, none over
    // [9000, 9650), 0.5
    let cum = |x: f64| {
        let on = x.min(4000.0) + (x.min(9000.0) - 6600.0).max(0.0) + (x - 9650.0).max(0.0);
        0.5 * on
    };
    let (h, beta) = (
        1.0 - (1.0 - g as f64 / m as f64).powi(k as i32),
        1.0 - (1.0 - 1.0 / m as f64).powi(k as i32),
    );
    let p_len = phase as f64;
    for now in [3500.0, 6000.0, 8000.0, 9500.0, 12345.0] {
        let th = f.theory_at(now, &cum);
        // each group's (flipped, fill, [(phase D, P(D))]) by the definition
        let groups: Vec<GroupByDefinition> = (0..m / g)
            .map(|j| {
                let o = f.offset(j) as f64;
                let p = ((now + o) / p_len).floor();
                let first = (o / p_len).floor();
                if ((now - t as f64 + o) / p_len).floor() < p {
                    return (true, 1.0, vec![], o);
                }
                let span = |q: f64| {
                    let a = (q * p_len - o).max(0.0);
                    let b = ((q + 1.0) * p_len - o).min(now);
                    if b <= a {
                        0.0
                    } else {
                        cum(b) - cum(a)
                    }
                };
                let (mut reach, mut sum, mut fill, mut q) = (1.0, 0.0, 0.0, p);
                let mut d = Vec::new();
                while q >= first && reach > 1e-15 {
                    sum += span(q);
                    let untouched = if q - 1.0 >= first {
                        (-h * span(q - 1.0)).exp()
                    } else {
                        0.0
                    };
                    let w = reach * (1.0 - untouched);
                    fill += w * (1.0 - (-beta * sum).exp());
                    d.push((q, w));
                    reach *= untouched;
                    q -= 2.0;
                }
                (false, fill, d, o)
            })
            .collect();
        let mean = |v: &dyn Fn(&GroupByDefinition) -> f64| {
            groups.iter().map(v).sum::<f64>() / groups.len() as f64
        };
        let fpr = mean(&|x| x.1).powi(k as i32);
        assert!(
            (th.fpr() - fpr).abs() <= 1e-12 * fpr,
            "{now}: {} {fpr}",
            th.fpr()
        );
        for step in 0..200 {
            let u = now - step as f64 * 61.7;
            let want = mean(&|(flipped, fill, d, o)| {
                if *flipped {
                    return 1.0;
                }
                let p = ((now + o) / p_len).floor();
                let qu = ((u + o) / p_len).floor();
                let shown = if qu >= p {
                    1.0
                } else if (p - qu).rem_euclid(2.0) == 0.0 {
                    d.iter().filter(|x| x.0 <= qu).map(|x| x.1).sum()
                } else {
                    0.0
                };
                shown + (1.0 - shown) * fill
            })
            .powi(k as i32);
            let got = th.presence(u);
            assert!(
                (got - want).abs() <= 1e-12,
                "now {now}, u {u}: {got} against {want}"
            );
        }
    }
}
