//! Property tests of bloomlab's input paths: random and mutated specs, command
//! lines and trace bytes go to the parsers and the point preparation, which
//! must answer with a clean error or success and never panic. (A deeper,
//! coverage-guided run of the spec parser: `fuzz/`, see docs/promises.md.)

use bloomlab_harness::spec::Spec;
use bloomlab_harness::sweep::{self, Budget};
use proptest::prelude::*;
use std::io::Write;

/// Values that sit on or past the edges of what parameters accept.
const EDGES: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "5",
    "17",
    "100",
    "0.5",
    "-1",
    "1e-300",
    "1e18",
    "4294967295",
    "18446744073709551615",
    "nan",
    "inf",
    "-inf",
    "\"x\"",
    "[]",
    "{}",
    "true",
];

/// A valid spec whose every number and word a mutation may replace.
const BASE: &str = r#"name = "fuzz"
seed = 7
repeats = 1
metrics = ["fpr", "fnr", "memory", "npws", "accesses"]
[measure]
rounds = 2
max_fpr_queries = 2000
min_fpr_queries = 100
[workload]
kind = "distinct"
[[sweep]]
design = "apbf"
points = [{ k = 4, l = 3, g = 20 }]
[[sweep]]
design = "DESIGN"
points = [{ window = 256, fpr = 0.01 }]
[[plot]]
kind = "xy"
x = "window"
y = "fpr"
"#;

const DESIGNS: &[&str] = &[
    "apbf",
    "blocked_apbf",
    "stable",
    "naor_yogev",
    "ny_pocket",
    "broom",
    "swamp",
    "tbf",
    "swbf",
    "wcss",
    "swhll",
    "swlc",
    "jumping",
    "double_buffer",
    "a2",
    "forgetful",
    "nope",
];

/// Replaces the `n`-th token (number, word or string; only numbers with
/// `numbers`) of `text` by `by`.
fn mutate(text: &str, n: usize, by: &str, numbers: bool) -> String {
    let tokens: Vec<(usize, usize)> = {
        let b = text.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < b.len() {
            if b[i].is_ascii_alphanumeric() || b[i] == b'.' || b[i] == b'_' {
                let s = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.' || b[i] == b'_')
                {
                    i += 1;
                }
                if !numbers || text[s..i].parse::<f64>().is_ok() {
                    out.push((s, i));
                }
            } else {
                i += 1;
            }
        }
        out
    };
    let (s, e) = tokens[n % tokens.len()];
    format!("{}{by}{}", &text[..s], &text[e..])
}

/// Parses and, if it parses, prepares (builds every point and checks the
/// budget) under a 1 GiB limit: any answer but a panic is fine.
fn parse_and_prepare(text: &str) {
    if let Ok(spec) = Spec::parse(text) {
        let budget = Budget {
            memory: Some(1 << 30),
            threads: 1,
        };
        let _ = sweep::prepare(&spec, true, &budget);
    }
}

proptest! {
    // 256 cases each in CI; PROPTEST_CASES=N for a longer run
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256),
        ..ProptestConfig::default()
    })]

    #[test]
    fn mutated_specs_never_panic(
        design in 0..DESIGNS.len(),
        edits in proptest::collection::vec((0usize..400, 0..EDGES.len(), 0u8..4), 1..4),
    ) {
        let mut text = BASE.replace("DESIGN", DESIGNS[design]);
        for (at, by, kind) in edits {
            // mostly numbers (deep into preparation), sometimes any token
            text = mutate(&text, at, EDGES[by], kind > 0);
        }
        parse_and_prepare(&text);
    }

    #[test]
    fn random_text_never_panics_the_spec_parser(text in "\\PC{0,400}") {
        parse_and_prepare(&text);
    }

    #[test]
    fn spec_lines_shuffled_and_cut_never_panic(
        cut in 0usize..30,
        swap in (0usize..30, 0usize..30),
    ) {
        let mut lines: Vec<&str> = BASE.lines().collect();
        let n = lines.len();
        lines.swap(swap.0 % n, swap.1 % n);
        lines.truncate(n - cut % n);
        parse_and_prepare(&lines.join("\n"));
    }

    #[test]
    fn random_command_lines_never_panic(
        sub in 0usize..3,
        design in 0..DESIGNS.len(),
        flags in proptest::collection::vec((0usize..14, 0..EDGES.len()), 0..5),
    ) {
        const FLAGS: &[&str] = &[
            "--k", "--l", "--g", "--fpr", "--window", "--slack", "--m", "--d", "--p",
            "--segments", "--load", "--counters", "--registers", "--max-npws",
        ];
        let mut args: Vec<String> = vec!["bloomlab".into()];
        match sub {
            0 => args.extend(["theory".into(), DESIGNS[design].into()]),
            1 => args.extend(["plan".into(), "--window".into(), "1000".into()]),
            _ => args.push("designs".into()),
        }
        for (f, v) in flags {
            args.push(FLAGS[f].into());
            args.push(EDGES[v].trim_matches('"').into());
        }
        // parse errors, refusals and answers are all fine; a panic is not
        let code = bloomlab_harness::cli::main(args.iter().map(std::ffi::OsString::from));
        prop_assert!(code == 0 || code == 1 || code == 2, "exit {code} for {args:?}");
    }

    #[test]
    fn random_trace_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2000), gzip in any::<bool>()) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t");
        let data = if gzip {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gz.write_all(&bytes).unwrap();
            let mut out = gz.finish().unwrap();
            // and a truncated stream now and then
            let keep = out.len() - bytes.len() % 3;
            out.truncate(keep);
            out
        } else {
            bytes
        };
        std::fs::write(&p, &data).unwrap();
        let _ = bloomlab_harness::workload::Trace::load(&p, 1);
    }
}
