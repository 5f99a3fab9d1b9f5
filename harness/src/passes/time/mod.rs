//! The `timeline` metric: a design under timestamped traffic.
//!
//! The arrivals of the process are inserted in order, each after the filter
//! is advanced to its time (designs that count insertions ignore the time).
//! After a warm-up, `samples` moments are measured, one at a random offset
//! in each of as many equal stretches of the duration. The duration is cut
//! into `batches` equal parts, separated by gaps of the design's reach (T
//! and its slack) in which arrivals go on and nothing is measured, so that
//! no key is in the filter at the moments of two batches: the batches are
//! independent replicas, and every interval is taken over them
//! (`batches.rs`). At each moment:
//!
//! - `queries` never-inserted keys: the FPR at that moment, beside the
//!   design's theory for that moment (a row of `<name>_timeline.csv`);
//! - `probes` inserted keys of ages drawn uniformly from (0, horizon·T]
//!   (the newest key at least that old): P(yes) by age in seconds, pooled
//!   into buckets (`<name>_age_time.csv`), beside the theory for each key.
//!
//! The result row holds:
//! - `fpr_time_avg`: the FPR over all moments (the time average), with an
//!   interval over the batches (the moments of one batch share its keys);
//! - `fpr_time_peak`: the FPR over the moments whose theoretical FPR is
//!   within 10% of the run's highest (the worst moments), same interval;
//! - `fnr_time`: the share of probed keys younger than T answered no, same
//!   interval;
//! - `p_yes_past_window`: the share of probed keys older than T answered
//!   yes (a design that remembers past T does so here);
//! - `bits_per_peak_key`: memory over the keys of a window at the
//!   process's largest rate (and, when the spec asks for `memory` and no
//!   membership pass reports it, `memory_bits` at the end of the run and
//!   `memory_bits_mean` and `memory_bits_max` over the moments, for a
//!   design whose size follows the rate).
//!
//! Each with `_theory` (the mean of the theory over the same moments or
//! keys), `_ratio` and `_theory_in_ci` where the design has a moment
//! theory. The theories count every arrival as a new key, so they are
//! left out for streams whose keys repeat (Zipf, and a trace with repeated
//! keys or replayed past its end): those runs report measurements only.

pub mod arrivals;
mod batches;
pub mod calibrate;
mod pass;
mod rows;
mod scales;

use crate::metrics::columns::col;
use rows::{age_rows, summary, timeline_row};

pub use arrivals::{Arrivals, Process};
pub use pass::TimePass;
pub use scales::check;
use scales::{scales, Scales};

use crate::designs::{Built, Moment, MomentTheory};
use crate::metrics::{Row, Value};
use crate::spec::{ArrivalSpec, TimeSpec, NS};
use crate::workload::KeyStream;
use batches::Batched;
use bloomlab_filters::hash::KeyMap;
use bloomlab_filters::Instrumented;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::collections::VecDeque;

/// What the pass returns: the result row's columns, the timeline rows and
/// the age rows (each without the point's identifying columns).
pub struct TimeResult {
    /// Columns of the result row.
    pub row: Row,
    /// One row per moment.
    pub timeline: Vec<Row>,
    /// One row per age bucket.
    pub ages: Vec<Row>,
}

/// The estimated peak bytes of the pass on `built` under `spec` (None
/// for a trace's arrivals: the trace itself is counted where it is
/// loaded): the history of the keys inserted within the horizon at the
/// largest rate (doubled: a ring grows by doubling), with the map of each
/// key's latest insertion on a repeating stream, and the timeline and
/// age rows.
pub fn peak_bytes(built: &Built, spec: &TimeSpec, distinct: bool) -> Option<u64> {
    if spec.arrivals == Some(ArrivalSpec::Trace) {
        return None;
    }
    let sc = scales(built, spec, None).ok()?;
    let held = (sc.arrivals.max_rate() * sc.horizon / NS).ceil();
    let per_key = std::mem::size_of::<Past>() as f64 * 2.0 + if distinct { 0.0 } else { 40.0 };
    let rows = (spec.samples + spec.buckets) as f64 * crate::metrics::ROW_BYTES as f64;
    Some((held * per_key + rows).min(u64::MAX as f64) as u64)
}

