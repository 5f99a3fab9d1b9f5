//! Every `bloomlab` command line shown in README.md and docs/ goes through
//! the argument parser (not the experiment), so documented commands cannot
//! rot. Synopsis lines with placeholders (`[--json]`, `<spec>`, `DESIGN`)
//! are skipped; concrete commands are parsed, and for `theory` / `measure`
//! the design's own parameter conversion runs too.

use std::path::{Path, PathBuf};

/// The markdown files: README.md and everything under docs/.
fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// Candidate command texts: each line of a fenced block, and each inline
/// code span (joined across line breaks) with more than a command name
/// (`bloomlab run` in prose names the command).
fn snippets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    let mut prose = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            out.push(line.trim().trim_start_matches("$ ").to_string());
        } else {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    for (i, span) in prose.split('`').enumerate() {
        let words: Vec<&str> = span.split_whitespace().collect();
        let name_only = words.len() <= 2 && words.first() == Some(&"bloomlab");
        if i % 2 == 1 && !name_only {
            out.push(words.join(" "));
        }
    }
    out
}

/// The arguments after `bloomlab`, if the snippet is a concrete command.
fn command_args(snippet: &str) -> Option<Vec<String>> {
    let rest = if let Some(i) = snippet.find("cargo run --release -- ") {
        &snippet[i + "cargo run --release -- ".len()..]
    } else if let Some(r) = snippet.strip_prefix("bloomlab ") {
        r
    } else {
        snippet.strip_prefix("target/release/bloomlab ")?
    };
    // a trailing comment, a pipe or a redirection ends the command
    let rest = rest.split(" #").next().unwrap();
    let rest = rest.split(" | ").next().unwrap();
    let rest = rest.split(" > ").next().unwrap();
    let args: Vec<String> = rest
        .split_whitespace()
        .map(|a| a.trim_matches('"').to_string())
        .collect();
    let placeholder = |a: &String| {
        a.contains(['[', ']', '<', '>', '|', '(', ')'])
            || a.contains("...")
            || (a.chars().all(|c| c.is_ascii_uppercase() || c == '_') && !a.is_empty())
    };
    if args.is_empty() || args.iter().any(placeholder) {
        return None;
    }
    Some(args)
}

/// Every `--example NAME` and `--bin NAME` the README and docs run is an
/// example (`examples/NAME.rs`) or a binary (`src/bin/NAME.rs`) of the
/// package they name (`-p bloomlab-filters` or `-p bloomlab-bench`): two
/// were deleted while docs/experiments.md still ran them. `.ci/run` runs
/// them.
#[test]
fn every_documented_example_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = 0;
    for file in documents() {
        let text = std::fs::read_to_string(&file).unwrap().replace('\n', " ");
        let words: Vec<&str> = text.split_whitespace().collect();
        for (i, w) in words.iter().enumerate() {
            let folder = match *w {
                "--example" => "examples",
                "--bin" => "src/bin",
                _ => continue,
            };
            let name = words[i + 1].trim_matches(|c: char| !c.is_alphanumeric() && c != '_');
            let Some(package) = words[..i]
                .iter()
                .rev()
                .take_while(|w| **w != "cargo")
                .find_map(|w| w.strip_prefix("bloomlab-"))
            else {
                // `cargo run --bin bloomlab` and the like: the harness's own
                assert_eq!(
                    folder,
                    "src/bin",
                    "{}: a -p package before --example",
                    file.display()
                );
                continue;
            };
            let dir = match package {
                "filters" => "filters",
                "bench" => "bench",
                other => panic!("{}: {w} {name} in package {other}", file.display()),
            };
            let path = root.join(dir).join(folder).join(format!("{name}.rs"));
            assert!(
                path.exists(),
                "{}: {w} {name}: no {}",
                file.display(),
                path.display()
            );
            found += 1;
        }
    }
    assert!(
        found >= 5,
        "only {found} documented examples and binaries found"
    );
}

#[test]
fn every_documented_command_parses() {
    let mut checked = 0;
    for file in documents() {
        let text = std::fs::read_to_string(&file).unwrap();
        for snippet in snippets(&text) {
            let Some(args) = command_args(&snippet) else {
                continue;
            };
            let argv = std::iter::once("bloomlab".to_string()).chain(args.iter().cloned());
            let m = bloomlab_harness::cli::parse(argv.map(Into::into)).unwrap_or_else(|e| {
                panic!(
                    "{}: `bloomlab {}` does not parse: {e}",
                    file.display(),
                    args.join(" ")
                )
            });
            if let Some((cmd @ ("theory" | "measure"), sub)) = m.subcommand() {
                let (design, dm) = sub.subcommand().unwrap();
                let d = bloomlab_harness::designs::lookup(design).unwrap();
                d.params_from(dm).unwrap_or_else(|e| {
                    panic!(
                        "{}: `bloomlab {cmd} {}`: {e}",
                        file.display(),
                        args.join(" ")
                    )
                });
            }
            checked += 1;
        }
    }
    // the README and the docs show dozens; finding few means the scan broke
    eprintln!("{checked} documented commands parsed");
    assert!(checked >= 40, "only {checked} documented commands found");
}

#[test]
fn placeholders_are_skipped_and_commands_found() {
    assert_eq!(
        command_args("bloomlab theory DESIGN <parameters> [--json]"),
        None
    );
    assert_eq!(
        command_args("cargo run --release -- plan --window 1000 --fpr 1e-3   # instantly"),
        Some(
            vec!["plan", "--window", "1000", "--fpr", "1e-3"]
                .into_iter()
                .map(String::from)
                .collect()
        )
    );
    assert_eq!(command_args("cargo bench -p bloomlab-bench"), None);
}

/// docs/regression.md, "The test command's build": `cargo test --release`
/// after `cargo run --release` reuses the run's build, which holds only if
/// every crate the run compiles has the same features in the test build
/// (the filters crate's tests turn its `serde` on, so the harness does too;
/// without that the test build recompiled the filters crate and the
/// harness). Compared by `cargo tree`'s features, the run's (the harness
/// without dev-dependencies) against the test build's.
#[test]
fn the_test_build_reuses_the_runs_crates() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let tree = |args: &[&str]| -> std::collections::BTreeSet<String> {
        let out = std::process::Command::new(env!("CARGO"))
            .current_dir(&root)
            .args(["tree", "--offline", "--prefix", "none", "-f", "{p} {f}"])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| l.trim_end_matches(" (*)").to_string())
            .collect()
    };
    let run = tree(&["-p", "bloomlab-harness", "-e", "no-dev"]);
    let test = tree(&["-p", "bloomlab-harness", "-p", "bloomlab-filters"]);
    assert!(run.len() > 50, "{run:?}");
    let differ: Vec<&String> = run.difference(&test).collect();
    assert!(
        differ.is_empty(),
        "built with other features by cargo test: {differ:?}"
    );
}
