//! The speed targets of the issue "every design near its memory-access
//! limit", evaluated on one criterion run or on two. Every target is a value
//! that must be at most its limit: a ratio of two designs' ns/op measured in
//! the same run (blocked APBF over fastbloom, Naor-Yogev over APBF, ours over
//! the stable-bloom-filter crate), or an ns/op bound for the designs whose
//! target is absolute (broom filter, SWAMP). With two runs a target counts
//! as met only where both runs meet it, and the report gives the spread
//! between the runs.

use super::Bench;
use crate::metrics::columns::col;
use crate::metrics::Row;

/// One target at one size, in one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// What is compared, in words.
    pub target: String,
    /// The size or parameters it is read at.
    pub size: String,
    /// The measured value (a ratio or ns).
    pub value: f64,
    /// Met iff `value <= limit`.
    pub limit: f64,
}

/// Mean ns/op of `design` at `op` and 2^`lw` (the report's own cell).
fn ns(rows: &[Row], op: &str, design: &str, lw: u32) -> Option<f64> {
    super::cell(rows, op, design, lw).map(|(ns, _)| ns)
}

/// Ratio targets: (target, op, design, op of the reference, reference, limit).
const RATIOS: &[(&str, &str, &str, &str, &str, f64)] = &[
    (
        "blocked APBF insert / fastbloom insert",
        "insert",
        "blocked_apbf",
        "insert",
        "fastbloom",
        1.5,
    ),
    (
        "blocked APBF negative query / fastbloom",
        "query_negative",
        "blocked_apbf",
        "query_negative",
        "fastbloom",
        1.5,
    ),
    (
        "blocked APBF positive query / fastbloom",
        "query_positive",
        "blocked_apbf",
        "query_positive",
        "fastbloom",
        2.0,
    ),
    (
        "APBF negative query / fastbloom",
        "query_negative",
        "apbf",
        "query_negative",
        "fastbloom",
        2.0,
    ),
    (
        "APBF batched negative query / fastbloom negative query (counted separately)",
        "query_negative_batched",
        "apbf",
        "query_negative",
        "fastbloom",
        2.0,
    ),
    // issue "One cache line per operation" (`bench/benches/line.rs`)
    (
        "line APBF insert / fastbloom insert",
        "insert",
        "line_apbf",
        "insert",
        "fastbloom",
        1.25,
    ),
    (
        "line APBF negative query / fastbloom",
        "query_negative",
        "line_apbf",
        "query_negative",
        "fastbloom",
        1.25,
    ),
    (
        "Naor-Yogev insert / APBF insert",
        "insert",
        "naor_yogev",
        "insert",
        "apbf",
        1.5,
    ),
];

/// Absolute targets: (target, op, design, log2 size, limit in ns).
const ABSOLUTE: &[(&str, &str, &str, u32, f64)] = &[
    (
        "broom filter window insertion, ns (load 0.85)",
        "insert",
        "broom",
        16,
        1000.0,
    ),
    (
        "broom filter positive query, ns",
        "query_positive",
        "broom",
        16,
        60.0,
    ),
    (
        "broom filter negative query, ns",
        "query_negative",
        "broom",
        16,
        60.0,
    ),
    ("SWAMP insertion, ns", "insert", "swamp", 16, 150.0),
    ("SWAMP insertion, ns", "insert", "swamp", 22, 300.0),
];

/// Sizes the ratio targets are read at (2^22: the line APBF's second).
const SIZES: &[u32] = &[12, 16, 20, 22, 24];

