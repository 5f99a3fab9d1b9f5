//! Persistence, for every design: a filter saved mid-stream and loaded back
//! answers every later insertion and query exactly as the original (and
//! saves to the same bytes); truncated, corrupted, foreign, future-version
//! and crafted files are typed errors, never panics; and the committed
//! format fixtures (`tests/fixtures/*.bin`, written by format version 1)
//! still load and answer as a filter built today.
//!
//! `BLOOMLAB_WRITE_FIXTURES=1 cargo test -p bloomlab-filters --test
//! persistence` rewrites the fixtures; it is for a new design or a new
//! format version, never to make a failing fixture pass.

use bloomlab_filters::clock_sketch::{ClockBloom, TimedClockBloom};
use bloomlab_filters::half_sliding::{HalfSliding, TimedHalfSliding};
use bloomlab_filters::hash::mix64;
use bloomlab_filters::naor_yogev::NaorYogev;
use bloomlab_filters::segmented::{A2Buffer, DoubleBuffer, ForgetfulBloom, JumpingWindow};
use bloomlab_filters::she::{SheBloom, TimedSheBloom};
use bloomlab_filters::sliding_sketch::{SlidingBloom, TimedSlidingBloom};
use bloomlab_filters::timing::{TimedSwbf, TimedTbf};
use bloomlab_filters::tlbf::Tlbf;
use bloomlab_filters::Generational;
use bloomlab_filters::{
    AdaptiveFilter, Apbf, BlockedApbf, BloomFilter, Broom, Filter, Keyed, LoadError, NyPocket,
    OnTime, PartitionedBloomFilter, Persist, SlidingHll, StableBloomFilter, Swamp, Swbf, Swlc,
    TimedFilter, TimingBloom, Trigger, Wcss, WindowSummary,
};
use proptest::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// One step of a design's workload (insertions, queries, time, adaptation,
/// estimates), returning every answer it gave as numbers.
trait Subject: Persist + Clone {
    fn step(&mut self, i: u64) -> Vec<u64>;
}

fn key(i: u64) -> u64 {
    mix64(i ^ 0x5EED)
}

/// Insert key i, query a recent key, an old one and a never-inserted one.
fn filter_step<F: Filter>(f: &mut F, i: u64) -> Vec<u64> {
    f.insert(key(i % 700));
    vec![
        f.contains(key(i.saturating_sub(3) % 700)) as u64,
        f.contains(key(i / 2 % 700)) as u64,
        f.contains(key(i + 1_000_000)) as u64,
    ]
}

/// Time moves on by a varying step (bursts and lulls) before each step.
fn timed_step<F: TimedFilter>(f: &mut F, i: u64) -> Vec<u64> {
    let dt = [1, 1, 1, 0, 5, 40][(mix64(i) % 6) as usize];
    f.advance(f.now() + dt);
    filter_step(f, i)
}

fn summary_step<S: WindowSummary>(s: &mut S, i: u64) -> Vec<u64> {
    let k = key(mix64(i) % 97);
    s.record(k);
    let mut out = vec![];
    if let Some(f) = s.as_frequency() {
        out.push(f.frequency(k));
    }
    if let Some(d) = s.as_distinct() {
        out.push(d.distinct().to_bits());
    }
    if let Some(e) = s.as_entropy() {
        out.push(e.entropy().to_bits());
    }
    out
}

macro_rules! subjects {
    ($($name:ident: $t:ty = $make:expr;)*) => {

        /// Every design, built small, by its file name.
        fn all() -> Vec<(&'static str, Box<dyn Fn() -> Box<dyn Check>>)> {
            vec![$((stringify!($name), Box::new(|| Box::new(Case::<$t>($make)) as Box<dyn Check>))),*]
        }

        mod round_trip {
            use super::*;
            $(#[test]
            fn $name() {
                Case::<$t>($make).round_trip();
            })*
        }

        mod hostile {
            use super::*;
            $(#[test]
            fn $name() {
                Case::<$t>($make).hostile();
            })*
        }
    };
}

/// How each type steps through its workload.
macro_rules! steps {
    ($($t:ty => $step:expr;)*) => {
        $(impl Subject for $t {
            fn step(&mut self, i: u64) -> Vec<u64> {
                ($step)(self, i)
            }
        })*
    };
}

