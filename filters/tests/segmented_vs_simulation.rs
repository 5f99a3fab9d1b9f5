//! The segmentation baselines' theory against simulation: worst-phase and
//! phase-averaged FPR, and P(yes) by generation (the Forgetful Bloom filter's
//! partly remembered generation N + 1 in particular), and the probes and
//! 64-byte lines of a negative query. Two-sided checks at 4.5 standard
//! errors, fixed seeds, rounds w + s insertions apart.

mod common;

use bloomlab_filters::segmented::{theory, DoubleBuffer, ForgetfulBloom, JumpingWindow};
use bloomlab_filters::window::shifts_at_age;
use bloomlab_filters::SlidingFilter;
use bloomlab_filters::{DoubleBufferShape, ForgetfulBloomShape, JumpingWindowShape};
use bloomlab_filters::{Filter, Instrumented};
use common::{assert_rate, Keys, Rng};

/// A filter's counted lines of a query (its answer and the lines read),
/// and their theory for a negative query at the worst phase.
type Lines<'a, F> = Option<(&'a dyn Fn(&F, u64) -> (bool, u32), f64)>;

/// Measures worst-phase and random-phase FPR and, at the worst phase, yes
/// counts by switch count over the ages 1 ..= w + s + g.
fn check<F: SlidingFilter + Instrumented>(
    mut f: F,
    name: &str,
    fpr_at: impl Fn(&F, u64) -> f64,
    presence_by_shift: impl Fn(&F, u64) -> Vec<f64>,
    probes_theory: Option<f64>,
    lines: Lines<'_, F>,
) {
    let keys = Keys::new(0xABC);
    let (w, s, g) = (f.window(), f.slack(), f.period());
    let spacing = (w + s).div_ceil(g) * g;
    let mut t = 0u64;
    let insert = |f: &mut F, n: u64, t: &mut u64| {
        for _ in 0..n {
            *t += 1;
            f.insert(keys.stream(*t));
        }
    };
    insert(&mut f, spacing + g, &mut t);
    let mut rng = Rng(9);
    let (mut worst, mut avg, mut neg) = ((0u64, 0u64), (0u64, 0u64), 0u64);
    let mut avg_theory = 0.0;
    let by_j = presence_by_shift(&f, g);
    let mut yes = vec![0u64; by_j.len() + 1];
    let mut n = vec![0u64; by_j.len() + 1];
    let per_round = 3000;
    let (mut probes, mut lines_read) = (Vec::new(), Vec::new());
    for _ in 0..150 {
        let (mut sum, mut no, mut read) = (0u64, 0u64, 0u64);
        for _ in 0..per_round {
            neg += 1;
            let key = keys.negative(neg);
            let (yes, p) = f.contains_probes(key);
            worst.0 += yes as u64;
            worst.1 += 1;
            if !yes {
                sum += p as u64;
                no += 1;
            }
            // lines: of every never-inserted key, whatever it answers
            if let Some((count, _)) = &lines {
                let (y, n) = count(&f, key);
                assert_eq!(y, yes, "{name}: lines_read answers as contains");
                read += n as u64;
            }
        }
        probes.push(sum as f64 / no as f64);
        lines_read.push(read as f64 / per_round as f64);
        for age in 1..=(w + s + g).min(t) {
            let j = (shifts_at_age(age, g, g) as usize).min(by_j.len());
            yes[j] += f.contains(keys.stream(t + 1 - age)) as u64;
            n[j] += 1;
        }
        let u = rng.range(1, g);
        insert(&mut f, u, &mut t);
        avg_theory += fpr_at(&f, u) * per_round as f64;
        for _ in 0..per_round {
            neg += 1;
            avg.0 += f.contains(keys.negative(neg)) as u64;
            avg.1 += 1;
        }
        insert(&mut f, spacing - u, &mut t);
    }
    assert_rate(
        &format!("{name} worst-phase FPR"),
        worst.0,
        worst.1,
        fpr_at(&f, g),
    );
    if let Some(p) = probes_theory {
        common::assert_mean(&format!("{name} probes of a negative query"), &probes, p);
    }
    if let Some((_, l)) = lines {
        let mean = lines_read.iter().sum::<f64>() / lines_read.len() as f64;
        println!("{name}: lines of a negative query {mean:.4} (theory {l:.4})");
        common::assert_mean(&format!("{name} lines of a negative query"), &lines_read, l);
    }
    assert_rate(
        &format!("{name} average FPR"),
        avg.0,
        avg.1,
        avg_theory / avg.1 as f64,
    );
    for j in 0..by_j.len() {
        if n[j] == 0 {
            continue;
        }
        if by_j[j] == 1.0 {
            assert_eq!(yes[j], n[j], "{name}: a key of generation {j} was lost");
        } else {
            assert_rate(&format!("{name} P(yes | j = {j})"), yes[j], n[j], by_j[j]);
        }
    }
}

