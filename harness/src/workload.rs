//! Key streams: distinct keys, Zipf over a universe, item batches, a
//! user's trace file.
//!
//! Every stream also produces *negative* keys, guaranteed never inserted, for
//! FPR measurement. Synthetic keys are `mix64(x ^ salt)`, a bijection of x, with
//! x even for stream keys and odd for negatives, so the two sets are disjoint by
//! construction. Trace negatives are random keys rejected if present in the
//! trace.

use crate::spec::WorkloadSpec;
use bloomlab_filters::hash::{mix64, KeyHasher};
use rand::{Rng, RngCore};
use rand_distr::{Distribution, Zipf};
use rand_pcg::Pcg64;
use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

/// The peak bytes one trace key costs while it is read and held: its hash
/// and its time in vectors that grow by doubling (32 B), then its entry in
/// the set of keys (40 B).
pub const TRACE_KEY_BYTES: u64 = 72;

/// The keys of a trace file, hashed once and shared by all points.
#[derive(Debug)]
pub struct Trace {
    keys: Vec<u64>,
    set: HashSet<u64>,
    /// Each key's time in nanoseconds from the first, when the file gives
    /// every key one in order; else why not.
    times: Result<Vec<u64>, String>,
}

impl Trace {
    /// Reads one key per line (trailing `\r` stripped; empty lines skipped),
    /// hashing each with XXH3 under `seed`.
    pub fn load(path: &Path, seed: u64) -> anyhow::Result<Trace> {
        Trace::load_as(path, &crate::trace::TraceFormat::Lines, seed)
    }

    /// Reads the keys of `path` in `format` (see [`crate::trace`]), hashing
    /// each with XXH3 under `seed`.
    pub fn load_as(
        path: &Path,
        format: &crate::trace::TraceFormat,
        seed: u64,
    ) -> anyhow::Result<Trace> {
        Trace::load_timed(path, format, None, seed)
    }

    /// As [`load_as`](Self::load_as), keeping each key's time (a CSV
    /// trace's `time_column`, a capture's packet timestamps) for time-window
    /// runs.
    pub fn load_timed(
        path: &Path,
        format: &crate::trace::TraceFormat,
        time_column: Option<&str>,
        seed: u64,
    ) -> anyhow::Result<Trace> {
        let limit = crate::resources::available_memory();
        Trace::load_within(path, format, time_column, seed, limit)
    }

    /// As [`load_timed`](Self::load_timed), within `max_bytes` (the run's
    /// memory budget; None: unchecked): a trace whose keys would pass it,
    /// decompressed, is refused as soon as they do, and a long read says
    /// how far it has got.
    pub fn load_within(
        path: &Path,
        format: &crate::trace::TraceFormat,
        time_column: Option<&str>,
        seed: u64,
        max_bytes: Option<u64>,
    ) -> anyhow::Result<Trace> {
        let hasher = KeyHasher::new(seed);
        let mut keys = Vec::new();
        let mut secs: Vec<f64> = Vec::new();
        let mut untimed = 0u64;
        // a key costs its hash and time, each in a vector that grows by
        // doubling (32 B at worst), then its entry in the set (40 B): 80 B
        // with the budget's quarter of headroom
        let max_keys = max_bytes.map_or(u64::MAX, |b| {
            b / crate::resources::with_headroom(TRACE_KEY_BYTES)
        });
        let started = std::time::Instant::now();
        crate::trace::for_each_timed_key(path, format, time_column, |line, time| {
            if keys.len() as u64 >= max_keys {
                return Err(anyhow::anyhow!(
                    "trace file {} has more than {max_keys} keys, more than the {} this run may use holds ({TRACE_KEY_BYTES} B a key; --memory-limit GiB to change it)",
                    path.display(),
                    crate::resources::gib(max_bytes.unwrap_or(0))
                ));
            }
            if keys.len() % (1 << 24) == 0 && !keys.is_empty() && started.elapsed().as_secs() >= 2 {
                eprintln!(
                    "trace {}: {} keys read ({:.0} s)",
                    path.display(),
                    keys.len(),
                    started.elapsed().as_secs_f64()
                );
            }
            keys.push(hasher.hash_bytes(line));
            match time {
                Some(t) => secs.push(t),
                None => untimed += 1,
            }
            Ok(())
        })?;
        if keys.is_empty() {
            return Err(anyhow::anyhow!("trace file {} has no keys", path.display()));
        }
        let set = keys.iter().copied().collect();
        let times = trace_times(&secs, untimed, keys.len());
        Ok(Trace { keys, set, times })
    }