steps! {
    BloomFilter => filter_step;
    PartitionedBloomFilter => filter_step;
    Apbf => filter_step;
    BlockedApbf => filter_step;
    StableBloomFilter => filter_step;
    NaorYogev => filter_step;
    NyPocket => filter_step;
    Broom => |f: &mut Broom, i| {
        let mut out = filter_step(f, i);
        let probe = key(i + 2_000_000);
        if f.contains(probe) {
            out.push(f.adapt(probe) as u64);
        }
        out.push(f.remote_accesses());
        out
    };
    Swamp => |f: &mut Swamp, i| {
        let mut out = filter_step(f, i);
        out.extend(summary_step(f, i));
        out
    };
    TimingBloom => filter_step;
    Swbf => filter_step;
    JumpingWindow => filter_step;
    DoubleBuffer => filter_step;
    A2Buffer => filter_step;
    ForgetfulBloom => filter_step;
    TimedTbf => timed_step;
    SlidingBloom => filter_step;
    HalfSliding => filter_step;
    ClockBloom => filter_step;
    SheBloom => filter_step;
    TimedSwbf => timed_step;
    TimedSlidingBloom => timed_step;
    TimedHalfSliding => timed_step;
    TimedClockBloom => timed_step;
    Tlbf => timed_step;
    TimedSheBloom => timed_step;
    Wcss => summary_step;
    SlidingHll => summary_step;
    Swlc => summary_step;
}

impl<F: Generational + Persist + Clone> Subject for OnTime<F> {
    fn step(&mut self, i: u64) -> Vec<u64> {
        timed_step(self, i)
    }
}

subjects! {
    bloom: BloomFilter = BloomFilter::new(4096, 3).unwrap();
    partitioned_bloom: PartitionedBloomFilter = PartitionedBloomFilter::new(3, 1024).unwrap();
    apbf: Apbf = Apbf::new(4, 3, 64).unwrap();
    blocked_apbf: BlockedApbf = BlockedApbf::new(4, 3, 64, 16).unwrap();
    stable: StableBloomFilter = StableBloomFilter::new(2048, 3, 3, 10).unwrap().with_seed(3);
    naor_yogev: NaorYogev = NaorYogev::new(256, 256, 1e-2).unwrap().with_seed(5);
    ny_pocket: NyPocket = NyPocket::new(256, 256, 1e-2).unwrap();
    broom: Broom = Broom::with_fpr(256, 1e-2, 9).unwrap();
    swamp: Swamp = Swamp::with_fpr(256, 1e-2).unwrap();
    tbf: TimingBloom = TimingBloom::with_fpr(256, 1e-2).unwrap();
    swbf: Swbf = Swbf::with_fpr(256, 1e-2).unwrap();
    sliding_bloom: SlidingBloom = SlidingBloom::new(256, 3, 300).unwrap();
    half_sliding: HalfSliding = HalfSliding::new(256, 5, 3, 300).unwrap();
    clock_bloom: ClockBloom = ClockBloom::new(256, 3, 2, 300).unwrap();
    she_bloom: SheBloom = SheBloom::new(256, 3, 320, 8, 400).unwrap();
    jumping: JumpingWindow = JumpingWindow::with_fpr(256, 1e-2, 4).unwrap();
    double_buffer: DoubleBuffer = DoubleBuffer::with_fpr(256, 1e-2).unwrap();
    a2: A2Buffer = A2Buffer::with_fpr(256, 1e-2).unwrap();
    forgetful: ForgetfulBloom = ForgetfulBloom::with_fpr(256, 1e-2, 3).unwrap();
    apbf_time: OnTime<Apbf> = OnTime::<Apbf>::new(4, 3, 64, 50, Trigger::Time).unwrap();
    apbf_hybrid: OnTime<Apbf> = OnTime::<Apbf>::new(4, 3, 64, 50, Trigger::Hybrid).unwrap();
    naor_yogev_hybrid: OnTime<NaorYogev> =
        OnTime::wrap(NaorYogev::new(256, 256, 1e-2).unwrap(), 50, Trigger::Hybrid).unwrap();
    jumping_time: OnTime<JumpingWindow> =
        OnTime::wrap(JumpingWindow::with_fpr(256, 1e-2, 4).unwrap(), 50, Trigger::Time).unwrap();
    double_buffer_time: OnTime<DoubleBuffer> =
        OnTime::wrap(DoubleBuffer::with_fpr(256, 1e-2).unwrap(), 50, Trigger::Time).unwrap();
    tbf_time: TimedTbf = TimedTbf::new(4, 50, 3, 256).unwrap();
    swbf_hybrid: TimedSwbf = TimedSwbf::new(4, 50, 64, 12).unwrap();
    sliding_bloom_time: TimedSlidingBloom = TimedSlidingBloom::new(200, 3, 300).unwrap();
    half_sliding_time: TimedHalfSliding = TimedHalfSliding::new(200, 5, 2, 300).unwrap();
    clock_bloom_time: TimedClockBloom = TimedClockBloom::new(200, 3, 2, 300).unwrap();
    tlbf: Tlbf = Tlbf::new(3, 4, 200, 64).unwrap();
    she_bloom_time: TimedSheBloom = TimedSheBloom::new(200, 3, 320, 8, 400).unwrap();
    wcss: Wcss = Wcss::new(256, 32).unwrap();
    swhll: SlidingHll = SlidingHll::new(256, 64).unwrap();
    swlc: Swlc = Swlc::new(256, 64).unwrap();
}

