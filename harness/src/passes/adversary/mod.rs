//! The `adversary` metric: FPR under an adaptive query workload, the attack
//! the adaptive-filter literature uses (Bender et al., *Bloom Filters,
//! Adaptivity, and the Dictionary Problem*): the adversary keeps every false
//! positive it finds and replays them.
//!
//! One point: a fresh copy of the design is warmed to its steady state
//! (w + s + a margin of insertions, in whole periods plus the design's
//! worst phase, so that every design sits at its worst phase), then `queries` queries run, all on keys never
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

mod columns;
mod pass;

use crate::metrics::columns::col;
pub use columns::combine;
use columns::{attack_columns, sustained_columns};
pub use pass::AdversaryPass;

use crate::designs::{Built, Geometry};
use crate::metrics::{info_bound_ratio, Row, Value};
use crate::spec::AdversarySpec;
use crate::workload::{KeyStream, Trace};
use bloomlab_filters::Instrumented;
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
) -> anyhow::Result<(AdversarySpec, std::collections::BTreeMap<String, f64>)> {
    let mut a = base.clone();
    let whole = |k: &str, v: f64| {
        if v >= 0.0 && v.fract() == 0.0 && v < 2f64.powi(53) {
            Ok(v as u64)
        } else {
            Err(anyhow::anyhow!(
                "parameter {k} = {v} must be a whole number >= 0"
            ))
        }
    };
    let mut rest = std::collections::BTreeMap::new();
    for (k, &v) in params {
        match k.as_str() {
            "replay_every" => a.replay_every = whole(k, v)?,
            "query_zipf" => a.zipf = v,
            "queries" => a.queries = whole(k, v)?,
            "pool" => a.pool = whole(k, v)?,
            "inserts_per_query" => a.inserts_per_query = v,
            _ => {
                rest.insert(k.clone(), v);
            }
        }
    }
    a.check(&|f| match f {
        "windows" | "query_trace" => format!("adversary.{f}"),
        "zipf" => "parameter query_zipf".into(),
        _ => format!("parameter {f}"),
    })?;
    Ok((a, rest))
}

/// The attack's state: the filter, its key stream, the adversary's false
/// positives and the counters the row reports.
struct Attack<'a> {
    f: &'a mut (dyn Instrumented + Send),
    stream: KeyStream,
    rng: Pcg64,
    spec: &'a AdversarySpec,
    query_trace: Option<&'a Trace>,
    /// With a query trace, the keys of the last w + s insertions (a trace
    /// key among them is not a non-member and is skipped).
    recent: Option<ExactWindow>,
    /// Next line of the query trace, and the trace keys skipped so far.
    trace_at: usize,
    skipped: u64,
    pool: Vec<u64>,
    zipf: Option<Zipf<f64>>,
    /// The false positives being replayed (round robin), the same as a set,
    /// and every false positive ever found.
    found: Vec<u64>,
    active: HashSet<u64>,
    seen: HashSet<u64>,
    next_replay: usize,
    /// Insertions owed to the stream (`inserts_per_query` accumulates).
    credit: f64,
    /// Operations (insertions and queries) and false positives fixed.
    ops: u64,
    fixed: u64,
}