/// One inserted key in the history.
#[derive(Clone, Copy)]
struct Past {
    at: u64,
    key: u64,
    index: u64,
}

/// One moment's FPR: its batch, its queries answered yes, and its
/// theory.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct MomentFpr {
    pub(super) batch: usize,
    pub(super) fp: u64,
    pub(super) theory: f64,
}

/// Per-moment and per-bucket accumulators, by batch.
pub(super) struct Tally {
    /// Each moment's FPR and its theory.
    moments: Vec<MomentFpr>,
    /// Queries at each moment.
    queries: u64,
    /// Each moment's mean lines of a never-inserted key's query, where
    /// counted (`[time] lines`), summed by batch over its moments.
    lines: Batched,
    fnr: Batched,
    fnr_theory: f64,
    past: Batched,
    past_theory: f64,
    buckets: Vec<(Batched, f64)>,
}

/// The filter under the run's traffic: its key stream, the keys inserted
/// within the horizon, and the next arrival.
struct Run<'a> {
    f: &'a mut (dyn Instrumented + Send),
    stream: KeyStream,
    rng: Pcg64,
    /// Whether keys never repeat (else the latest insertion of each key).
    distinct: bool,
    latest: KeyMap<u64>,
    history: VecDeque<Past>,
    next: u64,
    inserted: u64,
}

