//! The one list of the crate's designs: [`for_each_design!`](crate::for_each_design)
//! gives every design that ships (every type that implements
//! [`Persist`](crate::Persist)) once, with a small instance of it, and every
//! suite that must cover them all expands it: the serde impls, the
//! persistence round-trip, hostile-file and crafted-state suites, the
//! committed-fixture check and the `Send + Sync` check. A design added to
//! the crate and not here fails a test that reads the crate's sources for
//! `Persist` impls (`tests/persistence/`); a design here and missing from
//! a suite cannot be, since each suite is this list.

/// Expands `$callback! { types { T, ... } designs { name: T = make; ... } }`:
/// `types` holds each design's type once (what trait impls are written
/// for), `designs` each configuration the suites build, by its fixture
/// name (`tests/fixtures/<name>.v1.bin`), with a small instance.
///
/// ```
/// macro_rules! count {
///     (types { $($t:ty),* $(,)? } designs { $($name:ident: $u:ty = $make:expr;)* }) => {
///         [$(stringify!($name)),*].len()
///     };
/// }
/// let n = bloomlab_filters::for_each_design!(count);
/// assert!(n >= 37);
/// ```
#[macro_export]
macro_rules! for_each_design {
    ($callback:ident) => {
        $callback! {
            types {
                $crate::BloomFilter,
                $crate::PartitionedBloomFilter,
                $crate::Apbf,
                $crate::BlockedApbf,
                $crate::ConcurrentApbf,
                $crate::StableBloomFilter,
                $crate::NaorYogev,
                $crate::NyPocket,
                $crate::BroomFilter,
                $crate::Broom,
                $crate::Swamp,
                $crate::TimingBloom,
                $crate::Swbf,
                $crate::SlidingBloom,
                $crate::HalfSliding,
                $crate::ClockBloom,
                $crate::SheBloom,
                $crate::JumpingWindow,
                $crate::DoubleBuffer,
                $crate::A2Buffer,
                $crate::ForgetfulBloom,
                $crate::OnTime<$crate::Apbf>,
                $crate::OnTime<$crate::BlockedApbf>,
                $crate::OnTime<$crate::NaorYogev>,
                $crate::OnTime<$crate::JumpingWindow>,
                $crate::OnTime<$crate::DoubleBuffer>,
                $crate::TimedTbf,
                $crate::TimedSwbf,
                $crate::TimedSlidingBloom,
                $crate::TimedHalfSliding,
                $crate::TimedClockBloom,
                $crate::Tlbf,
                $crate::TimedSheBloom,
                $crate::Wcss,
                $crate::SlidingHll,
                $crate::Swlc,
            }
            designs {
                bloom: $crate::BloomFilter = $crate::BloomFilter::new(4096, 3).unwrap();
                partitioned_bloom: $crate::PartitionedBloomFilter =
                    $crate::PartitionedBloomFilter::new(3, 1024).unwrap();
                apbf: $crate::Apbf = $crate::Apbf::new(4, 3, 64).unwrap();
                blocked_apbf: $crate::BlockedApbf = $crate::BlockedApbf::new(4, 3, 64, 16).unwrap();
                concurrent_apbf: $crate::ConcurrentApbf = $crate::ConcurrentApbf::timed(
                    4, 3, 64, 16, 50, $crate::Trigger::Hybrid, 7,
                ).unwrap();
                stable: $crate::StableBloomFilter =
                    $crate::StableBloomFilter::new(2048, 3, 3, 10).unwrap().with_seed(3);
                naor_yogev: $crate::NaorYogev =
                    $crate::NaorYogev::new(256, 256, 1e-2).unwrap().with_seed(5);
                ny_pocket: $crate::NyPocket = $crate::NyPocket::new(256, 256, 1e-2).unwrap();
                broom_filter: $crate::BroomFilter =
                    $crate::BroomFilter::new(256, 400, 7, 2, 9).unwrap();
                broom: $crate::Broom = $crate::Broom::with_fpr(256, 1e-2, 9).unwrap();
                swamp: $crate::Swamp = $crate::Swamp::with_fpr(256, 1e-2).unwrap();
                tbf: $crate::TimingBloom = $crate::TimingBloom::with_fpr(256, 1e-2).unwrap();
                swbf: $crate::Swbf = $crate::Swbf::with_fpr(256, 1e-2).unwrap();
                sliding_bloom: $crate::sliding_sketch::SlidingBloom =
                    $crate::sliding_sketch::SlidingBloom::new(256, 3, 300).unwrap();
                half_sliding: $crate::half_sliding::HalfSliding =
                    $crate::half_sliding::HalfSliding::new(256, 5, 3, 300).unwrap();
                clock_bloom: $crate::clock_sketch::ClockBloom =
                    $crate::clock_sketch::ClockBloom::new(256, 3, 2, 300).unwrap();
                she_bloom: $crate::she::SheBloom = $crate::she::SheBloom::new(256, 3, 320, 8, 400).unwrap();
                jumping: $crate::segmented::JumpingWindow =
                    $crate::segmented::JumpingWindow::with_fpr(256, 1e-2, 4).unwrap();
                double_buffer: $crate::segmented::DoubleBuffer =
                    $crate::segmented::DoubleBuffer::with_fpr(256, 1e-2).unwrap();
                a2: $crate::segmented::A2Buffer = $crate::segmented::A2Buffer::with_fpr(256, 1e-2).unwrap();
                forgetful: $crate::segmented::ForgetfulBloom =
                    $crate::segmented::ForgetfulBloom::with_fpr(256, 1e-2, 3).unwrap();
                apbf_time: $crate::OnTime<$crate::Apbf> =
                    $crate::OnTime::<$crate::Apbf>::new(4, 3, 64, 50, $crate::Trigger::Time).unwrap();
                apbf_hybrid: $crate::OnTime<$crate::Apbf> =
                    $crate::OnTime::<$crate::Apbf>::new(4, 3, 64, 50, $crate::Trigger::Hybrid).unwrap();
                blocked_apbf_time: $crate::OnTime<$crate::BlockedApbf> = $crate::OnTime::wrap(
                    $crate::BlockedApbf::new(4, 3, 64, 16).unwrap(), 50, $crate::Trigger::Time,
                ).unwrap();
                naor_yogev_hybrid: $crate::OnTime<$crate::NaorYogev> = $crate::OnTime::wrap(
                    $crate::NaorYogev::new(256, 256, 1e-2).unwrap(), 50, $crate::Trigger::Hybrid,
                ).unwrap();
                jumping_time: $crate::OnTime<$crate::segmented::JumpingWindow> = $crate::OnTime::wrap(
                    $crate::segmented::JumpingWindow::with_fpr(256, 1e-2, 4).unwrap(), 50,
                    $crate::Trigger::Time,
                ).unwrap();
                double_buffer_time: $crate::OnTime<$crate::segmented::DoubleBuffer> = $crate::OnTime::wrap(
                    $crate::segmented::DoubleBuffer::with_fpr(256, 1e-2).unwrap(), 50,
                    $crate::Trigger::Time,
                ).unwrap();
                tbf_time: $crate::timing::TimedTbf = $crate::timing::TimedTbf::new(4, 50, 3, 256).unwrap();
                swbf_hybrid: $crate::timing::TimedSwbf = $crate::timing::TimedSwbf::new(4, 50, 64, 12).unwrap();
                sliding_bloom_time: $crate::sliding_sketch::TimedSlidingBloom =
                    $crate::sliding_sketch::TimedSlidingBloom::new(200, 3, 300).unwrap();
                half_sliding_time: $crate::half_sliding::TimedHalfSliding =
                    $crate::half_sliding::TimedHalfSliding::new(200, 5, 2, 300).unwrap();
                clock_bloom_time: $crate::clock_sketch::TimedClockBloom =
                    $crate::clock_sketch::TimedClockBloom::new(200, 3, 2, 300).unwrap();
                tlbf: $crate::tlbf::Tlbf = $crate::tlbf::Tlbf::new(3, 4, 200, 64).unwrap();
                she_bloom_time: $crate::she::TimedSheBloom =
                    $crate::she::TimedSheBloom::new(200, 3, 320, 8, 400).unwrap();
                wcss: $crate::Wcss = $crate::Wcss::new(256, 32).unwrap();
                swhll: $crate::SlidingHll = $crate::SlidingHll::new(256, 64).unwrap();
                swlc: $crate::Swlc = $crate::Swlc::new(256, 64).unwrap();
            }
        }
    };
}

macro_rules! type_names {
    (types { $($t:ty),* $(,)? } designs { $($name:ident: $u:ty = $make:expr;)* }) => {
        [$(stringify!($t)),*]
    };
}

/// The list's types as the crate's root names them, without paths or
/// spaces (`OnTime<Apbf>`): what suites in other files and crates match
/// against their sources and registries.
pub fn type_names() -> Vec<String> {
    crate::for_each_design!(type_names)
        .iter()
        .map(|t| {
            t.split_whitespace()
                .collect::<String>()
                .replace("$crate::", "")
        })
        .collect()
}

#[cfg(test)]
#[test]
fn type_names_are_plain() {
    let names = type_names();
    assert!(names.contains(&"OnTime<Apbf>".to_string()), "{names:?}");
    assert!(names.iter().all(|n| !n.contains("::")), "{names:?}");
}
