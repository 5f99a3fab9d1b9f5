//! The machine's memory-access limit, from the `memory_probe` group of
//! `bench/benches/ops.rs`: ns per dependent random read (a pointer chase)
//! and per read among 8 independent chases, at working sets of 2^12 ..
//! 2^28 bytes. Each design's ns/op is set against them at its own memory
//! size (from `bloomlab_memory.json`, written by the benchmarks beside
//! criterion's files): an operation's cost in dependent-read times says how
//! far a design sits from what its memory touches can cost on this machine.

use super::{is, text_of, Bench};
use crate::metrics::columns::col;
use crate::metrics::{Row, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// The probe: working-set log2 bytes -> (dependent ns, independent ns).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Probe(pub BTreeMap<u32, (Option<f64>, Option<f64>)>);

impl Probe {
    /// The probe's results among `benches` (empty if it was not run).
    pub fn of(benches: &[Bench]) -> Probe {
        let mut p = Probe::default();
        for b in benches.iter().filter(|b| b.group == "memory_probe") {
            let Some(k) = b
                .param
                .as_deref()
                .and_then(|s| s.strip_prefix("bytes2^"))
                .and_then(|s| s.parse::<u32>().ok())
            else {
                continue;
            };
            let e = p.0.entry(k).or_default();
            match b.function.as_str() {
                "dependent_read" => e.0 = Some(b.ns),
                "independent_read_x8" => e.1 = Some(b.ns),
                _ => {}
            }
        }
        p
    }

    /// ns per read at a working set of `bytes`, log-linear between the
    /// probed sizes (clamped to the ends); `dependent` picks the column.
    pub fn at(&self, bytes: f64, dependent: bool) -> Option<f64> {
        let pts: Vec<(f64, f64)> = self
            .0
            .iter()
            .filter_map(|(&k, &(d, i))| Some((k as f64, if dependent { d? } else { i? })))
            .collect();
        let x = bytes.max(1.0).log2();
        let (first, last) = (pts.first()?, pts.last()?);
        if x <= first.0 {
            return Some(first.1);
        }
        if x >= last.0 {
            return Some(last.1);
        }
        let i = pts.iter().position(|p| p.0 >= x)?;
        let (a, b) = (pts[i - 1], pts[i]);
        let t = (x - a.0) / (b.0 - a.0);
        Some(a.1 + t * (b.1 - a.1))
    }

    /// The probe as a markdown table.
    pub fn markdown(&self) -> String {
        if self.0.is_empty() {
            return String::new();
        }
        let mut md = String::from(
            "## The machine's memory-access limit\n\n\
             `memory_probe`: ns per dependent random read (a pointer chase through one \
             random cycle) and per read among 8 independent chases advanced together, by \
             working set. An operation that must read one random line of a working set \
             cannot beat the first column; one whose reads are independent can approach \
             the second.\n\n| working set | dependent read (ns) | independent read, 8 in flight (ns) |\n|---|---|---|\n",
        );
        for (k, (d, i)) in &self.0 {
            let f = |x: &Option<f64>| x.map_or(String::new(), |v| format!("{v:.2}"));
            md += &format!("| 2^{k} B | {} | {} |\n", f(d), f(i));
        }
        md + "\n"
    }
}

/// Bits of each `design/w2^N` benchmarked, if the benchmarks wrote them.
pub fn memory(criterion: &Path) -> BTreeMap<String, u64> {
    std::fs::read_to_string(criterion.join("bloomlab_memory.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

/// Mean cache lines a query reads, per `design/w2^N/operation`, if the
/// benchmarks wrote them (`bloomlab_lines.json`).
pub fn lines(criterion: &Path) -> BTreeMap<String, f64> {
    std::fs::read_to_string(criterion.join("bloomlab_lines.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

/// What `annotate` sets each row against.
#[derive(Debug, Default)]
pub struct Limits {
    /// Bits per `design/w2^N`.
    pub memory: BTreeMap<String, u64>,
    /// Lines per `design/w2^N/operation`.
    pub lines: BTreeMap<String, f64>,
}

/// Adds to each row its design's memory, the probe's read times at that
/// working set, the operation's cost in reads of each kind, and where the
/// lines it reads are known, its two limits and its distance from each:
/// lines x the dependent read (`limit_ns`, `x_over_limit`: nothing
/// overlapped) and lines x the independent read (`mlp_limit_ns`,
/// `x_over_mlp_limit`: every miss overlapped).
pub fn annotate(rows: &mut [Row], probe: &Probe, limits: &Limits) {
    for r in rows.iter_mut() {
        let (Some(Value::Text(d)), Some(lw)) = (r.get(col::DESIGN), r.get_num(col::LOG2_WINDOW))
        else {
            continue;
        };
        let size = format!("{d}/w2^{}", lw as u32);
        let Some(&bits) = limits.memory.get(&size) else {
            continue;
        };
        let op = text_of(r, col::OPERATION.name()).unwrap_or_default();
        let bytes = bits as f64 / 8.0;
        r.num(col::MEMORY_BYTES, bytes);
        let ns = r.get_num(col::NS_PER_OP).unwrap_or(f64::NAN);
        let dep = probe.at(bytes, true);
        let ind = probe.at(bytes, false);
        if let Some(dep) = dep {
            r.num(col::DEPENDENT_READ_NS, dep);
            r.num(col::DEPENDENT_READS_PER_OP, ns / dep);
        }
        if let Some(ind) = ind {
            r.num(col::INDEPENDENT_READ_NS, ind);
            r.num(col::INDEPENDENT_READS_PER_OP, ns / ind);
        }
        let Some(&lines) = limits.lines.get(&format!("{size}/{op}")) else {
            continue;
        };
        r.num(col::LINES_PER_OP, lines);
        if let Some(dep) = dep {
            r.num(col::LIMIT_NS, lines * dep);
            r.num(col::X_OVER_LIMIT, ns / (lines * dep));
        }
        if let Some(ind) = ind {
            r.num(col::MLP_LIMIT_NS, lines * ind);
            r.num(col::X_OVER_MLP_LIMIT, ns / (lines * ind));
        }
    }
}

/// One table per operation of `col` by design and size.
fn table(rows: &[Row], sizes: &[u32], op: &str, col: &str, digits: usize) -> String {
    let mut designs: Vec<String> = rows
        .iter()
        .filter(|r| is(r, col::OPERATION.name(), op) && r.get_num(col).is_some())
        .filter_map(|r| text_of(r, col::DESIGN.name()))
        .collect();
    designs.sort();
    designs.dedup();
    if designs.is_empty() {
        return String::new();
    }
    let mut md = format!("### {op}\n\n| design |");
    for lw in sizes {
        md += &format!(" w = 2^{lw} |");
    }
    md += &format!("\n|---|{}\n", "---|".repeat(sizes.len()));
    for d in &designs {
        md += &format!("| {d} |");
        for &lw in sizes {
            let v = rows
                .iter()
                .find(|r| {
                    is(r, col::OPERATION.name(), op)
                        && is(r, col::DESIGN.name(), d)
                        && r.get_num(col::LOG2_WINDOW) == Some(lw as f64)
                })
                .and_then(|r| r.get_num(col));
            md += &v.map_or(" |".into(), |x| format!(" {x:.digits$} |"));
        }
        md += "\n";
    }
    md + "\n"
}

/// Each design's distance from its own memory limit (rows annotated by
/// [`annotate`]): queries as ns/op over (lines x read time), and every
/// operation in dependent-read times.
pub(super) fn reads_table(rows: &[Row], sizes: &[u32]) -> String {
    if !rows
        .iter()
        .any(|r| r.get_num(col::DEPENDENT_READS_PER_OP).is_some())
    {
        return String::new();
    }
    let mut md = String::from(
        "## Distance from the memory limit\n\n\
         Two limits per operation, from the probe at the design's own memory size. \
         `x_over_limit` = ns/op / (lines x dependent read): the query's lines read one \
         after another, nothing overlapped (the issue's definition). \
         `x_over_mlp_limit` = ns/op / (lines x independent read): every line's miss \
         overlapped with others, which a benchmark loop allows because its queries are \
         independent of one another (the CPU runs ahead into the next query). A design \
         sits between the two: near 1 on the first, at its memory limit for one query \
         at a time; far above 1 on the second, limited by its code. Below 1 on the \
         first: its misses overlap. Lines are the mean probes a query makes \
         (`Filter::contains_probes`: a random bit, cell or slot read, about one line \
         each, though probes can share a line: Naor-Yogev's 8 slot compares sit in two \
         buckets; the blocked APBF counts distinct lines; fastbloom reads one 512-bit \
         block).\n\n",
    );
    for op in ["query_negative", "query_negative_batched", "query_positive"] {
        md += &table(rows, sizes, op, col::LINES_PER_OP.name(), 2).replace("### ", "### lines: ");
        if op != "query_negative_batched" {
            md += &table(rows, sizes, op, col::X_OVER_LIMIT.name(), 1)
                .replace("### ", "### x over the serial limit: ");
        }
        md += &table(rows, sizes, op, col::X_OVER_MLP_LIMIT.name(), 1)
            .replace("### ", "### x over the overlapped limit: ");
    }
    md += "Insertions: lines not counted (most designs do work besides their probes: \
           shifts, decrements, displacements); ns/op over the dependent-read time at \
           the design's memory size, about the serial reads an insertion costs.\n\n";
    md + &table(rows, sizes, "insert", col::DEPENDENT_READS_PER_OP.name(), 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bench(function: &str, k: u32, ns: f64) -> Bench {
        Bench {
            group: "memory_probe".into(),
            function: function.into(),
            param: Some(format!("bytes2^{k}")),
            ns,
            ci: (ns, ns),
        }
    }

    #[test]
    fn the_probe_interpolates_log_linearly_and_clamps() {
        let p = Probe::of(&[
            bench("dependent_read", 12, 1.0),
            bench("dependent_read", 14, 3.0),
            bench("independent_read_x8", 12, 0.5),
        ]);
        assert_eq!(p.at(4096.0, true), Some(1.0));
        assert_eq!(p.at(8192.0, true), Some(2.0));
        assert_eq!(p.at(1.0, true), Some(1.0));
        assert_eq!(p.at(1e9, true), Some(3.0));
        assert_eq!(p.at(1e9, false), Some(0.5));
        assert!(p.markdown().contains("| 2^14 B | 3.00 |  |"));
    }

    #[test]
    fn rows_get_their_reads_per_op() {
        let p = Probe::of(&[
            bench("dependent_read", 12, 2.0),
            bench("independent_read_x8", 12, 0.5),
        ]);
        let mut r = Row::default();
        r.push("design", Value::Text("apbf".into()));
        r.num("log2_window", 12.0);
        r.num("ns_per_op", 10.0);
        r.push("operation", Value::Text("query_negative".into()));
        let mut rows = vec![r];
        let limits = Limits {
            memory: [("apbf/w2^12".to_string(), 8 * 4096u64)].into(),
            lines: [("apbf/w2^12/query_negative".to_string(), 2.5)].into(),
        };
        annotate(&mut rows, &p, &limits);
        assert_eq!(rows[0].get_num("lines_per_op"), Some(2.5));
        assert_eq!(rows[0].get_num("x_over_limit"), Some(2.0));
        assert_eq!(rows[0].get_num("x_over_mlp_limit"), Some(8.0));
        assert_eq!(rows[0].get_num("dependent_reads_per_op"), Some(5.0));
        assert_eq!(rows[0].get_num("independent_reads_per_op"), Some(20.0));
        assert_eq!(rows[0].get_num("memory_bytes"), Some(4096.0));
    }
}
