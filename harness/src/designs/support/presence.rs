//! The age profile of a design whose theory gives P(yes | age) as steps at
//! any moment ([`Presence`]): the HSS-BF's, Clock-sketch's Bloom
//! filter's and SHE-BF's.

use crate::designs::built::{Later, ProfileTheory, Theory};
use crate::designs::Candidate;
use crate::metrics::columns::{col, Col};
use crate::metrics::Value;
use bloomlab_filters::clock_sketch::theory::ClockBloomTheory;
use bloomlab_filters::half_sliding::theory::{HalfSlidingTheory, Presence};
use bloomlab_filters::she::theory::SheTheory;
use std::sync::OnceLock;

/// A theory of P(yes | age) at each moment of a period.
pub(in crate::designs) trait PresenceTheory: Send + Sync {
    /// P(yes | age) after insertion t.
    fn presence(&self, t: u64) -> Presence;
    /// `n` moments spread over one period of the steady state.
    fn moments(&self, n: u64) -> Vec<u64>;
    /// The most insertions a cell holds: past it every age has the FPR.
    fn longest(&self) -> u64;
}

impl PresenceTheory for HalfSlidingTheory {
    fn presence(&self, t: u64) -> Presence {
        HalfSlidingTheory::presence(self, t)
    }
    fn moments(&self, n: u64) -> Vec<u64> {
        self.moments_n(n)
    }
    fn longest(&self) -> u64 {
        HalfSlidingTheory::longest(self)
    }
}

impl PresenceTheory for ClockBloomTheory {
    fn presence(&self, t: u64) -> Presence {
        ClockBloomTheory::presence(self, t)
    }
    fn moments(&self, n: u64) -> Vec<u64> {
        self.moments_n(n)
    }
    fn longest(&self) -> u64 {
        ClockBloomTheory::longest(self)
    }
}

impl PresenceTheory for SheTheory {
    fn presence(&self, t: u64) -> Presence {
        SheTheory::presence(self, t)
    }
    fn moments(&self, n: u64) -> Vec<u64> {
        self.moments_n(n)
    }
    fn longest(&self) -> u64 {
        SheTheory::longest(self)
    }
}

/// P(yes | age) at the worst moment, and averaged over `moments` moments
/// of the period (computed on first use, over ages up to the longest span).
pub(in crate::designs) struct PresenceProfile<T> {
    th: T,
    t_worst: u64,
    worst: OnceLock<Presence>,
    moments: u64,
    avg: OnceLock<Vec<f64>>,
}

impl<T: PresenceTheory> PresenceProfile<T> {
    /// The profile of `th`, whose worst moment is `t_worst`.
    pub(in crate::designs) fn new(th: T, t_worst: u64, moments: u64) -> Self {
        PresenceProfile {
            th,
            t_worst,
            worst: OnceLock::new(),
            moments,
            avg: OnceLock::new(),
        }
    }
}

impl<T: PresenceTheory> ProfileTheory for PresenceProfile<T> {
    fn worst(&self, age: u64) -> f64 {
        self.worst
            .get_or_init(|| self.th.presence(self.t_worst))
            .at(age.saturating_sub(1))
    }
    fn avg(&self, age: u64) -> f64 {
        let curve = self.avg.get_or_init(|| {
            let max_age = self.th.longest() + 1;
            let moments = self.th.moments(self.moments);
            let mut avg = vec![0.0; max_age as usize + 1];
            for &t in &moments {
                for (a, p) in avg.iter_mut().zip(self.th.presence(t).curve(max_age)) {
                    *a += p / moments.len() as f64;
                }
            }
            avg
        });
        curve[(age.saturating_sub(1) as usize).min(curve.len() - 1)]
    }
}

/// Moments the average profile and PWS are taken over (each costs a sort
/// of the cells' spans).
pub(in crate::designs) const PROFILE_MOMENTS: u64 = 16;

/// A guaranteed-window design's figures beside its presence theory.
pub(in crate::designs) struct Figures {
    /// The FPR averaged over the period.
    pub fpr_avg: f64,
    /// Probes of a negative query at the worst moment.
    pub probes: f64,
    /// 64-byte lines at the worst moment, where the design's theory gives
    /// them.
    pub lines: Option<bloomlab_filters::lines::Lines>,
    /// `memory_bits`.
    pub memory: u64,
    /// Payload bits (bits per element's numerator).
    pub payload: u64,
}

