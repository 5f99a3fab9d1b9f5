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
    let mut names: Vec<&str> = col::TABLE.iter().map(|c| c.col.name()).collect();
    names.sort();
    let n = names.len();
    names.dedup();
    assert_eq!(names.len(), n);
}

#[test]
fn a_part_resolves_to_its_figure_before_a_column_of_its_own_name() {
    // fpr_theory has words of its own, but its range is fpr's
    assert_eq!(
        resolve("fpr_theory"),
        Some(Resolved::Part(col::FPR.column(), Part::Theory))
    );
    assert_eq!(
        resolve("npws_peak_theory_in_ci"),
        Some(Resolved::Part(col::NPWS_PEAK.column(), Part::TheoryInCi))
    );
    assert_eq!(
        resolve("target_window"),
        Some(Resolved::Target(col::WINDOW.column()))
    );
    assert_eq!(resolve("fpr_avgg"), None);
    assert_eq!(resolve("target_fpr_ci_low"), None);
}

/// Every column of every committed CSV is registered (or a part or target
/// of a registered one): what the runs wrote before the registry existed.
#[test]
fn every_committed_column_is_registered() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../results");
    let mut files = vec![dir.clone()];
    let mut missing = std::collections::BTreeSet::new();
    let mut read = 0;
    while let Some(p) = files.pop() {
        if p.is_dir() {
            files.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        if p.extension().is_none_or(|x| x != "csv") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        for name in text.lines().next().unwrap_or("").split(',') {
            if resolve(name).is_none() {
                missing.insert(format!("{name} ({})", p.display()));
            }
        }
        read += 1;
    }
    assert!(read > 50, "{read}");
    assert!(
        missing.is_empty(),
        "not in metrics/columns/col.rs: {missing:#?}"
    );
}

/// No row of the harness is written with a column name spelled as a
/// literal: `Row::num` and `Row::push` take the registry's constants (a
/// name made at run time is checked when the point's rows are, see
/// `PointRows::check`). Unit-test modules are left out.
#[test]
fn no_row_column_is_spelled_outside_the_registry() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![src];
    let mut found = Vec::new();
    while let Some(p) = files.pop() {
        if p.is_dir() {
            files.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if !name.ends_with(".rs") || name == "tests.rs" || p.ends_with("columns/col.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        let code = text.split("\n#[cfg(test)]\nmod tests").next().unwrap();
        let flat: String = code.split_whitespace().collect::<Vec<_>>().join(" ");
        for (i, _) in flat.match_indices(".num(\"") {
            found.push(format!(
                "{}: {}",
                p.display(),
                &flat[i..(i + 50).min(flat.len())]
            ));
        }
        for (i, _) in flat.match_indices(".push(\"") {
            let rest = &flat[i..(i + 120).min(flat.len())];
            let args = rest.split(')').next().unwrap_or("");
            if args.contains("Value::") {
                found.push(format!("{}: {rest}", p.display()));
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}