struct Case<T>(T);

/// What the fixture test asks of any case.
trait Check {
    fn fixture_bytes(&self) -> Vec<u8>;
    fn loads_and_answers(&self, bytes: &[u8]) -> Result<(), String>;
}

/// Steps run before the save: enough for every design to wrap its window
/// several times (shifts, sweeps, stash, clock wraparound).
const BEFORE: u64 = 1500;
const AFTER: u64 = 1500;

impl<T: Subject> Case<T> {
    fn warmed(&self) -> T {
        let mut f = self.0.clone();
        for i in 0..BEFORE {
            f.step(i);
        }
        f
    }

    fn round_trip(&self) {
        let mut a = self.warmed();
        let bytes = a.to_bytes();
        let mut b = T::from_bytes(&bytes).expect("loads what it saved");
        assert_eq!(b.to_bytes(), bytes, "saves what it loaded");
        for i in BEFORE..BEFORE + AFTER {
            assert_eq!(a.step(i), b.step(i), "answers differ at step {i}");
        }
        assert_eq!(
            a.to_bytes(),
            b.to_bytes(),
            "states differ after {AFTER} steps"
        );
        // keyed: the seed travels with the filter
        let keyed = Keyed::new(self.0.clone(), 42);
        let again = Keyed::<T>::from_bytes(&keyed.to_bytes()).expect("keyed loads");
        assert_eq!(again.hasher().seed(), 42);
        assert_eq!(
            T::from_bytes(&keyed.to_bytes()).err(),
            Some(LoadError::Keyed { found: true })
        );
        let bare = self.0.to_bytes();
        assert_eq!(
            Keyed::<T>::from_bytes(&bare).err(),
            Some(LoadError::Keyed { found: false })
        );
    }

