//! The design registry: one module per design, each implementing
//! [`DesignDef`], and one list, [`REGISTRY`], that every command reads.
//!
//! A design module declares its parameters once, as a struct that derives
//! both `clap::Args` (the flags of `bloomlab theory|measure <design>`) and
//! `serde::Deserialize` with `deny_unknown_fields` (the keys of a spec's
//! `[[sweep]]` point), so the flags and the spec keys are the same names.
//! Parameters travel between the two as a [`Params`] map (the form a spec's
//! grid expands to, and the row's `target_*` columns); when a run is
//! prepared, [`Design::configure`] types the map once into the struct (a
//! deserializer of the map, no JSON between), and the point's plan keeps
//! the [`Configured`] design that builds every copy the passes need. A spec
//! point and a command line go through one parser.
//!
//! Adding a design: its filter module in `filters/`, one file here
//! implementing [`DesignDef`], one line in [`REGISTRY`], and its arm in the
//! filters' conformance suite (`docs/extending.md` has the recipe).

mod a2;
/// What the design files share: the built design and its theory, the plan's
/// candidates, the age-profile helpers, shared parameter structs and the
/// summaries' and time designs' common parts. The design files are the
/// other modules here, one per design.
mod support;
pub use support::params::{from_params, to_params, Configured};
use support::{built, candidate, exact_loads, presence, shared, sketches, time_shared};
mod apbf;
mod apbf_time;
mod blocked_apbf;
mod broom;
mod clock_bloom;
mod double_buffer;
mod forgetful;
mod half_sliding;
mod jumping;
mod line_apbf;
mod naor_yogev;
mod ny_pocket;
mod ny_time;
mod segmented;
mod segmented_time;
mod she_bloom;
mod sliding_bloom;
mod stable;
mod swamp;
mod swbf;
mod swbf_time;
mod swept_time;
mod swhll;
mod swlc;
mod tbf;
mod tbf_time;
mod tlbf;
mod wcss;

pub use built::{
    Built, ConvergenceTheory, EstimateTheory, Geometry, Moment, MomentFn, MomentTheory,
    ProfileTheory, Theory, TimeWindow,
};
pub use candidate::{Candidate, Constraints, FAST_MEMORY};

use crate::spec::Metric;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The metrics `measure` takes for a sliding design with a slack.
pub(crate) const SLIDING_METRICS: &[Metric] = &[
    Metric::Fpr,
    Metric::Fnr,
    Metric::Accesses,
    Metric::Npws,
    Metric::Memory,
    Metric::Speed,
];

/// The metrics of a sliding dictionary (Naor-Yogev, ny_pocket): those of a
/// sliding design, and the tail of its insertions, whose work varies.
pub(crate) const DICTIONARY_METRICS: &[Metric] = &[
    Metric::Fpr,
    Metric::Fnr,
    Metric::Accesses,
    Metric::Npws,
    Metric::Memory,
    Metric::Speed,
    Metric::Tail,
];

/// The metrics `measure` takes for a filter over an exact window.
pub(crate) const EXACT_METRICS: &[Metric] = &[
    Metric::Fpr,
    Metric::Fnr,
    Metric::Accesses,
    Metric::Memory,
    Metric::Speed,
];

/// A design's parameters by name, as a spec point gives them.
pub type Params = BTreeMap<String, f64>;

/// What a design can be asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// Answers membership queries (the `fpr`, `fnr`, ... metrics).
    pub membership: bool,
    /// Guarantees no false negatives within its window.
    pub guaranteed_window: bool,
    /// Has a slack (keys between w and w + s may still be reported).
    pub slack: bool,
    /// Answers sliding-window frequency, distinct-count or entropy queries.
    pub summary: bool,
    /// Learns of its false positives and fixes them (`AdaptiveFilter`).
    pub adaptive: bool,
    /// Its memory depends on the stream it saw (a table that stores what is
    /// in the window, adaptivity bits), so `memory_bits` is a measurement,
    /// not a function of the parameters.
    pub stream_memory: bool,
    /// Its window is one of time (`[time]`, the `timeline` metric), not of
    /// insertions.
    pub time_window: bool,
}

