//! Every design of the crate's one list (`for_each_design!`) has a
//! conformance arm (`tests/conformance/`) and a benchmark entry
//! (`bench/benches/`): a design added to the list and left out of either
//! fails here. (The persistence suites, fixtures, serde and `Send + Sync`
//! expand the list itself, so they cannot leave one out.)

use std::path::Path;

/// The designs that reach a suite under another name, and where.
const ELSEWHERE: &[(&str, &str, &str)] = &[
    // (design, suite, what stands for it there)
    ("OnTime<Apbf>", "conformance", "TimedApbf"),
    ("BroomFilter", "bench", "Broom"),
    // window summaries: their promises (estimates against exact counts)
    // are tested in swamp_vs_simulation.rs, not by the filters' arms
    ("SlidingHll", "conformance", "swamp_vs_simulation.rs"),
    ("Swlc", "conformance", "swamp_vs_simulation.rs"),
];

/// The sources under `dir` as one text, whitespace and crate paths
/// removed, turbofish written as a type.
fn sources(dir: &Path) -> String {
    let mut text = String::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "rs") {
            text += &std::fs::read_to_string(&p).unwrap();
        }
    }
    normalise(&text)
}

fn normalise(s: &str) -> String {
    let s: String = s.split_whitespace().collect();
    s.replace("::<", "<").replace("bloomlab_filters::", "")
}

/// Whether `name` stands in `text` as a whole word.
fn names(text: &str, name: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

#[test]
fn every_design_has_a_conformance_arm_and_a_benchmark() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let suites = [
        ("conformance", sources(&root.join("tests/conformance"))),
        ("bench", sources(&root.join("../bench/benches"))),
    ];
    let mut missing = Vec::new();
    for t in bloomlab_filters::designs::type_names() {
        for (suite, text) in &suites {
            let stand_in = ELSEWHERE
                .iter()
                .find(|(d, s, _)| *d == t && s == suite)
                .map(|e| e.2);
            let found = match stand_in {
                Some(file) if file.ends_with(".rs") => {
                    let other = std::fs::read_to_string(root.join("tests").join(file)).unwrap();
                    names(&normalise(&other), &t)
                }
                Some(other) => names(text, other),
                None => names(text, &t),
            };
            if !found {
                missing.push(format!("{t}: no {suite} entry"));
            }
        }
    }
    assert!(missing.is_empty(), "{missing:#?}");
}

/// The storage layer names no design and does not expand the list of
/// them: each design declares its `Persist` and serde beside its type
/// (`persists!`), so `persist` imports none of them (doc comments and unit
/// tests aside).
#[test]
fn persist_names_no_design() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/persist");
    let mut named = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let text = std::fs::read_to_string(&p).unwrap();
        let code: String = text
            .split("#[cfg(test)]\nmod tests")
            .next()
            .unwrap()
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        if code.contains("for_each_design") {
            named.push(format!("{}: expands the list of designs", p.display()));
        }
        for t in bloomlab_filters::designs::type_names() {
            let plain = t.split('<').next().unwrap().to_string();
            if plain != "OnTime" && names(&code, &plain) {
                named.push(format!("{}: {plain}", p.display()));
            }
        }
    }
    assert!(named.is_empty(), "{named:#?}");
}
