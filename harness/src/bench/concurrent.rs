//! The concurrent benchmarks (`bench/benches/concurrent.rs`) as a table and
//! charts: throughput of each contender at 1, 2, 4 and 8 threads, and its
//! ratio to a `Mutex` around the sequential blocked APBF at the same
//! operation and thread count.

use super::{is, Bench};
use crate::metrics::columns::col;
use crate::metrics::Part;
use crate::metrics::{Row, Value};
use std::fmt::Write as _;

/// The groups of `benches/concurrent.rs`, in report order.
pub const GROUPS: &[&str] = &["concurrent_insert", "concurrent_mixed"];

/// The contender every ratio is taken against.
pub const BASELINE: &str = "mutex_blocked_apbf";

fn threads_of(param: &Option<String>) -> Option<u64> {
    param.as_deref()?.strip_prefix('t')?.parse().ok()
}

/// One row per operation x contender x thread count.
pub fn rows(benches: &[Bench]) -> Vec<Row> {
    let mut out = Vec::new();
    for group in GROUPS {
        let of = |name: &str, t: u64| {
            benches.iter().find(|b| {
                b.group == *group && b.function == name && threads_of(&b.param) == Some(t)
            })
        };
        for b in benches.iter().filter(|b| b.group == *group) {
            let Some(t) = threads_of(&b.param) else {
                continue;
            };
            let mut r = Row::default();
            r.push(col::OPERATION, Value::Text(group.to_string()));
            r.push(col::DESIGN, Value::Text(b.function.clone()));
            r.push(col::THREADS, Value::Int(t));
            r.num(col::NS_PER_OP, b.ns);
            r.num(Part::CiLow.of(col::NS_PER_OP), b.ci.0);
            r.num(Part::CiHigh.of(col::NS_PER_OP), b.ci.1);
            r.num(col::MOPS_PER_S, 1e3 / b.ns);
            if let Some(m) = of(BASELINE, t) {
                r.num(col::THROUGHPUT_VS_MUTEX, m.ns / b.ns);
            }
            out.push(r);
        }
    }
    out
}

/// The markdown table: Mops/s per contender and thread count, with the
/// ratio to the mutex.
pub fn markdown(rows: &[Row]) -> String {
    let mut md = String::from(
        "# Concurrent throughput\n\nMillions of operations per second over all threads \
         (in parentheses: times the throughput of a `Mutex` around the sequential blocked APBF \
         at the same thread count), from `cargo bench -p bloomlab-bench --bench concurrent` \
         then `bloomlab bench-report`. Window 2^20, FPR 1e-3. On a machine with fewer cores \
         than threads, the rows above the core count measure contention and preemption, \
         not speed-up.\n",
    );
    for group in GROUPS {
        let mut threads: Vec<u64> = rows
            .iter()
            .filter(|r| is(r, col::OPERATION.name(), group))
            .filter_map(|r| r.get_num(col::THREADS).map(|t| t as u64))
            .collect();
        threads.sort_unstable();
        threads.dedup();
        if threads.is_empty() {
            continue;
        }
        let _ = write!(md, "\n## {group}\n\n| contender |");
        for t in &threads {
            let _ = write!(md, " {t} threads |");
        }
        md.push_str("\n|---|");
        md.push_str(&"---:|".repeat(threads.len()));
        md.push('\n');
        let mut designs: Vec<String> = rows
            .iter()
            .filter(|r| is(r, col::OPERATION.name(), group))
            .filter_map(|r| super::text_of(r, col::DESIGN.name()))
            .collect();
        designs.dedup();
        for d in designs {
            let _ = write!(md, "| {d} |");
            for &t in &threads {
                let r = rows.iter().find(|r| {
                    is(r, col::OPERATION.name(), group)
                        && is(r, col::DESIGN.name(), &d)
                        && r.get_num(col::THREADS) == Some(t as f64)
                });
                match r.and_then(|r| {
                    Some((
                        r.get_num(col::MOPS_PER_S)?,
                        r.get_num(col::THROUGHPUT_VS_MUTEX),
                    ))
                }) {
                    Some((m, Some(x))) => {
                        let _ = write!(md, " {m:.1} ({x:.2}x) |");
                    }
                    Some((m, None)) => {
                        let _ = write!(md, " {m:.1} |");
                    }
                    None => md.push_str(" - |"),
                }
            }
            md.push('\n');
        }
    }
    md
}
