//! `bloomlab theory`, `bloomlab measure` and `bloomlab designs`.
//!
//! `measure` is a one-point spec: it builds the [`Spec`] a user would write
//! for the same parameters, seed and workload and runs it through
//! [`sweep::run`], so its deterministic numbers are those of `bloomlab run`
//! on that spec.

use super::args::{DesignsArgs, MeasureFlags, TheoryFlags};
use crate::designs::{Design, Params, REGISTRY};
use crate::metrics::columns::{self, col, Group, Resolved};
use crate::metrics::Part;
use crate::metrics::{Row, Value};
use crate::report;
use crate::spec::{AdversarySpec, MeasureSpec, Metric, Spec, SweepSpec, WorkloadSpec};
use crate::sweep::{self, RunOptions};

/// `bloomlab theory <design>`: resolved parameters and the closed-form
/// figures.
pub(super) fn theory(d: &dyn Design, params: &Params, a: &TheoryFlags) -> anyhow::Result<()> {
    let built = d.build(params, 0)?;
    let mut row = Row::default();
    row.push(col::DESIGN, Value::Text(d.name().into()));
    for (k, v) in &built.resolved {
        row.push(*k, v.clone());
    }
    if built.geometry.guaranteed && row.get(col::SLACK).is_none() {
        row.push(col::SLACK, Value::Int(built.geometry.slack));
    }
    for (k, v) in built.theory.all() {
        row.num(*k, *v);
    }
    if let Some(p) = built.theory.get(col::PROBES_NEGATIVE) {
        row.num(col::EXPECTED_ACCESSES, p);
    }
    // the theory's figures leave bloomlab too: finite and in range
    row.check()
        .map_err(|e| anyhow::anyhow!("{}: theory: {e} (a bug; please report it)", d.name()))?;
    if a.json {
        println!(
            "{}",
            serde_json::to_string(&row).map_err(|e| anyhow::anyhow!("{e}"))?
        );
    } else {
        print_plain(&row);
        if let Some(p) = d.window_promise() {
            println!("window promise: {p}");
        }
    }
    Ok(())
}

/// The one-point spec `measure` runs.
pub fn measure_spec(d: &dyn Design, params: &Params, a: &MeasureFlags) -> anyhow::Result<Spec> {
    if let Some(z) = a.zipf {
        if !(z.is_finite() && z >= 0.0) {
            return Err(anyhow::anyhow!("--zipf {z} must be a finite exponent >= 0"));
        }
    }
    let adversarial = a.workload.is_some();
    if a.query_trace.is_some() && !adversarial {
        return Err(anyhow::anyhow!(
            "--query-trace needs --workload adversarial"
        ));
    }
    let adversary = AdversarySpec {
        queries: a.attack_queries,
        replay_every: a.replay_every,
        inserts_per_query: a.inserts_per_query,
        query_trace: a.query_trace.clone(),
        ..Default::default()
    };
    adversary.check(&|f| match f {
        "queries" => "--attack-queries".into(),
        "windows" => "the attack's windows".into(),
        "zipf" => "the pool's Zipf exponent".into(),
        _ => format!("--{}", f.replace('_', "-")),
    })?;
    let metrics: Vec<Metric> = if adversarial {
        // the attack, with memory and speed beside it
        vec![Metric::Adversary, Metric::Memory, Metric::Speed]
    } else {
        d.measure_metrics().to_vec()
    };
    let mut measure = MeasureSpec {
        // the filter pass only measures memory and speed under attack: one
        // round will do
        rounds: if adversarial { 1 } else { a.rounds },
        ..MeasureSpec::default()
    };
    if let Some(q) = a.queries {
        measure.min_fpr_queries = q;
        measure.max_fpr_queries = q;
    }
    let workload = match (&a.trace.trace, a.zipf) {
        (Some(path), _) => WorkloadSpec::trace(path.clone(), &a.trace.fields())?,
        (None, Some(exponent)) => WorkloadSpec::Zipf {
            universe: a.universe,
            exponent,
        },
        (None, None) => WorkloadSpec::Distinct,
    };
    // a time design's ns: its insertions timed with the clock advancing
    let time = crate::spec::TimeSpec {
        speed_ops: if metrics.contains(&Metric::Timeline) {
            measure.speed_ops
        } else {
            0
        },
        ..Default::default()
    };
    Ok(Spec {
        name: format!("measure_{}", d.name()),
        description: format!("bloomlab measure {}", d.name()),
        seed: a.seed,
        repeats: 1,
        metrics,
        workload,
        measure,
        sweep: vec![SweepSpec {
            design: d.name().into(),
            points: vec![params.clone()],
            grid: Default::default(),
            rounds: None,
            quick: true,
        }],
        plot: Vec::new(),
        table_columns: None,
        theory_columns: Vec::new(),
        threads: Some(1),
        adoption: None,
        compare_at: None,
        adversary,
        time,
    })
}

