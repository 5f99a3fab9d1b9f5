//! bloomlab's criterion benchmarks (`benches/ops.rs`, `benches/stable_crate.rs`)
//! and the comparison with the stable-bloom-filter crate
//! (`src/bin/stable_crate_fpr.rs`), beside the crates users would pick. A
//! workspace member of their own, outside the default members, so that
//! `cargo test` builds none of the comparison crates:
//! `cargo bench -p bloomlab-bench`.