/// The theory the harness compares with, for a design that loses no key of
/// its window W and whose theory gives P(yes | age) at any moment: the FPR
/// at the worst moment `t_worst` (where the pass measures its worst phase)
/// and averaged, PWS over the slack's ages at the worst moment and averaged
/// over [`PROFILE_MOMENTS`] moments, the probes, memory and the age profile.
///
/// Computed when a pass first asks ([`crate::designs::built::Later`]), `figures`
/// then: at a window of millions they take seconds, and the time pass
/// never reads them.
pub(in crate::designs) fn guaranteed_theory<T>(
    th: T,
    w: u64,
    t_worst: u64,
    figures: impl Fn() -> Figures + Send + Sync + 'static,
) -> Theory
where
    T: PresenceTheory + std::fmt::Debug + Clone + Send + Sync + 'static,
{
    let profile = PresenceProfile::new(th.clone(), t_worst, PROFILE_MOMENTS);
    Theory {
        later: Later::new(move || guaranteed_scalars(&th, w, t_worst, figures())),
        profile: Some(Box::new(profile)),
        ..Theory::default()
    }
}

/// [`guaranteed_theory`]'s scalars.
fn guaranteed_scalars<T: PresenceTheory + std::fmt::Debug + 'static>(
    th: &T,
    w: u64,
    t_worst: u64,
    f: Figures,
) -> Vec<(Col, f64)> {
    let worst = th.presence(t_worst);
    let slack = th.longest() - w;
    // the PWS over the period's moments, memoized
    // ([`bloomlab_filters::memo`]): at a window of millions it takes
    // seconds, and a plan builds a candidate more than once. The key is
    // the theory's type and its parameters as Debug prints them (exactly)
    static PWS_AVG: bloomlab_filters::memo::Memo<(&'static str, String, u64), f64> =
        bloomlab_filters::memo::Memo::new();
    let key = (std::any::type_name::<T>(), format!("{th:?}"), w);
    let pws_avg = PWS_AVG.get_or(key, || {
        let moments = th.moments(PROFILE_MOMENTS);
        moments
            .iter()
            .map(|&t| th.presence(t).sum(w, w + slack))
            .sum::<f64>()
            / moments.len() as f64
    });
    let wf = w as f64;
    vec![
        (col::FPR, worst.fpr()),
        (col::FPR_AVG, f.fpr_avg),
        (col::FPR_EXPIRED, worst.fpr()),
        (col::FNR, 0.0),
        (col::NPWS_PEAK, worst.sum(w, w + slack) / wf),
        (col::NPWS_AVG, pws_avg / wf),
        (col::PROBES_NEGATIVE, f.probes),
        (col::MEMORY_BITS, f.memory as f64),
        (col::BITS_PER_ELEMENT, f.payload as f64 / wf),
    ]
    .into_iter()
    .chain(crate::designs::candidate::line_scalars(f.lines))
    .collect()
}

/// The plan's candidate of a design whose theory gives P(yes | age) at any
/// moment, sized for window `w`: slack to its longest span, peak NPWS at
/// its worst moment `t_worst` (whose FPR is `fpr`), `cost` the bits
/// written per insertion and the reads of a negative query there (64-byte
/// lines where the design's theory gives them).
pub(in crate::designs) fn candidate<T: PresenceTheory>(
    design: &'static str,
    params: Vec<(Col, Value)>,
    th: &T,
    w: u64,
    (t_worst, fpr): (u64, f64),
    memory: u64,
    (insert_bits, probes): (u64, f64),
) -> Candidate {
    let slack = th.longest() - w;
    Candidate {
        design,
        params,
        memory_bits: memory,
        bits_per_element: memory as f64 / w as f64,
        fpr,
        window: w,
        slack,
        npws_peak: th.presence(t_worst).sum(w, w + slack) / w as f64,
        insert_bits,
        // NaN: a filter too small for its lines theory
        query_lines: Some(probes).filter(|p| p.is_finite()),
    }
}
