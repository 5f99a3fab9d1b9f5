//! The time pass as a [`Pass`]: the `timeline` metric on the point's
//! design, its timeline and age-by-time rows as side tables.

use crate::designs::Built;
use crate::metrics::{Row, TableKind};
use crate::passes::{side_id, Pass, PassOutput, PointRun, Settings, Work};
use crate::spec::{Metric, NS};

/// Time windows (module docs: [`super`]).
pub struct TimePass;

/// The salt of the time pass's generator.
const SALT: u64 = 0x71AE_11AE_0000_0001;

impl Pass for TimePass {
    fn metrics(&self) -> &'static [Metric] {
        &[Metric::Timeline]
    }

    fn takes(&self, built: &Built) -> bool {
        built.filter.is_some()
    }

    /// A design that counts insertions needs the arrival process and T;
    /// the process and window must resolve, and the arrivals stay below
    /// 1e10 (a trace's process needs the trace: checked when it is read).
    fn check(&self, built: &Built, s: &Settings) -> anyhow::Result<()> {
        let timed = built.geometry.time.is_some();
        if !timed && (s.time.arrivals.is_none() || s.time.window.is_none()) {
            return Err(anyhow::anyhow!(
                "{} counts insertions: the timeline metric needs [time.arrivals] and time.window (T, seconds) in the spec",
                built.filter.as_ref().map_or("this design", |f| f.name())
            ));
        }
        super::check(built, &s.time)
    }

    fn plan(&self, built: &Built, s: &Settings) -> Work {
        let t = &s.time;
        // with `lines`, each never-inserted key is queried twice
        let lined = if t.lines { t.queries } else { 0 };
        let queries = (t.samples * (t.queries + t.probes + lined)) as f64;
        let Ok(sc) = super::scales(built, t, None) else {
            // a trace's arrivals: its keys are counted where it is loaded
            return Work {
                queries,
                ..Work::default()
            };
        };
        let bytes = super::peak_bytes(built, t, s.distinct());
        let mut parts: Vec<(&'static str, u64)> =
            bytes.map(|b| ("arrival history", b)).into_iter().collect();
        // a filter whose memory follows the rate, at the largest one
        if let Some(tw) = built.geometry.time {
            if let Some(growth) = tw.growth {
                let first = built.filter.as_ref().map_or(0, |f| f.memory_bits() / 8);
                let ratio = sc.arrivals.max_rate() / tw.peak_rate;
                let grown = growth.bytes_at(ratio);
                parts.push(("filter growth", grown.saturating_sub(first)));
            }
        }
        Work {
            inserts: sc.arrivals.cum(sc.end() / NS),
            queries,
            copies: 0,
            bytes: parts,
        }
    }

    fn run(&self, p: &mut PointRun<'_>) -> anyhow::Result<PassOutput> {
        let rng = p.pass_rng(SALT);
        let stream = p.stream(&mut rng.clone());
        let s = p.plan.settings.clone();
        let r = super::measure(
            &mut p.built,
            stream,
            rng,
            &s.time,
            p.trace.map(|t| &**t),
            s.measure.ci_level,
            p.reports_memory,
        )?;
        let side = side_id(&p.id);
        let with_id = |kind, x: Row| (kind, Row(side.0.iter().cloned().chain(x.0).collect()));
        let timeline = r
            .timeline
            .into_iter()
            .map(|x| with_id(TableKind::Timeline, x));
        let ages = r.ages.into_iter().map(|x| with_id(TableKind::AgeTime, x));
        let tables = timeline.chain(ages).collect();
        Ok(PassOutput { row: r.row, tables })
    }
}