impl Run<'_> {
    /// Inserts every arrival before `moment`, each at its time, then moves
    /// the clock to `moment` and forgets keys older than `horizon`.
    fn until(&mut self, moment: u64, next_arrival: &mut dyn FnMut() -> u64, horizon: f64) {
        while self.next < moment {
            if let Some(t) = self.f.as_timed() {
                t.advance(self.next);
            }
            let key = self.stream.next_key(&mut self.rng);
            self.f.insert(key);
            self.inserted += 1;
            if !self.distinct {
                self.latest.insert(key, self.inserted);
            }
            self.history.push_back(Past {
                at: self.next,
                key,
                index: self.inserted,
            });
            // forget as it goes, not only at the moment: the warm-up's
            // arrivals (twice the horizon and more) were all held before
            // the first moment pruned them. A key older than the horizon
            // before `next` is older than it before `moment` too, so the
            // history at the moment is the same.
            let oldest = self.next.saturating_sub(horizon as u64 + 1);
            while self.history.front().is_some_and(|p| p.at < oldest) {
                self.history.pop_front();
            }
            self.next = next_arrival();
        }
        if let Some(t) = self.f.as_timed() {
            t.advance(moment);
        }
        let oldest = moment.saturating_sub(horizon as u64 + 1);
        while self.history.front().is_some_and(|p| p.at < oldest) {
            self.history.pop_front();
        }
    }

    /// The time pass's speed columns ([`crate::passes::speed`]): the next
    /// `n` arrivals, the clock advanced to each before its insertion; then
    /// `n` queries of keys inserted within the window before the last
    /// arrival, and `n` of never-inserted keys.
    fn speed(&mut self, n: u64, sc: &Scales, next_arrival: &mut dyn FnMut() -> u64, row: &mut Row) {
        use crate::passes::speed;
        use bloomlab_filters::Filter as _;
        let per_window = (sc.arrivals.max_rate() * sc.window / NS).ceil() as u64;
        let mut reference = speed::reference(self.f.memory_bits(), per_window);
        let now = self.next;
        // the bits the window's keys set ([`speed::fill`]); the positives
        // asked below are among the timed insertions, which it holds
        let held = self
            .history
            .iter()
            .filter(|p| (now - p.at) as f64 <= sc.window)
            .count() as u64;
        speed::fill(&mut reference, held);
        let mut at = Vec::with_capacity(n as usize);
        let mut keys = Vec::with_capacity(n as usize);
        for _ in 0..n {
            at.push(self.next);
            keys.push(self.stream.next_key(&mut self.rng));
            self.next = next_arrival();
        }
        let index: Vec<u64> = (0..n).collect();
        let f = &mut *self.f;
        let insert = speed::interleaved(
            &index,
            |i| {
                if let Some(t) = f.as_timed() {
                    t.advance(at[i as usize]);
                }
                f.insert(keys[i as usize]);
                false
            },
            |i| {
                reference.insert(keys[i as usize]);
                false
            },
        );
        let last = at.last().copied().unwrap_or(now);
        let recent: Vec<u64> = keys
            .iter()
            .zip(&at)
            .filter(|(_, &t)| ((last - t) as f64) < sc.window)
            .map(|(&k, _)| k)
            .collect();
        let pos: Vec<u64> = (0..n)
            .map(|_| recent[self.rng.random_range(0..recent.len())])
            .collect();
        let neg: Vec<u64> = (0..n)
            .map(|_| self.stream.negative(&mut self.rng))
            .collect();
        let f = &*self.f;
        let pos = speed::interleaved(&pos, |k| f.contains(k), |k| reference.contains(k));
        let neg = speed::interleaved(&neg, |k| f.contains(k), |k| reference.contains(k));
        speed::columns(row, insert, pos, neg, &reference);
    }

    /// Never-inserted keys answered yes, of `queries`; with `lines`, the
    /// mean lines of their queries (where the design counts them) added to
    /// it as one moment of batch `batch`.
    fn false_positives(&mut self, queries: u64, lines: Option<(&mut Batched, usize)>) -> u64 {
        let count = lines.is_some();
        let mut read = crate::passes::CountedLines::default();
        let mut yes = 0u64;
        for _ in 0..queries {
            let key = self.stream.negative(&mut self.rng);
            yes += self.f.contains(key) as u64;
            if count {
                read.add(self.f, key);
            }
        }
        if let (Some((w, batch)), Some(mean)) = (lines, read.mean()) {
            w.add(batch, mean, 1.0);
        }
        yes
    }

    /// `probes` inserted keys of ages uniform in (0, horizon], each counted
    /// in `tally` (in batch `batch`) with its theory.
    fn probe(
        &mut self,
        (moment, batch): (u64, usize),
        th: Option<&dyn MomentTheory>,
        sc: &Scales,
        spec: &TimeSpec,
        tally: &mut Tally,
    ) {
        for _ in 0..spec.probes {
            let age = self.rng.random::<f64>() * sc.horizon;
            let at = moment as f64 - age;
            if at < 0.0 {
                continue;
            }
            let idx = self.history.partition_point(|p| (p.at as f64) <= at);
            let Some(p) = idx.checked_sub(1).map(|i| self.history[i]) else {
                continue;
            };
            if !self.distinct && self.latest.get(&p.key).is_some_and(|&i| i > p.index) {
                continue; // inserted again since: not a key of this age
            }
            let age = (moment - p.at) as f64;
            let yes = self.f.contains(p.key);
            let pt = th.map_or(f64::NAN, |t| t.presence(p.at as f64, p.index));
            if age < sc.window {
                tally.fnr.trial(batch, !yes);
                tally.fnr_theory += 1.0 - pt;
            } else {
                tally.past.trial(batch, yes);
                tally.past_theory += pt;
            }
            let b = ((age / sc.horizon) * spec.buckets as f64) as usize;
            if let Some(bucket) = tally.buckets.get_mut(b) {
                bucket.0.trial(batch, yes);
                bucket.1 += pt;
            }
        }
    }
}

