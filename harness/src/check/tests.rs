//! Tests of the regression check.

use super::*;

fn row(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

const T: Thresholds = Thresholds {
    alpha: 0.01,
    speed_tolerance: 2.0,
    ci_level: 0.99,
    tests: 2,
    pooled_tests: 1,
};

#[test]
fn identical_runs_pass_and_changes_are_caught() {
    let base = vec![
        row(&[
            ("point", "0"),
            ("design", "a"),
            ("fpr", "0.01"),
            ("fpr_ci_low", "0.009"),
            ("fpr_ci_high", "0.011"),
            ("memory_bits", "100"),
            ("insert_ns", "50"),
        ]),
        row(&[
            ("point", "1"),
            ("design", "b"),
            ("fpr", "0.02"),
            ("fpr_ci_low", "0.018"),
            ("fpr_ci_high", "0.022"),
            ("memory_bits", "200"),
            ("insert_ns", "100"),
        ]),
        row(&[("point", "2"), ("design", "c"), ("insert_ns", "80")]),
    ];
    let tests = count_tests(&base);
    assert_eq!(tests, 2);
    assert!(compare(
        "x",
        (&base, &base),
        &[crate::metrics::columns::col::POINT],
        &T
    )
    .is_empty());
    // noise: a shift well inside the intervals
    let mut noisy = base.clone();
    noisy[1].insert("fpr".into(), "0.0205".into());
    assert!(compare(
        "x",
        (&base, &noisy),
        &[crate::metrics::columns::col::POINT],
        &T
    )
    .iter()
    .all(|f| !f.regression));
    // a real change of the FPR
    let mut worse = base.clone();
    worse[1].insert("fpr".into(), "0.04".into());
    assert!(compare(
        "x",
        (&base, &worse),
        &[crate::metrics::columns::col::POINT],
        &T
    )
    .iter()
    .any(|f| f.regression && f.column == "fpr"));
    // memory must match exactly
    let mut mem = base.clone();
    mem[0].insert("memory_bits".into(), "101".into());
    assert!(compare(
        "x",
        (&base, &mem),
        &[crate::metrics::columns::col::POINT],
        &T
    )
    .iter()
    .any(|f| f.regression && f.column == "memory_bits"));
    // speed: the whole machine 3x slower is not a regression, one design 3x slower is
    let mut slow_machine = base.clone();
    slow_machine[0].insert("insert_ns".into(), "150".into());
    slow_machine[1].insert("insert_ns".into(), "300".into());
    slow_machine[2].insert("insert_ns".into(), "240".into());
    assert!(compare(
        "x",
        (&base, &slow_machine),
        &[crate::metrics::columns::col::POINT],
        &T
    )
    .is_empty());
    let mut slow_design = base.clone();
    slow_design[1].insert("insert_ns".into(), "300".into());
    assert!(compare(
        "x",
        (&base, &slow_design),
        &[crate::metrics::columns::col::POINT],
        &T
    )
    .iter()
    .any(|f| f.regression && f.column == "insert_ns"));
    // a theory column that drifted
    let mut th = base.clone();
    th[0].insert("fpr_theory".into(), "0.0101".into());
    let mut b2 = base.clone();
    b2[0].insert("fpr_theory".into(), "0.01".into());
    assert!(
        compare("x", (&b2, &th), &[crate::metrics::columns::col::POINT], &T)
            .iter()
            .any(|f| f.regression && f.column == "fpr_theory")
    );
    // a missing row
    assert!(compare(
        "x",
        (&base, &base[..1].to_vec()),
        &[crate::metrics::columns::col::POINT],
        &T
    )
    .iter()
    .any(|f| f.regression));
}

fn one_row() -> Table {
    vec![row(&[
        ("point", "0"),
        ("design", "a"),
        ("fpr", "0.01"),
        ("fpr_ci_low", "0.009"),
        ("fpr_ci_high", "0.011"),
        ("memory_bits", "100"),
    ])]
}

/// The findings of a baseline corrupted by `edit`, against a clean run.
fn corrupted(edit: impl Fn(&mut Table)) -> Vec<Finding> {
    let mut base = one_row();
    edit(&mut base);
    compare(
        "x",
        (&base, &one_row()),
        &[crate::metrics::columns::col::POINT],
        &T,
    )
}

#[test]
fn a_corrupted_baseline_fails() {
    for bad in ["NaN", "abc", "inf"] {
        let f = corrupted(|b| {
            b[0].insert("fpr".into(), bad.into());
        });
        assert!(
            f.iter().any(|f| f.regression && f.column == "fpr"),
            "{bad}: {f:?}"
        );
    }
    let f = corrupted(|b| {
        b[0].insert("fpr_ci_high".into(), "inf".into());
    });
    assert!(
        f.iter()
            .any(|f| f.regression && f.measure.contains("fpr_ci_high")),
        "{f:?}"
    );
    for col in ["fpr_ci_low", "memory_bits"] {
        let f = corrupted(|b| {
            b[0].remove(col);
        });
        assert!(
            f.iter().any(|f| f.regression && f.column == col),
            "{col}: {f:?}"
        );
    }
    let f = corrupted(|b| {
        let r = b[0].clone();
        b.push(r);
    });
    assert!(
        f.iter().any(|f| f.regression && f.new == "duplicate"),
        "{f:?}"
    );
    let f = corrupted(|b| {
        b[0].insert("fpr".into(), String::new());
    });
    assert!(f.iter().any(|f| f.regression && f.column == "fpr"), "{f:?}");
    // and the clean baseline passes
    assert!(corrupted(|_| {}).is_empty());
}

#[test]
fn an_empty_baseline_is_an_error_naming_the_file() {
    let d = tempfile::tempdir().unwrap();
    for (name, text) in [("empty.csv", ""), ("header.csv", "point,fpr\n")] {
        let p = d.path().join(name);
        std::fs::write(&p, text).unwrap();
        let e = read_table(&p).unwrap_err().to_string();
        assert!(e.contains(name), "{e}");
    }
}

/// A bias that moves every row the same way by about 1.5 standard errors:
/// no row fails alone, the pooled tests fail the column.
#[test]
fn a_consistent_small_bias_fails_the_pooled_tests() {
    let rows = |shift: f64| -> Table {
        (0..30)
            .map(|i| {
                let noise = ((i * 7919) % 13) as f64 / 13.0 - 0.5;
                let x = 0.01 * (1.0 + 0.002 * noise) * (1.0 + shift);
                row(&[
                    ("point", &i.to_string()),
                    ("fpr", &x.to_string()),
                    ("fpr_ci_low", &(x - 0.000_258).to_string()),
                    ("fpr_ci_high", &(x + 0.000_258).to_string()),
                ])
            })
            .collect()
    };
    let base = rows(0.0);
    let t = Thresholds {
        tests: count_tests(&base),
        pooled_tests: count_pooled(&base),
        ..T
    };
    assert_eq!(t.pooled_tests, 1);
    assert!(compare(
        "x",
        (&base, &base),
        &[crate::metrics::columns::col::POINT],
        &t
    )
    .is_empty());
    // 2% low: each row about 2 standard errors, under the row threshold
    let low = rows(-0.02);
    let f = compare(
        "x",
        (&base, &low),
        &[crate::metrics::columns::col::POINT],
        &t,
    );
    assert!(
        f.iter().all(|f| f.point == "(all rows)" || !f.regression),
        "{f:?}"
    );
    assert!(
        f.iter()
            .any(|f| f.point == "(all rows)" && f.column == "fpr" && f.regression),
        "{f:?}"
    );
    // the power table says so: a 2% shift is within reach, pooled, and not
    // in any one row
    let p = power(&base, &t, &[crate::metrics::columns::col::FPR]);
    assert!(
        p[0].pooled.unwrap() < 0.02 && p[0].best_row.unwrap() > 0.02,
        "{p:?}"
    );
}

/// Memory that follows the stream (SWAMP's table) is compared within the
/// stream tolerance; memory fixed by the parameters, exactly.
#[test]
fn stream_memory_within_tolerance_fixed_memory_exactly() {
    let one = |design: &str, mem: &str| -> Table {
        vec![row(&[
            ("point", "0"),
            ("design", design),
            ("memory_bits", mem),
        ])]
    };
    let t = Thresholds { tests: 1, ..T };
    assert!(compare(
        "x",
        (&one("swamp", "1000000"), &one("swamp", "1009000")),
        &[crate::metrics::columns::col::POINT],
        &t
    )
    .is_empty());
    assert!(compare(
        "x",
        (&one("swamp", "1000000"), &one("swamp", "1030000")),
        &[crate::metrics::columns::col::POINT],
        &t
    )
    .iter()
    .any(|f| f.regression));
    assert!(compare(
        "x",
        (&one("apbf", "1000000"), &one("apbf", "1000001")),
        &[crate::metrics::columns::col::POINT],
        &t
    )
    .iter()
    .any(|f| f.regression));
}

#[test]
fn pooled_tests_are_counted_per_column_with_an_interval_in_three_rows() {
    let r = |cols: &[&str]| {
        let mut pairs: Vec<(String, String)> = Vec::new();
        for c in cols {
            pairs.push((c.to_string(), "0.5".into()));
            pairs.push((format!("{c}_ci_low"), "0.4".into()));
            pairs.push((format!("{c}_ci_high"), "0.6".into()));
        }
        // a column with only a lower bound has no interval
        pairs.push(("x".into(), "1".into()));
        pairs.push(("x_ci_low".into(), "0".into()));
        pairs.into_iter().collect::<BTreeMap<String, String>>()
    };
    let base: Table = vec![
        r(&["fpr", "fnr", "npws"]),
        r(&["fpr", "fnr", "npws"]),
        r(&["fpr", "fnr"]),
        r(&["fpr"]),
    ];
    // fpr (4 rows) and fnr (3); npws has 2, x no interval
    assert_eq!(count_pooled(&base), 2);
}

#[test]
fn detectable_shifts_by_their_formulas() {
    // pooled: (z(alpha/4) + z(1 - power)) sqrt(n) / sum, z(0.0025) =
    // 2.807034 and z(0.1) = 1.281552
    let d = pooled_shift(&[100.0; 16], 0.01, 0.9).unwrap();
    assert!(
        (d - (2.807034 + 1.281552) * 4.0 / 1600.0).abs() < 1e-6,
        "{d}"
    );
    // the best row: non-finite and non-positive signals are left out
    let r = row_shift(&[f64::INFINITY, -50.0, 10.0], 4.0, 0.9).unwrap();
    assert!((r - (4.0 + 1.281552) / 10.0).abs() < 1e-6, "{r}");
    assert_eq!(row_shift(&[0.0, -1.0, f64::NAN], 4.0, 0.9), None);
}

#[test]
fn power_reads_each_row_s_standard_error_from_its_interval() {
    // FPR 0.01 with a 99% interval of width 0.002 in each of 4 rows: the
    // difference of two such runs has standard error 0.002 / (2 z) sqrt(2)
    let r = || {
        row(&[
            ("fpr", "0.01"),
            ("fpr_ci_low", "0.009"),
            ("fpr_ci_high", "0.011"),
        ])
    };
    let base: Table = vec![r(), r(), r(), r()];
    let z = 2.5758293035489;
    let signal = 0.01 / (0.002 / (2.0 * z) * std::f64::consts::SQRT_2);
    let p = power(
        &base,
        &T,
        &[
            crate::metrics::columns::col::FPR,
            crate::metrics::columns::col::FNR,
        ],
    );
    assert_eq!(p.len(), 1, "fnr has no rows");
    assert_eq!((p[0].column.as_str(), p[0].rows), ("fpr", 4));
    let want = pooled_shift(&[signal; 4], T.pooled_alpha(), 0.9).unwrap();
    assert!((p[0].pooled.unwrap() - want).abs() < 1e-9 * want);
    let best = row_shift(&[signal; 4], T.z_fail(), 0.9).unwrap();
    assert!((p[0].best_row.unwrap() - best).abs() < 1e-9 * best);
}

/// A baseline whose interval cannot be one fails the check instead of
/// passing every run: [-1e308, 1e308] around an FPR (it hid a 50x shift),
/// low above high, a value outside its interval (issue 55).
#[test]
fn a_baseline_with_an_impossible_interval_fails() {
    for (lo, hi, needle) in [
        ("-1e308", "1e308", "fpr_ci_low"),
        ("0.011", "0.009", "inverted"),
        ("0.02", "0.03", "outside its interval"),
    ] {
        let f = corrupted(|b| {
            b[0].insert("fpr_ci_low".into(), lo.into());
            b[0].insert("fpr_ci_high".into(), hi.into());
        });
        assert!(
            f.iter()
                .any(|f| f.regression && f.column == "fpr" && f.measure.contains(needle)),
            "[{lo}, {hi}]: {f:?}"
        );
    }
    // and so does a run's
    let mut run = one_row();
    run[0].insert("fpr_ci_low".into(), "0.5".into());
    let f = compare(
        "x",
        (&one_row(), &run),
        &[crate::metrics::columns::col::POINT],
        &T,
    );
    assert!(
        f.iter()
            .any(|f| f.regression && f.measure.starts_with("run ")),
        "{f:?}"
    );
}
