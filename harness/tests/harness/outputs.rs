//! Where a run's outputs go, and that nothing already written is lost: a
//! trace run's names, the lock and owner of a set of outputs, and the
//! temporary files of a killed run.

use crate::{bloomlab, run};
use std::path::Path;

const SPEC: &str = "name = \"swamp_trace\"\nmetrics = [\"fpr\", \"memory\"]\n\
                    [measure]\nrounds = 2\nmax_fpr_queries = 2000\nmin_fpr_queries = 1000\n\
                    [[sweep]]\ndesign = \"apbf\"\npoints = [{ k = 4, l = 3, g = 20 }]\n\
                    [[plot]]\nkind = \"xy\"\nx = \"g\"\ny = \"fpr\"\n";

fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|r| {
            r.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn run_ok(dir: &Path, args: &[&str]) -> String {
    let (code, err) = run(bloomlab().args(args).current_dir(dir));
    assert_eq!(code, 0, "{args:?}: {err}");
    err
}

#[test]
fn trace_runs_never_take_another_runs_names() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    // a chart with a file name of its own, as most specs' charts have
    let spec = format!("{SPEC}[[plot]]\nkind = \"xy\"\nfile = \"named\"\nx = \"g\"\ny = \"fpr\"\n");
    std::fs::write(dir.join("s.toml"), spec).unwrap();
    let keys: String = (0..500).map(|i| format!("k{i}\n")).collect();
    std::fs::write(dir.join("quick.txt"), &keys).unwrap();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub/quick.txt"), &keys).unwrap();
    // the committed quick baseline of a spec called swamp_trace
    std::fs::create_dir_all(dir.join("results")).unwrap();
    std::fs::write(dir.join("results/swamp_trace_quick.csv"), "committed\n").unwrap();
    // the spec's own results and charts, from a run without a trace
    let flags = ["--results-dir", "results", "--plots-dir", "plots"];
    let mut args = vec!["run", "s.toml"];
    args.extend(flags);
    run_ok(dir, &args);
    let own = std::fs::read(dir.join("plots/named.svg")).unwrap();
    let flags = ["--results-dir", "results", "--plots-dir", "plots"];
    for trace in ["quick.txt", "sub/quick.txt"] {
        let mut args = vec!["run", "s.toml", "--trace", trace];
        args.extend(flags);
        run_ok(dir, &args);
    }
    assert_eq!(
        std::fs::read_to_string(dir.join("results/swamp_trace_quick.csv")).unwrap(),
        "committed\n"
    );
    let csvs: Vec<String> = files(&dir.join("results"))
        .into_iter()
        .filter(|f| f.ends_with(".csv") && f.starts_with("swamp_trace_trace-quick-"))
        .collect();
    // two files of one stem in two folders: two sets of outputs
    assert_eq!(csvs.len(), 2, "{:?}", files(&dir.join("results")));
    // and their charts beside the spec's, which stay as they were
    assert_eq!(std::fs::read(dir.join("plots/named.svg")).unwrap(), own);
    let named: Vec<String> = files(&dir.join("plots"))
        .into_iter()
        .filter(|f| f.starts_with("named_trace-quick-") && f.ends_with(".svg"))
        .collect();
    assert_eq!(named.len(), 2, "{:?}", files(&dir.join("plots")));
}

#[test]
fn charts_of_one_name_belong_to_one_results_directory() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    std::fs::write(dir.join("s.toml"), SPEC).unwrap();
    let a = ["run", "s.toml", "--results-dir", "a", "--plots-dir", "p"];
    run_ok(dir, &a);
    let charts = files(&dir.join("p"));
    let svg = std::fs::read(dir.join("p/swamp_trace.svg")).unwrap();
    let b = ["run", "s.toml", "--results-dir", "b", "--plots-dir", "p"];
    let (code, err) = run(bloomlab().args(b).current_dir(dir));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("were drawn for the results in"), "{err}");
    assert_eq!(std::fs::read(dir.join("p/swamp_trace.svg")).unwrap(), svg);
    assert_eq!(files(&dir.join("p")), charts);
    // the same results directory again is a rerun, and allowed
    run_ok(dir, &a);
    // once the other results are gone, their charts may be replaced
    std::fs::remove_dir_all(dir.join("a")).unwrap();
    run_ok(dir, &b);
}

