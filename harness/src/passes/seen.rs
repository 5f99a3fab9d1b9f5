//! The Sliding Sketches' error rate (Gou, He, Zhang et al., KDD 2020;
//! `src/Membership/main.cpp`, `Error_Rate`, of `sliding-sketch/Sliding-Sketch`),
//! measured as that code measures it, so that a paper's claim can be checked
//! under its own definition before bloomlab's.
//!
//! * `seen` — a stream of `seen_length` insertions from the point's
//!   workload into a fresh copy of the design. After insertion i (from 0),
//!   whenever i > `seen_start` (0: the window) and i is a multiple of
//!   `seen_every`, every distinct key seen so far is queried: a key among
//!   the last W insertions (W the design's window) that answers no is a
//!   false negative, any other seen key (last seen longer ago) that answers
//!   yes a false positive. `seen_fpr` and `seen_fnr` are the totals over all
//!   samples. The expired keys include those in a design's slack, and their
//!   mix of ages depends on the stream's length: that is the paper's
//!   definition, not bloomlab's `fpr` (never-inserted keys at the worst
//!   phase). The samples query the same keys in overlapping states, so no
//!   interval is given. `seen_fpr_theory` (stream of distinct keys, designs
//!   with an age profile): Σ over samples and expired ages of the
//!   phase-averaged P(yes | age), over the number of those queries. It
//!   assumes the samples' phases spread evenly over the design's period; a
//!   fixed stride can cluster them (7331 against generations of 345: 15%
//!   more slack than the average, docs/sliding_sketch.md).
//!   With `seen_negatives` > 0, each sample also queries that many
//!   never-inserted keys, as the Half Sliding Sketch's code
//!   (`NLear/HalfSlidingSketch`, `src/Membership/HSS-BF/demo/main.cpp`)
//!   measures its false positives: `seen_negative_fpr`, the share that
//!   answers yes over all samples, and `seen_negative_fpr_theory`, the
//!   design's phase-averaged FPR of a never-inserted key (`fpr_avg`, or
//!   `fpr` for a design whose FPR is the same at every moment).

use crate::designs::Built;
use crate::metrics::columns::col;
use crate::metrics::{Part, Value, MAP_ENTRY};
use crate::passes::{Pass, PassOutput, PointRun, Settings, Work};
use crate::spec::Metric;
use bloomlab_filters::hash::KeyMap;

/// The pass.
pub struct SeenPass;

/// The longest stream: its keys (or last-seen map) are held in memory.
const MAX_LENGTH: u64 = 1 << 32;

/// The salt of its generator.
const SALT: u64 = 0x5EE4_0000_0000_0001;

/// The stream's samples: insertion indices (from 0) j·every for j in
/// j0..=j1, past `seen_start` (0: the window) and before `seen_length`.
struct Samples {
    every: u64,
    j0: u64,
    j1: u64,
}

impl Samples {
    fn of(s: &Settings, w: u64) -> Samples {
        let m = &s.measure;
        let start = if m.seen_start == 0 { w } else { m.seen_start };
        let every = m.seen_every.max(1);
        Samples {
            every,
            j0: start / every + 1,
            j1: m.seen_length.saturating_sub(1) / every,
        }
    }

    fn count(&self) -> u64 {
        self.j1.saturating_add(1).saturating_sub(self.j0)
    }

    fn iter(&self) -> impl Iterator<Item = u64> {
        let every = self.every;
        (self.j0..=self.j1).map(move |j| j * every)
    }

    /// Σ (i + 1) over the samples: the queries when every key is distinct.
    fn queries(&self) -> f64 {
        let (n, e) = (self.count() as f64, self.every as f64);
        e * (self.j0 + self.j1) as f64 * n / 2.0 + n
    }
}

