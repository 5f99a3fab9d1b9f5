//! The time-limited Bloom filter (`tlbf`): APBF slices of varying sizes,
//! generations ended by a count, slices sized for the rate measured and
//! retired by time. See `bloomlab_filters::tlbf`.

use super::built::{int, real, Built, Moment, MomentTheory, Theory};
use super::candidate::line_scalars;
use super::time_shared::{
    planned, time_geometry, time_params, window_and_rate, AtMoment, Planned, CAPS, TIME_METRICS,
};
use super::{probability, Candidate, Capabilities, Constraints, DesignDef};
use crate::metrics::columns::{col, Col};
use crate::spec::{Metric, NS};
use bloomlab_filters::apbf::lines::QueryPath;
use bloomlab_filters::apbf::theory::{self as apbf_theory, ApbfTheory};
use bloomlab_filters::build::Target;
use bloomlab_filters::tlbf::theory::Model;
use bloomlab_filters::tlbf::Tlbf as Filter;
use bloomlab_filters::{Filter as _, TimedFilter};
use std::sync::Mutex;

time_params! {
    /// Parameters of the time-limited Bloom filter: T, the rate its first
    /// slices are sized for (they then follow the rate measured), and the
    /// FPR that picks (k, l).
    TlbfParams {}
}

/// The time-limited Bloom filter.
pub struct Tlbf;

impl DesignDef for Tlbf {
    type Params = TlbfParams;
    const NAME: &'static str = "tlbf";
    const FILTER: &'static str = "Tlbf";
    const WINDOW_PROMISE: Option<&'static str> = Some("every key younger than T is reported, whatever the arrivals (a slice leaves only once its last insertion is more than T old); the FPR stays near F(k, l) at rates up to 64 times the first generation's");
    const ALIASES: &'static [&'static str] = &["time_limited", "time_limited_bloom"];
    const ABOUT: &'static str = "The time-limited Bloom filter (its authors' Redis module): APBF slices sized for the rate measured, generations ended by a count, slices retired by time (window T at any rate; memory follows the rate)";
    const CAPS: Capabilities = CAPS;
    const METRICS: &'static [Metric] = TIME_METRICS;

    fn build(p: TlbfParams, _seed: u64) -> anyhow::Result<Built> {
        let name = Self::NAME;
        let (t, rate) = window_and_rate(name, p.window_time, p.peak_rate)?;
        let fpr = probability(col::FPR, p.fpr)?
            .ok_or_else(|| anyhow::anyhow!("{name} needs fpr (picks k and l)"))?;
        // the sizing rules are the crate's (bloomlab_filters::build)
        let f: Filter = Target::time(t, rate)
            .ticks_per_unit(NS)
            .fpr(fpr)
            .build()
            .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        let (k, l) = (f.k(), f.l());
        let keys = (t * rate).ceil().max(1.0) as u64;
        let g = keys.div_ceil(l as u64).max(1);
        let bits = f.memory_bits() as f64;
        let (window_ns, slack_ns) = (f.window_time(), f.slack_time());
        let model = Mutex::new(Model::new(&f));
        let theory = Theory {
            scalars: vec![
                // at a steady rate its slices fill as the APBF's do
                (col::FPR, apbf_theory::fpr(k, l)),
                (col::MEMORY_BITS, bits),
                (col::BITS_PER_ELEMENT, bits / keys as f64),
            ]
            .into_iter()
            .chain(line_scalars(twin_lines(k, l, g)))
            .collect(),
            moment: Some(Box::new(move |m: &Moment, cum: &dyn Fn(f64) -> f64| {
                let at = model
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .moment(m.now_ns, cum);
                Box::new(AtMoment {
                    fpr: at.fpr(),
                    presence: move |u| at.presence(u),
                }) as Box<dyn MomentTheory>
            })),
            ..Theory::default()
        };
        let slack = g;
        let mut geometry = time_geometry(
            keys,
            slack,
            (window_ns, slack_ns),
            (g, window_ns / l as u64),
        );
        // its memory follows the rate: the time pass estimates it at its
        // arrivals' largest rate
        if let Some(tw) = geometry.time.as_mut() {
            tw.growth = Some(super::built::Growth::Tlbf {
                k,
                l,
                m0: f.control().m0,
                cap: f.control().max_growth,
            });
        }
        Ok(Built {
            geometry,
            resolved: vec![
                int(col::K, k),
                int(col::L, l),
                int(col::M, f.control().m0),
                int(col::KEYS, keys),
                real(col::WINDOW_TIME, window_ns as f64 / NS),
                real(col::SLACK_TIME, slack_ns as f64 / NS),
            ],
            filter: Some(Box::new(f)),
            summary: None,
            theory,
        })
    }

    /// For a time request: its first sizing, for the keys of a window at
    /// the peak rate, with the count APBF's figures for the same (k, l, g)
    /// (its slices fill as the APBF's at a steady rate); memory grows with
    /// the rate above that.
    fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        let Planned {
            built,
            memory,
            params,
        } = planned(&Tlbf, c)?;
        let get = |name: Col| match built.resolved.iter().find(|p| p.0 == name) {
            Some((_, crate::metrics::Value::Int(x))) => Ok(*x),
            _ => Err(anyhow::anyhow!("tlbf: no {name} resolved")),
        };
        let (k, l) = (get(col::K)?, get(col::L)?);
        // the build's generation at the peak rate (its geometry's slack)
        let g = built.geometry.slack;
        let count = ApbfTheory::new(k as u32, l as u32, g)
            .ok_or_else(|| anyhow::anyhow!("tlbf: no APBF theory for k = {k}, l = {l}"))?;
        Ok(vec![Candidate {
            design: Self::NAME,
            params,
            memory_bits: memory,
            bits_per_element: memory as f64 / c.window as f64,
            fpr: count.fpr(),
            window: c.window,
            slack: g,
            npws_peak: count.pws_at(g) / count.window() as f64,
            insert_bits: k,
            query_lines: twin_lines(k as u32, l as u32, g).map(|x| x.query_negative),
        }])
    }
}

/// 64-byte lines at a steady peak rate: Algorithm 1 over slices filled as
/// the count-based APBF's at its worst phase (the filter counts them,
/// `Tlbf::lines_read`, and its test holds them to the theory given its
/// bits).
fn twin_lines(k: u32, l: u32, g: u64) -> Option<bloomlab_filters::lines::Lines> {
    let count = ApbfTheory::new(k, l, g)?;
    count.lines(g, QueryPath::Algorithm1)
}