#[test]
fn a_killed_runs_temporary_files_are_removed_by_the_next() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    std::fs::write(dir.join("s.toml"), SPEC).unwrap();
    for sub in ["results", "plots"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        // pid_max is at most 2^22: no process has this id
        std::fs::write(dir.join(sub).join(".tmp-4999999-0-other.csv"), "x").unwrap();
    }
    let mine = dir
        .join("results")
        .join(format!(".tmp-{}-0-live.csv", std::process::id()));
    std::fs::write(&mine, "x").unwrap();
    run_ok(
        dir,
        &[
            "run",
            "s.toml",
            "--results-dir",
            "results",
            "--plots-dir",
            "plots",
        ],
    );
    for sub in ["results", "plots"] {
        let left: Vec<String> = files(&dir.join(sub))
            .into_iter()
            .filter(|f| f.starts_with(".tmp-4999999"))
            .collect();
        assert!(left.is_empty(), "{sub}: {left:?}");
    }
    // a live process's file is not touched
    assert!(mine.exists());
}

/// `replot` draws from the CSVs the charts the run drew, byte for byte,
/// for every chart kind of an apbf run (the numbers read back are the
/// numbers written), and says which precision was never run.
#[test]
fn replot_draws_the_charts_the_run_drew() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let spec = "name = \"charts\"\nseed = 3\nmetrics = [\"fpr\", \"memory\", \"profile\"]\n\
                [measure]\nrounds = 3\nmax_fpr_queries = 4000\nmin_fpr_queries = 1000\n\
                [[sweep]]\ndesign = \"apbf\"\npoints = [{ k = 4, l = 3 }, { fpr = 0.01, l = 3 }]\ngrid = { g = [40, 64] }\n\
                [[plot]]\nkind = \"fpr_vs_theory\"\n\
                [[plot]]\nkind = \"xy\"\nx = \"g\"\ny = \"fpr\"\nseries = \"k\"\nlog_y = true\n\
                [[plot]]\nkind = \"age_profile\"\n";
    std::fs::write(dir.join("s.toml"), spec).unwrap();
    let dirs = ["--results-dir", "r", "--plots-dir", "p"];
    run_ok(dir, &[&["run", "s.toml"][..], &dirs].concat());
    let svgs = files(&dir.join("p"));
    let svgs: Vec<&String> = svgs.iter().filter(|f| f.ends_with(".svg")).collect();
    assert_eq!(svgs.len(), 3, "{svgs:?}");
    let drawn: Vec<Vec<u8>> = svgs
        .iter()
        .map(|f| std::fs::read(dir.join("p").join(f)).unwrap())
        .collect();
    for f in &svgs {
        std::fs::remove_file(dir.join("p").join(f)).unwrap();
    }
    let err = run_ok(dir, &[&["replot", "s.toml"][..], &dirs].concat());
    assert!(
        err.contains("not run, so not drawn: r/charts_quick.csv"),
        "{err}"
    );
    for (f, before) in svgs.iter().zip(&drawn) {
        let after = std::fs::read(dir.join("p").join(f)).unwrap();
        assert!(after == *before, "{f} differs from the run's chart");
    }
    // a spec that is not there is an error, not a silent nothing
    let (code, err) = run(bloomlab().args(["replot", "missing.toml"]).current_dir(dir));
    assert_ne!(code, 0);
    assert!(err.contains("missing.toml"), "{err}");
}

