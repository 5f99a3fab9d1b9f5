//! What a design gives the harness once built: the filter (or summary), its
//! geometry (window, slack, time scales), its resolved parameters and its
//! theory. Shared by every design module.

use crate::metrics::columns::{col, Col};
use crate::metrics::Value;
use bloomlab_filters::apbf::theory as apbf_theory;
use bloomlab_filters::swamp;
use bloomlab_filters::Instrumented;
use bloomlab_filters::{window, SlidingFilter, WindowSummary};

/// How the harness drives a design: its window and the time scales of its
/// state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Geometry {
    /// w: the guaranteed window of a sliding design; for a design without
    /// one, the window of interest over which `fnr` is reported.
    pub window: u64,
    /// s: the slack (0 for designs without a window).
    pub slack: u64,
    /// Insertions after which the expected state repeats (1: smooth).
    pub period: u64,
    /// Insertions past a multiple of `period` at which the worst phase
    /// falls (0: just before a shift, as for every switching design; the
    /// Sl-BF's worst moment lies inside its period).
    pub worst_phase: u64,
    /// Whether the design promises no false negatives within `window`.
    pub guaranteed: bool,
    /// Ages profiled (None: w + s + margin).
    pub horizon: Option<u64>,
    /// Insertions from empty to the steady state (None: the horizon).
    pub warmup: Option<u64>,
    /// Insertions between measurement rounds (None: w + s in whole periods).
    pub spacing: Option<u64>,
    /// For a design over a window of time: that window.
    pub time: Option<TimeWindow>,
}

/// The window of a design that forgets by time (nanoseconds of simulated
/// time) and the rate it is sized for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeWindow {
    /// T: keys younger than this are reported (under the design's
    /// guarantee).
    pub window_ns: u64,
    /// How much longer a key may still be reported.
    pub slack_ns: u64,
    /// Keys per second the design is sized for.
    pub peak_rate: f64,
    /// For a design whose memory follows its traffic: how, so that the
    /// time pass adds the filter's growth at its arrivals' largest rate to
    /// the point's memory estimate (the estimate counted the TLBF's first
    /// sizing only, "0.0 MiB filter", while the filter grew 39-122x).
    pub growth: Option<Growth>,
}

/// How a design's memory follows its traffic.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Growth {
    /// The TLBF of (k, l, m₀, growth cap):
    /// `bloomlab_filters::tlbf::memory_estimate`.
    Tlbf {
        /// k.
        k: u32,
        /// l.
        l: u32,
        /// m₀: the first slices' bits.
        m0: u64,
        /// The growth cap.
        cap: u64,
    },
}

impl Growth {
    /// Bytes at up to `ratio` times the rate the design is sized for.
    pub fn bytes_at(&self, ratio: f64) -> u64 {
        match *self {
            Growth::Tlbf { k, l, m0, cap } => {
                bloomlab_filters::tlbf::memory_estimate(k, l, m0, cap, ratio) / 8
            }
        }
    }
}

/// A moment of a time-window run: the time and the insertions so far.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Moment {
    /// Nanoseconds since the run began.
    pub now_ns: f64,
    /// Insertions so far.
    pub inserted: u64,
}

/// A design's theory at one moment of a time-window run.
pub trait MomentTheory {
    /// FPR of a never-inserted key.
    fn fpr(&self) -> f64;
    /// P(yes) for the key inserted at `at_ns` as the `index`-th insertion
    /// (1-based).
    fn presence(&self, at_ns: f64, index: u64) -> f64;
}

/// The theory at a moment, given the arrival process's cumulative mean Λ
/// (expected arrivals by a time in nanoseconds).
pub type MomentFn =
    Box<dyn Fn(&Moment, &dyn Fn(f64) -> f64) -> Box<dyn MomentTheory> + Send + Sync>;