impl<'a> Attack<'a> {
    /// Warms the filter to its steady state and draws the pool. The order
    /// of the draws is part of the results: warm-up keys, the trace's first
    /// line (only with a trace), the pool.
    fn new(
        f: &'a mut (dyn Instrumented + Send),
        stream: KeyStream,
        rng: Pcg64,
        spec: &'a AdversarySpec,
        query_trace: Option<&'a Trace>,
        geometry: Geometry,
    ) -> anyhow::Result<Attack<'a>> {
        let period = geometry.period.max(1);
        let (w, s) = (geometry.window, geometry.slack);
        let margin = ((w as f64 * 0.25) as u64).max(period);
        let warm = geometry
            .warmup
            .unwrap_or(w + s + margin)
            .max(w + s + margin)
            .div_ceil(period)
            * period
            // at the worst phase, which the Sl-BF and the HSS-BF have
            // inside their period (0 for the switching designs)
            + geometry.worst_phase % period;
        let recent = match query_trace {
            Some(_) => Some(ExactWindow::new(w + s).map_err(|e| anyhow::anyhow!("{e}"))?),
            None => None,
        };
        let zipf = if spec.pool > 0 && spec.zipf > 0.0 {
            Some(
                Zipf::new(spec.pool as f64, spec.zipf)
                    .map_err(|e| anyhow::anyhow!("adversary zipf: {e}"))?,
            )
        } else {
            None
        };
        let mut a = Attack {
            f,
            stream,
            rng,
            spec,
            query_trace,
            recent,
            trace_at: 0,
            skipped: 0,
            pool: Vec::new(),
            zipf,
            found: Vec::new(),
            active: HashSet::new(),
            seen: HashSet::new(),
            next_replay: 0,
            credit: 0.0,
            ops: 0,
            fixed: 0,
        };
        for _ in 0..warm {
            a.insert();
        }
        // the query trace is read in order from a random line (drawn only
        // when there is one, so other attacks keep their numbers)
        a.trace_at = query_trace.map_or(0, |t| a.rng.random_range(0..t.len()));
        a.pool = (0..spec.pool)
            .map(|_| a.stream.negative(&mut a.rng))
            .collect();
        Ok(a)
    }

    fn insert(&mut self) {
        let k = self.stream.next_key(&mut self.rng);
        self.f.insert(k);
        if let Some(r) = self.recent.as_mut() {
            r.push(k);
        }
    }

    fn in_window(&self, k: u64) -> bool {
        self.recent.as_ref().is_some_and(|r| r.frequency(k) > 0)
    }

    /// Whether query `q` replays a found false positive; one that has since
    /// been inserted is no longer one and is dropped.
    fn replays(&mut self, q: u64) -> bool {
        let every = self.spec.replay_every;
        if every == 0 || !q.is_multiple_of(every) || self.found.is_empty() {
            return false;
        }
        self.next_replay = (self.next_replay + 1) % self.found.len();
        let key = self.found[self.next_replay];
        if self.in_window(key) {
            self.active.remove(&key);
            self.found.swap_remove(self.next_replay);
            return false;
        }
        true
    }

    /// A fresh query: the next non-member of the trace, a draw from the
    /// pool, or a new non-member.
    fn fresh(&mut self) -> anyhow::Result<u64> {
        if let Some(t) = self.query_trace {
            let keys = t.keys();
            for _ in 0..=keys.len() {
                let k = keys[self.trace_at % keys.len()];
                self.trace_at += 1;
                if !self.in_window(k) {
                    return Ok(k);
                }
                self.skipped += 1;
            }
            return Err(anyhow::anyhow!(
                "every key of the query trace is in the window: no non-member to query"
            ));
        }
        if !self.pool.is_empty() {
            let i = match &self.zipf {
                Some(z) => z.sample(&mut self.rng) as usize - 1,
                None => self.rng.random_range(0..self.pool.len()),
            };
            return Ok(self.pool[i]);
        }
        Ok(self.stream.negative(&mut self.rng))
    }

    /// Query `q`: the insertions owed before it, the query, and what the
    /// answer teaches the adversary (and an adaptive filter). Returns the
    /// answer.
    fn query(&mut self, q: u64) -> anyhow::Result<bool> {
        self.credit += self.spec.inserts_per_query;
        while self.credit >= 1.0 {
            self.insert();
            self.credit -= 1.0;
            self.ops += 1;
        }
        let replay = self.replays(q);
        let key = if replay {
            self.found[self.next_replay]
        } else {
            self.fresh()?
        };
        let yes = self.f.contains(key);
        self.ops += 1;
        if yes {
            // the application checks its set: every attack key is absent
            if let Some(a) = self.f.as_adaptive() {
                self.fixed += a.adapt(key) as u64;
            }
            self.seen.insert(key);
            if self.active.insert(key) {
                self.found.push(key);
            }
        } else if replay {
            // no longer a false positive (the window moved on): the
            // adversary drops it and goes back to searching
            self.active.remove(&key);
            self.found.swap_remove(self.next_replay);
        }
        Ok(yes)
    }
}

