//! What a result column means, in words and with its unit: the axis labels
//! of the charts come from here, never from the raw column names. The
//! definitions behind each name are in docs/metrics.md and in the module of
//! the pass that measures it.

/// (column, what it is, unit or "" for a pure number).
const COLUMNS: &[(&str, &str, &str)] = &[
    // sizes and parameters
    ("memory_bits", "memory", "bits"),
    ("memory_bytes", "memory", "bytes"),
    ("bits_per_element", "memory per window key", "bits"),
    ("window", "window W", "insertions"),
    ("log2_window", "window W", "log2 insertions"),
    ("slack", "slack", "insertions"),
    ("c", "Naor-Yogev c", ""),
    ("k", "hash functions k", ""),
    ("l", "slices l", ""),
    ("g", "generation size g", "insertions"),
    ("m", "cells m", ""),
    ("d", "cell bits d", ""),
    ("fpr", "false-positive rate (worst phase)", ""),
    ("zipf", "Zipf exponent", ""),
    ("max_load", "maximum load", ""),
    ("queries", "queries", ""),
    ("replay_fraction", "replayed share of queries", ""),
    ("arrivals_ratio", "burst rate / base rate", ""),
    ("arrivals_amplitude", "daily rate amplitude", ""),
    ("threads", "threads", ""),
    // measured figures
    ("fpr_avg", "false-positive rate (averaged over phases)", ""),
    (
        "fpr_theory",
        "predicted false-positive rate (worst phase)",
        "",
    ),
    (
        "sustained_fpr",
        "sustained false-positive rate under attack",
        "",
    ),
    (
        "seen_fpr",
        "error on seen keys past the window (the code's FPR)",
        "",
    ),
    (
        "seen_fnr",
        "keys in the window answered no (the code's FNR)",
        "",
    ),
    (
        "seen_negative_fpr",
        "false-positive rate on never-inserted keys (the code's)",
        "",
    ),
    (
        "fpr_time_peak",
        "false-positive rate at the worst moment",
        "",
    ),
    ("fnr_time", "keys younger than T answered no", "share"),
    (
        "p_yes_past_window",
        "keys older than T answered yes",
        "share",
    ),
    (
        "npws_peak",
        "probability-weighted slack / W (worst phase)",
        "",
    ),
    (
        "npws_avg",
        "probability-weighted slack / W (phase-averaged)",
        "",
    ),
    (
        "space_bound_per_element",
        "Naor-Yogev space bound per window key",
        "bits",
    ),
    ("memory_over_bound", "memory / Naor-Yogev space bound", ""),
    (
        "memory_over_bound_mn",
        "memory / Naor-Yogev bound at m = n",
        "",
    ),
    (
        "adaptivity_bits_per_element",
        "adaptivity memory per window key",
        "bits",
    ),
    (
        "insert_probes_p999",
        "slot reads per insertion, 99.9th percentile",
        "",
    ),
    ("max_probes", "slot reads per insertion, maximum", ""),
    ("count_rmse", "frequency estimate RMSE", "occurrences"),
    ("distinct_rel_rmse", "distinct count relative RMSE", ""),
    (
        "distinct_lb_rel_rmse",
        "distinct count (lower bound) relative RMSE",
        "",
    ),
    ("entropy_error", "entropy error H - Ĥ", "bits"),
    ("entropy_error_theory", "expected entropy error", "bits"),
    ("insert_ns", "time per insertion", "ns"),
    (
        "insert_p999_ns",
        "time per insertion, 99.9th percentile",
        "ns",
    ),
    ("query_ns", "time per query (half positive)", "ns"),
    ("query_pos_ns", "time per positive query", "ns"),
    ("query_neg_ns", "time per negative query", "ns"),
    (
        "query_neg_batched_ns",
        "time per negative query (batched)",
        "ns",
    ),
    ("ns_per_op", "time per operation", "ns"),
    ("mops_per_s", "throughput", "million operations per second"),
    ("probes_negative", "cells read by a negative query", ""),
    (
        "lines_query_negative",
        "64-byte lines a never-inserted key's query reads",
        "",
    ),
    (
        "lines_query_positive",
        "64-byte lines a query of a key in the window reads",
        "",
    ),
    (
        "lines_insert",
        "64-byte lines an insertion reads or writes",
        "",
    ),
];

/// What `column` is, in words, and its unit ("" for a pure number); a
/// `target_X` column is the target of X. `None` for a column with no
/// definition here.
pub fn describe(column: &str) -> Option<(String, &'static str)> {
    if let Some(&(_, what, unit)) = COLUMNS.iter().find(|c| c.0 == column) {
        return Some((what.to_string(), unit));
    }
    let base = column.strip_prefix("target_")?;
    let (what, unit) = describe(base)?;
    Some((format!("target {what}"), unit))
}

/// An axis label: the column's description with its unit in parentheses,
/// or the column's own name where it has no description.
pub fn axis_label(column: &str) -> String {
    match describe(column) {
        Some((what, "")) => what,
        Some((what, unit)) => format!("{what} ({unit})"),
        None => column.replace('_', " "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_carry_units_and_targets() {
        assert_eq!(axis_label("memory_bits"), "memory (bits)");
        assert_eq!(
            axis_label("target_fpr"),
            "target false-positive rate (worst phase)"
        );
        assert_eq!(axis_label("target_window"), "target window W (insertions)");
        assert_eq!(axis_label("unknown_col"), "unknown col");
        assert!(describe("target_unknown").is_none());
    }

    #[test]
    fn no_column_is_defined_twice() {
        let mut names: Vec<&str> = COLUMNS.iter().map(|c| c.0).collect();
        names.sort();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n);
    }
}