impl Capabilities {
    /// A sliding filter with a guaranteed window and a slack.
    pub const SLIDING: Capabilities = Capabilities {
        membership: true,
        guaranteed_window: true,
        slack: true,
        summary: false,
        adaptive: false,
        stream_memory: false,
        time_window: false,
    };
    /// A filter over an exact window (no slack).
    pub const EXACT: Capabilities = Capabilities {
        slack: false,
        ..Capabilities::SLIDING
    };
    /// A measurement summary that answers no membership queries.
    pub const SUMMARY: Capabilities = Capabilities {
        membership: false,
        guaranteed_window: false,
        slack: false,
        summary: true,
        adaptive: false,
        stream_memory: false,
        time_window: false,
    };
    /// A sliding filter over a window of time, with a slack.
    pub const TIME: Capabilities = Capabilities {
        time_window: true,
        ..Capabilities::SLIDING
    };

    /// Short words for `bloomlab designs`.
    pub fn words(&self) -> String {
        let mut w = Vec::new();
        if self.membership {
            w.push("membership");
        }
        if self.time_window {
            w.push("time window+slack");
        } else if self.guaranteed_window {
            w.push(if self.slack {
                "window+slack"
            } else {
                "exact window"
            });
        } else if self.membership {
            w.push("no window");
        }
        if self.summary {
            w.push("summary");
        }
        if self.adaptive {
            w.push("adaptive");
        }
        w.join(", ")
    }
}

/// What a design module defines; [`Design`] is implemented for every
/// `DesignDef`, so a module writes only this.
pub trait DesignDef: Sync + Send + 'static {
    /// The parameters: flags and spec keys alike.
    type Params: clap::Args
        + clap::FromArgMatches
        + DeserializeOwned
        + Serialize
        + Clone
        + Send
        + Sync
        + 'static;
    /// The name specs and commands use (`naor_yogev`).
    const NAME: &'static str;
    /// The filters crate's type this design measures, as the crate's one
    /// list (`bloomlab_filters::for_each_design!`) writes it
    /// (`OnTime<Apbf>`): the one mapping between the crates' names (the
    /// registry tests hold it to that list).
    const FILTER: &'static str;
    /// Other names the command line accepts (`naor-yogev`).
    const ALIASES: &'static [&'static str] = &[];
    /// One line: what the design is.
    const ABOUT: &'static str;
    /// What it can be asked.
    const CAPS: Capabilities;
    /// The metrics `bloomlab measure` takes for it.
    const METRICS: &'static [Metric];
    /// Nanoseconds per insertion and per query, for the shard weights and
    /// the work estimate of a point (`passes::PointPlan`): medians over
    /// `results/compare.csv` (full precision, this repository's 2-core
    /// machine), rounded. Only the ratios matter (the broom filter's
    /// insertion costs about 50 APBF insertions); a design that sets none
    /// counts as an APBF. Fixed numbers, not timings of this run, so that
    /// every shard of a spec computes the same assignment on whatever
    /// machine it runs.
    const OP_NS: (f64, f64) = (70.0, 120.0);
    /// For a design over a window of time: what it promises a key younger
    /// than T, under any arrivals or under a stated condition (every time
    /// design states one; `bloomlab designs` and `theory` print it, and
    /// `filters/tests/conformance/arrivals.rs` holds the builder's
    /// configurations to it).
    const WINDOW_PROMISE: Option<&'static str> = None;
    /// Builds the design; `seed` seeds its own randomness.
    fn build(p: Self::Params, seed: u64) -> anyhow::Result<Built>;
    /// Every configuration worth considering for a plan request, or why the
    /// design cannot take part.
    fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>>;
    /// Defaults the command line applies before building (kept for flags
    /// that had defaults before the spec keys did).
    fn cli_defaults(_p: &mut Params) {}
}