    /// Whether no key of the trace repeats.
    pub fn all_distinct(&self) -> bool {
        self.set.len() == self.keys.len()
    }

    /// Each key's time in nanoseconds from the first key's, or why the
    /// trace has none.
    pub fn times(&self) -> Result<&[u64], &str> {
        self.times.as_deref().map_err(String::as_str)
    }

    /// Bytes the loaded trace holds (keys and their set).
    pub fn bytes(&self) -> u64 {
        self.keys.len() as u64 * (8 + 40)
    }

    /// The hashed keys, in file order.
    pub fn keys(&self) -> &[u64] {
        &self.keys
    }

    /// Number of keys (lines).
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when there are no keys (never, after `load`).
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

/// Nanoseconds from the first time, if every key has a time and they never
/// go backwards.
fn trace_times(secs: &[f64], untimed: u64, keys: usize) -> Result<Vec<u64>, String> {
    if secs.is_empty() {
        return Err("its keys have no times (a CSV trace needs time_column; pcap and pcapng give packet times)".into());
    }
    if untimed > 0 {
        return Err(format!(
            "{untimed} of its {keys} keys have no time (pcapng simple packets)"
        ));
    }
    let first = secs[0];
    let mut out = Vec::with_capacity(secs.len());
    for (i, pair) in secs.windows(2).enumerate() {
        if pair[1] < pair[0] {
            return Err(format!(
                "its times go backwards at key {} ({} s after {} s)",
                i + 2,
                pair[1],
                pair[0]
            ));
        }
    }
    // nanoseconds are held in u64 and meet f64 arithmetic in the time
    // pass: a span beyond 2^53 ns (104 days) would saturate or round, and
    // a run would report a rate and an FPR of times it never read
    let span = secs[secs.len() - 1] - first;
    if !(span.is_finite() && span * 1e9 <= MAX_SPAN_NS as f64) {
        return Err(format!(
            "its times span {span:e} s, more than the {:.0} days (2^53 ns) a time run holds exactly",
            MAX_SPAN_NS as f64 / 1e9 / 86_400.0
        ));
    }
    for &t in secs {
        out.push(((t - first) * 1e9).round() as u64);
    }
    Ok(out)
}

/// The longest span of a trace's times, in nanoseconds: 2^53, the largest
/// count of nanoseconds an `f64` holds exactly (104 days).
pub const MAX_SPAN_NS: u64 = 1 << 53;

/// A stream of keys to insert plus a source of never-inserted keys.
pub enum KeyStream {
    /// Fresh keys: mix64(2t ^ salt).
    Distinct {
        /// Salt.
        salt: u64,
        /// Next position.
        t: u64,
        /// Next negative.
        neg: u64,
    },
    /// Zipf ranks mapped to mix64(2r ^ salt).
    Zipf {
        /// Salt.
        salt: u64,
        /// Rank sampler.
        dist: Zipf<f64>,
        /// Next negative.
        neg: u64,
    },
    /// Item batches ([`WorkloadSpec::Batch`]): fresh keys mix64(2t ^ salt),
    /// each repeated over its flow.
    Batch {
        /// Salt.
        salt: u64,
        /// Fresh keys so far.
        t: u64,
        /// Next negative.
        neg: u64,
        /// Each open flow's key and the items it has left (0: a new flow
        /// starts at its next turn).
        flows: Vec<(u64, u64)>,
        /// Mean items per flow.
        mean_run: f64,
    },
    /// A trace, replayed from `pos`.
    Trace {
        /// The keys.
        trace: Arc<Trace>,
        /// Next position.
        pos: usize,
    },
}

impl KeyStream {
    /// The stream for a workload; `rng` supplies the salt.
    pub fn new(spec: &WorkloadSpec, trace: Option<Arc<Trace>>, rng: &mut Pcg64) -> KeyStream {
        let salt = rng.next_u64();
        match spec {
            WorkloadSpec::Distinct => KeyStream::Distinct { salt, t: 0, neg: 0 },
            WorkloadSpec::Zipf { universe, exponent } => KeyStream::Zipf {
                salt,
                // validated: universe >= 1, exponent >= 0 and finite
                dist: Zipf::new(*universe as f64, *exponent).expect("validated zipf parameters"),
                neg: 0,
            },
            WorkloadSpec::Batch {
                concurrent,
                mean_run,
            } => KeyStream::batch(salt, *concurrent as usize, *mean_run),
            WorkloadSpec::Trace(_) => KeyStream::Trace {
                trace: trace.expect("trace loaded for a trace workload"),
                pos: 0,
            },
        }
    }

