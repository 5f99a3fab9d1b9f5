//! The designs whose clock sweeps cells once per window of time: the Sl-BF
//! (`sliding_bloom_time`), the HSS-BF (`half_sliding_time`) and
//! Clock-sketch's filter (`clock_bloom_time`); and SHE's filter
//! (`she_bloom_time`), whose groups' phases flip by time. See
//! `bloomlab_filters::sliding_sketch::sweep` and each filter's `timed`
//! module. They share the crate's sizing for a peak rate, the moment
//! theory, and a plan that is the count twin's for the keys of a window at
//! the peak rate.

use super::built::{int, real, Built, Moment, MomentTheory, Theory};
use super::time_shared::{
    planned, time_geometry, time_params, window_and_rate, AtMoment, Planned, CAPS, TIME_METRICS,
};
use super::{probability, Candidate, Capabilities, Constraints, Design, DesignDef};
use crate::metrics::columns::{col, Col};
use crate::metrics::Value;
use crate::spec::{Metric, NS};
use bloomlab_filters::build::{Build, Target};
use bloomlab_filters::clock_sketch::theory::ClockBloomTheory;
use bloomlab_filters::clock_sketch::TimedClockBloom;
use bloomlab_filters::half_sliding::theory::HalfSlidingTheory;
use bloomlab_filters::half_sliding::TimedHalfSliding;
use bloomlab_filters::she::theory::SheTheory;
use bloomlab_filters::she::TimedSheBloom;
use bloomlab_filters::sliding_sketch::sweep::TimedMoment;
use bloomlab_filters::sliding_sketch::theory::SlidingBloomTheory;
use bloomlab_filters::sliding_sketch::TimedSlidingBloom;
use bloomlab_filters::{Instrumented, ParamError, TimedFilter};

/// A swept filter over time as the harness needs it.
pub(super) trait Swept:
    Build + Instrumented + TimedFilter + Clone + Send + Sync + 'static
{
    /// The keys of a window at the peak rate (per nanosecond), W = ⌈R·T⌉.
    fn keys_at(t_ns: u64, rate_per_ns: f64) -> Result<u64, ParamError>;
    /// The design's own parameters, as resolved.
    fn resolved(&self) -> Vec<(Col, Value)>;
    /// The count design's worst-phase FPR at `keys` per window: the FPR at
    /// the peak rate.
    fn count_fpr(&self, keys: u64) -> f64;
    /// The theory at a moment: its FPR and P(yes) by insertion time.
    fn moment(&self, now: f64, cum: &dyn Fn(f64) -> f64) -> Box<dyn MomentTheory>;
}

/// A swept clock's moment as the time pass takes it.
fn swept_moment(at: TimedMoment) -> Box<dyn MomentTheory> {
    Box::new(AtMoment {
        fpr: at.fpr(),
        presence: move |u| at.presence(u),
    })
}

/// Builds a swept design `name` for T seconds at a peak rate with a
/// target FPR, sized by the crate ([`bloomlab_filters::build`]).
pub(super) fn build<F: Swept>(
    name: &str,
    window_time: Option<f64>,
    peak_rate: Option<f64>,
    fpr: Option<f64>,
) -> anyhow::Result<Built> {
    let (t, rate) = window_and_rate(name, window_time, peak_rate)?;
    let fpr = probability(col::FPR, fpr)?
        .ok_or_else(|| anyhow::anyhow!("{name} needs fpr (the target at the peak rate)"))?;
    let e = |x: ParamError| anyhow::anyhow!("{name}: {x}");
    let f: F = Target::time(t, rate)
        .ticks_per_unit(NS)
        .fpr(fpr)
        .build()
        .map_err(e)?;
    let keys = F::keys_at(f.window_time(), rate / NS).map_err(e)?;
    let bits = f.memory_bits() as f64;
    let (window_ns, slack_ns) = (f.window_time(), f.slack_time());
    // the slack in insertions at the peak rate
    let slack = (keys as u128 * slack_ns as u128).div_ceil(window_ns as u128) as u64;
    let geometry = time_geometry(keys, slack, (window_ns, slack_ns), (keys, window_ns));
    let mut resolved = f.resolved();
    resolved.extend([
        int(col::KEYS, keys),
        real(col::WINDOW_TIME, window_ns as f64 / NS),
        real(col::SLACK_TIME, slack_ns as f64 / NS),
    ]);
    let count_fpr = f.count_fpr(keys);
    let model = f.clone();
    Ok(Built {
        geometry,
        resolved,
        filter: Some(Box::new(f)),
        summary: None,
        theory: Theory {
            scalars: vec![
                // at the peak rate, the count design's worst phase
                (col::FPR, count_fpr),
                (col::MEMORY_BITS, bits),
                (col::BITS_PER_ELEMENT, bits / keys as f64),
            ],
            moment: Some(Box::new(move |m: &Moment, cum: &dyn Fn(f64) -> f64| {
                model.moment(m.now_ns, cum)
            })),
            ..Theory::default()
        },
    })
}