/// A design as the commands see it (object safe; see [`DesignDef`]).
pub trait Design: Sync {
    /// Canonical name.
    fn name(&self) -> &'static str;
    /// Other accepted names.
    fn aliases(&self) -> &'static [&'static str];
    /// One line.
    fn about(&self) -> &'static str;
    /// Capabilities.
    fn capabilities(&self) -> Capabilities;
    /// Metrics of `bloomlab measure`.
    fn measure_metrics(&self) -> &'static [Metric];
    /// (insertion, query) cost in ns ([`DesignDef::OP_NS`]).
    fn op_ns(&self) -> (f64, f64);
    /// What a time design promises a key younger than T
    /// ([`DesignDef::WINDOW_PROMISE`]).
    fn window_promise(&self) -> Option<&'static str>;
    /// The filters crate's type ([`DesignDef::FILTER`]).
    fn filter(&self) -> &'static str;
    /// Adds the parameter flags to a command.
    fn args(&self, cmd: clap::Command) -> clap::Command;
    /// The parameters given on a command line, as a map.
    fn params_from(&self, m: &clap::ArgMatches) -> anyhow::Result<Params>;
    /// Parameter names and their help, for `bloomlab designs`.
    fn parameters(&self) -> Vec<(String, String)>;
    /// The design configured from a parameter map: the map typed once into
    /// the design's parameter struct, which then builds copies.
    fn configure(&self, params: &Params) -> anyhow::Result<Configured>;
    /// Builds from a parameter map (configures, then builds one copy).
    fn build(&self, params: &Params, seed: u64) -> anyhow::Result<Built> {
        self.configure(params)?.build(seed)
    }
    /// Plan candidates or the reason there are none.
    fn plan(&self, c: &Constraints) -> anyhow::Result<Vec<Candidate>>;
}

impl<D: DesignDef> Design for D {
    fn name(&self) -> &'static str {
        D::NAME
    }
    fn aliases(&self) -> &'static [&'static str] {
        D::ALIASES
    }
    fn about(&self) -> &'static str {
        D::ABOUT
    }
    fn capabilities(&self) -> Capabilities {
        D::CAPS
    }
    fn measure_metrics(&self) -> &'static [Metric] {
        D::METRICS
    }
    fn op_ns(&self) -> (f64, f64) {
        D::OP_NS
    }
    fn window_promise(&self) -> Option<&'static str> {
        D::WINDOW_PROMISE
    }
    fn filter(&self) -> &'static str {
        D::FILTER
    }
    fn args(&self, cmd: clap::Command) -> clap::Command {
        <D::Params as clap::Args>::augment_args(cmd)
    }
    fn params_from(&self, m: &clap::ArgMatches) -> anyhow::Result<Params> {
        let p = <D::Params as clap::FromArgMatches>::from_arg_matches(m)
            .map_err(|e| anyhow::anyhow!(e.to_string().trim().replace('\n', " ")))?;
        let mut map = to_params(&p)?;
        D::cli_defaults(&mut map);
        Ok(map)
    }
    fn parameters(&self) -> Vec<(String, String)> {
        let cmd = <D::Params as clap::Args>::augment_args(clap::Command::new(D::NAME));
        cmd.get_arguments()
            .map(|a| {
                let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
                let aliases = a.get_all_aliases().unwrap_or_default();
                // the flag as the command line takes it (`window-time`), not
                // the field's id (`window_time`, the spec key)
                let flag = a
                    .get_long()
                    .map_or_else(|| a.get_id().to_string(), str::to_string);
                let name = if aliases.is_empty() {
                    flag
                } else {
                    format!("{flag} (--{})", aliases.join(", --"))
                };
                (name, help)
            })
            .collect()
    }
    fn configure(&self, params: &Params) -> anyhow::Result<Configured> {
        let p: D::Params = from_params(D::NAME, params)?;
        Ok(Configured::new(move |seed| D::build(p.clone(), seed)))
    }
    fn plan(&self, c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        plan_memo::<D>(c)
    }
}