    /// A batch stream of `concurrent` empty flows (validated: 1 ..= 2^24
    /// flows, mean_run >= 1).
    fn batch(salt: u64, concurrent: usize, mean_run: f64) -> KeyStream {
        KeyStream::Batch {
            salt,
            t: 0,
            neg: 0,
            flows: vec![(0, 0); concurrent],
            mean_run,
        }
    }

    /// A stream of the same kind, independent of this one (a new salt; a
    /// trace starts again from its first line).
    pub fn fresh(&self, rng: &mut Pcg64) -> KeyStream {
        let salt = rng.next_u64();
        match self {
            KeyStream::Distinct { .. } => KeyStream::Distinct { salt, t: 0, neg: 0 },
            KeyStream::Zipf { dist, .. } => KeyStream::Zipf {
                salt,
                dist: *dist,
                neg: 0,
            },
            KeyStream::Batch {
                flows, mean_run, ..
            } => KeyStream::batch(salt, flows.len(), *mean_run),
            KeyStream::Trace { trace, .. } => KeyStream::Trace {
                trace: trace.clone(),
                pos: 0,
            },
        }
    }

    /// Whether every key of the stream is distinct (no repeats).
    pub fn is_distinct(&self) -> bool {
        matches!(self, KeyStream::Distinct { .. })
    }

    /// The next key to insert.
    pub fn next_key(&mut self, rng: &mut Pcg64) -> u64 {
        match self {
            KeyStream::Distinct { salt, t, .. } => {
                *t += 1;
                mix64((2 * *t) ^ *salt)
            }
            KeyStream::Zipf { salt, dist, .. } => {
                let r = dist.sample(rng) as u64;
                mix64((2 * r) ^ *salt)
            }
            KeyStream::Batch {
                salt,
                t,
                flows,
                mean_run,
                ..
            } => {
                let i = rng.random_range(0..flows.len());
                let flow = &mut flows[i];
                if flow.1 == 0 {
                    *t += 1;
                    *flow = (mix64((2 * *t) ^ *salt), run_length(*mean_run, rng));
                }
                flow.1 -= 1;
                flow.0
            }
            KeyStream::Trace { trace, pos } => {
                let k = trace.keys[*pos];
                *pos = (*pos + 1) % trace.keys.len();
                k
            }
        }
    }