/// Every target this run has the measurements for.
pub fn checks(benches: &[Bench], rows: &[Row]) -> Vec<Check> {
    let mut out = Vec::new();
    for &(target, op, design, ref_op, reference, limit) in RATIOS {
        for &lw in SIZES {
            if let (Some(a), Some(b)) = (ns(rows, op, design, lw), ns(rows, ref_op, reference, lw))
            {
                out.push(Check {
                    target: target.into(),
                    size: format!("2^{lw}"),
                    value: a / b,
                    limit,
                });
            }
        }
    }
    for &(target, op, design, lw, limit) in ABSOLUTE {
        if let Some(v) = ns(rows, op, design, lw) {
            out.push(Check {
                target: target.into(),
                size: format!("2^{lw}"),
                value: v,
                limit,
            });
        }
    }
    let find = |group: &str, function: &str| {
        benches
            .iter()
            .find(|b| b.group == group && b.function == function)
            .map(|b| b.ns)
    };
    let mut groups: Vec<&str> = benches
        .iter()
        .filter(|b| b.group.starts_with("stable_"))
        .map(|b| b.group.as_str())
        .collect();
    groups.dedup();
    for g in groups {
        let params = g.trim_start_matches("stable_").to_string();
        for (target, ours, theirs, limit) in [
            (
                "Stable Bloom insert (uniform decrements) / the crate's insert",
                "insert/bloomlab uniform",
                "insert/stable-bloom-filter crate",
                0.5,
            ),
            (
                "Stable Bloom query / the crate's query",
                "query/bloomlab",
                "query/stable-bloom-filter crate",
                1.0,
            ),
        ] {
            if let (Some(a), Some(b)) = (find(g, ours), find(g, theirs)) {
                out.push(Check {
                    target: target.into(),
                    size: params.clone(),
                    value: a / b,
                    limit,
                });
            }
        }
    }
    out
}

fn verdict(value: f64, limit: f64) -> String {
    if value <= limit {
        "met".into()
    } else {
        format!("**missed by {:.2}x**", value / limit)
    }
}

