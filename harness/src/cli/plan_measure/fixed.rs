//! `plan --measure --rounds N`: every candidate gets the same fixed work
//! (N rounds, or N moments for a window of time) instead of a share of a
//! time budget, so what is measured, and every figure but the timings, is
//! the same on any machine and in any split:
//! - measured here, on `--threads` threads;
//! - `--shard I/N --parts DIR`: only the candidates dealt to shard I (by
//!   their plans' estimated cost, the deal `run --shard` makes), written
//!   as a part file;
//! - `--merge --parts DIR`: every shard's part read back and written as the
//!   one process's outputs (table, CSV, JSON, Pareto chart);
//! - `--slurm --shards N`: a Slurm job array whose task I is `--shard I/N`
//!   and a merge job after it ([`crate::cli::slurm`]).
//!
//! The candidates are prepared (planned at size N) alike in every task, so
//! each task deals and names them alike; one that cannot be prepared is
//! left out everywhere, with a line saying why.

use super::{candidate_spec, finish, measure_one, on_threads, threads};
use crate::cli::args::PlanArgs;
use crate::metrics::columns::col;
use crate::metrics::Row;
use crate::plan::Candidate;
use crate::sweep::{self, part, shard, Budget, Finished, PointRows, Prepared, Shard};
use std::collections::BTreeMap;
use std::path::Path;

/// A candidate prepared at the fixed size.
struct Ready<'a> {
    c: &'a Candidate,
    /// " (fast)" or "".
    sizing: &'static str,
    prepared: Prepared,
}

/// `plan --measure --rounds N` in its four forms (see the module docs);
/// `words` are the flags given, which the Slurm jobs repeat.
pub(super) fn measure(
    a: &PlanArgs,
    window: u64,
    ok: &[(&Candidate, &'static str)],
    time: Option<(f64, f64)>,
    started: std::time::Instant,
    words: &[String],
) -> anyhow::Result<()> {
    let m = &a.measured;
    let f = &m.fixed;
    let n = f
        .rounds
        .ok_or_else(|| anyhow::anyhow!("fixed::measure is for --rounds"))?;
    let parts = || {
        f.parts
            .as_deref()
            .ok_or_else(|| anyhow::anyhow!("--shard and --merge need --parts DIR"))
    };
    let (name, request) = super::output::name_and_request(a, m, window);
    let id = part::SpecId::new(&name, &format!("{request} --rounds {n}"), false);
    let ready = prepare_all(a, ok, time, n);
    if ready.is_empty() {
        return Err(anyhow::anyhow!(
            "no candidate could be prepared at --rounds {n}"
        ));
    }
    let combined = Prepared::combined(&ready.iter().map(|r| &r.prepared).collect::<Vec<_>>());
    let unit = if time.is_some() { "moments" } else { "rounds" };
    eprintln!(
        "plan --measure: {} candidates ranked by theory and prepared at {n} {unit} in {:.1} s; about {:.0} s of work in all by estimate",
        ready.len(),
        started.elapsed().as_secs_f64(),
        combined.estimated_seconds(1)
    );
    let results_dir = &m.results_dir;
    if f.slurm {
        return crate::cli::slurm::plan_jobs(&name, &combined, &f.jobs, results_dir, words);
    }
    let expected: Vec<usize> = (0..ready.len()).collect();
    if f.merge {
        let dir = parts()?;
        let claim = super::Claim::take(a, m, window)?;
        let merged = part::merge(dir, &id, &expected)?;
        for (i, (points, secs)) in merged.shards.iter().enumerate() {
            eprintln!("  part {i}: {points} candidate(s), {secs:.1} s measuring");
        }
        let rows = merged.rows.into_values().map(|p| p.row).collect();
        return finish(a, &claim, rows, &format!("--rounds {n}"));
    }
    let threads_for = |count: usize| threads(m, count);
    if let Some(shard) = f.shard {
        let dir = parts()?;
        return measure_shard(
            a,
            &ready,
            &combined,
            (n, time),
            shard,
            (dir, &id),
            threads_for,
        );
    }
    let claim = super::Claim::take(a, m, window)?;
    let done = measure_set(a, &ready, &expected, (n, time), threads_for(expected.len()));
    let rows: Vec<Row> = done
        .into_values()
        .filter_map(|r| r.map_err(|e| eprintln!("{e}")).ok())
        .map(|f| f.rows.row)
        .collect();
    eprintln!(
        "plan --measure: {:.0} s in all",
        started.elapsed().as_secs_f64()
    );
    finish(a, &claim, rows, &format!("--rounds {n}"))
}

/// Shard `shard`'s candidates measured and written as its part file; any
/// candidate not measured fails the task (the merge needs every one).
fn measure_shard(
    a: &PlanArgs,
    ready: &[Ready],
    combined: &Prepared,
    size: (u64, Option<(f64, f64)>),
    shard: Shard,
    (dir, id): (&Path, &part::SpecId),
    threads: impl Fn(usize) -> usize,
) -> anyhow::Result<()> {
    let mine =
        shard::assign(&combined.costs(), shard.count).swap_remove(shard.index.min(shard.count - 1));
    eprintln!(
        "plan --measure: shard {shard}: {} of the {} candidates",
        mine.len(),
        ready.len()
    );
    let done = measure_set(a, ready, &mine, size, threads(mine.len()));
    let mut finished = BTreeMap::new();
    for (i, r) in done {
        finished.insert(
            i,
            r.map_err(|e| anyhow::anyhow!("shard {shard}: {}", e.trim()))?,
        );
    }
    let path = id.part_path(dir, shard);
    crate::report::write_atomic(&path, &part::encode(id, shard, &mine, &finished)?)?;
    eprintln!("wrote {}", path.display());
    Ok(())
}

/// Every candidate's spec at `n` rounds or moments, planned; those that
/// cannot be are named and left out.
fn prepare_all<'a>(
    a: &PlanArgs,
    ok: &[(&'a Candidate, &'static str)],
    time: Option<(f64, f64)>,
    n: u64,
) -> Vec<Ready<'a>> {
    ok.iter()
        .filter_map(|&(c, sizing)| {
            let spec = crate::designs::lookup(c.design)
                .and_then(|d| candidate_spec(d, c, &c.point()?, &a.measured, time, n))
                .and_then(|spec| sweep::prepare(&spec, false, &Budget::unchecked()));
            match spec {
                Ok(prepared) => Some(Ready {
                    c,
                    sizing,
                    prepared,
                }),
                Err(e) => {
                    eprintln!(
                        "  {} {}{sizing}: not measured: {}",
                        c.design,
                        c.params_text(),
                        e.root_cause()
                    );
                    None
                }
            }
        })
        .collect()
}

