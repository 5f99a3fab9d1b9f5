//! The adversary as a [`Pass`]: each run attacks a fresh copy of the
//! design, and the runs are combined into one row.

use crate::designs::Built;
use crate::metrics::MAP_ENTRY;
use crate::passes::{Pass, PassOutput, PointRun, Settings, Work};
use crate::spec::{AdversarySpec, Metric};
use bloomlab_filters::hash::mix64;
use rand::Rng;

/// The largest number of operations (insertions plus queries) one
/// adversary attack may take: about an hour at 100 ns an operation.
pub const MAX_ATTACK_OPS: f64 = 4e10;

/// The replaying adversary (module docs: [`super`]).
pub struct AdversaryPass;

/// The salt of the adversary's generators.
const SALT: u64 = 0xAD7E_5A11_0000_0001;

impl Pass for AdversaryPass {
    fn metrics(&self) -> &'static [Metric] {
        &[Metric::Adversary]
    }

    fn takes(&self, built: &Built) -> bool {
        built.filter.is_some()
    }

    fn check(&self, _built: &Built, s: &Settings) -> anyhow::Result<()> {
        check_attack(&s.attack)
    }

    fn plan(&self, built: &Built, s: &Settings) -> Work {
        let a = &s.attack;
        let g = &built.geometry;
        let runs = a.runs.max(1) as f64;
        let found = a.queries.saturating_mul(8 + 2 * MAP_ENTRY);
        let pool = a.pool.saturating_mul(8);
        let recent = if a.query_trace.is_some() {
            (g.window + g.slack).saturating_mul(8 + MAP_ENTRY)
        } else {
            0
        };
        Work {
            inserts: runs * ((g.window + g.slack) as f64 + a.queries as f64 * a.inserts_per_query),
            queries: runs * a.queries as f64,
            copies: 1,
            bytes: vec![(
                "adversary",
                found.saturating_add(pool).saturating_add(recent),
            )],
        }
    }

    fn run(&self, p: &mut PointRun<'_>) -> anyhow::Result<PassOutput> {
        let s = p.plan.settings.clone();
        let mut rows = Vec::new();
        for run in 0..s.attack.runs {
            // a fresh copy of the design per run; run 0 keeps the seed a
            // single attack has always had
            let salt = SALT ^ if run == 0 { 0 } else { mix64(run) };
            let mut rng = p.pass_rng(salt);
            let mut fresh = p.rebuild(rng.random())?;
            let stream = p.stream(&mut rng);
            rows.push(super::measure(
                &mut fresh,
                stream,
                rng,
                &s.attack,
                p.query_trace,
                s.measure.ci_level,
                p.reports_memory,
            )?);
        }
        Ok(PassOutput {
            row: super::combine(rows, s.measure.ci_level),
            tables: Vec::new(),
        })
    }
}

/// Refuses an adversary attack whose operations (queries plus the
/// insertions between them) would run for hours.
pub fn check_attack(attack: &AdversarySpec) -> anyhow::Result<()> {
    let ops = attack.queries as f64 * (1.0 + attack.inserts_per_query);
    if ops > MAX_ATTACK_OPS {
        return Err(anyhow::anyhow!(
            "the attack takes {} queries x (1 + {} insertions) = {ops:.2e} operations, above the limit of {MAX_ATTACK_OPS:.0e} (about an hour): fewer queries or insertions per query",
            attack.queries,
            attack.inserts_per_query
        ));
    }
    Ok(())
}
