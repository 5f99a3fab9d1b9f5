//! The membership pass as a [`Pass`]: the plan of [`super::plan`], the run
//! of [`super::measure`], and its side rows (age profile, convergence).

use super::plan::MembershipPlan;
use super::{ConvergenceRow, PointResult, ProfileRow};
use crate::designs::Built;
use crate::metrics::columns::col;
use crate::metrics::{self, Row, TableKind, Value};
use crate::metrics::{Figure, TheoryColumns};
use crate::passes::{side_id, Pass, PassOutput, PointRun, Settings, Work};
use crate::spec::Metric;

/// Count-window membership: FPR, FNR, PWS, probes, profile, convergence,
/// speed and tail on the point's design (module docs: [`super`]).
pub struct MembershipPass;

impl Pass for MembershipPass {
    fn metrics(&self) -> &'static [Metric] {
        &[
            Metric::Fpr,
            Metric::Fnr,
            Metric::Accesses,
            Metric::Npws,
            Metric::Speed,
            Metric::Tail,
            Metric::Batched,
            Metric::Profile,
            Metric::ZeroFraction,
            Metric::Convergence,
        ]
    }

    fn takes(&self, built: &Built) -> bool {
        built.filter.is_some()
    }

    fn check(&self, built: &Built, _settings: &Settings) -> anyhow::Result<()> {
        if built.geometry.time.is_some() {
            return Err(anyhow::anyhow!(
                "{} forgets by time: its metrics are timeline and memory, not the count-based membership metrics",
                built.filter.as_ref().map_or("this design", |f| f.name())
            ));
        }
        Ok(())
    }

    fn plan(&self, built: &Built, settings: &Settings) -> Work {
        let plan = MembershipPlan::new(built, &settings.metrics, &settings.measure);
        let (inserts, queries) = plan.operations();
        Work {
            inserts,
            queries,
            copies: u64::from(settings.metrics.contains(&Metric::Convergence)),
            bytes: plan.peak_bytes(settings.distinct()),
        }
    }

    fn run(&self, p: &mut PointRun<'_>) -> anyhow::Result<PassOutput> {
        let mut rng = p
            .rng
            .take()
            .expect("the membership pass runs first, with the point's generator");
        let stream = p.stream(&mut rng);
        let plan = p.plan;
        let rebuild = move |seed: u64| plan.design.build(seed);
        let s = &plan.settings;
        let PointResult {
            row,
            profile,
            convergence,
        } = super::measure(&mut p.built, stream, rng, &s.metrics, &s.measure, &rebuild)?;
        let window = p.built.geometry.window as f64;
        let level = s.measure.ci_level;
        let side = side_id(&p.id);
        let tables = profile
            .iter()
            .map(|pr| (TableKind::Profile, profile_row(&side, window, pr, level)))
            .chain(
                convergence
                    .iter()
                    .map(|c| (TableKind::Convergence, convergence_row(&side, c, level))),
            )
            .collect();
        Ok(PassOutput { row, tables })
    }
}

/// An age-profile bucket's interval for P(yes): the wider of the
/// binomial interval over all its queries and the Student-t interval over
/// rounds.
pub fn profile_interval(pr: &ProfileRow, level: f64) -> (f64, f64) {
    metrics::stats::pooled_or_rounds_ci(pr.yes, pr.n, &pr.rounds, level)
}

/// One age-profile bucket's row.
fn profile_row(id: &Row, window: f64, pr: &ProfileRow, level: f64) -> Row {
    let mut row = id.clone();
    // the wider of the binomial interval over all queries and the Student-t
    // interval over rounds: the queries of one round share a filter state,
    // so the binomial interval alone misses the spread between states (a
    // changed seed moved buckets by 15 of its standard errors), and the
    // rounds alone give a zero-width interval where every round said yes
    let (lo, hi) = profile_interval(pr, level);
    row.push(col::PHASE, Value::Text(pr.phase.to_string()));
    row.push(col::AGE_LO, Value::Int(pr.age_lo));
    row.push(col::AGE_HI, Value::Int(pr.age_hi));
    row.num(col::AGE_MID, (pr.age_lo + pr.age_hi) as f64 / 2.0);
    row.num(
        col::AGE_MID_OVER_W,
        (pr.age_lo + pr.age_hi) as f64 / 2.0 / window,
    );
    row.push(col::QUERIES, Value::Int(pr.n));
    let p_yes = if pr.n > 0 {
        pr.yes as f64 / pr.n as f64
    } else {
        f64::NAN
    };
    row.figure(
        Figure::new(col::P_YES, p_yes, (lo, hi)).theory(Some(pr.theory), TheoryColumns::Value),
    );
    row
}

/// One convergence checkpoint's row.
fn convergence_row(id: &Row, c: &ConvergenceRow, level: f64) -> Row {
    let mut row = id.clone();
    row.push(col::T, Value::Int(c.t));
    row.push(col::RUNS, Value::Int(c.zeros.count()));
    let ci = c.zeros.ci_within(level, 0.0, 1.0);
    let zeros = Figure::new(col::ZERO_FRACTION, c.zeros.mean(), ci);
    row.figure(zeros.theory(Some(c.zero_theory), TheoryColumns::Value));
    let ci = metrics::binomial_ci(c.fp, c.n, level);
    let fpr = if c.n == 0 {
        f64::NAN
    } else {
        c.fp as f64 / c.n as f64
    };
    row.figure(Figure::new(col::FPR, fpr, ci).theory(Some(c.fpr_theory), TheoryColumns::Value));
    row
}