/// The candidates `which` (positions in `ready`) measured on `threads`
/// threads, the costliest first; each one's row with its seconds and
/// estimate, or the line saying why it was not measured.
fn measure_set(
    a: &PlanArgs,
    ready: &[Ready],
    which: &[usize],
    (n, time): (u64, Option<(f64, f64)>),
    threads: usize,
) -> BTreeMap<usize, Result<Finished, String>> {
    let cost = |i: usize| ready[i].prepared.plans[0].cost;
    let mut order = which.to_vec();
    order.sort_by(|&x, &y| cost(y).total_cmp(&cost(x)).then(x.cmp(&y)));
    let unit = if time.is_some() { "moments" } else { "rounds" };
    let out = on_threads(threads, order.len(), |j| {
        let i = order[j];
        let r = &ready[i];
        let plan = r.prepared.plans[0].clone();
        let estimate = plan.cost * 1e-9;
        let at = format!(
            "  [{}/{}] {} {}{}",
            j + 1,
            order.len(),
            r.c.design,
            r.c.params_text(),
            r.sizing
        );
        let t0 = std::time::Instant::now();
        let row = measure_one(a, r.c, r.sizing, time, (n, plan));
        let took = t0.elapsed().as_secs_f64();
        Ok(match row {
            Ok(mut row) => {
                eprintln!("{at}: {n} {unit}, about {estimate:.1} s by estimate, took {took:.1} s");
                row.num(col::SECONDS, took);
                row.num(col::ESTIMATED_SECONDS, estimate);
                Ok(Finished {
                    rows: PointRows {
                        row,
                        tables: Vec::new(),
                    },
                    seconds: took,
                })
            }
            Err(e) => Err(format!("{at}: not measured: {e}")),
        })
    });
    order
        .into_iter()
        .zip(out)
        .map(|(i, r)| {
            let r = r.unwrap_or_else(|()| Err(format!("  candidate {i}: not measured")));
            (i, r)
        })
        .collect()
}
