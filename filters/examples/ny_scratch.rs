use bloomlab_filters::naor_yogev::theory::{c_paper, space_bound_bits, Sizing};
use bloomlab_filters::naor_yogev::NaorYogev;
use bloomlab_filters::{Filter, hash::mix64};
fn main() {
    for &eps in &[0.1, 1e-2, 1e-3, 1e-4, 1e-5] {
        for &(n, m) in &[(1u64 << 20, 1u64 << 14), (1 << 20, 1 << 18), (1 << 20, 1 << 20)] {
            let s = Sizing::new(n, m, eps, None, 0.9).unwrap();
            let b = space_bound_bits(n, m, eps);
            println!("eps {eps:e} n {n} m {m}: c {} (paper {:.2}) g {} slack {} r {} t {} B {} load {:.3} fpr {:.3e} bpe {:.2} bound/elt {:.2} ratio {:.3}",
              s.c, c_paper(eps), s.g, s.slack(), s.remainder_bits, s.tag_bits, s.buckets, s.load(), s.fpr(), s.memory_bits() as f64 / n as f64, b / n as f64, s.memory_bits() as f64 / b);
        }
    }
    // insertion tails at two loads
    for &load in &[0.9, 0.95] {
        let s = Sizing::new(1 << 20, 1 << 16, 1e-3, None, load).unwrap();
        let mut f = NaorYogev::from_sizing(s).unwrap();
        let mut hist = vec![0u64; 5000];
        let t0 = std::time::Instant::now();
        let total = 20_000_000u64;
        for i in 0..total {
            let p = f.insert_probes(mix64(i ^ 77)).unwrap() as usize;
            if i > 3_000_000 { hist[p.min(4999)] += 1; }
        }
        let el = t0.elapsed().as_nanos() as f64 / total as f64;
        let n: u64 = hist.iter().sum();
        let q = |x: f64| { let mut acc = 0; for (i, c) in hist.iter().enumerate() { acc += c; if acc as f64 >= x * n as f64 { return i; } } 0 };
        let max = hist.iter().rposition(|&c| c > 0).unwrap();
        println!("load {load} actual {:.3}: ns/insert {el:.1} p50 {} p99 {} p999 {} p9999 {} max {max} max_stash {}", s.load(), q(0.5), q(0.99), q(0.999), q(0.9999), f.max_stash());
    }
}