impl Geometry {
    /// An exact window of w arrivals: no slack, smooth sliding.
    pub fn exact(w: u64, guaranteed: bool) -> Geometry {
        Geometry {
            window: w,
            slack: 0,
            period: 1,
            worst_phase: 0,
            guaranteed,
            horizon: None,
            warmup: None,
            spacing: None,
            time: None,
        }
    }

    /// The window, slack and period a sliding filter reports.
    pub fn sliding(f: &dyn SlidingFilter) -> Geometry {
        Geometry {
            window: f.window(),
            slack: f.slack(),
            period: f.period(),
            worst_phase: 0,
            guaranteed: true,
            horizon: None,
            warmup: None,
            spacing: None,
            time: None,
        }
    }
}

/// Theoretical zero fraction and FPR after t insertions from empty.
pub type ConvergenceTheory = Box<dyn Fn(u64) -> (f64, f64) + Send + Sync>;

/// A filter ready to measure, with its resolved parameters and theory.
pub struct Built {
    /// The filter (None for sketches that answer no membership queries).
    pub filter: Option<Box<dyn Instrumented + Send>>,
    /// The design as a sliding-window summary (frequency, distinct count,
    /// entropy), if it is one; a separate instance from `filter`, measured on
    /// its own stream.
    pub summary: Option<Box<dyn WindowSummary + Send>>,
    /// Window, slack and time scales.
    pub geometry: Geometry,
    /// Parameters actually used (after choosing k from an FPR target, say):
    /// counts as [`Value::Int`], ratios as [`Value::Num`].
    pub resolved: Vec<(Col, Value)>,
    /// Theoretical figures.
    pub theory: Theory,
}

/// Theoretical figures of one configuration. Scalar names match the measured
/// metric names in [`crate::metrics`] (`fpr`, `fpr_avg`, `probes_negative`,
/// `npws_peak`, `npws_avg`, `bits_per_element`, ...).
#[derive(Default)]
pub struct Theory {
    /// column -> value.
    pub scalars: Vec<(Col, f64)>,
    /// More name -> value, computed on first use ([`Theory::get`],
    /// [`Theory::all`]): figures that take seconds at a window of millions
    /// and that a pass may never read (the time pass reads only `moment`).
    pub later: Later,
    /// P(yes | age) at the worst phase and averaged over phases.
    pub profile: Option<Box<dyn ProfileTheory>>,
    /// Zero fraction and FPR over time from empty.
    pub convergence: Option<ConvergenceTheory>,
    /// Expected errors of the summary's estimates, given the window.
    pub estimates: Option<Box<dyn EstimateTheory>>,
    /// FPR and P(yes | insertion time) at a moment of a time-window run.
    pub moment: Option<MomentFn>,
}

/// Expected errors of a summary's estimates as functions of the window's
/// true contents (SWAMP's, derived in `bloomlab_filters::swamp::theory`).
pub trait EstimateTheory: Send + Sync {
    /// Expected squared error of the frequency estimate of a key of window
    /// frequency `f` in a window of `n` arrivals with Σ f² = `s2`.
    fn count_mse(&self, n: u64, s2: f64, f: u64) -> f64;
    /// Expected lower bound (Z) with D distinct keys in the window.
    fn distinct_lb(&self, d: f64) -> f64;
    /// Standard deviation of the point estimate with D distinct keys.
    fn distinct_sd(&self, d: f64) -> f64;
    /// Expected entropy error H - Ĥ for a window with these flow counts.
    fn entropy_error(&self, counts: &mut dyn Iterator<Item = u64>) -> f64;
    /// FPR with D distinct keys in the window (the membership theory's
    /// figure is for D = W, a stream of distinct keys).
    fn fpr(&self, d: f64) -> f64;
    /// Expected pairs of distinct keys sharing a fingerprint, D(D-1)/2M:
    /// below about 1 per round, the errors are rare events.
    fn colliding_pairs(&self, d: f64) -> f64;
}

/// SWAMP's estimate theory at L-bit fingerprints.
pub(crate) struct SwampEstimates(pub(crate) u32);