#[test]
fn jumping_window_matches_theory() {
    for n in [2u32, 4] {
        let probes = theory::jumping_probes_negative(n, 4, 300, 400);
        // slices of 400 bits: a line holds parts of up to three
        let lines = theory::jumping_lines_negative(n, 4, 300, 400);
        check(
            JumpingWindow::new(JumpingWindowShape {
                segments: n,
                hashes: 4,
                generation: 300,
                bits_per_slice: 400,
            })
            .unwrap(),
            &format!("jumping n={n}"),
            |f, p| f.theory_fpr(p),
            |f, p| f.theory_presence_by_shift(p),
            Some(probes),
            Some((&JumpingWindow::lines_read, lines)),
        );
    }
}

#[test]
fn double_buffer_matches_theory() {
    check(
        DoubleBuffer::new(DoubleBufferShape {
            hashes: 5,
            generation: 300,
            bits_per_slice: 700,
        })
        .unwrap(),
        "double buffer",
        |f, p| f.theory_fpr(p),
        |f, p| f.theory_presence_by_shift(p),
        Some(theory::double_buffer_probes_negative(5, 300, 700)),
        Some((
            &DoubleBuffer::lines_read,
            theory::double_buffer_lines_negative(5, 300, 700),
        )),
    );
}

#[test]
fn forgetful_bloom_matches_theory() {
    for (past, k) in [(1u32, 3u32), (3, 4)] {
        check(
            ForgetfulBloom::new(ForgetfulBloomShape {
                past_filters: past,
                hashes: k,
                generation: 200,
                bits_per_slice: 500,
            })
            .unwrap(),
            &format!("forgetful N={past}"),
            |f, p| f.theory_fpr(p),
            |f, p| f.theory_presence_by_shift(p),
            None,
            None,
        );
    }
}

/// The Forgetful Bloom filter's counted lines of never-inserted keys, and
/// of keys inside the window, at the worst phase against the theory, over
/// many fills: slices of 866 bits, where lines straddle slices; within 4.5
/// standard errors plus what an early stop at a false positive saves (at
/// most the FPR times the lines).
#[test]
fn forgetful_lines_match_theory() {
    let (past, k, g, m) = (3u32, 10u32, 300u64, 866u64);
    let keys = Keys::new(0xF0F);
    let theory = theory::forgetful_lines_negative(past, k, g, m, g);
    let theory_pos = theory::forgetful_lines_positive(past, k, g, m, g);
    let fpr = theory::forgetful_fpr(past, k, g, m, g);
    let window = past as u64 * g;
    let mut per_fill_pos = Vec::new();
    let mut per_fill = Vec::new();
    let mut t = 0u64;
    let mut f = ForgetfulBloom::new(ForgetfulBloomShape {
        past_filters: past,
        hashes: k,
        generation: g,
        bits_per_slice: m,
    })
    .unwrap();
    let mut neg = 0u64;
    for _ in 0..200 {
        // a fresh generation cycle at the worst phase: whole generations
        for _ in 0..(past as u64 + 2) * g {
            t += 1;
            f.insert(keys.stream(t));
        }
        let mut read = 0u64;
        for _ in 0..2000 {
            neg += 1;
            let key = keys.negative(neg);
            let (yes, lines) = f.lines_read(key);
            assert_eq!(yes, f.contains(key));
            read += lines as u64;
        }
        per_fill.push(read as f64 / 2000.0);
        // every key of the window
        let mut read = 0u64;
        for age in 0..window {
            let (yes, lines) = f.lines_read(keys.stream(t - age));
            assert!(yes, "a key of the window is reported");
            read += lines as u64;
        }
        per_fill_pos.push(read as f64 / window as f64);
    }
    for (what, per_fill, theory) in [
        ("a negative", per_fill, theory),
        ("a positive", per_fill_pos, theory_pos),
    ] {
        let mean = per_fill.iter().sum::<f64>() / per_fill.len() as f64;
        let sd = (per_fill.iter().map(|x| (x - mean).powi(2)).sum::<f64>()
            / (per_fill.len() - 1) as f64)
            .sqrt();
        let se = sd / (per_fill.len() as f64).sqrt();
        println!("forgetful N={past}: lines of {what} query {mean:.4} ± {se:.4} (theory {theory:.4}, FPR {fpr:.2e})");
        assert!(
            (mean - theory).abs() <= 4.5 * se + fpr * theory,
            "forgetful lines of {what} query {mean} ± {se} against {theory}"
        );
    }
}
