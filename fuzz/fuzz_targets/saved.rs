//! Any bytes as a saved filter of every design of the crate's one list
//! (`bloomlab_filters::for_each_design!`): loading ends in Ok or Err, never
//! a panic, and a filter that loads answers yes at once for a key inserted
//! into it. The first byte picks the design, so one input reaches each.
#![no_main]

use bloomlab_filters::{Filter, Persist};
use libfuzzer_sys::fuzz_target;

/// Loads `bytes` as `T` and, if it loads, inserts and asks a fresh key
/// with `fresh` (None for a design with no membership).
fn one<T: Persist>(bytes: &[u8], fresh: impl Fn(&mut T) -> Option<bool>) {
    if let Ok(mut f) = T::from_bytes(bytes) {
        assert_ne!(fresh(&mut f), Some(false), "a key inserted is reported absent");
    }
}

fn filter<F: Filter>(f: &mut F) -> Option<bool> {
    let k = 0x5EED_F00D_u64;
    f.insert(k);
    Some(f.contains(k))
}

macro_rules! load_each {
    (types { $($t:ty),* $(,)? } designs { $($rest:tt)* }) => {
        fn load(which: u8, bytes: &[u8]) {
            let mut i = 0u8;
            $(
                if which % (count() as u8) == i {
                    one::<$t>(bytes, |f| Fresh::fresh(f));
                }
                i += 1;
            )*
            let _ = i;
        }
        fn count() -> usize {
            [$(stringify!($t)),*].len()
        }
    };
}

/// What a fresh key answers in each design: the membership filters say;
/// the summaries and the broom filter's bare table (whose insertions need
/// the remote dictionary) have no such answer.
trait Fresh {
    fn fresh(&mut self) -> Option<bool>;
}

macro_rules! fresh_filters {
    ($($t:ty),* $(,)?) => {$(
        impl Fresh for $t {
            fn fresh(&mut self) -> Option<bool> {
                filter(self)
            }
        }
    )*};
}

macro_rules! no_fresh {
    ($($t:ty),* $(,)?) => {$(
        impl Fresh for $t {
            fn fresh(&mut self) -> Option<bool> {
                None
            }
        }
    )*};
}

use bloomlab_filters as b;
fresh_filters!(
    b::BloomFilter,
    b::PartitionedBloomFilter,
    b::Apbf,
    b::BlockedApbf,
    b::ConcurrentApbf,
    b::ConcurrentLineApbf,
    b::LineApbf,
    b::StableBloomFilter,
    b::NaorYogev,
    b::NyPocket,
    b::Broom,
    b::Swamp,
    b::TimingBloom,
    b::Swbf,
    b::sliding_sketch::SlidingBloom,
    b::half_sliding::HalfSliding,
    b::clock_sketch::ClockBloom,
    b::she::SheBloom,
    b::segmented::JumpingWindow,
    b::segmented::DoubleBuffer,
    b::segmented::A2Buffer,
    b::segmented::ForgetfulBloom,
    b::segmented::ForgetfulCode,
    b::OnTime<b::Apbf>,
    b::OnTime<b::BlockedApbf>,
    b::OnTime<b::LineApbf>,
    b::OnTime<b::NaorYogev>,
    b::OnTime<b::segmented::JumpingWindow>,
    b::OnTime<b::segmented::DoubleBuffer>,
    b::timing::TimedTbf,
    b::timing::TimedSwbf,
    b::sliding_sketch::TimedSlidingBloom,
    b::half_sliding::TimedHalfSliding,
    b::clock_sketch::TimedClockBloom,
    b::tlbf::Tlbf,
    b::she::TimedSheBloom,
);
no_fresh!(b::BroomFilter, b::Wcss, b::SlidingHll, b::Swlc);

bloomlab_filters::for_each_design!(load_each);

fuzz_target!(|data: &[u8]| {
    if let Some((&which, bytes)) = data.split_first() {
        load(which, bytes);
    }
});
