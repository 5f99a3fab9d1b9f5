//! The Sliding Sketches' sliding Bloom filter (Sl-BF) sized by its exact
//! theory, beside the APBF and the blocked APBF for the same window and
//! FPR: bits per window element, slack, and the Sl-BF's average FPR.
//!
//! `cargo run --release -p bloomlab-filters --example sliding_bloom_sizing`
//! (about 6 s: the sizing evaluates the exact theory).

use bloomlab_filters::sliding_sketch::SlidingBloom;
use bloomlab_filters::Target;
use bloomlab_filters::{Apbf, BlockedApbf, Filter, SlidingFilter};

fn main() {
    println!("| window | fpr | Sl-BF k | Sl-BF m | Sl-BF bits/el | Sl-BF FPR avg | APBF bits/el | APBF slack/w | blocked APBF bits/el |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for w in [10_000u64, 100_000] {
        for fpr in [1e-2, 1e-3, 1e-4] {
            let s = Target::window(w)
                .fpr(fpr)
                .build::<SlidingBloom>()
                .expect("sized");
            let t = s.theory();
            assert!(t.fpr() <= fpr);
            let a = Target::window(w).fpr(fpr).build::<Apbf>().expect("sized");
            let b = Target::window(w)
                .fpr(fpr)
                .build::<BlockedApbf>()
                .expect("sized");
            let per = |f: &dyn Filter| f.memory_bits() as f64 / w as f64;
            println!(
                "| {w} | {fpr:.0e} | {} | {} | {:.1} | {:.2e} | {:.1} | {:.2} | {:.1} |",
                s.k(),
                s.m(),
                per(&s),
                t.fpr_avg(),
                per(&a),
                a.slack() as f64 / a.window() as f64,
                per(&b)
            );
        }
    }
    println!("\nSl-BF slack is W (slack/w = 1): a key is kept between W and 2W insertions.");
}