impl Pass for SeenPass {
    fn metrics(&self) -> &'static [Metric] {
        &[Metric::Seen]
    }

    fn takes(&self, built: &Built) -> bool {
        built.filter.is_some()
    }

    fn check(&self, _built: &Built, s: &Settings) -> anyhow::Result<()> {
        let m = &s.measure;
        if m.seen_length == 0 || m.seen_length > MAX_LENGTH {
            return Err(anyhow::anyhow!(
                "seen_length = {} must be in 1..=2^32 (its keys are kept in memory)",
                m.seen_length
            ));
        }
        if m.seen_every == 0 {
            return Err(anyhow::anyhow!("seen_every = 0 must be at least 1"));
        }
        if m.seen_negatives > MAX_LENGTH {
            return Err(anyhow::anyhow!(
                "seen_negatives = {} must be at most 2^32",
                m.seen_negatives
            ));
        }
        Ok(())
    }

    fn plan(&self, built: &Built, s: &Settings) -> Work {
        let w = built.geometry.window;
        // every key seen so far at each sample: at most i + 1 of them
        let samples = Samples::of(s, w);
        let queries = samples.queries() + (samples.count() * s.measure.seen_negatives) as f64;
        // distinct keys: the keys, and the theory's prefix sums over ages
        let per_key = if s.distinct() { 16 } else { MAP_ENTRY };
        Work {
            inserts: s.measure.seen_length as f64,
            queries,
            copies: 1,
            bytes: vec![("seen keys", s.measure.seen_length.saturating_mul(per_key))],
        }
    }

    fn run(&self, p: &mut PointRun<'_>) -> anyhow::Result<PassOutput> {
        let mut rng = p.pass_rng(SALT);
        let mut fresh = p.rebuild(rand::Rng::random(&mut rng))?;
        let w = fresh.geometry.window;
        let s = p.settings().clone();
        let f = fresh
            .filter
            .as_mut()
            .ok_or_else(|| anyhow::anyhow!("seen: not a membership filter"))?;
        let mut stream = p.stream(&mut rng);
        let distinct = stream.is_distinct();
        let mut order: Vec<u64> = Vec::new();
        let mut last: KeyMap<u64> = KeyMap::default();
        let (mut fp, mut expired, mut fn_, mut inside) = (0u64, 0u64, 0u64, 0u64);
        let (mut neg_fp, mut neg) = (0u64, 0u64);
        let samples = Samples::of(&s, w);
        let mut moments = samples.iter().peekable();
        let mut steps = crate::metrics::progress::Steps::new("seen", s.measure.seen_length);
        for i in 0..s.measure.seen_length {
            if i % 65_536 == 0 {
                steps.done(i);
            }
            let key = stream.next_key(&mut rng);
            f.insert(key);
            if distinct {
                order.push(key);
            } else {
                last.insert(key, i);
            }
            if moments.peek() != Some(&i) {
                continue;
            }
            moments.next();
            for _ in 0..s.measure.seen_negatives {
                neg_fp += u64::from(f.contains(stream.negative(&mut rng)));
                neg += 1;
            }
            let mut query = |key: u64, at: u64| {
                let yes = f.contains(key);
                if i - at < w {
                    inside += 1;
                    fn_ += u64::from(!yes);
                } else {
                    expired += 1;
                    fp += u64::from(yes);
                }
            };
            if distinct {
                for (j, &k) in order.iter().enumerate() {
                    query(k, j as u64);
                }
            } else {
                for (&k, &at) in &last {
                    query(k, at);
                }
            }
        }
        let mut out = PassOutput::default();
        let row = &mut out.row;
        row.push(col::SEEN_SAMPLES, Value::Int(samples.count()));
        row.push(col::SEEN_EXPIRED_QUERIES, Value::Int(expired));
        row.push(col::SEEN_FALSE_POSITIVES, Value::Int(fp));
        if expired > 0 {
            row.num(col::SEEN_FPR, fp as f64 / expired as f64);
        }
        if let Some(t) = distinct.then(|| theory(&fresh, &s, w)).flatten() {
            row.num(Part::Theory.of(col::SEEN_FPR), t);
        }
        row.push(col::SEEN_WINDOW_QUERIES, Value::Int(inside));
        row.push(col::SEEN_FALSE_NEGATIVES, Value::Int(fn_));
        if inside > 0 {
            row.num(col::SEEN_FNR, fn_ as f64 / inside as f64);
        }
        if neg > 0 {
            row.push(col::SEEN_NEGATIVE_QUERIES, Value::Int(neg));
            row.num(col::SEEN_NEGATIVE_FPR, neg_fp as f64 / neg as f64);
            // the phase-averaged FPR; a design with one FPR at every moment
            // (an exact window) states only `fpr`
            let th = &fresh.theory;
            if let Some(t) = th.get(col::FPR_AVG).or_else(|| th.get(col::FPR)) {
                row.num(Part::Theory.of(col::SEEN_NEGATIVE_FPR), t);
            }
        }
        Ok(out)
    }
}