impl EstimateTheory for SwampEstimates {
    fn count_mse(&self, n: u64, s2: f64, f: u64) -> f64 {
        swamp::theory::count_mse(self.0, n, s2, f)
    }
    fn distinct_lb(&self, d: f64) -> f64 {
        swamp::theory::expected_distinct_fingerprints(self.0, d)
    }
    fn distinct_sd(&self, d: f64) -> f64 {
        swamp::theory::distinct_mle_sd(self.0, d)
    }
    fn entropy_error(&self, counts: &mut dyn Iterator<Item = u64>) -> f64 {
        swamp::theory::entropy_error_exact(self.0, counts)
    }
    fn fpr(&self, d: f64) -> f64 {
        swamp::theory::fpr(self.0, d)
    }
    fn colliding_pairs(&self, d: f64) -> f64 {
        d * (d - 1.0) / 2.0 * 2f64.powi(-(self.0 as i32))
    }
}

impl Theory {
    /// The column's scalar, if this design's theory has it.
    pub fn get(&self, name: Col) -> Option<f64> {
        self.all().find(|(n, _)| *n == name).map(|&(_, v)| v)
    }

    /// Every scalar: [`scalars`](Self::scalars), then [`later`](Self::later)'s.
    pub fn all(&self) -> impl Iterator<Item = &(Col, f64)> {
        self.scalars.iter().chain(self.later.get())
    }
}

/// Scalars a theory computes on first use, once.
#[derive(Default)]
pub struct Later {
    make: Option<LaterFn>,
    done: std::sync::OnceLock<Vec<(Col, f64)>>,
}

type LaterFn = Box<dyn Fn() -> Vec<(Col, f64)> + Send + Sync>;

impl Later {
    /// The scalars `make` gives, when first asked for.
    pub fn new(make: impl Fn() -> Vec<(Col, f64)> + Send + Sync + 'static) -> Later {
        Later {
            make: Some(Box::new(make)),
            done: std::sync::OnceLock::new(),
        }
    }

    /// The scalars (none without a `make`).
    pub fn get(&self) -> &[(Col, f64)] {
        match &self.make {
            Some(make) => self.done.get_or_init(make),
            None => &[],
        }
    }
}

/// The theoretical age profile.
pub trait ProfileTheory: Send + Sync {
    /// P(yes | age) at the worst phase (phase = period).
    fn worst(&self, age: u64) -> f64;
    /// P(yes | age) averaged over phases.
    fn avg(&self, age: u64) -> f64;
}

/// P(yes | age) from P(yes | switches) on a grid of phases, for designs that
/// switch every g insertions.
pub(crate) struct ShiftProfile {
    pub(crate) g: u64,
    /// (phase, P(yes | j shifts) for j = 0..=k+l)
    pub(crate) by_phase: Vec<(u64, Vec<f64>)>,
}

impl ProfileTheory for ShiftProfile {
    fn worst(&self, age: u64) -> f64 {
        let (phase, by_j) = self.by_phase.last().expect("phase grid ends at g");
        let j = apbf_theory::shifts_at_age(age, *phase, self.g) as usize;
        by_j[j.min(by_j.len() - 1)]
    }
    fn avg(&self, age: u64) -> f64 {
        self.by_phase
            .iter()
            .map(|(phase, by_j)| {
                let j = apbf_theory::shifts_at_age(age, *phase, self.g) as usize;
                by_j[j.min(by_j.len() - 1)]
            })
            .sum::<f64>()
            / self.by_phase.len() as f64
    }
}

