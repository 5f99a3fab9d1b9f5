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

/// Every `.rs` file under `dir`, recursively, as one normalised text.
fn sources_deep(dir: &Path) -> String {
    let mut text = String::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                text += &std::fs::read_to_string(&p).unwrap();
            }
        }
    }
    normalise(&text)
}

/// The designs whose `new` takes another design's shape (they share it).
const SHARED_SHAPES: &[(&str, &str)] = &[
    ("OnTime<Apbf>", "ApbfShape"),
    ("ConcurrentApbf", "BlockedApbfShape"),
    ("ConcurrentLineApbf", "LineApbfShape"),
    ("Broom", "BroomShape"),
];

#[test]
fn every_design_takes_one_named_shape() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = sources_deep(&root.join("src"));
    let lib = normalise(&std::fs::read_to_string(root.join("src/lib.rs")).unwrap());
    let mut wrong = Vec::new();
    for t in bloomlab_filters::designs::type_names() {
        // OnTime<F> over a count design is made by OnTime::wrap
        if t.starts_with("OnTime<") && t != "OnTime<Apbf>" {
            continue;
        }
        // the `new` of one of the type's inherent impl blocks
        let block = format!("impl{t}{{");
        let new = src.match_indices(&block).find_map(|(at, _)| {
            let body = &src[at + block.len()..];
            let end = body.find("impl").unwrap_or(body.len());
            body[..end]
                .find("pubfnnew(")
                .map(|i| at + block.len() + i + "pubfnnew(".len())
        });
        let Some(new) = new else {
            wrong.push(format!("{t}: no pub fn new in its impl blocks"));
            continue;
        };
        let shape = SHARED_SHAPES
            .iter()
            .find(|(d, _)| *d == t)
            .map(|(_, s)| s.to_string())
            .unwrap_or_else(|| {
                let args = &src[new..];
                let ty = args.strip_prefix("shape:").unwrap_or("");
                ty[..ty.find([',', ')']).unwrap_or(0)].to_string()
            });
        if !src[new..].starts_with(&format!("shape:{shape}")) || !shape.ends_with("Shape") {
            wrong.push(format!("{t}: new does not take a named shape first"));
        } else if !names(&lib, &shape) {
            wrong.push(format!("{t}: {shape} is not re-exported at the crate root"));
        }
    }
    // the sized constructors are the builder's options, not public doors
    for old in [
        "with_fpr",
        "with_fpr_and_l",
        "with_fpr_kl",
        "with_fpr_for",
        "with_c",
        "from_sizing",
        "with_error",
        "with_default_blocks",
    ] {
        if src.contains(&format!("pubfn{old}(")) {
            wrong.push(format!(
                "a public {old} (size it through Target, or a shape's for_*)"
            ));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}
