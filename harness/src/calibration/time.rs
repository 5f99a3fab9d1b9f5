//! The time pass's points: a [`Drift`] under seeded arrivals, measured by
//! the time pass ([`crate::passes::time`]) as any time design is.

use super::{drift, Drift};
use crate::designs::{Built, Geometry, Moment, MomentTheory, Theory, TimeWindow};
use crate::passes::time::{self, Process, TimeResult};
use crate::spec::{ArrivalSpec, TimeSpec, WorkloadSpec, NS};
use crate::workload::KeyStream;
use rand::SeedableRng;
use rand_pcg::Pcg64;

/// A [`Drift`] over T = 1 s under Poisson arrivals at `rate` keys per
/// second, steady or swinging by `amplitude` over `period` seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DriftPoint {
    /// Mean keys per second (the keys of a window at the mean rate).
    pub rate: f64,
    /// The daily swing of the rate (0: steady).
    pub amplitude: f64,
    /// Seconds per cycle of the swing.
    pub period: f64,
    /// FPR at the mean rate.
    pub p: f64,
    /// Loss of a key younger than T.
    pub q: f64,
    /// Relative spread of the FPR at the mean rate, shared by the moments
    /// of one window.
    pub spread: f64,
}

/// T, in nanoseconds.
const WINDOW: u64 = 1_000_000_000;

impl DriftPoint {
    fn arrivals(&self) -> ArrivalSpec {
        if self.amplitude == 0.0 {
            ArrivalSpec::Poisson { rate: self.rate }
        } else {
            ArrivalSpec::Diurnal {
                rate: self.rate,
                amplitude: self.amplitude,
                period: self.period,
            }
        }
    }

    /// The pass's precision at the point: 100 moments in 10 batches over
    /// 20 T, 400 queries and 200 probes each, ages to 2 T in 20 buckets.
    pub fn spec(&self) -> TimeSpec {
        TimeSpec {
            arrivals: Some(self.arrivals()),
            samples: 100,
            batches: 10,
            queries: 400,
            probes: 200,
            buckets: 20,
            ..TimeSpec::default()
        }
    }

    /// The Drift built, with its exact theory at a moment.
    fn built(&self) -> anyhow::Result<Built> {
        let process = Process::new(&self.arrivals(), None)?;
        let cum = move |t_ns: f64| process.cum(t_ns.max(0.0) / NS);
        let mu = drift::mean_keys(self.rate, WINDOW);
        let mut geometry = Geometry::exact(mu.round() as u64, false);
        geometry.time = Some(TimeWindow {
            window_ns: WINDOW,
            slack_ns: 0,
            peak_rate: self.rate,
            growth: None,
        });
        let (p, q) = (self.p, self.q);
        let filter = Drift::new(WINDOW, self.rate, (p, q, self.spread), Box::new(cum));
        let moment = move |m: &Moment, cum: &dyn Fn(f64) -> f64| -> Box<dyn MomentTheory> {
            let load = drift::load(cum, m.now_ns, WINDOW, mu);
            Box::new(DriftTheory {
                now: m.now_ns,
                fpr: p * load,
                kept: 1.0 - q,
            })
        };
        Ok(Built {
            filter: Some(Box::new(filter)),
            summary: None,
            geometry,
            resolved: Vec::new(),
            theory: Theory {
                moment: Some(Box::new(moment)),
                ..Theory::default()
            },
        })
    }
}

/// The Drift's figures at a moment: FPR p · L(t), a key younger than T
/// kept with probability 1 - q, an older one reported as a never-inserted
/// key is.
struct DriftTheory {
    now: f64,
    fpr: f64,
    kept: f64,
}

impl MomentTheory for DriftTheory {
    fn fpr(&self) -> f64 {
        self.fpr
    }
    fn presence(&self, at_ns: f64, _index: u64) -> f64 {
        if self.now - at_ns < WINDOW as f64 {
            self.kept
        } else {
            self.fpr
        }
    }
}

/// The time pass's figures of `point` under `seed`, its intervals at
/// `level`.
pub fn measure(point: DriftPoint, seed: u64, level: f64) -> anyhow::Result<TimeResult> {
    let mut built = point.built()?;
    let mut rng = Pcg64::seed_from_u64(seed);
    let stream = KeyStream::new(&WorkloadSpec::Distinct, None, &mut rng);
    time::measure(&mut built, stream, rng, &point.spec(), None, level, false)
}
