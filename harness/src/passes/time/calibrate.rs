//! What the time pass costs on this machine, per arrival and per moment, on
//! one design: the figures `plan --measure` sizes its moments from.
//!
//! The pass's plan ([`super::TimePass`]) counts arrivals and queries, and
//! the run's estimate prices them at the design's usual ns
//! ([`crate::designs::Design::op_ns`]). That misses what a large time run
//! spends beyond the design's own insertion: the clock advanced before each
//! arrival, the arrival process, the key stream and the history of ages
//! probed; and at each moment the design's theory (a model that simulates
//! its bookkeeping can take milliseconds). [`calibrate`] times the pass's
//! own loop on the design for a fraction of a second. Wall-clock figures:
//! they size a run, and no reported figure depends on them.

use super::{scales, Run};
use crate::designs::{Built, Moment};
use crate::spec::{TimeSpec, WorkloadSpec, NS};
use crate::workload::KeyStream;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::collections::{HashMap, VecDeque};
use std::time::Instant;

/// The pass's cost on one design, in nanoseconds of this machine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Costs {
    /// Per arrival: the clock advanced, the key drawn and inserted, the
    /// history kept.
    pub arrival_ns: f64,
    /// Per query of a never-inserted key (and per probe of an inserted one).
    pub query_ns: f64,
    /// Per moment: its row of the timeline table, and the theory built for
    /// it with its FPR and `probes` presences.
    pub moment_ns: f64,
}

/// Arrivals inserted between two looks at the clock.
const CHUNK: f64 = 4096.0;

/// Times the time pass on `built` (fresh from its build; it is filled by
/// the calibration) under `spec`: arrivals from the start, a quarter of
/// `secs` untimed, then about `secs` timed (at most a million), then
/// never-inserted queries, then the theory at a few moments. Keys are
/// distinct whatever the workload (what a key costs to draw is small
/// beside the rest); arrivals from a trace need the trace, which is an
/// error here.
pub fn calibrate(
    built: &mut Built,
    spec: &TimeSpec,
    seed: u64,
    secs: f64,
) -> anyhow::Result<Costs> {
    let sc = scales(built, spec, None)?;
    let mut rng = Pcg64::seed_from_u64(seed);
    let stream = KeyStream::new(&WorkloadSpec::Distinct, None, &mut rng);
    let moment_fn = built.theory.moment.take();
    let f = built
        .filter
        .as_mut()
        .ok_or_else(|| anyhow::anyhow!("this design answers no queries"))?;
    let mut next_arrival = sc.arrivals.arrivals(Pcg64::seed_from_u64(rng.random()));
    let next = next_arrival();
    let mut run = Run {
        f: f.as_mut(),
        stream,
        rng,
        distinct: true,
        latest: HashMap::default(),
        history: VecDeque::new(),
        next,
        inserted: 0,
    };
    // a chunk of arrivals at the process's largest rate at a time
    let step = CHUNK / sc.arrivals.max_rate() * NS;
    let mut moment = run.next as f64;
    // chunks of arrivals for about `secs` (at least one chunk, at most
    // `most` arrivals): the arrivals and the time they took
    let mut arrive = |secs: f64, most: u64| {
        let (t0, from) = (Instant::now(), run.inserted);
        while run.inserted - from < most
            && (run.inserted == from || t0.elapsed().as_secs_f64() < secs)
        {
            moment += step;
            run.until(moment as u64, &mut next_arrival, sc.horizon);
        }
        (run.inserted - from, t0.elapsed())
    };
    // untimed first, for a quarter of the time: a fresh filter's first
    // touches of its pages fault (a huge page can stall for milliseconds
    // while the kernel finds one), a cost the run pays once, not per
    // arrival (it priced the TBF's arrivals at 60 us instead of 0.6)
    arrive(secs / 4.0, 250_000);
    let (arrivals, took) = arrive(secs, 1_000_000);
    let arrival_ns = took.as_nanos() as f64 / arrivals.max(1) as f64;
    let queries = 20_000;
    let t0 = Instant::now();
    // with lines counted, a key is queried twice (the plan counts both)
    let mut lines = super::Batched::new(1);
    std::hint::black_box(run.false_positives(queries, spec.lines.then_some((&mut lines, 0))));
    let per_key = if spec.lines { 2.0 } else { 1.0 };
    let query_ns = t0.elapsed().as_nanos() as f64 / (per_key * queries as f64);
    // a moment's own row: its FPR's exact interval
    let t0 = Instant::now();
    std::hint::black_box(super::rows::timeline_row(
        1.0,
        1.0,
        3,
        spec.queries,
        0.0,
        0.99,
    ));
    let row_ns = t0.elapsed().as_nanos() as f64;
    let theory_ns = match moment_fn.as_ref() {
        None => 0.0,
        Some(theory) => {
            let cum = |t_ns: f64| sc.arrivals.cum(t_ns / NS);
            let now = Moment {
                now_ns: moment,
                inserted: run.inserted,
            };
            let t0 = Instant::now();
            let th = theory(&now, &cum);
            let mut sum = th.fpr();
            for _ in 0..spec.probes {
                let i = run.rng.random_range(0..run.history.len().max(1));
                if let Some(p) = run.history.get(i) {
                    sum += th.presence(p.at as f64, p.index);
                }
            }
            std::hint::black_box(sum);
            t0.elapsed().as_nanos() as f64
        }
    };
    let moment_ns = row_ns + theory_ns;
    built.theory.moment = moment_fn;
    Ok(Costs {
        arrival_ns,
        query_ns,
        moment_ns,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every figure is positive and finite, and the design's theory is
    /// given back.
    #[test]
    fn calibrates_a_time_design_and_keeps_its_theory() {
        let d = crate::designs::lookup("apbf_time").unwrap();
        let params = [
            ("window_time", 1.0),
            ("peak_rate", 2000.0),
            ("k", 4.0),
            ("l", 3.0),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let mut built = d.build(&params, 1).unwrap();
        let c = calibrate(&mut built, &TimeSpec::default(), 7, 0.02).unwrap();
        for x in [c.arrival_ns, c.query_ns, c.moment_ns] {
            assert!(x.is_finite() && x > 0.0, "{c:?}");
        }
        assert!(built.theory.moment.is_some());
    }

    /// A design that counts insertions needs the arrivals from the spec,
    /// as the pass does.
    #[test]
    fn a_count_design_without_arrivals_is_an_error() {
        let d = crate::designs::lookup("apbf").unwrap();
        let params = [("k", 4.0), ("l", 3.0), ("g", 100.0)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        let mut built = d.build(&params, 1).unwrap();
        assert!(calibrate(&mut built, &TimeSpec::default(), 7, 0.02).is_err());
    }
}