/// For a time request: the count design's plan for the keys of a window
/// at the peak rate, under the time design's name, parameters, memory and
/// slack.
pub(super) fn plan(
    d: &dyn Design,
    name: &'static str,
    count_plan: fn(&Constraints) -> anyhow::Result<Vec<Candidate>>,
    c: &Constraints,
) -> anyhow::Result<Vec<Candidate>> {
    let Planned {
        built,
        memory,
        params,
    } = planned(d, c)?;
    let count = Constraints {
        window: built.geometry.window,
        ..*c
    };
    let mut x = count_plan(&count)?.remove(0);
    x.design = name;
    x.params = params;
    x.memory_bits = memory;
    x.bits_per_element = memory as f64 / c.window as f64;
    let keys = built.geometry.window.max(1);
    x.window = c.window;
    x.slack = (c.window as u128 * built.geometry.slack as u128).div_ceil(keys as u128) as u64;
    Ok(vec![x])
}

/// One swept design over time: its parameters, its filter and its count
/// twin, whose plan it takes for the keys of a window at the peak rate.
macro_rules! swept_design {
    ($(#[$meta:meta])* $design:ident, $params:ident, $filter:ty, $name:literal,
     aliases = $aliases:expr, about = $about:literal, promise = $promise:literal,
     count = $count:ty) => {
        time_params! {
            /// Parameters of a swept design over time: the cells of its
            /// count twin for ⌈peak_rate · T⌉ keys at fpr, swept on a clock
            /// of time.
            $params {}
        }

        $(#[$meta])*
        pub struct $design;

        impl DesignDef for $design {
            type Params = $params;
            const NAME: &'static str = $name;
            const FILTER: &'static str = stringify!($filter);
            const ALIASES: &'static [&'static str] = $aliases;
            const ABOUT: &'static str = $about;
            const WINDOW_PROMISE: Option<&'static str> = Some($promise);
            const CAPS: Capabilities = CAPS;
            const METRICS: &'static [Metric] = TIME_METRICS;

            fn build(p: $params, _seed: u64) -> anyhow::Result<Built> {
                build::<$filter>($name, p.window_time, p.peak_rate, p.fpr)
            }

            /// For a time request: the count twin's plan for the keys of a
            /// window at the peak rate, under this design's name,
            /// parameters, memory and slack.
            fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
                plan(&$design, $name, super::plan_memo::<$count>, c)
            }
        }
    };
}

swept_design!(
    /// The Sl-BF over a window of time.
    SlidingBloomTime, SlidingBloomTimeParams, TimedSlidingBloom, "sliding_bloom_time",
    aliases = &["sl_bf_time"],
    about = "Sliding Sketches' Sl-BF over a window of time: its cells swept once per T (window T, slack T at any rate)",
    promise = "every key younger than T is reported, whatever the arrivals (its cells swept once per T of time)",
    count = super::sliding_bloom::SlidingBloom
);

swept_design!(
    /// The HSS-BF over a window of time.
    HalfSlidingTime, HalfSlidingTimeParams, TimedHalfSliding, "half_sliding_time",
    aliases = &["hss_bf_time"],
    about = "Half Sliding Sketch's HSS-BF over a window of time: (k - lo - 1)·m cells cleared per T (window T at any rate)",
    promise = "every key younger than T is reported, whatever the arrivals (cells cleared on a clock of time)",
    count = super::half_sliding::HalfSliding
);

swept_design!(
    /// SHE's Bloom filter over a window of time.
    SheBloomTime, SheBloomTimeParams, TimedSheBloom, "she_bloom_time",
    aliases = &["she_time", "she_bf_time"],
    about = "SHE's Bloom filter over a window of time: groups under 1-bit timestamps flipping every P of time (window T at any rate; a lull of two phases brings stale keys back)",
    promise = "every key younger than T is reported, whatever the arrivals (groups' phases of time); after a lull of two phases stale keys come back (1-bit stamps)",
    count = super::she_bloom::SheBloom
);

