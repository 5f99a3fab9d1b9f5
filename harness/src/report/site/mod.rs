//! `bloomlab report`: one static HTML site over the committed outputs
//! (`results/`, `plots/`) and the specs that made them (`experiments/`),
//! which opens from disk with no server and no network.
//!
//! - `index.html`: every experiment, what it reproduces (the first sentence
//!   of its description), its command, when its results were committed, its
//!   rows and how many of their theory-in-interval checks hold;
//! - `<name>.html` per experiment: the description, the command, links to
//!   the docs pages that name its spec, its charts inline as SVG, its table
//!   (sortable by any column; a theory outside its interval highlighted)
//!   and the spec itself;
//! - `style.css` and `sort.js` (a dozen lines of plain JavaScript, the
//!   tables' sorting).

mod html;

pub use html::{esc, SORT, STYLE};

use crate::metrics::Part;
use crate::spec::Spec;
use std::path::{Path, PathBuf};

/// Where the site reads from and writes to.
pub struct SiteDirs<'a> {
    /// Their results (`results/`).
    pub results: &'a Path,
    /// Their charts (`plots/`).
    pub plots: &'a Path,
    /// The docs pages linked from each experiment's (`docs/`).
    pub docs: &'a Path,
    /// The site's directory.
    pub out: &'a Path,
}

/// What was written.
#[derive(Debug)]
pub struct Written {
    /// Experiment pages.
    pub pages: usize,
    /// Charts inlined.
    pub charts: usize,
    /// Charts a spec names that were not found.
    pub missing_charts: Vec<PathBuf>,
    /// Experiments with no results yet.
    pub not_run: Vec<String>,
}

/// Most table rows a page shows (the CSV has them all).
const MAX_ROWS: usize = 2000;

/// A results CSV: its header and rows.
struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    fn read(path: &Path) -> anyhow::Result<Option<Table>> {
        if !path.exists() {
            return Ok(None);
        }
        let (header, rows) = super::read_records(path)?;
        Ok(Some(Table { header, rows }))
    }

    fn col(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// (holds, checked) over every `*_theory_in_ci` column: this
    /// repository's theories (a paper's own formula, `*_paper_formula_in_ci`,
    /// is shown but not counted).
    fn inside(&self) -> (usize, usize) {
        let cols: Vec<usize> = (0..self.header.len())
            .filter(|&i| self.header[i].ends_with(Part::TheoryInCi.suffix()))
            .collect();
        let (mut yes, mut all) = (0, 0);
        for r in &self.rows {
            for &c in &cols {
                match r.get(c).map(String::as_str) {
                    Some("true") => (yes, all) = (yes + 1, all + 1),
                    Some("false") => all += 1,
                    _ => {}
                }
            }
        }
        (yes, all)
    }
}

/// One experiment, read.
struct Experiment {
    spec: Spec,
    spec_path: PathBuf,
    spec_text: String,
    table: Option<Table>,
    /// (file stem, title, the SVG or None when missing)
    charts: Vec<(String, String, Option<String>)>,
    /// Docs pages naming the spec's file.
    docs: Vec<PathBuf>,
    /// The date the results were last committed, where git knows it.
    committed: Option<String>,
    /// Where and when they ran: the markdown's "Ran on ..." (or "Merged
    /// on ...") line; `None` for results from before it was written.
    ran: Option<String>,
}

/// The "Ran on ..." or "Merged on ..." line of a run's markdown, if any.
fn ran_on(md: &Path) -> Option<String> {
    std::fs::read_to_string(md)
        .ok()?
        .lines()
        .find(|l| l.starts_with("Ran on ") || l.starts_with("Merged on "))
        .map(str::to_string)
}

/// The date of the last commit touching `path`, if it is in a git
/// repository.
fn committed(path: &Path) -> Option<String> {
    let dir = path.parent()?;
    let name = path.file_name()?;
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        })
        .args(["log", "-1", "--format=%cs", "--"])
        .arg(name)
        .output()
        .ok()?;
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !s.is_empty()).then_some(s)
}

/// The docs pages (`*.md`) whose text names `needle`, sorted.
fn docs_naming(docs: &[(PathBuf, String)], needle: &str) -> Vec<PathBuf> {
    docs.iter()
        .filter(|(_, text)| text.contains(needle))
        .map(|(p, _)| p.clone())
        .collect()
}

