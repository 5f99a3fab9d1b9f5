use super::*;

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join(name), text).unwrap();
}

const SPEC: &str = r#"
name = "tiny"
description = """
A tiny experiment (one design, e.g. this). It checks a <thing> & more."""
metrics = ["fpr"]
table_columns = ["design", "fpr", "fpr_theory"]
[[sweep]]
design = "apbf"
grid = { k = [3], l = [2], g = [100] }
[[plot]]
kind = "xy"
x = "fpr"
y = "fpr"
title = "a chart"
"#;

/// The site has an index and a page per experiment, escapes text, inlines
/// charts, highlights a theory outside its interval, links the docs that
/// name the spec, and says what is missing.
#[test]
fn the_site_holds_every_experiment() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    write(&root.join("experiments"), "tiny.toml", SPEC);
    write(
        &root.join("experiments"),
        "other.toml",
        &SPEC.replace("tiny", "other"),
    );
    write(
        &root.join("results"),
        "tiny.csv",
        "design,fpr,fpr_theory,fpr_theory_in_ci,fpr_paper_formula_in_ci\napbf,0.5,0.25,false,false\napbf,0.125,0.125,true,false\n",
    );
    write(&root.join("results"), "bench_ops.md", "# bench\n");
    write(
        &root.join("results"),
        "tiny.md",
        "# tiny\n\nProduced by `x`.\n\nRan on Some CPU, 2 logical CPUs, 24 GiB, linux x86_64, finished 2026-12-04 16:40 UTC.\n",
    );
    write(
        &root.join("plots"),
        "tiny.svg",
        "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"><rect/></svg>",
    );
    write(
        &root.join("docs"),
        "tiny.md",
        "see `experiments/tiny.toml`\n",
    );
    let files = vec![
        root.join("experiments/other.toml"),
        root.join("experiments/tiny.toml"),
    ];
    let dirs = SiteDirs {
        results: &root.join("results"),
        plots: &root.join("plots"),
        docs: &root.join("docs"),
        out: &root.join("site"),
    };
    let w = write_site(&dirs, &files).unwrap();
    assert_eq!(w.pages, 2);
    assert_eq!(w.charts, 1);
    assert!(w.missing_charts.is_empty());
    assert_eq!(w.not_run, vec!["other".to_string()]);
    let index = std::fs::read_to_string(root.join("site/index.html")).unwrap();
    assert!(index.contains("<a href=\"tiny.html\">tiny</a>"));
    assert!(index.contains("A tiny experiment (one design, e.g. this).</td>"));
    assert!(index.contains("<span class=\"miss\">1 of 2</span>"));
    assert!(index.contains("../results/bench_ops.md"));
    assert!(index.contains("not run"));
    assert!(
        index.contains("Ran on Some CPU, 2 logical CPUs"),
        "where it ran"
    );
    let page = std::fs::read_to_string(root.join("site/tiny.html")).unwrap();
    assert!(page.contains("&lt;thing&gt; &amp; more"));
    assert!(page.contains("<svg xmlns") && !page.contains("<?xml"));
    assert!(page.contains("<figcaption>a chart</figcaption>"));
    assert!(page.contains("<tr class=\"miss\">"));
    assert!(page.contains("<td class=\"miss\">no</td>"));
    assert!(page.contains("href=\"../docs/tiny.md\""));
    assert!(page.contains("cargo run --release -- run experiments/tiny.toml"));
    let other = std::fs::read_to_string(root.join("site/other.html")).unwrap();
    assert!(other.contains("Not run yet"));
    assert!(root.join("site/sort.js").exists() && root.join("site/style.css").exists());
    // a chart the spec names but the plots directory lacks is reported
    std::fs::remove_file(root.join("plots/tiny.svg")).unwrap();
    let w = write_site(&dirs, &files).unwrap();
    assert_eq!(w.missing_charts.len(), 1);
    let page = std::fs::read_to_string(root.join("site/tiny.html")).unwrap();
    assert!(page.contains("class=\"missing-chart\""));
}

#[test]
fn relative_links_climb_and_descend() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().canonicalize().unwrap();
    write(&root.join("a/b"), "x.md", "");
    std::fs::create_dir_all(root.join("site/deep")).unwrap();
    assert_eq!(
        relative(&root.join("site/deep"), &root.join("a/b/x.md")),
        "../../a/b/x.md"
    );
    assert_eq!(html::esc("<a & 'b'>"), "&lt;a &amp; &#39;b&#39;&gt;");
}
