//! A long check of the blocked APBF's exact FPR at one configuration, with an
//! interval that allows for the correlation between queries against one
//! filter state: (k, l, g) = (14, 11, 1000) at default memory, 600 rounds 25
//! generations apart (no slice shared between rounds), 200 000 never-inserted
//! keys per round at the worst phase; the mean of the per-round rates with
//! its standard error over rounds, against the theory.
//!
//! `cargo run --release -p bloomlab-filters --example blocked_fpr_check` (about 2 s).

use bloomlab_filters::apbf::blocked::BlockedApbf;
use bloomlab_filters::hash::mix64;
use bloomlab_filters::BlockedApbfShape;
use bloomlab_filters::Filter;

fn main() {
    let (k, l, g) = (14u32, 11u32, 1000u64);
    let mut f = BlockedApbf::new(BlockedApbfShape {
        hashes: k,
        extra_slices: l,
        generation: g,
        blocks: None,
    })
    .expect("valid parameters");
    let theory = f.theory().fpr().expect("k <= MAX_EXACT_K");
    let (mut t, mut neg) = (0u64, 0u64);
    let insert = |f: &mut BlockedApbf, n: u64, t: &mut u64| {
        for _ in 0..n {
            *t += 1;
            f.insert(mix64(2 * *t));
        }
    };
    // to steady state, at φ = g
    insert(&mut f, (k + l + 1) as u64 * g, &mut t);
    let (rounds, per_round) = (600, 200_000u64);
    let mut rates = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let mut yes = 0u64;
        for _ in 0..per_round {
            neg += 1;
            yes += f.contains(mix64(2 * neg + 1)) as u64;
        }
        rates.push(yes as f64 / per_round as f64);
        insert(&mut f, (k + l) as u64 * g, &mut t);
    }
    let n = rates.len() as f64;
    let mean = rates.iter().sum::<f64>() / n;
    let var = rates.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let se = (var / n).sqrt();
    let se_binomial = (mean * (1.0 - mean) / (n * per_round as f64)).sqrt();
    println!(
        "blocked APBF (14, 11, 1000), {} blocks: theory {theory:.4e}, measured {mean:.4e} \
         ± {se:.2e} (over rounds; binomial would say ± {se_binomial:.2e}), z = {:.2}",
        f.blocks(),
        (mean - theory) / se
    );
}
