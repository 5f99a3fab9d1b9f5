//! The adversary pass's columns: the attack's parameters, the sustained
//! FPR with its interval, bound and theory, and the combination of several
//! attacks' rows into one.

use crate::metrics::columns::col;
use crate::metrics::{binomial_ci, Part, Row, Value, Welford};
use crate::spec::AdversarySpec;

/// One point's row from its independent attacks (`runs` of them):
/// a single attack's row as it is; for several, every figure averaged over
/// the runs (the largest adaptivity is the largest), and the sustained FPR's
/// interval a Student-t interval over the runs' sustained FPRs, clamped to
/// [0, 1], with the verdicts on it recomputed. Counts that agree between
/// runs (memory) stay counts.
pub fn combine(rows: Vec<Row>, level: f64) -> Row {
    if rows.len() <= 1 {
        return rows.into_iter().next().unwrap_or_default();
    }
    let mut out = Row::default();
    out.push(col::ADVERSARY_RUNS, Value::Int(rows.len() as u64));
    let first = &rows[0];
    let values = |c: &str| -> Vec<f64> { rows.iter().filter_map(|r| r.get_num(c)).collect() };
    for (name, v) in &first.0 {
        let all_equal = rows.iter().all(|r| r.get(name) == Some(v));
        let combined = match v {
            _ if all_equal => v.clone(),
            Value::Num(_) | Value::Int(_) if name.ends_with("_max") => {
                Value::Num(values(name).into_iter().fold(f64::NEG_INFINITY, f64::max))
            }
            Value::Num(_) | Value::Int(_) => {
                Value::Num(values(name).iter().sum::<f64>() / rows.len() as f64)
            }
            other => other.clone(),
        };
        out.push(name.clone(), combined);
    }
    let mut spread = Welford::default();
    for x in values(col::SUSTAINED_FPR.name()) {
        spread.add(x);
    }
    let ci = spread.ci_within(level, 0.0, 1.0);
    let set = |row: &mut Row, name: &str, v: Value| {
        if let Some(slot) = row.0.iter_mut().find(|(n, _)| n == name) {
            slot.1 = v;
        }
    };
    set(
        &mut out,
        &Part::CiLow.of(col::SUSTAINED_FPR),
        Value::Num(ci.0),
    );
    set(
        &mut out,
        &Part::CiHigh.of(col::SUSTAINED_FPR),
        Value::Num(ci.1),
    );
    if let Some(p) = out.get_num(col::SUSTAINED_FPR_BOUND) {
        set(
            &mut out,
            "sustained_fpr_within_bound",
            Value::Bool(ci.0 <= p),
        );
    }
    if let Some(t) = out.get_num(Part::Theory.of(col::SUSTAINED_FPR)) {
        out.0
            .retain(|(n, _)| *n != Part::TheoryInCi.of(col::SUSTAINED_FPR));
        if let Some(inside) = crate::metrics::in_interval(t, ci) {
            out.push(Part::TheoryInCi.of(col::SUSTAINED_FPR), Value::Bool(inside));
        }
    }
    out
}

/// The attack's parameters.
pub(super) fn attack_columns(attack: &AdversarySpec, skipped: Option<u64>) -> Row {
    let mut row = Row::default();
    row.push(col::ADVERSARY_QUERIES, Value::Int(attack.queries));
    row.push(col::REPLAY_EVERY, Value::Int(attack.replay_every));
    row.num(col::REPLAY_FRACTION, replay_share(attack));
    row.num(col::INSERTS_PER_QUERY, attack.inserts_per_query);
    row.push(col::POOL, Value::Int(attack.pool));
    if let Some(skipped) = skipped {
        row.push(col::QUERY_TRACE_MEMBERS_SKIPPED, Value::Int(skipped));
    }
    row
}

/// The replayed share of the queries: 1/`replay_every`, or 0.
fn replay_share(attack: &AdversarySpec) -> f64 {
    if attack.replay_every > 0 {
        1.0 / attack.replay_every as f64
    } else {
        0.0
    }
}

/// The sustained FPR (the last window's) with its interval, and its bound
/// (adaptive designs) or theory (a design that holds still).
pub(super) fn sustained_columns(
    row: &mut Row,
    (x, n): (u64, u64),
    p: Option<f64>,
    adaptive: bool,
    attack: &AdversarySpec,
    level: f64,
) {
    let ci = binomial_ci(x, n, level);
    row.num(col::SUSTAINED_FPR, x as f64 / n as f64);
    row.num(Part::CiLow.of(col::SUSTAINED_FPR), ci.0);
    row.num(Part::CiHigh.of(col::SUSTAINED_FPR), ci.1);
    row.push(col::ADAPTIVE, Value::Bool(adaptive));
    if let (Some(p), true) = (p, adaptive) {
        row.num(col::SUSTAINED_FPR_BOUND, p);
        row.push(col::SUSTAINED_FPR_WITHIN_BOUND, Value::Bool(ci.0 <= p));
    }
    if let (Some(p), true) = (p, attack.inserts_per_query == 0.0 && !adaptive) {
        let share = replay_share(attack);
        let t = share + (1.0 - share) * p;
        row.num(Part::Theory.of(col::SUSTAINED_FPR), t);
        if let Some(inside) = crate::metrics::in_interval(t, ci) {
            row.push(Part::TheoryInCi.of(col::SUSTAINED_FPR), Value::Bool(inside));
        }
    }
}