/// The theory every switching design shares, from its FPR and P(yes | j
/// switches) as functions of the phase: worst-phase and phase-averaged FPR and
/// NPWS over a grid of at most `phases` phases, and the age profile.
pub(crate) fn switching_theory(
    f: &dyn SlidingFilter,
    payload_bits: u64,
    phases: u64,
    fpr_at: &dyn Fn(u64) -> f64,
    by_shift: &dyn Fn(u64) -> Vec<f64>,
) -> Theory {
    let (w, s, g) = (f.window(), f.slack(), f.period());
    let grid = window::phase_grid(g, phases);
    let by_phase: Vec<(u64, Vec<f64>)> = grid.iter().map(|&p| (p, by_shift(p))).collect();
    let pws: Vec<f64> = by_phase
        .iter()
        .map(|(p, v)| window::pws(v, fpr_at(*p), w, s, g, *p))
        .collect();
    let n = grid.len() as f64;
    Theory {
        later: Default::default(),
        scalars: vec![
            (col::FPR, fpr_at(g)),
            (
                col::FPR_AVG,
                grid.iter().map(|&p| fpr_at(p)).sum::<f64>() / n,
            ),
            (col::FPR_EXPIRED, fpr_at(g)),
            (col::FNR, 0.0),
            (
                col::NPWS_PEAK,
                pws.iter().cloned().fold(0.0, f64::max) / w as f64,
            ),
            (col::NPWS_AVG, pws.iter().sum::<f64>() / n / w as f64),
            (col::BITS_PER_ELEMENT, payload_bits as f64 / w as f64),
        ],
        profile: Some(Box::new(ShiftProfile { g, by_phase })),
        convergence: None,
        estimates: None,
        moment: None,
    }
}

/// The theory at a moment of a time-window run of a design that switches
/// every g insertions, from its FPR and P(yes | j switches) as functions of
/// the phase (steady state: the run's warm-up fills the design first).
pub(crate) fn switching_moment(
    g: u64,
    fpr_at: impl Fn(u64) -> f64 + Send + Sync + 'static,
    by_shift: impl Fn(u64) -> Vec<f64> + Send + Sync + 'static,
) -> MomentFn {
    let parts = std::sync::Arc::new((fpr_at, by_shift));
    Box::new(move |m: &Moment, _: &dyn Fn(f64) -> f64| {
        let phase = if m.inserted == 0 {
            g
        } else {
            (m.inserted - 1) % g + 1
        };
        Box::new(SwitchingMoment {
            fpr: (parts.0)(phase),
            by_j: (parts.1)(phase),
            g,
            phase,
            inserted: m.inserted,
        }) as Box<dyn MomentTheory>
    })
}

/// A switching design at one moment.
struct SwitchingMoment {
    fpr: f64,
    by_j: Vec<f64>,
    g: u64,
    phase: u64,
    inserted: u64,
}

impl MomentTheory for SwitchingMoment {
    fn fpr(&self) -> f64 {
        self.fpr
    }
    fn presence(&self, _at_ns: f64, index: u64) -> f64 {
        let age = self.inserted + 1 - index;
        let j = apbf_theory::shifts_at_age(age, self.phase, self.g) as usize;
        self.by_j.get(j).copied().unwrap_or(self.fpr)
    }
}

/// A filter over an exact window of `w` arrivals with no false negatives,
/// whose theory is its FPR `p` (for never-inserted and expired keys alike)
/// and its memory as built.
pub(crate) fn exact_window_filter(
    f: Box<dyn Instrumented + Send>,
    w: u64,
    p: f64,
    resolved: Vec<(Col, Value)>,
) -> Built {
    let bits = f.memory_bits() as f64;
    Built {
        geometry: Geometry::exact(w, true),
        resolved,
        filter: Some(f),
        summary: None,
        theory: Theory {
            scalars: vec![
                (col::FPR, p),
                (col::FPR_EXPIRED, p),
                (col::FNR, 0.0),
                (col::MEMORY_BITS, bits),
                (col::BITS_PER_ELEMENT, bits / w as f64),
            ],
            ..Theory::default()
        },
    }
}

/// A resolved count.
pub(crate) fn int(name: Col, v: impl Into<u64>) -> (Col, Value) {
    (name, Value::Int(v.into()))
}

/// A resolved ratio.
pub(crate) fn real(name: Col, v: f64) -> (Col, Value) {
    (name, Value::Num(v))
}