/// The yes answers per window of queries: the first window and the last
/// (which takes the remainder of an uneven division).
struct Windows {
    per_window: u64,
    yes: u64,
    n: u64,
    first: Option<(u64, u64)>,
    last: (u64, u64),
}

impl Windows {
    /// Counts query `q` of `total`; returns whether a window ended.
    fn add(&mut self, yes: bool, q: u64, total: u64) -> bool {
        self.yes += yes as u64;
        self.n += 1;
        let ended = self.n == self.per_window || q == total;
        if self.n == self.per_window && q + self.per_window <= total {
            self.first.get_or_insert((self.yes, self.n));
            (self.yes, self.n) = (0, 0);
        } else if q == total {
            self.last = (self.yes, self.n);
        }
        ended
    }
}

/// Adaptivity bits per stored element.
fn per_element(a: &mut dyn AdaptiveFilter) -> f64 {
    a.adaptivity_bits() as f64 / a.stored().max(1) as f64
}

/// Measures the attack on `built` (a fresh copy of the design). Deterministic
/// given `rng`'s seed.
pub fn measure(
    built: &mut Built,
    stream: KeyStream,
    rng: Pcg64,
    attack: &AdversarySpec,
    query_trace: Option<&Trace>,
    level: f64,
    memory_here: bool,
) -> anyhow::Result<Row> {
    let geometry = built.geometry;
    let p = built.theory.get(col::FPR);
    let f = built
        .filter
        .as_mut()
        .ok_or_else(|| anyhow::anyhow!("the adversary metric needs a membership filter"))?;
    let mut a = Attack::new(f.as_mut(), stream, rng, attack, query_trace, geometry)?;
    let adaptive = a.f.as_adaptive().is_some();
    let remote_before = a.f.as_adaptive().map_or(0, |x| x.remote_accesses());
    let mut windows = Windows {
        per_window: attack.queries / attack.windows,
        yes: 0,
        n: 0,
        first: None,
        last: (0, 0),
    };
    let (mut first_at, mut yes_total, mut adapt_max) = (None, 0u64, 0.0f64);
    for q in 1..=attack.queries {
        let yes = a.query(q)?;
        if yes {
            yes_total += 1;
            first_at.get_or_insert(q);
        }
        if windows.add(yes, q, attack.queries) && adaptive {
            adapt_max = adapt_max.max(a.f.as_adaptive().map_or(0.0, per_element));
        }
    }
    let mut row = attack_columns(attack, query_trace.map(|_| a.skipped));
    sustained_columns(&mut row, windows.last, p, adaptive, attack, level);
    let first = windows.first.unwrap_or(windows.last);
    row.num(
        col::FIRST_WINDOW_FPR,
        first.0 as f64 / first.1.max(1) as f64,
    );
    row.num(col::ADVERSARY_FPR, yes_total as f64 / attack.queries as f64);
    row.push(col::FALSE_POSITIVES_FOUND, Value::Int(a.seen.len() as u64));
    row.num(
        col::FIRST_FALSE_POSITIVE_AT,
        first_at.map_or(f64::NAN, |q| q as f64),
    );
    let (ops, fixed) = (a.ops, a.fixed);
    if let Some(x) = a.f.as_adaptive() {
        row.num(col::ADAPTIVITY_BITS_PER_ELEMENT, per_element(x));
        row.num(col::ADAPTIVITY_BITS_PER_ELEMENT_MAX, adapt_max);
        row.num(
            col::REMOTE_ACCESSES_PER_OP,
            (x.remote_accesses() - remote_before) as f64 / ops.max(1) as f64,
        );
        row.push(col::FALSE_POSITIVES_FIXED, Value::Int(fixed));
    }
    if memory_here {
        let (bits, w) = (a.f.memory_bits(), geometry.window.max(1));
        row.push(col::MEMORY_BITS, Value::Int(bits));
        row.num(col::BITS_PER_ELEMENT, bits as f64 / w as f64);
        if let Some(p) = p {
            row.num(
                "info_bound_ratio",
                info_bound_ratio(bits as f64 / w as f64, p),
            );
        }
    }
    Ok(row)
}
