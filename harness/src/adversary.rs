//! The `adversary` metric: FPR under an adaptive query workload, the attack
//! the adaptive-filter literature uses (`broom-filter-adaptivity-dictionary-
//! problem.txt`): the adversary keeps every false positive it finds and
//! replays them.
//!
//! One point: a fresh copy of the design is warmed to its steady state
//! (w + s + a margin of insertions, in whole periods, so segmented designs sit
//! at their worst phase), then `queries` queries run, all on keys never
//! inserted. Query q replays a found false positive (round robin) when
//! `replay_every` > 0, q is a multiple of it (counting from 1) and one is
//! known; a replay that answers no is dropped (the window moved on), so the
//! adversary searches again. Otherwise the query is a fresh draw: a new non-member, or one of a fixed
//! `pool` of non-members (uniformly or by a Zipf law of exponent `zipf`), so
//! that queries repeat, or the next key of a `query_trace` file (in order
//! from a random line, cycling; keys among the last w + s insertions are skipped as not
//! non-members, and a replay that has since been inserted is dropped). `inserts_per_query` insertions of the key stream run
//! between queries (0: the filter is still during the attack).
//!
//! The queries are cut into `windows` consecutive windows; the **sustained
//! FPR** is that of the last, with a Clopper-Pearson interval (conservative:
//! only the fresh draws are random). Also reported: the FPR of the first
//! window and overall, the distinct false positives found, and the query at
//! which the first was found.
//!
//! Theory, for a filter that does not adapt and holds still
//! (`inserts_per_query` = 0): once a false positive is known, a replay
//! answers yes every time, and a fresh draw with the filter's FPR p, so a
//! late window's expected FPR is f + (1 - f)p with f the replayed share of
//! its queries (1/`replay_every`, or 0 without replays).
//!
//! An adaptive filter ([`AdaptiveFilter`], the broom filter) is told of
//! every false positive as the application would learn it, by checking its
//! own set after a yes: every query here is of a key never inserted, so
//! every yes is reported. A fixed false positive answers no, so its replay
//! is dropped; the sustained FPR should stay at the fresh-query rate, below
//! the design's bound p (`sustained_fpr_within_bound`: the interval reaches
//! down to p). For such designs the pass also reports the adaptivity bits
//! per stored element at the end (and the largest at any window's end),
//! the remote accesses per operation of the attack (queries, fixes and
//! insertions), and the false positives fixed.

use crate::designs::Built;
use crate::metrics::{binomial_ci, info_bound_ratio, Row, Value};
use crate::spec::AdversarySpec;
use crate::workload::{KeyStream, Trace};
use bloomlab_filters::{AdaptiveFilter, ExactWindow, FrequencyEstimator};
use rand::Rng;
use rand_distr::{Distribution, Zipf};
use rand_pcg::Pcg64;
use std::collections::HashSet;

/// Point parameters that shape the attack, overriding the spec's
/// `[adversary]`: `replay_every`, `pool`, `inserts_per_query`, `queries`
/// (a sweep over it follows the attack as it goes on) and `query_zipf`
/// (the Zipf exponent of draws from the pool). Returns the
/// attack and the design's own parameters.
pub fn point_attack(
    base: &AdversarySpec,
    params: &std::collections::BTreeMap<String, f64>,
) -> Result<(AdversarySpec, std::collections::BTreeMap<String, f64>), String> {
    let mut a = base.clone();
    let whole = |k: &str, v: f64| {
        if v >= 0.0 && v.fract() == 0.0 && v < 2f64.powi(53) {
            Ok(v as u64)
        } else {
            Err(format!("parameter {k} = {v} must be a whole number >= 0"))
        }
    };
    let mut rest = std::collections::BTreeMap::new();
    for (k, &v) in params {
        match k.as_str() {
            "replay_every" => a.replay_every = whole(k, v)?,
            "query_zipf" if v >= 0.0 && v.is_finite() => a.zipf = v,
            "query_zipf" => {
                return Err(format!(
                    "parameter query_zipf = {v} must be finite and >= 0"
                ))
            }
            "queries" => {
                a.queries = whole(k, v)?;
                if a.queries < a.windows {
                    return Err(format!(
                        "parameter queries = {v} must be at least adversary.windows = {}",
                        a.windows
                    ));
                }
            }
            "pool" => a.pool = whole(k, v)?,
            "inserts_per_query" if v >= 0.0 && v.is_finite() => a.inserts_per_query = v,
            "inserts_per_query" => {
                return Err(format!(
                    "parameter inserts_per_query = {v} must be finite and >= 0"
                ))
            }
            _ => {
                rest.insert(k.clone(), v);
            }
        }
    }
    if a.query_trace.is_some() && a.pool > 0 {
        return Err("parameter pool excludes adversary.query_trace".into());
    }
    Ok((a, rest))
}

