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
use bloomlab_filters::segmented::{
    A2Buffer, DoubleBuffer, ForgetfulBloom, ForgetfulCode, JumpingWindow,
};
use bloomlab_filters::she::{SheBloom, TimedSheBloom};
use bloomlab_filters::sliding_sketch::{SlidingBloom, TimedSlidingBloom};
use bloomlab_filters::timing::{TimedSwbf, TimedTbf};
use bloomlab_filters::tlbf::Tlbf;
use bloomlab_filters::Generational;
use bloomlab_filters::{
    AdaptiveFilter, Apbf, BlockedApbf, BloomFilter, Broom, BroomFilter, ConcurrentApbf,
    ConcurrentLineApbf, Filter, Keyed, LineApbf, LoadError, NyPocket, OnTime,
    PartitionedBloomFilter, Persist, SlidingHll, StableBloomFilter, Swamp, Swbf, Swlc, TimedFilter,
    TimingBloom, Wcss, WindowSummary,
};
use bloomlab_filters::{ApbfShape, BloomShape};

/// One step of a design's workload (insertions, queries, time, adaptation,
/// estimates), returning every answer it gave as numbers.
trait Subject: Persist + Clone {
    fn step(&mut self, i: u64) -> Vec<u64>;
    /// For a membership filter: inserts `k` and says whether it is then
    /// reported (it must be, whatever state the filter was loaded from).
    fn fresh(&mut self, _k: u64) -> Option<bool> {
        None
    }
}

/// A just-inserted key, asked at once.
fn filter_fresh<F: Filter>(f: &mut F, k: u64) -> Option<bool> {
    f.insert(k);
    Some(f.contains(k))
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

/// The suites, one test per design of the crate's one list
/// ([`bloomlab_filters::for_each_design!`]).
macro_rules! subjects {
    (types { $($t:ty),* $(,)? } designs { $($name:ident: $u:ty = $make:expr;)* }) => {

        /// Every design, built small, by its file name.
        fn all() -> Vec<(&'static str, Box<dyn Fn() -> Box<dyn Check>>)> {
            vec![$((stringify!($name), Box::new(|| Box::new(Case::<$u>($make)) as Box<dyn Check>))),*]
        }

        /// The type names of the list, as written.
        fn listed_types() -> Vec<&'static str> {
            vec![$(stringify!($t)),*]
        }

        /// Every design is `Send + Sync` (plain data: no interior
        /// mutability, no thread-bound handles), so a filter can be moved
        /// to, or read from, any thread; the concurrent APBF also writes
        /// from many.
        #[test]
        fn every_design_is_send_and_sync() {
            fn both<T: Send + Sync>() {}
            $(both::<$t>();)*
            both::<Keyed<Apbf>>();
        }

        /// With the `serde` feature, every design goes through serde (JSON
        /// here) and back with the same answers and bytes.
        #[cfg(feature = "serde")]
        mod serde_round_trip {
            use super::*;
            $(#[test]
            fn $name() {
                let f: $u = Case::<$u>($make).warmed();
                let json = serde_json::to_string(&f).unwrap();
                let g: $u = serde_json::from_str(&json).unwrap();
                assert_eq!(g.to_bytes(), f.to_bytes());
                let bad = json.replacen(",1", ",2", 1);
                assert!(serde_json::from_str::<$u>(&bad).is_err());
            })*
        }

        mod round_trip {
            use super::*;
            $(#[test]
            fn $name() {
                Case::<$u>($make).round_trip();
            })*
        }

        mod hostile {
            use super::*;
            $(#[test]
            fn $name() {
                Case::<$u>($make).hostile();
            })*
        }
    };
}

/// How each type steps through its workload.
macro_rules! steps {
    ($($t:ty => $step:expr $(, $fresh:expr)?;)*) => {
        $(impl Subject for $t {
            fn step(&mut self, i: u64) -> Vec<u64> {
                ($step)(self, i)
            }
            $(fn fresh(&mut self, k: u64) -> Option<bool> {
                ($fresh)(self, k)
            })?
        })*
    };
}