    /// A key guaranteed never to be inserted by this stream.
    pub fn negative(&mut self, rng: &mut Pcg64) -> u64 {
        match self {
            KeyStream::Distinct { salt, neg, .. }
            | KeyStream::Zipf { salt, neg, .. }
            | KeyStream::Batch { salt, neg, .. } => {
                *neg += 1;
                mix64((2 * *neg + 1) ^ *salt)
            }
            KeyStream::Trace { trace, .. } => loop {
                let k: u64 = rng.random();
                if !trace.set.contains(&k) {
                    return k;
                }
            },
        }
    }
}

/// A geometric number of items >= 1 of mean `mean` (>= 1): 1 + ⌊ln U /
/// ln(1 - 1/mean)⌋ for U uniform in (0, 1].
fn run_length(mean: f64, rng: &mut Pcg64) -> u64 {
    if mean <= 1.0 {
        return 1;
    }
    let u = 1.0 - rng.random::<f64>();
    let extra = (u.ln() / (1.0 - 1.0 / mean).ln()).floor();
    1 + extra.min(1e15) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Item batches: runs of mean `mean_run`, a fresh key for every run,
    /// and a run's items about `concurrent` arrivals apart.
    #[test]
    fn batches_have_the_stated_runs_and_gaps() {
        let mut rng = Pcg64::seed_from_u64(5);
        let spec = WorkloadSpec::Batch {
            concurrent: 64,
            mean_run: 8.0,
        };
        spec.check().unwrap();
        let mut s = KeyStream::new(&spec, None, &mut rng);
        let n = 400_000u64;
        let mut last: std::collections::HashMap<u64, u64> = Default::default();
        let (mut gaps, mut gap_sum) = (0u64, 0u64);
        for i in 0..n {
            let k = s.next_key(&mut rng);
            if let Some(prev) = last.insert(k, i) {
                gaps += 1;
                gap_sum += i - prev;
            }
        }
        // every run a fresh key: keys = runs; items per key about 8
        let per_key = n as f64 / last.len() as f64;
        assert!((per_key - 8.0).abs() < 0.2, "{per_key} items per key");
        let gap = gap_sum as f64 / gaps as f64;
        assert!((gap - 64.0).abs() < 2.0, "mean gap {gap}");
        assert!(!s.is_distinct());
        for bad in [(0, 8.0), ((1 << 24) + 1, 8.0), (4, 0.5), (4, f64::NAN)] {
            let spec = WorkloadSpec::Batch {
                concurrent: bad.0,
                mean_run: bad.1,
            };
            assert!(spec.check().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn negatives_are_disjoint_from_stream() {
        let mut rng = Pcg64::seed_from_u64(3);
        for spec in [
            WorkloadSpec::Distinct,
            WorkloadSpec::Zipf {
                universe: 100,
                exponent: 1.1,
            },
            WorkloadSpec::Batch {
                concurrent: 16,
                mean_run: 4.0,
            },
        ] {
            let mut s = KeyStream::new(&spec, None, &mut rng);
            let ins: HashSet<u64> = (0..5000).map(|_| s.next_key(&mut rng)).collect();
            for _ in 0..5000 {
                assert!(!ins.contains(&s.negative(&mut rng)));
            }
        }
    }

    #[test]
    fn trace_times_that_do_not_fit_are_refused() {
        // a last time of 1e300 s saturated the cast and wrapped the period
        let e = trace_times(&[0.0, 1.0, 1e300], 0, 3).unwrap_err();
        assert!(e.contains("span"), "{e}");
        // one packet at 2^32 - 1 s in a capture that starts at 1.7e9 s
        let e = trace_times(&[1.7e9, 1.7e9 + 1.0, 4_294_967_295.0], 0, 3).unwrap_err();
        assert!(e.contains("2^53 ns"), "{e}");
        // 100 days is held, to the nanosecond
        let t = trace_times(&[5.0, 5.5, 5.0 + 100.0 * 86_400.0], 0, 3).unwrap();
        assert_eq!(t, vec![0, 500_000_000, 8_640_000_000_000_000]);
    }

    #[test]
    fn zipf_stays_in_universe() {
        let mut rng = Pcg64::seed_from_u64(3);
        let spec = WorkloadSpec::Zipf {
            universe: 50,
            exponent: 0.8,
        };
        let mut s = KeyStream::new(&spec, None, &mut rng);
        let ins: HashSet<u64> = (0..20_000).map(|_| s.next_key(&mut rng)).collect();
        assert!(ins.len() <= 50 && ins.len() > 40);
    }

    #[test]
    fn trace_errors_and_replay() {
        let dir = tempfile::tempdir().unwrap();
        let missing = Trace::load(&dir.path().join("nope.txt"), 1)
            .unwrap_err()
            .to_string();
        assert!(missing.contains("nope.txt") && !missing.contains('\n'));
        let empty = dir.path().join("empty.txt");
        std::fs::write(&empty, "\n\n").unwrap();
        assert!(Trace::load(&empty, 1)
            .unwrap_err()
            .to_string()
            .contains("no keys"));
        let p = dir.path().join("t.txt");
        std::fs::write(&p, "a\r\nb\nc\n").unwrap();
        let t = Arc::new(Trace::load(&p, 1).unwrap());
        assert_eq!(t.len(), 3);
        let mut rng = Pcg64::seed_from_u64(3);
        let mut s = KeyStream::new(
            &WorkloadSpec::trace(p, &Default::default()).unwrap(),
            Some(t),
            &mut rng,
        );
        let first: Vec<u64> = (0..3).map(|_| s.next_key(&mut rng)).collect();
        let again: Vec<u64> = (0..3).map(|_| s.next_key(&mut rng)).collect();
        assert_eq!(first, again);
        assert_eq!(first[0], KeyHasher::new(1).hash_bytes(b"a"));
    }
}