/// The expected `seen_fpr` on a stream of distinct keys, from the design's
/// phase-averaged age profile: at sample i the expired keys have ages
/// W + 1 ..= i + 1 (1: the latest).
fn theory(built: &Built, s: &Settings, w: u64) -> Option<f64> {
    let profile = built.theory.profile.as_ref()?;
    let n = s.measure.seen_length;
    // prefix[a] = Σ_{b = W+1}^{a} avg(b)
    let mut prefix = vec![0.0f64; n as usize + 2];
    for a in w + 1..=n + 1 {
        prefix[a as usize] = prefix[a as usize - 1] + profile.avg(a);
    }
    let (mut sum, mut count) = (0.0, 0.0);
    for i in Samples::of(s, w).iter() {
        if i + 1 > w {
            sum += prefix[i as usize + 1];
            count += (i + 1 - w) as f64;
        }
    }
    (count > 0.0).then(|| sum / count)
}

#[cfg(test)]
mod tests {
    use crate::spec::Spec;
    use crate::sweep::{self, Budget, RunOptions};

    fn run(spec: &str) -> Vec<crate::metrics::Row> {
        let spec_v = Spec::parse(spec).unwrap();
        let prepared = sweep::prepare(&spec_v, false, &Budget::unchecked()).unwrap();
        sweep::run(&spec_v, spec, &prepared, &RunOptions::one_thread())
            .unwrap()
            .rows
    }

    /// The samples and the split of the seen keys are the paper's: after
    /// insertions 7331 j past the window, W keys in the window and the rest
    /// expired; a design without false negatives has none; the Sl-BF's
    /// share of expired keys answered yes is its theory's (0.0253 here,
    /// 3% apart at most over 1.2 million queries of 50,000 keys).
    #[test]
    fn counts_follow_the_paper_s_sampling_and_match_the_theory() {
        let rows = run("name = \"s\"\nseed = 5\nmetrics = [\"seen\"]\n[measure]\n\
             seen_length = 50000\n[[sweep]]\ndesign = \"sliding_bloom\"\n\
             points = [{ window = 1000, k = 10, m = 1500 }]\n");
        let r = &rows[0];
        // samples at 7331 j, 1000 < 7331 j < 50000: j = 1..=6
        assert_eq!(r.get_num("seen_samples"), Some(6.0));
        let all: u64 = (1..=6u64).map(|j| 7331 * j + 1).sum();
        assert_eq!(r.get_num("seen_window_queries"), Some(6000.0));
        assert_eq!(r.get_num("seen_expired_queries"), Some((all - 6000) as f64));
        assert_eq!(r.get_num("seen_false_negatives"), Some(0.0));
        let (got, theory) = (
            r.get_num("seen_fpr").unwrap(),
            r.get_num("seen_fpr_theory").unwrap(),
        );
        assert!(
            theory > 0.01 && (got / theory - 1.0).abs() < 0.03,
            "{got} vs {theory}"
        );
    }