/// Measures the attack on `built` (a fresh copy of the design). Deterministic
/// given `rng`'s seed.
pub fn measure(
    built: &mut Built,
    mut stream: KeyStream,
    mut rng: Pcg64,
    attack: &AdversarySpec,
    query_trace: Option<&Trace>,
    level: f64,
    memory_here: bool,
) -> Result<Row, String> {
    let geometry = built.geometry;
    let p = built.theory.get("fpr");
    let f = built
        .filter
        .as_mut()
        .ok_or("the adversary metric needs a membership filter")?;
    let period = geometry.period.max(1);
    let (w, s) = (geometry.window, geometry.slack);
    let margin = ((w as f64 * 0.25) as u64).max(period);
    let warm = geometry
        .warmup
        .unwrap_or(w + s + margin)
        .max(w + s + margin)
        .div_ceil(period)
        * period;
    // with a query trace, the keys of the last w + s insertions (a trace
    // key among them is not a non-member and is skipped)
    let mut recent = match query_trace {
        Some(_) => Some(ExactWindow::new(w + s).map_err(|e| e.to_string())?),
        None => None,
    };
    let in_window =
        |r: &Option<ExactWindow>, k: u64| r.as_ref().is_some_and(|r| r.frequency(k) > 0);
    for _ in 0..warm {
        let k = stream.next_key(&mut rng);
        f.insert(k);
        if let Some(r) = recent.as_mut() {
            r.push(k);
        }
    }
    // the query trace is read in order from a random line (drawn only
    // when there is one, so other attacks keep their numbers)
    let mut trace_at = query_trace.map_or(0, |t| rng.random_range(0..t.len()));
    let mut skipped = 0u64;
    let adaptive = f.as_adaptive().is_some();
    let remote_before = f.as_adaptive().map_or(0, |a| a.remote_accesses());
    let (mut ops, mut fixed, mut adapt_max) = (0u64, 0u64, 0.0f64);
    let per_element =
        |a: &mut dyn AdaptiveFilter| a.adaptivity_bits() as f64 / a.stored().max(1) as f64;
    let pool: Vec<u64> = (0..attack.pool)
        .map(|_| stream.negative(&mut rng))
        .collect();
    let zipf = if attack.pool > 0 && attack.zipf > 0.0 {
        Some(
            Zipf::new(attack.pool as f64, attack.zipf)
                .map_err(|e| format!("adversary zipf: {e}"))?,
        )
    } else {
        None
    };
    let per_window = attack.queries / attack.windows;
    // found: the false positives being replayed (round robin), active: the
    // same as a set; seen: every false positive ever found
    let (mut found, mut active, mut seen) = (Vec::new(), HashSet::new(), HashSet::new());
    let (mut next_replay, mut credit) = (0usize, 0.0f64);
    let (mut first_at, mut yes_total) = (None, 0u64);
    let (mut win_yes, mut win_n, mut first_window, mut last_window) = (0u64, 0u64, None, (0, 0));
    for q in 1..=attack.queries {
        credit += attack.inserts_per_query;
        while credit >= 1.0 {
            let k = stream.next_key(&mut rng);
            f.insert(k);
            if let Some(r) = recent.as_mut() {
                r.push(k);
            }
            credit -= 1.0;
            ops += 1;
        }
        // a found false positive that has since been inserted is no longer
        // one: dropped
        let mut replay =
            attack.replay_every > 0 && q % attack.replay_every == 0 && !found.is_empty();
        if replay {
            next_replay = (next_replay + 1) % found.len();
            if in_window(&recent, found[next_replay]) {
                active.remove(&found[next_replay]);
                found.swap_remove(next_replay);
                replay = false;
            }
        }
        let key = if replay {
            found[next_replay]
        } else if let Some(t) = query_trace {
            let keys = t.keys();
            let mut tries = 0;
            loop {
                let k = keys[trace_at % keys.len()];
                trace_at += 1;
                if !in_window(&recent, k) {
                    break k;
                }
                skipped += 1;
                tries += 1;
                if tries > keys.len() {
                    return Err(
                        "every key of the query trace is in the window: no non-member to query"
                            .into(),
                    );
                }
            }
        } else if attack.pool > 0 {
            let i = match &zipf {
                Some(z) => z.sample(&mut rng) as usize - 1,
                None => rng.random_range(0..pool.len()),
            };
            pool[i]
        } else {
            stream.negative(&mut rng)
        };
        let yes = f.contains(key);
        ops += 1;
        if yes {
            // the application checks its set: every attack key is absent
            if let Some(a) = f.as_adaptive() {
                fixed += a.adapt(key) as u64;
            }
            yes_total += 1;
            first_at.get_or_insert(q);
            seen.insert(key);
            if active.insert(key) {
                found.push(key);
            }
        } else if replay {
            // no longer a false positive (the window moved on): the
            // adversary drops it and goes back to searching
            active.remove(&key);
            found.swap_remove(next_replay);
        }
        win_yes += yes as u64;
        win_n += 1;
        // the last window takes the remainder of an uneven division
        if adaptive && (win_n == per_window || q == attack.queries) {
            adapt_max = adapt_max.max(f.as_adaptive().map_or(0.0, per_element));
        }
        if win_n == per_window && q + per_window <= attack.queries {
            first_window.get_or_insert((win_yes, win_n));
            (win_yes, win_n) = (0, 0);
        } else if q == attack.queries {
            last_window = (win_yes, win_n);
        }
    }
    let first_window = first_window.unwrap_or(last_window);
    let mut row = Row::default();
    row.push("adversary_queries", Value::Int(attack.queries));
    row.push("replay_every", Value::Int(attack.replay_every));
    row.num(
        "replay_fraction",
        if attack.replay_every > 0 {
            1.0 / attack.replay_every as f64
        } else {
            0.0
        },
    );
    row.num("inserts_per_query", attack.inserts_per_query);
    row.push("pool", Value::Int(attack.pool));
    if query_trace.is_some() {
        row.push("query_trace_members_skipped", Value::Int(skipped));
    }
    let (x, n) = last_window;
    let ci = binomial_ci(x, n, level);
    row.num("sustained_fpr", x as f64 / n as f64);
    row.num("sustained_fpr_ci_low", ci.0);
    row.num("sustained_fpr_ci_high", ci.1);
    row.push("adaptive", Value::Bool(adaptive));
    if let (Some(p), true) = (p, adaptive) {
        row.num("sustained_fpr_bound", p);
        row.push("sustained_fpr_within_bound", Value::Bool(ci.0 <= p));
    }
    if let (Some(p), true) = (p, attack.inserts_per_query == 0.0 && !adaptive) {
        let share = if attack.replay_every > 0 {
            1.0 / attack.replay_every as f64
        } else {
            0.0
        };
        let t = share + (1.0 - share) * p;
        row.num("sustained_fpr_theory", t);
        row.push(
            "sustained_fpr_theory_in_ci",
            Value::Bool(t >= ci.0 && t <= ci.1),
        );
    }
    row.num(
        "first_window_fpr",
        first_window.0 as f64 / first_window.1.max(1) as f64,
    );
    row.num("adversary_fpr", yes_total as f64 / attack.queries as f64);
    row.push("false_positives_found", Value::Int(seen.len() as u64));
    row.num(
        "first_false_positive_at",
        first_at.map_or(f64::NAN, |q| q as f64),
    );
    if let Some(a) = f.as_adaptive() {
        row.num("adaptivity_bits_per_element", per_element(a));
        row.num("adaptivity_bits_per_element_max", adapt_max);
        row.num(
            "remote_accesses_per_op",
            (a.remote_accesses() - remote_before) as f64 / ops.max(1) as f64,
        );
        row.push("false_positives_fixed", Value::Int(fixed));
    }
    if memory_here {
        let bits = f.memory_bits();
        row.push("memory_bits", Value::Int(bits));
        row.num("bits_per_element", bits as f64 / w.max(1) as f64);
        if let Some(p) = p {
            row.num(
                "info_bound_ratio",
                info_bound_ratio(bits as f64 / w.max(1) as f64, p),
            );
        }
    }
    Ok(row)
}