/// Runs the pass (see the module docs).
pub fn measure(
    built: &mut Built,
    stream: KeyStream,
    mut rng: Pcg64,
    spec: &TimeSpec,
    trace: Option<&crate::workload::Trace>,
    level: f64,
    memory: bool,
) -> anyhow::Result<TimeResult> {
    let sc = scales(built, spec, trace)?;
    // the theory counts every arrival as a new key: it holds for a stream
    // of distinct keys, or a trace whose keys do not repeat within the run
    let run_keys = sc.arrivals.cum(sc.end() / NS);
    let distinct = stream.is_distinct()
        || trace.is_some_and(|t| t.all_distinct() && run_keys < t.len() as f64);
    let theory = built.theory.moment.as_ref().filter(|_| distinct);
    let f = built
        .filter
        .as_mut()
        .ok_or_else(|| anyhow::anyhow!("metric timeline: this design answers no queries"))?;
    let mut next_arrival = sc.arrivals.arrivals(Pcg64::seed_from_u64(rng.random()));
    let cum = |t_ns: f64| sc.arrivals.cum(t_ns / NS);
    let next = next_arrival();
    let mut run = Run {
        f: f.as_mut(),
        stream,
        rng,
        distinct,
        latest: KeyMap::default(),
        history: VecDeque::new(),
        next,
        inserted: 0,
    };
    let b = sc.batches;
    let mut tally = Tally {
        moments: Vec::new(),
        queries: spec.queries,
        lines: Batched::new(b),
        fnr: Batched::new(b),
        fnr_theory: 0.0,
        past: Batched::new(b),
        past_theory: 0.0,
        buckets: vec![(Batched::new(b), 0.0); spec.buckets as usize],
    };
    let mut timeline = Vec::new();
    let mut steps = crate::metrics::progress::Steps::new("moments", spec.samples);
    // the filter's size at the moments (a design may grow and shrink)
    let (mut bits_max, mut bits_sum) = (0u64, 0.0f64);
    for s in 0..spec.samples {
        steps.done(s);
        let offset = run.rng.random::<f64>();
        let (moment, batch) = sc.moment(s, spec.samples, offset);
        run.until(moment, &mut next_arrival, sc.horizon);
        let bits_now = (memory || spec.memory_over_time).then(|| run.f.memory_bits());
        if let Some(b) = bits_now.filter(|_| memory) {
            bits_max = bits_max.max(b);
            bits_sum += b as f64;
        }
        let now = Moment {
            now_ns: moment as f64,
            inserted: run.inserted,
        };
        let th: Option<Box<dyn MomentTheory>> = theory.map(|m| m(&now, &cum));
        let lines = spec.lines.then_some((&mut tally.lines, batch));
        let fp = run.false_positives(spec.queries, lines);
        let fpr_theory = th.as_ref().map_or(f64::NAN, |t| t.fpr());
        tally.moments.push(MomentFpr {
            batch,
            fp,
            theory: fpr_theory,
        });
        let t_s = moment as f64 / NS;
        let rate = sc.arrivals.rate(t_s);
        let mut trow = timeline_row(t_s, rate, fp, spec.queries, fpr_theory, level);
        if let Some(b) = bits_now.filter(|_| spec.memory_over_time) {
            trow.push(col::MEMORY_BITS, Value::Int(b));
        }
        timeline.push(trow);
        run.probe((moment, batch), th.as_deref(), &sc, spec, &mut tally);
    }
    let mut row = summary(&tally, &sc, level);
    if spec.speed_ops > 0 {
        run.speed(spec.speed_ops, &sc, &mut next_arrival, &mut row);
    }
    let f = &run.f;
    let bits = f.memory_bits();
    if memory {
        row.push(col::MEMORY_BITS, Value::Int(bits));
        if spec.samples > 0 {
            row.num(col::MEMORY_BITS_MEAN, bits_sum / spec.samples as f64);
            row.push(col::MEMORY_BITS_MAX, Value::Int(bits_max));
        }
    }
    row.num(
        col::BITS_PER_PEAK_KEY,
        bits as f64 / (sc.arrivals.max_rate() * sc.window / NS),
    );
    row.push(col::INSERTED, Value::Int(run.inserted));
    let ages = age_rows(&tally, &sc, spec, level);
    Ok(TimeResult {
        row,
        timeline,
        ages,
    })
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