fn num(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

/// The targets of one run as a markdown table.
pub fn markdown(checks: &[Check]) -> String {
    if checks.is_empty() {
        return String::new();
    }
    let mut md = String::from(
        "## Targets\n\nEach value must be at most its limit: ratios of ns/op measured \
         in this run, or ns/op where the target is absolute.\n\n\
         | target | size | value | limit | verdict |\n|---|---|---|---|---|\n",
    );
    for c in checks {
        md += &format!(
            "| {} | {} | {} | {} | {} |\n",
            c.target,
            c.size,
            num(c.value),
            num(c.limit),
            verdict(c.value, c.limit)
        );
    }
    md + "\n"
}

/// The targets of two runs side by side: met only where both runs meet it.
pub fn markdown_two(first: &[Check], second: &[Check]) -> String {
    let mut md = String::from(
        "## Targets in two runs\n\nA target counts as met only where both runs meet it; \
         \"missed by\" is the better run's value over the limit.\n\n\
         | target | size | run 1 | run 2 | limit | verdict |\n|---|---|---|---|---|---|\n",
    );
    for b in second {
        let Some(a) = first
            .iter()
            .find(|a| a.target == b.target && a.size == b.size)
        else {
            continue;
        };
        let v = match (a.value <= a.limit, b.value <= b.limit) {
            (true, true) => "met in both".to_string(),
            (false, false) => format!(
                "**missed in both, by {:.2}x**",
                a.value.min(b.value) / b.limit
            ),
            _ => "met in one run only: **not met**".to_string(),
        };
        md += &format!(
            "| {} | {} | {} | {} | {} | {v} |\n",
            b.target,
            b.size,
            num(a.value),
            num(b.value),
            num(b.limit)
        );
    }
    md + "\n"
}

/// The spread between two runs: for every benchmark both ran, run 2's ns
/// over run 1's, and the same for the ratio to fastbloom; quantiles of each.
pub fn spread(first: &[Row], second: &[Row]) -> String {
    let key = |r: &Row| {
        Some((
            super::text_of(r, col::OPERATION.name())?,
            super::text_of(r, col::DESIGN.name())?,
            r.get_num(col::LOG2_WINDOW)? as u32,
        ))
    };
    let mut ns_ratio = Vec::new();
    let mut rel_ratio = Vec::new();
    for b in second {
        let Some(kb) = key(b) else { continue };
        let Some(a) = first.iter().find(|a| key(a).as_ref() == Some(&kb)) else {
            continue;
        };
        if let (Some(x), Some(y)) = (a.get_num(col::NS_PER_OP), b.get_num(col::NS_PER_OP)) {
            ns_ratio.push(y / x);
        }
        if let (Some(x), Some(y)) = (
            a.get_num(col::RATIO_TO_FASTBLOOM),
            b.get_num(col::RATIO_TO_FASTBLOOM),
        ) {
            if kb.1 != super::BASELINE {
                rel_ratio.push(y / x);
            }
        }
    }
    if ns_ratio.is_empty() {
        return String::new();
    }
    let q = |v: &mut Vec<f64>| -> String {
        if v.is_empty() {
            return "0 | | | | |".into();
        }
        v.sort_by(f64::total_cmp);
        let at = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
        format!(
            "{} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2}",
            v.len(),
            at(0.0),
            at(0.1),
            at(0.5),
            at(0.9),
            at(1.0)
        )
    };
    format!(
        "## Spread between the two runs\n\nRun 2 over run 1, per benchmark both ran.\n\n\
         | quantity | benchmarks | min | 10% | median | 90% | max |\n|---|---|---|---|---|---|---|\n\
         | ns/op | {} |\n| ratio to fastbloom | {} |\n\n",
        q(&mut ns_ratio),
        q(&mut rel_ratio)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Value;

    fn row(op: &str, design: &str, lw: u32, ns: f64) -> Row {
        let mut r = Row::default();
        r.push("operation", Value::Text(op.into()));
        r.push("design", Value::Text(design.into()));
        r.num("log2_window", lw as f64);
        r.num("ns_per_op", ns);
        r
    }

    #[test]
    fn targets_are_ratios_in_one_run_and_both_runs_must_meet_them() {
        let run1 = vec![
            row("insert", "blocked_apbf", 16, 14.0),
            row("insert", "fastbloom", 16, 10.0),
            row("insert", "swamp", 22, 310.0),
        ];
        let run2 = vec![
            row("insert", "blocked_apbf", 16, 16.0),
            row("insert", "fastbloom", 16, 10.0),
            row("insert", "swamp", 22, 320.0),
        ];
        let (a, b) = (checks(&[], &run1), checks(&[], &run2));
        assert_eq!(a.len(), 2);
        assert!((a[0].value - 1.4).abs() < 1e-12 && a[0].limit == 1.5);
        let md = markdown_two(&a, &b);
        assert!(
            md.contains("| 1.40 | 1.60 | 1.50 | met in one run only: **not met** |"),
            "{md}"
        );
        assert!(md.contains("**missed in both, by 1.03x**"), "{md}");
        assert!(markdown(&a).contains("| 2^16 | 1.40 | 1.50 | met |"));
        let s = spread(&run1, &run2);
        assert!(s.contains("| ns/op | 3 |"), "{s}");
    }

    #[test]
    fn stable_targets_come_from_the_crate_group() {
        let b = |function: &str, ns: f64| Bench {
            group: "stable_m65536_d2_k3_p35".into(),
            function: function.into(),
            param: None,
            ns,
            ci: (ns, ns),
        };
        let c = checks(
            &[
                b("insert/bloomlab uniform", 100.0),
                b("insert/stable-bloom-filter crate", 210.0),
                b("query/bloomlab", 8.0),
                b("query/stable-bloom-filter crate", 8.5),
            ],
            &[],
        );
        assert_eq!(c.len(), 2);
        assert!((c[0].value - 100.0 / 210.0).abs() < 1e-12 && c[0].value <= c[0].limit);
        assert_eq!(c[1].size, "m65536_d2_k3_p35");
    }
}