/// `D::plan(c)`, memoized ([`bloomlab_filters::memo`]): a plan is a pure
/// function of its constraints, and the exact theories behind some take
/// seconds at a window of millions, while a time request asks for a count
/// design's plan twice (for itself and for its twin over time). An error
/// is kept as its message, with its causes (`{:#}`).
pub(crate) fn plan_memo<D: DesignDef>(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
    type Planned = Result<Vec<Candidate>, String>;
    static MEMO: bloomlab_filters::memo::Memo<(&'static str, String), Planned> =
        bloomlab_filters::memo::Memo::new();
    // Debug prints an f64 so that it reads back exactly: equal keys are
    // equal constraints
    MEMO.get_or((D::NAME, format!("{c:?}")), || {
        D::plan(c).map_err(|e| format!("{e:#}"))
    })
    .map_err(|e| anyhow::anyhow!(e))
}

/// Every design, in the order `bloomlab designs` lists them.
pub static REGISTRY: &[&dyn Design] = &[
    &apbf::Apbf,
    &blocked_apbf::BlockedApbf,
    &line_apbf::LineApbf,
    &apbf_time::ApbfTime,
    &apbf_time::ApbfHybrid,
    &stable::Stable,
    &naor_yogev::NaorYogev,
    &ny_pocket::NyPocket,
    &ny_time::NyHybrid,
    &broom::Broom,
    &swamp::Swamp,
    &tbf::Tbf,
    &tbf_time::TbfTime,
    &swbf::Swbf,
    &swbf_time::SwbfHybrid,
    &wcss::Wcss,
    &swhll::Swhll,
    &swlc::Swlc,
    &jumping::Jumping,
    &double_buffer::DoubleBuffer,
    &segmented_time::JumpingTime,
    &segmented_time::DoubleBufferTime,
    &a2::A2,
    &forgetful::Forgetful,
    &forgetful::ForgetfulCodeDesign,
    &sliding_bloom::SlidingBloom,
    &half_sliding::HalfSliding,
    &clock_bloom::ClockBloom,
    &she_bloom::SheBloom,
    &swept_time::SlidingBloomTime,
    &swept_time::HalfSlidingTime,
    &swept_time::ClockBloomTime,
    &swept_time::SheBloomTime,
    &tlbf::Tlbf,
];

/// The design called `name` (or one of its aliases).
pub fn lookup(name: &str) -> anyhow::Result<&'static dyn Design> {
    REGISTRY
        .iter()
        .copied()
        .find(|d| d.name() == name || d.aliases().contains(&name))
        .ok_or_else(|| {
            anyhow::anyhow!(
                "unknown design {name:?} (known: {})",
                REGISTRY
                    .iter()
                    .map(|d| d.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
}

/// Builds design `design` from `params`; `seed` seeds the design's own
/// randomness (the Stable Bloom filter's decrements, say).
pub fn build(design: &str, params: &Params, seed: u64) -> anyhow::Result<Built> {
    lookup(design)?.build(params, seed)
}

/// Design `design` configured from `params` (typed once; see
/// [`Design::configure`]).
pub fn configure(design: &str, params: &Params) -> anyhow::Result<Configured> {
    lookup(design)?.configure(params)
}

/// Checks a count parameter is at least 1 (the spec gives numbers; the
/// flags check this themselves).
pub(crate) fn at_least_one<T: Into<u64> + Copy>(
    name: impl std::fmt::Display,
    v: Option<T>,
) -> anyhow::Result<Option<T>> {
    match v {
        Some(x) if x.into() == 0 => Err(anyhow::anyhow!(
            "parameter {name} = 0 must be a whole number >= 1"
        )),
        other => Ok(other),
    }
}

/// Checks a probability parameter lies in (0, 1).
pub(crate) fn probability(
    name: impl std::fmt::Display,
    v: Option<f64>,
) -> anyhow::Result<Option<f64>> {
    match v {
        Some(p) if !(p > 0.0 && p < 1.0) => {
            Err(anyhow::anyhow!("parameter {name} = {p} must be in (0, 1)"))
        }
        other => Ok(other),
    }
}

/// Reads a 0/1 spec value (or a `true`/`false`) as a flag.
pub(crate) fn zero_one<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    use serde::de::Error;
    match serde_json::Value::deserialize(d)? {
        serde_json::Value::Bool(b) => Ok(b),
        serde_json::Value::Number(n) if n.as_f64() == Some(0.0) => Ok(false),
        serde_json::Value::Number(n) if n.as_f64() == Some(1.0) => Ok(true),
        other => Err(D::Error::custom(format!("{other} must be 0 or 1"))),
    }
}

#[cfg(test)]
mod tests;