    /// With `seen_negatives`, each sample also queries that many
    /// never-inserted keys (the HSS code's false positives): six samples of
    /// 20,000, answered yes at the design's FPR (SWAMP's, the same at every
    /// moment, 0.0151 here; a design whose FPR cycles would be sampled at
    /// six phases only); without it, no such column.
    #[test]
    fn never_inserted_keys_per_sample_measure_the_fpr() {
        let spec = |n: u64| {
            format!(
                "name = \"s\"\nseed = 5\nmetrics = [\"seen\"]\n[measure]\n\
                 seen_length = 50000\nseen_negatives = {n}\n[[sweep]]\n\
                 design = \"swamp\"\npoints = [{{ window = 1000, fingerprint_bits = 16 }}]\n"
            )
        };
        let rows = run(&spec(20_000));
        let r = &rows[0];
        assert_eq!(r.get_num("seen_negative_queries"), Some(120_000.0));
        let (got, theory) = (
            r.get_num("seen_negative_fpr").unwrap(),
            r.get_num("seen_negative_fpr_theory").unwrap(),
        );
        let se = (theory * (1.0 - theory) / 120_000.0).sqrt();
        assert!(
            theory > 0.01 && (got - theory).abs() < 4.5 * se,
            "{got} vs {theory}"
        );
        let rows = run(&spec(0));
        assert_eq!(rows[0].get_num("seen_negative_fpr"), None);
    }

    /// A stream too long to hold, or samples never spaced, are refused
    /// before the run with one line (a length of 10^15 hung the planning,
    /// which counted the samples one by one); a long stream's work is
    /// planned in closed form and refused by the work limit.
    #[test]
    fn hostile_lengths_are_refused_before_the_run() {
        for (knobs, says) in [
            ("seen_length = 1_000_000_000_000_000", "seen_length"),
            ("seen_length = 0", "seen_length"),
            ("seen_every = 0", "seen_every"),
            (
                "seen_length = 100_000_000\nseen_every = 1",
                "limit of a day",
            ),
        ] {
            let text = format!(
                "name = \"h\"\nmetrics = [\"seen\"]\n[measure]\n{knobs}\n[[sweep]]\n\
                 design = \"apbf\"\npoints = [{{ k = 4, l = 3, g = 50 }}]\n"
            );
            let spec = Spec::parse(&text).unwrap();
            let budget = Budget {
                memory: Some(1 << 34),
                threads: 1,
            };
            let e = sweep::prepare(&spec, false, &budget).err().expect(knobs);
            let e = format!("{e:#}");
            assert!(e.contains(says) && !e.contains('\n'), "{knobs}: {e}");
        }
    }

    /// On a stream that repeats keys, a key counts by its last insertion:
    /// in the window if it was seen among the last W, whatever before.
    #[test]
    fn repeated_keys_count_by_their_last_insertion() {
        let rows = run("name = \"s\"\nseed = 5\nmetrics = [\"seen\"]\n[measure]\n\
             seen_length = 20000\nseen_every = 5000\n\
             [workload]\nkind = \"zipf\"\nuniverse = 3000\nexponent = 1.0\n\
             [[sweep]]\ndesign = \"swamp\"\npoints = [{ window = 1000, fingerprint_bits = 20 }]\n");
        let r = &rows[0];
        // samples after 5000, 10000, 15000: at most W distinct keys in the
        // window, at most the universe in all; exact window, no misses
        let inside = r.get_num("seen_window_queries").unwrap();
        let expired = r.get_num("seen_expired_queries").unwrap();
        assert!(inside > 0.0 && inside <= 3000.0, "{inside}");
        assert!(inside + expired <= 3.0 * 3000.0);
        assert_eq!(r.get_num("seen_false_negatives"), Some(0.0));
        assert_eq!(r.get_num("seen_fpr_theory"), None);
    }
}