steps! {
    BloomFilter => filter_step, filter_fresh;
    PartitionedBloomFilter => filter_step, filter_fresh;
    Apbf => filter_step, filter_fresh;
    BlockedApbf => filter_step, filter_fresh;
    LineApbf => filter_step, filter_fresh;
    StableBloomFilter => filter_step, filter_fresh;
    NaorYogev => filter_step, filter_fresh;
    NyPocket => filter_step, filter_fresh;
    Broom => |f: &mut Broom, i| {
        let mut out = filter_step(f, i);
        let probe = key(i + 2_000_000);
        if f.contains(probe) {
            out.push(f.adapt(probe) as u64);
        }
        out.push(f.remote_accesses());
        out
    }, filter_fresh;
    Swamp => |f: &mut Swamp, i| {
        let mut out = filter_step(f, i);
        out.extend(summary_step(f, i));
        out
    }, filter_fresh;
    TimingBloom => filter_step, filter_fresh;
    Swbf => filter_step, filter_fresh;
    JumpingWindow => filter_step, filter_fresh;
    DoubleBuffer => filter_step, filter_fresh;
    A2Buffer => filter_step, filter_fresh;
    ForgetfulBloom => filter_step, filter_fresh;
    ForgetfulCode => filter_step, filter_fresh;
    TimedTbf => timed_step, filter_fresh;
    SlidingBloom => filter_step, filter_fresh;
    HalfSliding => filter_step, filter_fresh;
    ClockBloom => filter_step, filter_fresh;
    SheBloom => filter_step, filter_fresh;
    TimedSwbf => timed_step, filter_fresh;
    TimedSlidingBloom => timed_step, filter_fresh;
    TimedHalfSliding => timed_step, filter_fresh;
    TimedClockBloom => timed_step, filter_fresh;
    Tlbf => timed_step, filter_fresh;
    TimedSheBloom => timed_step, filter_fresh;
    Wcss => summary_step;
    SlidingHll => summary_step;
    Swlc => summary_step;
    // the broom filter's own table, queried (its insertions need the
    // remote dictionary: `Broom` steps through them)
    BroomFilter => |f: &mut BroomFilter, i| vec![f.contains(key(i)) as u64];
    // the concurrent filters from one thread, the clock moving as timed_step's
    ConcurrentApbf => shared_step, shared_fresh;
    ConcurrentLineApbf => shared_step, shared_fresh;
}

/// The concurrent filters' operations on `&self`, for one step function.
trait OnSelf {
    fn advance(&self, now: u64);
    fn now(&self) -> u64;
    fn insert_hash(&self, key: u64);
    fn contains_hash(&self, key: u64) -> bool;
}

macro_rules! on_self {
    ($($t:ty),*) => {$(
        impl OnSelf for $t {
            fn advance(&self, now: u64) {
                <$t>::advance(self, now)
            }
            fn now(&self) -> u64 {
                <$t>::now(self)
            }
            fn insert_hash(&self, key: u64) {
                <$t>::insert_hash(self, key)
            }
            fn contains_hash(&self, key: u64) -> bool {
                <$t>::contains_hash(self, key)
            }
        }
    )*};
}
on_self!(ConcurrentApbf, ConcurrentLineApbf);

/// A concurrent filter's step from one thread: the clock moved as
/// `timed_step` moves it, a key inserted, three asked.
fn shared_step<F: OnSelf>(f: &mut F, i: u64) -> Vec<u64> {
    let dt = [1, 1, 1, 0, 5, 40][(mix64(i) % 6) as usize];
    f.advance(f.now() + dt);
    f.insert_hash(key(i % 700));
    vec![
        f.contains_hash(key(i.saturating_sub(3) % 700)) as u64,
        f.contains_hash(key(i / 2 % 700)) as u64,
        f.contains_hash(key(i + 1_000_000)) as u64,
    ]
}

fn shared_fresh<F: OnSelf>(f: &mut F, k: u64) -> Option<bool> {
    f.insert_hash(k);
    Some(f.contains_hash(k))
}