/// A CSV holding the ends of the doubles (1.797e308 in a linear column,
/// 5e-324 and 1e-300 beside 0.99 in a log one) replots in bounded time:
/// the axis padded to infinity used to loop 2^31 times in the tick
/// generator, past 8 GiB with no output (issue 55).
#[test]
fn replot_of_extreme_finite_numbers_ends() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let spec = "name = \"ext\"\nmetrics = [\"fpr\", \"memory\"]\n\
                [measure]\nrounds = 2\nmax_fpr_queries = 2000\nmin_fpr_queries = 1000\n\
                [[sweep]]\ndesign = \"apbf\"\npoints = [{ k = 4, l = 3, g = 20 }, { k = 4, l = 3, g = 40 }]\n\
                [[plot]]\nkind = \"xy\"\nx = \"g\"\ny = \"fpr\"\nlog_y = true\n\
                [[plot]]\nkind = \"xy\"\nx = \"g\"\ny = \"memory_bits\"\n";
    std::fs::write(dir.join("s.toml"), spec).unwrap();
    let dirs = ["--results-dir", "r", "--plots-dir", "p"];
    run_ok(dir, &[&["run", "s.toml"][..], &dirs].concat());
    let csv = dir.join("r/ext.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    let head: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let col = |n: &str| head.iter().position(|h| *h == n).unwrap();
    for (fpr, mem) in [("5e-324", "1.797e308"), ("1e-300", "1")] {
        let mut lines: Vec<String> = text.lines().map(String::from).collect();
        for (i, line) in lines.iter_mut().enumerate().skip(1) {
            let mut cells: Vec<String> = line.split(',').map(String::from).collect();
            cells[col("fpr")] = if i == 1 { fpr.into() } else { "0.99".into() };
            cells[col("memory_bits")] = if i == 1 { mem.into() } else { "2".into() };
            *line = cells.join(",");
        }
        std::fs::write(&csv, lines.join("\n") + "\n").unwrap();
        let t = std::time::Instant::now();
        run_ok(dir, &[&["replot", "s.toml"][..], &dirs].concat());
        assert!(t.elapsed().as_secs() < 30, "{fpr}: {:?}", t.elapsed());
    }
}

/// The report site: a spec named `index` keeps its page (it was written
/// over by the site's index), an empty or garbled CSV is an error rather
/// than a page saying "not run", and a FIFO given as a CSV is refused at
/// once instead of hanging (issue 55); a failed report leaves the site as
/// it was.
#[test]
fn report_keeps_every_page_and_refuses_empty_tables() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    std::fs::create_dir(dir.join("ex")).unwrap();
    std::fs::write(
        dir.join("ex/index.toml"),
        SPEC.replace("swamp_trace", "index"),
    )
    .unwrap();
    let dirs = ["--results-dir", "r", "--plots-dir", "p"];
    run_ok(dir, &[&["run", "ex/index.toml"][..], &dirs].concat());
    let report = [
        "report",
        "--experiments-dir",
        "ex",
        "--results-dir",
        "r",
        "--plots-dir",
        "p",
        "--out",
        "site",
    ];
    run_ok(dir, &report);
    let index = std::fs::read_to_string(dir.join("site/index.html")).unwrap();
    assert!(index.contains("href=\"index.page.html\""), "{index}");
    let page = std::fs::read_to_string(dir.join("site/index.page.html")).unwrap();
    assert!(page.contains("index"));
    std::fs::write(dir.join("r/index.csv"), "").unwrap();
    let (code, err) = run(bloomlab().args(report).current_dir(dir));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("holds no rows"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.join("site/index.html")).unwrap(),
        index
    );
    #[cfg(unix)]
    {
        std::fs::remove_file(dir.join("r/index.csv")).unwrap();
        let status = std::process::Command::new("mkfifo")
            .arg(dir.join("r/index.csv"))
            .status()
            .unwrap();
        assert!(status.success());
        let (code, err) = run(bloomlab()
            .args(report)
            .current_dir(dir)
            .timeout(std::time::Duration::from_secs(20)));
        assert_eq!(code, 1, "{err}");
        assert!(err.contains("not a regular file"), "{err}");
    }
}
