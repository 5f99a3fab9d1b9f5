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
                $crate::ConcurrentLineApbf,
                $crate::LineApbf,
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
                $crate::ForgetfulCode,
                $crate::OnTime<$crate::Apbf>,
                $crate::OnTime<$crate::BlockedApbf>,
                $crate::OnTime<$crate::LineApbf>,
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
                bloom: $crate::BloomFilter = $crate::BloomFilter::new($crate::BloomShape { bits: 4096, hashes: 3 }).unwrap();
                partitioned_bloom: $crate::PartitionedBloomFilter =
                    $crate::PartitionedBloomFilter::new($crate::PartitionedBloomShape { hashes: 3, bits_per_slice: 1024 }).unwrap();
                apbf: $crate::Apbf = $crate::Apbf::new($crate::ApbfShape { hashes: 4, extra_slices: 3, generation: 64 }).unwrap();
                blocked_apbf: $crate::BlockedApbf = $crate::BlockedApbf::new($crate::BlockedApbfShape { hashes: 4, extra_slices: 3, generation: 64, blocks: Some(16) }).unwrap();
                concurrent_apbf: $crate::ConcurrentApbf = $crate::ConcurrentApbf::timed(
                    $crate::BlockedApbfShape { hashes: 4, extra_slices: 3, generation: 64, blocks: Some(16) },
                    50, $crate::Trigger::Hybrid,
                ).unwrap().with_seed(7);
                line_apbf: $crate::LineApbf = $crate::LineApbf::new($crate::LineApbfShape { hashes: 4, extra_slices: 3, generation: 64, lines: Some(16) }).unwrap();
                concurrent_line_apbf: $crate::ConcurrentLineApbf = $crate::ConcurrentLineApbf::timed(
                    $crate::LineApbfShape { hashes: 4, extra_slices: 3, generation: 64, lines: Some(16) },
                    50, $crate::Trigger::Hybrid,
                ).unwrap().with_seed(7);
                stable: $crate::StableBloomFilter =
                    $crate::StableBloomFilter::new($crate::StableShape { cells: 2048, cell_bits: 3, hashes: 3, decrements: 10 }).unwrap().with_seed(3);
                naor_yogev: $crate::NaorYogev =
                    $crate::NaorYogev::new($crate::NaorYogevShape { window: 256, slack: 256, fpr: 1e-2, generations: None, max_load: None }).unwrap().with_seed(5);
                ny_pocket: $crate::NyPocket = $crate::NyPocket::new($crate::NyPocketShape { window: 256, slack: 256, fpr: 1e-2, generations: None, max_load: None }).unwrap();
                broom_filter: $crate::BroomFilter =
                    $crate::BroomFilter::new($crate::BroomShape { capacity: 256, slots: 400, remainder_bits: 7, moves_per_adapt: 2 }).map(|f| f.with_seed(9)).unwrap();
                broom: $crate::Broom = $crate::Target::window(256).fpr(1e-2).seed(9).build::<$crate::Broom>().unwrap();
                swamp: $crate::Swamp = $crate::Swamp::new($crate::SwampShape { window: 256, fingerprint_bits: 15 }).unwrap();
                tbf: $crate::TimingBloom = $crate::Target::window(256).fpr(1e-2).build::<$crate::TimingBloom>().unwrap();
                swbf: $crate::Swbf = $crate::Target::window(256).fpr(1e-2).build::<$crate::Swbf>().unwrap();
                sliding_bloom: $crate::sliding_sketch::SlidingBloom =
                    $crate::sliding_sketch::SlidingBloom::new($crate::SlidingBloomShape { window: 256, arrays: 3, cells_per_array: 300 }).unwrap();
                half_sliding: $crate::half_sliding::HalfSliding =
                    $crate::half_sliding::HalfSliding::new($crate::HalfSlidingShape { cycle: 256, arrays: 5, queried_arrays: 3, cells_per_array: 300 }).unwrap();
                clock_bloom: $crate::clock_sketch::ClockBloom =
                    $crate::clock_sketch::ClockBloom::new($crate::ClockBloomShape { window: 256, hashes: 3, cell_bits: 2, cells: 300 }).unwrap();
                she_bloom: $crate::she::SheBloom = $crate::she::SheBloom::new($crate::SheBloomShape { window: 256, hashes: 3, bits: 320, group_bits: 8, phase: 400 }).unwrap();
                jumping: $crate::segmented::JumpingWindow =
                    $crate::Target::window(256).fpr(1e-2).segments(4).build::<$crate::segmented::JumpingWindow>().unwrap();
                double_buffer: $crate::segmented::DoubleBuffer =
                    $crate::Target::window(256).fpr(1e-2).build::<$crate::segmented::DoubleBuffer>().unwrap();
                a2: $crate::segmented::A2Buffer = $crate::Target::window(256).fpr(1e-2).build::<$crate::segmented::A2Buffer>().unwrap();
                forgetful: $crate::segmented::ForgetfulBloom =
                    $crate::Target::window(256).fpr(1e-2).past(3).build::<$crate::segmented::ForgetfulBloom>().unwrap();
                forgetful_code: $crate::segmented::ForgetfulCode =
                    $crate::Target::window(256).fpr(1e-2).past(3).build::<$crate::segmented::ForgetfulCode>().unwrap();
                apbf_time: $crate::OnTime<$crate::Apbf> =
                    $crate::OnTime::<$crate::Apbf>::new($crate::ApbfShape { hashes: 4, extra_slices: 3, generation: 64 }, 50, $crate::Trigger::Time).unwrap();
                apbf_hybrid: $crate::OnTime<$crate::Apbf> =
                    $crate::OnTime::<$crate::Apbf>::new($crate::ApbfShape { hashes: 4, extra_slices: 3, generation: 64 }, 50, $crate::Trigger::Hybrid).unwrap();
                blocked_apbf_time: $crate::OnTime<$crate::BlockedApbf> = $crate::OnTime::wrap(
                    $crate::BlockedApbf::new($crate::BlockedApbfShape { hashes: 4, extra_slices: 3, generation: 64, blocks: Some(16) }).unwrap(), 50, $crate::Trigger::Time,
                ).unwrap();
                line_apbf_time: $crate::OnTime<$crate::LineApbf> = $crate::OnTime::wrap(
                    $crate::LineApbf::new($crate::LineApbfShape { hashes: 4, extra_slices: 3, generation: 64, lines: Some(16) }).unwrap(), 50, $crate::Trigger::Time,
                ).unwrap();
                naor_yogev_hybrid: $crate::OnTime<$crate::NaorYogev> = $crate::OnTime::wrap(
                    $crate::NaorYogev::new($crate::NaorYogevShape { window: 256, slack: 256, fpr: 1e-2, generations: None, max_load: None }).unwrap(), 50, $crate::Trigger::Hybrid,
                ).unwrap();
                jumping_time: $crate::OnTime<$crate::segmented::JumpingWindow> = $crate::OnTime::wrap(
                    $crate::Target::window(256).fpr(1e-2).segments(4).build::<$crate::segmented::JumpingWindow>().unwrap(), 50,
                    $crate::Trigger::Time,
                ).unwrap();
                double_buffer_time: $crate::OnTime<$crate::segmented::DoubleBuffer> = $crate::OnTime::wrap(
                    $crate::Target::window(256).fpr(1e-2).build::<$crate::segmented::DoubleBuffer>().unwrap(), 50,
                    $crate::Trigger::Time,
                ).unwrap();
                tbf_time: $crate::timing::TimedTbf = $crate::timing::TimedTbf::new($crate::TimedTbfShape { quanta: 4, quantum_ticks: 50, hashes: 3, cells_per_slice: 256 }).unwrap();
                swbf_hybrid: $crate::timing::TimedSwbf = $crate::timing::TimedSwbf::new($crate::TimedSwbfShape { quanta: 4, quantum_ticks: 50, quantum_keys: 64, fingerprint_bits: 12 }).unwrap();
                sliding_bloom_time: $crate::sliding_sketch::TimedSlidingBloom =
                    $crate::sliding_sketch::TimedSlidingBloom::new($crate::TimedSlidingBloomShape { window_ticks: 200, arrays: 3, cells_per_array: 300 }).unwrap();
                half_sliding_time: $crate::half_sliding::TimedHalfSliding =
                    $crate::half_sliding::TimedHalfSliding::new($crate::TimedHalfSlidingShape { window_ticks: 200, arrays: 5, queried_arrays: 2, cells_per_array: 300 }).unwrap();
                clock_bloom_time: $crate::clock_sketch::TimedClockBloom =
                    $crate::clock_sketch::TimedClockBloom::new($crate::TimedClockBloomShape { window_ticks: 200, hashes: 3, cell_bits: 2, cells: 300 }).unwrap();
                tlbf: $crate::tlbf::Tlbf = $crate::tlbf::Tlbf::new($crate::TlbfShape { hashes: 3, extra_slices: 4, window_ticks: 200, initial_bits_per_slice: 64 }).unwrap();
                she_bloom_time: $crate::she::TimedSheBloom =
                    $crate::she::TimedSheBloom::new($crate::TimedSheBloomShape { window_ticks: 200, hashes: 3, bits: 320, group_bits: 8, phase_ticks: 400 }).unwrap();
                wcss: $crate::Wcss = $crate::Wcss::new($crate::WcssShape { window: 256, counters: 32 }).unwrap();
                swhll: $crate::SlidingHll = $crate::SlidingHll::new($crate::SlidingHllShape { window: 256, registers: 64 }).unwrap();
                swlc: $crate::Swlc = $crate::Swlc::new($crate::SwlcShape { window: 256, registers: 64 }).unwrap();
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