fn read_experiment(
    path: &Path,
    d: &SiteDirs,
    docs: &[(PathBuf, String)],
) -> anyhow::Result<Experiment> {
    let spec = Spec::load(path)?;
    let spec_text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    let csv = d.results.join(format!("{}.csv", spec.name));
    let table = Table::read(&csv)?;
    let mut charts = Vec::new();
    for (i, p) in spec.plot.iter().enumerate() {
        let file = super::plot_path(&spec, d.plots, i, "");
        let stem = file
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let title = p.title.clone().unwrap_or_else(|| stem.clone());
        let svg = std::fs::read_to_string(&file)
            .ok()
            .map(|s| match s.find("<svg") {
                Some(at) => s[at..].to_string(),
                None => s,
            });
        charts.push((stem, title, svg));
    }
    let file_name = path.file_name().unwrap_or_default().to_string_lossy();
    let docs = docs_naming(docs, &format!("experiments/{file_name}"));
    let committed = table.as_ref().and_then(|_| committed(&csv));
    let ran = table
        .as_ref()
        .and_then(|_| ran_on(&csv.with_extension("md")));
    Ok(Experiment {
        spec,
        spec_path: path.to_path_buf(),
        spec_text,
        table,
        charts,
        docs,
        committed,
        ran,
    })
}

/// Writes the site over the specs `files` (the engine's list of a
/// directory's specs); returns what it wrote. A spec that does not parse is
/// an error; an experiment not yet run gets a page saying so.
pub fn write_site(d: &SiteDirs, files: &[PathBuf]) -> anyhow::Result<Written> {
    let mut docs = Vec::new();
    if let Ok(entries) = std::fs::read_dir(d.docs) {
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "md") {
                docs.push((p.clone(), std::fs::read_to_string(&p).unwrap_or_default()));
            }
        }
    }
    docs.sort();
    let exps = files
        .iter()
        .map(|f| read_experiment(f, d, &docs))
        .collect::<anyhow::Result<Vec<_>>>()?;
    std::fs::create_dir_all(d.out)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", d.out.display()))?;
    let out = d.out.canonicalize()?;
    // the whole site as one transaction: every page or none
    let mut staged = super::Staged::new();
    let mut write = |name: &str, text: &str| -> anyhow::Result<()> {
        staged.write(&out.join(name), text.as_bytes())
    };
    write("style.css", html::STYLE)?;
    write("sort.js", html::SORT)?;
    let mut written = Written {
        pages: 0,
        charts: 0,
        missing_charts: Vec::new(),
        not_run: Vec::new(),
    };
    for x in &exps {
        write(&page_file(&x.spec.name), &html::page(x, &out, d))?;
        written.pages += 1;
        if x.table.is_none() {
            written.not_run.push(x.spec.name.clone());
            continue;
        }
        for (stem, _, svg) in &x.charts {
            match svg {
                Some(_) => written.charts += 1,
                None => written
                    .missing_charts
                    .push(d.plots.join(format!("{stem}.svg"))),
            }
        }
    }
    let others = other_results(d.results, &exps);
    write("index.html", &html::index(&exps, &others, &out, d))?;
    staged.commit()?;
    Ok(written)
}

/// The page of experiment `name`: `<name>.html`, or `<name>.page.html` for
/// a name the site's own files take (a spec named `index` lost its page to
/// the index). Spec names hold no dot, so no other page takes it.
pub fn page_file(name: &str) -> String {
    if ["index", "style", "sort"].contains(&name) {
        format!("{name}.page.html")
    } else {
        format!("{name}.html")
    }
}

/// The markdown results no spec writes (benchmarks, measured plans), by
/// file name.
fn other_results(results: &Path, exps: &[Experiment]) -> Vec<PathBuf> {
    let list = |dir: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .map(|r| r.flatten().map(|e| e.path()).collect())
            .unwrap_or_default()
    };
    let mut v = Vec::new();
    for p in list(results) {
        let stem = p.file_stem().unwrap_or_default().to_string_lossy();
        if p.is_dir() {
            // a benchmark run's report of its own (bench-report --results-dir)
            v.extend(
                list(&p)
                    .into_iter()
                    .filter(|q| q.extension().is_some_and(|x| x == "md")),
            );
        } else if p.extension().is_some_and(|x| x == "md")
            && !stem.ends_with("_quick")
            && !exps.iter().any(|x| x.spec.name == stem)
        {
            v.push(p);
        }
    }
    v.sort();
    v
}

/// `to` relative to the directory `from` (both absolute), for links that
/// work when the site is opened from disk.
fn relative(from: &Path, to: &Path) -> String {
    let to = to.canonicalize().unwrap_or_else(|_| to.to_path_buf());
    let (a, b): (Vec<_>, Vec<_>) = (from.components().collect(), to.components().collect());
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = vec!["..".into(); a.len() - common];
    parts.extend(
        b[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

#[cfg(test)]
mod tests;