    fn hostile(&self) {
        let bytes = self.warmed().to_bytes();
        // every truncation
        for n in 0..bytes.len() {
            let e = T::from_bytes(&bytes[..n])
                .err()
                .expect("a truncated file fails");
            assert!(
                matches!(e, LoadError::Truncated | LoadError::NotAFilter),
                "truncated to {n}: {e}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(
            T::from_bytes(&longer).err(),
            Some(LoadError::TrailingBytes(1))
        );
        // a flipped bit anywhere is caught (by the checksum, or before it)
        for i in (0..bytes.len()).step_by((bytes.len() / 3000).max(1)) {
            let mut bad = bytes.clone();
            bad[i] ^= 1 << (i % 8);
            assert!(
                T::from_bytes(&bad).is_err(),
                "bit flipped at byte {i} accepted"
            );
        }
        // foreign, future, another design
        assert_eq!(
            T::from_bytes(b"GIF89a....").err(),
            Some(LoadError::NotAFilter)
        );
        let mut future = bytes.clone();
        future[8] = 2;
        assert!(matches!(
            T::from_bytes(&future),
            Err(LoadError::FutureVersion {
                found: 2,
                supported: 1
            })
        ));
        let other = if bytes[13..].starts_with(b"bloom") {
            Apbf::new(2, 2, 8).unwrap().to_bytes()
        } else {
            BloomFilter::new(64, 2).unwrap().to_bytes()
        };
        assert!(matches!(
            T::from_bytes(&other),
            Err(LoadError::WrongDesign { .. })
        ));
        // a header that claims a huge state is refused before allocating
        let mut huge = bytes.clone();
        let at = 13 + bytes[12] as usize + 8;
        huge[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(T::from_bytes(&huge).err(), Some(LoadError::Truncated));
    }
}

impl<T: Subject> Check for Case<T> {
    fn fixture_bytes(&self) -> Vec<u8> {
        self.warmed().to_bytes()
    }

    fn loads_and_answers(&self, bytes: &[u8]) -> Result<(), String> {
        let mut old = T::from_bytes(bytes).map_err(|e| e.to_string())?;
        let mut now = self.warmed();
        for i in BEFORE..BEFORE + 200 {
            if old.step(i) != now.step(i) {
                return Err(format!("answers differ at step {i}"));
            }
        }
        Ok(())
    }
}

/// Flips a byte of the state, then fixes the checksum, so that the file
/// reaches the design's own checks: loading must give an error or a filter
/// whose operations do not panic.
/// The state's bytes in a saved file: past the header (magic, version,
/// tag length, tag, seed and length) and before the checksum.
fn state_range(bytes: &[u8]) -> std::ops::Range<usize> {
    13 + bytes[12] as usize + 16..bytes.len() - 8
}

/// `bytes` with byte `i` flipped by `xor` and the checksum made right
/// again: a state crafted to pass the checksum.
fn crafted(mut bytes: Vec<u8>, i: usize, xor: u8) -> Vec<u8> {
    let end = bytes.len() - 8;
    bytes[i] ^= xor;
    let sum = xxhash_rust::xxh3::xxh3_64(&bytes[..end]);
    bytes[end..].copy_from_slice(&sum.to_le_bytes());
    bytes
}

fn crafted_state_never_panics(name: &str, make: &dyn Fn() -> Box<dyn Check>, at: f64, xor: u8) {
    let case = make();
    let bytes = case.fixture_bytes();
    let state = state_range(&bytes);
    if state.is_empty() {
        return;
    }
    let (start, end) = (state.start, state.end);
    let i = start + ((end - start) as f64 * at) as usize % (end - start);
    let bad = crafted(bytes, i, xor.max(1));
    let outcome = catch_unwind(AssertUnwindSafe(|| case.loads_and_answers(&bad)));
    assert!(outcome.is_ok(), "{name}: byte {i} ^ {xor:#x} panicked");
}

/// Every byte of each design's leading fields (its parameters: k, m, the
/// window, ...) flipped by 0x80 and by 0xff, one at a time: each crafted
/// state is an error or loads and answers, within seconds. A k of 2^31 + 3
/// used to load (k >= 1 was all a design checked) and make each operation
/// loop two billion times, which the random cases below once hit.
#[test]
fn crafted_parameters_are_errors_or_answer_in_time() {
    for (name, make) in all() {
        let name: &'static str = name;
        let bytes = make().fixture_bytes();
        let state = state_range(&bytes);
        for i in state.start..state.end.min(state.start + 48) {
            for xor in [0x80u8, 0xff] {
                let (tx, rx) = std::sync::mpsc::channel();
                std::thread::spawn(move || {
                    let case = all().into_iter().find(|c| c.0 == name).unwrap().1();
                    let bad = crafted(case.fixture_bytes(), i, xor);
                    let ok =
                        catch_unwind(AssertUnwindSafe(|| case.loads_and_answers(&bad))).is_ok();
                    let _ = tx.send(ok);
                });
                match rx.recv_timeout(std::time::Duration::from_secs(20)) {
                    Ok(ok) => assert!(ok, "{name}: byte {i} ^ {xor:#x} panicked"),
                    Err(_) => panic!("{name}: byte {i} ^ {xor:#x} did not answer within 20 s"),
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn crafted_states_are_errors_or_safe(which in 0usize..26, at in 0.0f64..1.0, xor in 1u8..=255) {
        let all = all();
        let (name, make) = &all[which % all.len()];
        crafted_state_never_panics(name, make.as_ref(), at, xor);
    }
}

#[test]
fn committed_fixtures_load_and_answer() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let write = std::env::var_os("BLOOMLAB_WRITE_FIXTURES").is_some();
    for (name, make) in all() {
        let case = make();
        let path = dir.join(format!("{name}.v1.bin"));
        if write {
            std::fs::write(&path, case.fixture_bytes()).expect("fixture written");
        }
        let bytes = std::fs::read(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (a new design needs its fixture)", path.display()));
        case.loads_and_answers(&bytes)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            bytes,
            case.fixture_bytes(),
            "{name}: today's bytes differ from the fixture's"
        );
    }
}

/// Every design is `Send + Sync` (plain data: no interior mutability, no
/// thread-bound handles), so a filter can be moved to, or read from, any
/// thread; the concurrent APBF also writes from many.
#[test]
fn every_design_is_send_and_sync() {
    fn both<T: Send + Sync>() {}
    both::<BloomFilter>();
    both::<PartitionedBloomFilter>();
    both::<Apbf>();
    both::<BlockedApbf>();
    both::<StableBloomFilter>();
    both::<NaorYogev>();
    both::<NyPocket>();
    both::<Broom>();
    both::<Swamp>();
    both::<TimingBloom>();
    both::<Swbf>();
    both::<SlidingBloom>();
    both::<HalfSliding>();
    both::<ClockBloom>();
    both::<SheBloom>();
    both::<JumpingWindow>();
    both::<DoubleBuffer>();
    both::<A2Buffer>();
    both::<ForgetfulBloom>();
    both::<OnTime<Apbf>>();
    both::<OnTime<NaorYogev>>();
    both::<OnTime<JumpingWindow>>();
    both::<OnTime<DoubleBuffer>>();
    both::<TimedTbf>();
    both::<TimedSwbf>();
    both::<TimedSlidingBloom>();
    both::<TimedHalfSliding>();
    both::<TimedClockBloom>();
    both::<Tlbf>();
    both::<TimedSheBloom>();
    both::<Wcss>();
    both::<SlidingHll>();
    both::<Swlc>();
    both::<Keyed<Apbf>>();
    both::<bloomlab_filters::apbf::blocked::concurrent::ConcurrentApbf>();
}