/// `bloomlab measure <design>`: the row `bloomlab run` writes for the
/// one-point spec.
pub(super) fn measure(d: &dyn Design, params: &Params, a: &MeasureFlags) -> anyhow::Result<()> {
    let spec = measure_spec(d, params, a)?;
    // the design's own error: the one point is the command line itself
    let budget = sweep::Budget {
        memory: crate::resources::memory_limit(a.memory_limit)?,
        threads: 1,
    };
    let prepared =
        sweep::prepare(&spec, false, &budget).map_err(|e| anyhow::anyhow!("{}", e.root_cause()))?;
    let note = prepared.announce(1);
    if !note.is_empty() {
        eprintln!("measure {}: one point{note}", d.name());
        // a long point says how far it has got
        crate::metrics::progress::enable(true);
    }
    let opts = RunOptions::one_thread();
    let out = sweep::run(&spec, "", &prepared, &opts)?;
    let mut row = out
        .rows
        .into_iter()
        .next()
        .ok_or_else(|| anyhow::anyhow!("the point gave no row"))?;
    // the names for the sustained FPR's interval
    if let (Some(lo), Some(hi)) = (
        row.get_num(Part::CiLow.of(col::SUSTAINED_FPR)),
        row.get_num(Part::CiHigh.of(col::SUSTAINED_FPR)),
    ) {
        row.num(Part::CiLow.of(col::FPR), lo);
        row.num(Part::CiHigh.of(col::FPR), hi);
    }
    if a.json {
        println!(
            "{}",
            serde_json::to_string(&row).map_err(|e| anyhow::anyhow!("{e}"))?
        );
    } else {
        print_grouped(&row, spec.measure.ci_level);
    }
    Ok(())
}

/// `bloomlab designs`.
pub(super) fn designs(a: &DesignsArgs) -> anyhow::Result<()> {
    if a.json {
        let list: Vec<serde_json::Value> = REGISTRY
            .iter()
            .map(|d| {
                serde_json::json!({
                    "name": d.name(),
                    "aliases": d.aliases(),
                    "about": d.about(),
                    "window_promise": d.window_promise(),
                    "capabilities": d.capabilities().words(),
                    "filter": d.filter(),
                    "parameters": d.parameters().into_iter().map(|(n, h)| serde_json::json!({"name": n, "help": h})).collect::<Vec<_>>(),
                    "measure_metrics": d.measure_metrics().iter().map(|m| format!("{m:?}").to_lowercase()).collect::<Vec<_>>(),
                })
            })
            .collect();
        println!("{}", serde_json::Value::Array(list));
        return Ok(());
    }
    for d in REGISTRY {
        println!("{}  ({})", d.name(), d.capabilities().words());
        println!("    {}", d.about());
        println!("    in the crate: bloomlab_filters::{}", d.filter());
        if let Some(p) = d.window_promise() {
            println!("    window promise: {p}");
        }
        for (name, help) in d.parameters() {
            println!("    --{name:<26} {help}");
        }
    }
    println!(
        "\nEvery design answers `bloomlab theory <design> ...` and `bloomlab measure <design> ...` \
         with these flags; a spec's [[sweep]] points take the same names as keys."
    );
    Ok(())
}

fn cell(v: &Value) -> String {
    match v {
        Value::Num(x) => report::fmt_num(*x),
        other => other.to_string(),
    }
}

fn print_plain(row: &Row) {
    let width = row.0.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    for (k, v) in &row.0 {
        println!("{k:width$}  {}", cell(v));
    }
}

/// The group of `measure`'s output a column is printed in, and its unit
/// there, from the registry (a parameter the passes report among their
/// figures stays with membership).
fn group_and_unit(col: &str) -> (Group, &'static str) {
    let Some(r) = columns::resolve(col) else {
        return (Group::Membership, "");
    };
    let c = r.column();
    let group = match c.group {
        Group::Id | Group::Parameter | Group::Bench | Group::Calibration => Group::Membership,
        g => g,
    };
    let unit = match r {
        Resolved::Whole(_) | Resolved::Part(_, Part::CiLow | Part::CiHigh | Part::Theory) => {
            c.unit.suffix()
        }
        _ => "",
    };
    (group, unit)
}

/// `measure`'s human-readable output: the parameters, then the membership,
/// summary, adversary, speed and memory figures, each with its unit, then a
/// one-line verdict per theory comparison.
fn print_grouped(row: &Row, level: f64) {
    let width = row.0.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let split = row
        .0
        .iter()
        .position(|(k, _)| k == col::GUARANTEED.name())
        .map_or(0, |i| i + 1);
    let (id, figures) = row.0.split_at(split);
    println!("parameters");
    for (k, v) in id
        .iter()
        .filter(|(k, _)| k != col::POINT.name() && k != col::REPEAT.name())
    {
        println!("  {k:width$}  {}", cell(v));
    }
    for (group, heading) in Group::PRINTED {
        let cols: Vec<_> = figures
            .iter()
            .filter(|(k, _)| {
                group_and_unit(k).0 == group && !k.ends_with(Part::TheoryInCi.suffix())
            })
            .collect();
        if cols.is_empty() {
            continue;
        }
        println!("{heading}");
        for (k, v) in cols {
            println!("  {k:width$}  {}{}", cell(v), group_and_unit(k).1);
        }
    }
    // a figure with a theory and an interval gets a verdict, or "not
    // enough data" where the interval decides nothing (zero width, or none)
    let verdicts: Vec<(&str, Option<bool>)> = figures
        .iter()
        .filter_map(|(k, _)| {
            let name = k.strip_suffix(Part::Theory.suffix())?;
            row.get_num(Part::CiLow.of(name))?;
            let verdict = match row.get(Part::TheoryInCi.of(name)) {
                Some(Value::Bool(b)) => Some(*b),
                _ => None,
            };
            Some((name, verdict))
        })
        .collect();
    if !verdicts.is_empty() {
        println!("verdicts ({:.0}% intervals)", level * 100.0);
        for (name, verdict) in verdicts {
            let theory = row.get_num(Part::Theory.of(name));
            let measured = row.get_num(name);
            println!(
                "  {name}: measured {} against theory {}: {}",
                measured.map_or("-".into(), report::fmt_num),
                theory.map_or("-".into(), report::fmt_num),
                match verdict {
                    Some(true) => "theory inside the interval",
                    Some(false) => "THEORY OUTSIDE THE INTERVAL",
                    None => "not enough data (the interval is empty or has zero width)",
                }
            );
        }
    }
}
