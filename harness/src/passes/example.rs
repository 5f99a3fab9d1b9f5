//! The worked example of `docs/extending.md`, "adding a metric": the
//! `example` metric, measured by a pass of its own. Compiled only in the
//! crate's tests, which run it through `prepare`, the plan, the run and
//! the CSV exactly as the real passes go.
//!
//! * `example` — `rounds` fresh keys, each inserted into a fresh copy of
//!   the design and queried at once: `example_yes` is the number answered
//!   yes (every one, for a design without false negatives),
//!   `example_fnr` the share answered no. Both columns are declared in
//!   the registry (`metrics/columns/col.rs`), as every column is.

use crate::designs::Built;
use crate::metrics::columns::col;
use crate::metrics::Value;
use crate::passes::{Pass, PassOutput, PointRun, Settings, Work};
use crate::spec::Metric;
use rand::Rng;

/// The example pass.
pub struct ExamplePass;

/// The salt of its generator: its own, so the other passes' numbers do
/// not move when a spec adds `example`.
const SALT: u64 = 0xE8A4_91E0_0000_0001;

impl Pass for ExamplePass {
    fn metrics(&self) -> &'static [Metric] {
        &[Metric::Example]
    }

    fn takes(&self, built: &Built) -> bool {
        built.filter.is_some()
    }

    fn plan(&self, _built: &Built, s: &Settings) -> Work {
        let n = s.measure.rounds;
        Work {
            inserts: n as f64,
            queries: n as f64,
            copies: 1,
            bytes: vec![("example keys", n.saturating_mul(8))],
        }
    }

    fn run(&self, p: &mut PointRun<'_>) -> anyhow::Result<PassOutput> {
        let n = p.settings().measure.rounds;
        let mut rng = p.pass_rng(SALT);
        let mut fresh = p.rebuild(rng.random())?;
        let f = fresh
            .filter
            .as_mut()
            .ok_or_else(|| anyhow::anyhow!("example: not a membership filter"))?;
        let keys: Vec<u64> = (0..n).map(|_| rng.random()).collect();
        let mut yes = 0u64;
        for &k in &keys {
            f.insert(k);
            yes += u64::from(f.contains(k));
        }
        let mut out = PassOutput::default();
        out.row.push(col::EXAMPLE_YES, Value::Int(yes));
        out.row
            .num(col::EXAMPLE_FNR, 1.0 - yes as f64 / n.max(1) as f64);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use crate::passes::PassKind;
    use crate::spec::{Metric, Spec};
    use crate::sweep::{self, Budget, RunOptions};

    const SPEC: &str = "name = \"ex\"\nmetrics = [\"fpr\", \"example\"]\n[measure]\nrounds = 6\n\
                        [[sweep]]\ndesign = \"apbf\"\npoints = [{ k = 4, l = 3, g = 50 }]\n";

    /// The recipe end to end: the metric names its pass, the pass's plan
    /// is in the point's cost and memory, and its columns reach the row
    /// and the CSV, after the membership pass's.
    #[test]
    fn a_new_metric_goes_from_the_spec_to_the_csv() {
        assert_eq!(PassKind::of(Metric::Example), Some(PassKind::Example));
        let spec = Spec::parse(SPEC).unwrap();
        let prepared = sweep::prepare(&spec, false, &Budget::unchecked()).unwrap();
        let plan = &prepared.plans[0];
        let kinds: Vec<PassKind> = plan.passes.iter().map(|p| p.0).collect();
        assert_eq!(kinds, [PassKind::Membership, PassKind::Example]);
        let (ins, query) = crate::designs::lookup("apbf").unwrap().op_ns();
        let membership = &plan.passes[0].1;
        let without = membership.inserts * ins + membership.queries * query;
        assert_eq!(plan.base_cost, without + 6.0 * (ins + query));
        let fitted = crate::passes::fitted::factor("apbf");
        assert_eq!(plan.cost, plan.base_cost * fitted);
        assert!(plan.bytes.parts.contains(&("example keys", 48)));
        let opts = RunOptions::one_thread();
        let out = sweep::run(&spec, SPEC, &prepared, &opts).unwrap();
        let row = &out.rows[0];
        assert_eq!(row.get_num("example_yes"), Some(6.0));
        assert_eq!(row.get_num("example_fnr"), Some(0.0));
        let names: Vec<&str> = row.0.iter().map(|c| c.0.as_str()).collect();
        let at = |c: &str| names.iter().position(|n| *n == c).unwrap();
        assert!(at("fpr") < at("example_yes"));
        let csv = crate::report::csv_string(&out.rows).unwrap();
        assert!(csv.lines().next().unwrap().contains("example_yes"));
        // the other passes' numbers do not move when a spec adds it
        let alone = SPEC.replace(", \"example\"", "");
        let spec2 = Spec::parse(&alone).unwrap();
        let p2 = sweep::prepare(&spec2, false, &Budget::unchecked()).unwrap();
        let out2 = sweep::run(&spec2, &alone, &p2, &opts).unwrap();
        assert_eq!(out2.rows[0].get_num("fpr"), row.get_num("fpr"));
    }
}
