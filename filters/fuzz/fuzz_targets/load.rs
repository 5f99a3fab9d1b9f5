//! Any bytes, loaded as every design: an error or a filter whose
//! operations do not panic. `cargo +nightly fuzz run load` from `filters/`.
//! The property tests in `tests/persistence.rs` run the same check on
//! mutated saved filters in CI (stable Rust, no fuzzer needed).

#![no_main]

use bloomlab_filters::naor_yogev::NaorYogev;
use bloomlab_filters::segmented::{A2Buffer, DoubleBuffer, ForgetfulBloom, JumpingWindow};
use bloomlab_filters::timing::{TimedSwbf, TimedTbf};
use bloomlab_filters::{
    Apbf, BlockedApbf, BloomFilter, Broom, Filter, NyPocket, OnTime, PartitionedBloomFilter,
    Persist, SlidingHll, StableBloomFilter, Swamp, Swbf, Swlc, TimingBloom, Wcss, WindowSummary,
};
use libfuzzer_sys::fuzz_target;

fn filter<F: Filter + Persist>(data: &[u8]) {
    if let Ok(mut f) = F::from_bytes(data) {
        for k in 0..64u64 {
            f.insert(k.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let _ = f.contains(k);
        }
        let _ = f.to_bytes();
    }
}

fn summary<S: WindowSummary + Persist>(data: &[u8]) {
    if let Ok(mut s) = S::from_bytes(data) {
        for k in 0..64u64 {
            s.record(k % 7);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    filter::<Apbf>(data);
    filter::<BlockedApbf>(data);
    filter::<BloomFilter>(data);
    filter::<PartitionedBloomFilter>(data);
    filter::<StableBloomFilter>(data);
    filter::<NaorYogev>(data);
    filter::<NyPocket>(data);
    filter::<Broom>(data);
    filter::<Swamp>(data);
    filter::<TimingBloom>(data);
    filter::<TimedTbf>(data);
    filter::<Swbf>(data);
    filter::<TimedSwbf>(data);
    filter::<JumpingWindow>(data);
    filter::<DoubleBuffer>(data);
    filter::<A2Buffer>(data);
    filter::<ForgetfulBloom>(data);
    filter::<bloomlab_filters::sliding_sketch::SlidingBloom>(data);
    filter::<OnTime<Apbf>>(data);
    filter::<OnTime<NaorYogev>>(data);
    filter::<OnTime<JumpingWindow>>(data);
    filter::<OnTime<DoubleBuffer>>(data);
    summary::<Wcss>(data);
    summary::<SlidingHll>(data);
    summary::<Swlc>(data);
});