swept_design!(
    /// Clock-sketch's Bloom filter over a window of time.
    ClockBloomTime, ClockBloomTimeParams, TimedClockBloom, "clock_bloom_time",
    aliases = &["clock_sketch_time"],
    about = "Clock-sketch's Bloom filter over a window of time: (2^s - 2)·m decrements per T (window T, slack T/(2^s - 2) at any rate)",
    promise = "every key younger than T is reported, whatever the arrivals (clocks decremented on a clock of time)",
    count = super::clock_bloom::ClockBloom
);

impl Swept for TimedSlidingBloom {
    fn keys_at(t_ns: u64, rate_per_ns: f64) -> Result<u64, ParamError> {
        Self::keys(t_ns, rate_per_ns)
    }
    fn resolved(&self) -> Vec<(Col, Value)> {
        vec![int(col::K, self.k()), int(col::M, self.m())]
    }
    fn count_fpr(&self, keys: u64) -> f64 {
        let (k, m, w) = (self.k(), self.m(), keys);
        SlidingBloomTheory { k, m, w }.fpr()
    }
    fn moment(&self, now: f64, cum: &dyn Fn(f64) -> f64) -> Box<dyn MomentTheory> {
        swept_moment(self.theory_at(now, cum))
    }
}

impl Swept for TimedHalfSliding {
    fn keys_at(t_ns: u64, rate_per_ns: f64) -> Result<u64, ParamError> {
        Self::keys(t_ns, rate_per_ns)
    }
    fn resolved(&self) -> Vec<(Col, Value)> {
        vec![
            int(col::K, self.k()),
            int(col::LO, self.lo()),
            int(col::M, self.m()),
        ]
    }
    /// The count HSS-BF guaranteeing `keys`: cycle ⌈keys·d/(d - 1)⌉, d =
    /// k - lo.
    fn count_fpr(&self, keys: u64) -> f64 {
        let d = (self.k() - self.lo()) as u64;
        let (k, lo, m) = (self.k(), self.lo(), self.m());
        let cycle = (keys * d).div_ceil(d - 1);
        HalfSlidingTheory { k, lo, m, cycle }.fpr()
    }
    fn moment(&self, now: f64, cum: &dyn Fn(f64) -> f64) -> Box<dyn MomentTheory> {
        swept_moment(self.theory_at(now, cum))
    }
}

impl Swept for TimedClockBloom {
    fn keys_at(t_ns: u64, rate_per_ns: f64) -> Result<u64, ParamError> {
        Self::keys(t_ns, rate_per_ns)
    }
    fn resolved(&self) -> Vec<(Col, Value)> {
        vec![
            int(col::K, self.k()),
            int(col::CLOCK_BITS, self.clock_bits()),
            int(col::M, self.m()),
        ]
    }
    fn count_fpr(&self, keys: u64) -> f64 {
        let (k, s, m) = (self.k(), self.clock_bits(), self.m());
        ClockBloomTheory { w: keys, k, s, m }.fpr()
    }
    fn moment(&self, now: f64, cum: &dyn Fn(f64) -> f64) -> Box<dyn MomentTheory> {
        swept_moment(self.theory_at(now, cum))
    }
}

impl Swept for TimedSheBloom {
    fn keys_at(t_ns: u64, rate_per_ns: f64) -> Result<u64, ParamError> {
        bloomlab_filters::sliding_sketch::sweep::keys(
            t_ns,
            rate_per_ns,
            bloomlab_filters::she::theory::MAX_EXACT_WINDOW,
        )
    }
    fn resolved(&self) -> Vec<(Col, Value)> {
        vec![
            int(col::K, self.k()),
            int(col::M, self.m()),
            int(col::GROUP, self.group()),
            real(col::PHASE_TIME, self.phase() as f64 / NS),
        ]
    }
    /// The count SHE-BF of `keys` per window with the phase in keys at
    /// the same rate.
    fn count_fpr(&self, keys: u64) -> f64 {
        let t = self.window_time() as f64;
        let phase = ((self.phase() as f64 * keys as f64 / t).round() as u64).max(keys);
        let (k, m, g) = (self.k(), self.m(), self.group());
        SheTheory {
            w: keys,
            k,
            m,
            g,
            phase,
        }
        .fpr()
    }
    fn moment(&self, now: f64, cum: &dyn Fn(f64) -> f64) -> Box<dyn MomentTheory> {
        let at = self.theory_at(now, cum);
        Box::new(AtMoment {
            fpr: at.fpr(),
            presence: move |u| at.presence(u),
        })
    }
}
