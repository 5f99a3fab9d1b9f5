//! The harness's layering ([`bloomlab_harness::LAYERS`]): every module is
//! in one layer, and no source file imports from its own layer's other
//! modules or from a layer above.

use bloomlab_harness::LAYERS;
use std::path::Path;

/// The layer of top-level module `m`, 0 at the top.
fn layer(m: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&m))
}

/// Every `crate::<module>` a file names outside comments and before its
/// unit tests (a test may drive its module from above, through `prepare`
/// and `run`).
fn imports(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("mod tests") {
            break;
        }
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.push(name);
            }
        }
        if code.contains("crate::{") {
            out.push("{".into());
        }
    }
    out
}

fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module of a source file (`src/sweep/point.rs`: sweep).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

#[test]
fn no_module_imports_from_its_layer_or_above() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    // every module is placed
    for line in lib.lines() {
        if let Some(m) = line
            .strip_prefix("pub mod ")
            .and_then(|l| l.strip_suffix(';'))
        {
            assert!(layer(m).is_some(), "module {m} is in no layer of LAYERS");
        }
    }
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut wrong = Vec::new();
    for f in files {
        let m = module_of(&src, &f);
        if m == "lib" || m == "main" {
            continue;
        }
        let own = layer(&m).unwrap_or_else(|| panic!("{m} is in no layer"));
        let text = std::fs::read_to_string(&f).unwrap();
        for to in imports(&text) {
            if to == m {
                continue;
            }
            match layer(&to) {
                Some(l) if l > own => {}
                _ => wrong.push(format!("{} -> {to}", f.display())),
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
}

/// The check itself sees an upward import and a grouped one.
#[test]
fn the_layer_check_sees_what_it_looks_for() {
    assert_eq!(
        imports("use crate::sweep::x; // crate::cli\nlet a = crate::report::y();"),
        ["sweep", "report"]
    );
    assert_eq!(imports("use crate::{a, b};"), ["{"]);
    assert_eq!(
        imports("use crate::spec;\nmod tests {\n use crate::cli;\n}"),
        ["spec"]
    );
    assert!(layer("cli") < layer("sweep"));
}

/// The APBF's sizing rule is written once, in `bloomlab_filters::apbf::choose`
/// (`apbf/sizing.rs`):
/// no other source of either crate (its tests apart) calls the theory's
/// choosers it is built from.
#[test]
fn the_apbf_sizing_rule_is_written_once() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    sources(&root.join("harness/src"), &mut files);
    sources(&root.join("filters/src"), &mut files);
    let home = [Path::new("apbf/sizing.rs"), Path::new("apbf/theory.rs")];
    let mut found = Vec::new();
    for f in files {
        if home.iter().any(|h| f.ends_with(h)) || f.to_string_lossy().contains("tests") {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        for line in text.lines() {
            if line.trim_start().starts_with("mod tests") {
                break;
            }
            let code = line.split("//").next().unwrap_or("");
            if ["choose_kl(", "choose_k(", "choose_kl_with_slack("]
                .iter()
                .any(|c| code.contains(c))
            {
                found.push(format!("{}: {}", f.display(), line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "size the APBF through apbf::choose: {found:#?}"
    );
}

/// No source file of either crate passes 500 lines before its unit tests
/// (a file that long is asking to be split).
#[test]
fn no_source_file_passes_500_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    sources(&root.join("harness/src"), &mut files);
    sources(&root.join("filters/src"), &mut files);
    let mut long = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        // up to the unit tests' module: a `#[cfg(test)]` on a `mod` (or a
        // `#[path]` to one), not one on a single item higher up
        let all: Vec<&str> = text.lines().collect();
        let lines = (0..all.len())
            .find(|&i| {
                all[i].starts_with("#[cfg(test)]")
                    && all[i + 1..]
                        .iter()
                        .find(|l| !l.trim().is_empty())
                        .is_some_and(|l| l.starts_with("mod ") || l.starts_with("#[path"))
            })
            .unwrap_or(all.len());
        if lines > 500 {
            long.push(format!("{}: {lines}", f.display()));
        }
    }
    assert!(long.is_empty(), "split these files: {long:#?}");
}