impl<F: Generational + Persist + Clone> Subject for OnTime<F> {
    fn step(&mut self, i: u64) -> Vec<u64> {
        timed_step(self, i)
    }
    fn fresh(&mut self, k: u64) -> Option<bool> {
        filter_fresh(self, k)
    }
}

bloomlab_filters::for_each_design!(subjects);

struct Case<T>(T);

/// What the fixture test asks of any case.
trait Check {
    fn fixture_bytes(&self) -> Vec<u8>;
    fn loads_and_answers(&self, bytes: &[u8]) -> Result<(), String>;
    /// Loads a crafted state; if it is accepted, runs every later step
    /// (whatever it answers) and after each inserts a fresh key, which must
    /// be reported at once. Err: a false negative.
    fn crafted_run(&self, bytes: &[u8]) -> Result<(), String>;
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
            Apbf::new(ApbfShape {
                hashes: 2,
                extra_slices: 2,
                generation: 8,
            })
            .unwrap()
            .to_bytes()
        } else {
            BloomFilter::new(BloomShape {
                bits: 64,
                hashes: 2,
            })
            .unwrap()
            .to_bytes()
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

    fn crafted_run(&self, bytes: &[u8]) -> Result<(), String> {
        let Ok(mut f) = T::from_bytes(bytes) else {
            return Ok(());
        };
        for i in BEFORE..BEFORE + AFTER {
            f.step(i);
            let k = key(i + 5_000_000);
            if f.fresh(k) == Some(false) {
                return Err(format!(
                    "a key inserted at step {i} reported absent at once"
                ));
            }
        }
        Ok(())
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

/// The list is the crate's: every type the crate's sources declare
/// `persists!` (or implement `Persist`) for is in it (a generic wrapper by at least one instance), so
/// a design added without joining the list fails here.
#[test]
fn every_saved_design_is_in_the_one_list() {
    let listed: Vec<String> = listed_types()
        .iter()
        .map(|t| t.replace(' ', "").replace("$crate::", ""))
        .collect();
    let short = |t: &str| t.rsplit("::").next().unwrap_or(t).to_string();
    let names: Vec<String> = listed
        .iter()
        .map(|t| short(t.split('<').next().unwrap()))
        .collect();
    let mut found = 0;
    let mut stack = vec![std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            for line in text.lines() {
                // `persists!(T);` beside a design, or an `impl Persist for`
                // (a generic wrapper)
                let rest = line
                    .split("persist::Persist for ")
                    .nth(1)
                    .or_else(|| line.trim_start().strip_prefix("crate::persist::persists!("));
                let Some(rest) = rest else {
                    continue;
                };
                let ty = rest.split(['<', ' ', '{', ')']).next().unwrap();
                if ty.starts_with('$') {
                    continue; // the macro's own definition
                }
                found += 1;
                assert!(
                    names.iter().any(|n| n == ty),
                    "{}: {ty} implements Persist but is not in for_each_design!",
                    p.display()
                );
            }
        }
    }
    assert!(
        found >= 30,
        "only {found} Persist impls found: the scan is broken"
    );
}

/// Every design of the one list is reachable from the crate root.
#[test]
fn every_design_is_at_the_crate_root() {
    #[allow(unused_imports)]
    use bloomlab_filters::{
        A2Buffer, Apbf, BlockedApbf, BloomFilter, Broom, BroomFilter, ClockBloom, ConcurrentApbf,
        DoubleBuffer, ForgetfulBloom, HalfSliding, JumpingWindow, NaorYogev, NyPocket, OnTime,
        PartitionedBloomFilter, SheBloom, SlidingBloom, SlidingHll, StableBloomFilter, Swamp, Swbf,
        Swlc, TimedClockBloom, TimedHalfSliding, TimedSheBloom, TimedSlidingBloom, TimedSwbf,
        TimedTbf, TimingBloom, Tlbf, Wcss,
    };
    let roots: Vec<&str> = listed_types()
        .iter()
        .map(|t| t.split('<').next().unwrap().trim())
        .collect();
    for t in roots {
        // `$crate::Name`, not `$crate::module::Name`
        assert_eq!(t.matches("::").count(), 1, "{t} is listed outside the root");
    }
}

mod crafted;
