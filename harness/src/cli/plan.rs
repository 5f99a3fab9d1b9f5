//! `bloomlab plan`: the table (or JSON) of `crate::plan::plan`.

use super::args::PlanArgs;
use crate::plan::{Candidate, Rejected};
use crate::report;

/// `bloomlab plan`.
pub(super) fn plan(a: PlanArgs) -> anyhow::Result<()> {
    if !(a.fpr > 0.0 && a.fpr < 1.0) {
        return Err(anyhow::anyhow!("--fpr {} must be in (0, 1)", a.fpr));
    }
    for (name, v) in [
        ("--max-npws", a.max_npws),
        ("--max-bits-per-element", a.max_bits_per_element),
    ] {
        if let Some(x) = v {
            if x.is_nan() || x <= 0.0 {
                return Err(anyhow::anyhow!("{name} {x} must be positive"));
            }
        }
    }
    if a.window > 1 << 40 {
        return Err(anyhow::anyhow!("--window {} is larger than 2^40", a.window));
    }
    let c = crate::plan::Constraints {
        window: a.window,
        fpr: a.fpr,
        max_npws: a.max_npws,
        max_bits_per_element: a.max_bits_per_element,
    };
    let (ok, rejected) = crate::plan::plan(&c);
    if a.json {
        print_json(&a, &ok, &rejected);
    } else {
        print_table(&ok, &rejected);
    }
    Ok(())
}

/// The plan as one JSON object.
fn print_json(a: &PlanArgs, ok: &[Candidate], rejected: &[Rejected]) {
    let cands: Vec<serde_json::Value> = ok
            .iter()
            .map(|x| {
                serde_json::json!({
                    "design": x.design,
                    "params": x.params.iter().map(|(k, v)| (k.to_string(), v.to_json())).collect::<serde_json::Map<_, _>>(),
                    "memory_bits": x.memory_bits,
                    "bits_per_element": x.bits_per_element,
                    "fpr": x.fpr,
                    "window": x.window,
                    "slack": x.slack,
                    "npws_peak": x.npws_peak,
                    "insert_bits": x.insert_bits,
                    "query_probes": x.query_probes,
                })
            })
            .collect();
    let rej: Vec<serde_json::Value> = rejected
        .iter()
        .map(|r| serde_json::json!({"design": r.design, "reason": r.reason}))
        .collect();
    println!(
        "{}",
        serde_json::json!({"window": a.window, "fpr": a.fpr, "candidates": cands, "rejected": rej})
    );
}

/// The plan as a table, one line per design.
fn print_table(ok: &[Candidate], rejected: &[Rejected]) {
    println!(
        "{:<14} {:<40} {:>12} {:>8} {:>10} {:>10} {:>10} {:>7} {:>10} {:>9}",
        "design",
        "parameters",
        "memory bits",
        "bits/el",
        "FPR",
        "window",
        "slack",
        "NPWS",
        "write bits",
        "neg reads"
    );
    for x in ok {
        let params = x
            .params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ");
        println!(
            "{:<14} {:<40} {:>12} {:>8.2} {:>10} {:>10} {:>10} {:>7.4} {:>10} {:>9}",
            x.design,
            params,
            x.memory_bits,
            x.bits_per_element,
            report::fmt_num(x.fpr),
            x.window,
            x.slack,
            x.npws_peak,
            x.insert_bits,
            x.query_probes.map_or("-".into(), |p| format!("{p:.2}"))
        );
    }
    for r in rejected {
        println!("{:<14} cannot: {}", r.design, r.reason);
    }
    println!(
        "write bits: bits written per insertion; neg reads: expected reads of a negative query, \
         in the design's own unit (slices for the APBF and the segmented filters, timestamp \
         cells for the TBF, slots for Naor-Yogev, SWAMP and SWBF, entries compared for ny_pocket; - where no tested theory gives it)"
    );
}
