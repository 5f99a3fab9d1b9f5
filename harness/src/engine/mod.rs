//! The experiment engine, below the command line: running a spec and
//! writing its outputs as one unit under a lock ([`run_experiment`]), the
//! command that reproduces them, the specs of an experiments directory,
//! and where a spec's shards keep their parts. `cli` parses flags and
//! calls this; nothing here reads a flag.

pub mod replot;
pub mod shards;

use crate::report;
use crate::spec::{Spec, WorkloadSpec};
use crate::sweep::{self, Budget, RunOptions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A trace that replaces a spec's workload (`run --trace`).
#[derive(Debug, Clone)]
pub struct TraceOverride {
    /// The file.
    pub path: PathBuf,
    /// Its format fields as given (empty: the spec's, if it reads a trace).
    pub fields: crate::trace::FormatFields,
}

/// One experiment run and where its outputs go.
pub struct Experiment<'a> {
    /// The spec file.
    pub spec: &'a Path,
    /// Quick precision, `_quick` suffix.
    pub quick: bool,
    /// CSV and markdown directory.
    pub results_dir: &'a Path,
    /// Chart directory.
    pub plots_dir: &'a Path,
    /// Worker threads.
    pub threads: Option<usize>,
    /// Discard a checkpoint first.
    pub fresh: bool,
    /// `--memory-limit` in GiB (default: the memory available).
    pub memory_limit: Option<f64>,
    /// `--trace`: a trace file replacing the spec's workload.
    pub trace: Option<&'a TraceOverride>,
}

/// The spec with its workload replaced by `t` and its name suffixed with
/// the file's stem, and the text its checkpoint is keyed by.
fn with_trace(mut spec: Spec, text: String, t: &TraceOverride) -> anyhow::Result<(Spec, String)> {
    // the format given with --trace, or else the spec's own trace's
    let format = match spec.workload.trace_source() {
        Some(s) if t.fields == crate::trace::FormatFields::default() => s.format.clone(),
        _ => t.fields.resolve()?,
    };
    let stem: String = t
        .path
        .file_name()
        .and_then(|f| f.to_str())
        .unwrap_or("trace")
        .split('.')
        .next()
        .unwrap_or("trace")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let text = format!("{text}\n# --trace {} {format:?}\n", t.path.display());
    let tail = trace_run_suffix(&stem, &t.path, &format);
    // the charts too: a trace run never replaces the spec's own
    for file in spec.plot.iter_mut().filter_map(|p| p.file.as_mut()) {
        file.push_str(&tail);
    }
    spec.name.push_str(&tail);
    spec.workload = WorkloadSpec::Trace(crate::trace::TraceSource {
        path: t.path.clone(),
        format,
        time_column: None,
    });
    Ok((spec, text))
}

/// The tail of a trace run's output names, `<spec>_trace-<stem>-<hash>`: the
/// hash (8 hex digits of XXH3) over the trace's absolute path and its
/// format. Two traces never share outputs (`good.pcapng` and `good.csv`,
/// or two `flows.txt` in different folders), and no trace run takes the
/// name of a spec's own results or of their `_quick` baselines (a trace
/// called `quick.pcap` replaced `swamp_trace_quick.*`).
fn trace_run_suffix(stem: &str, path: &Path, format: &crate::trace::TraceFormat) -> String {
    let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let key = format!("{}\0{format:?}", abs.display());
    let hash = xxhash_rust::xxh3::xxh3_64(key.as_bytes()) as u32;
    let stem = if stem.is_empty() { "trace" } else { stem };
    format!("_trace-{stem}-{hash:08x}")
}

impl Experiment<'_> {
    /// The lock on the outputs of `spec` at this precision, in the results
    /// and plots directories (one writer at a time).
    pub fn lock(&self, spec: &Spec) -> anyhow::Result<report::OutputLock> {
        let suffix = if self.quick { "_quick" } else { "" };
        report::OutputLock::take(
            self.results_dir,
            self.plots_dir,
            &format!("{}{suffix}", spec.name),
        )
    }
}

/// What a run of `spec` may use: `threads` (else the spec's, else one
/// per core), checked against the machine, and the memory of
/// `--memory-limit` GiB (else what the system reports available).
pub fn budget(
    spec: &Spec,
    threads: Option<usize>,
    memory_limit: Option<f64>,
) -> anyhow::Result<Budget> {
    let threads = crate::resources::check_threads(
        threads
            .or(spec.threads)
            .unwrap_or_else(rayon::current_num_threads),
    )?;
    Ok(Budget {
        memory: crate::resources::memory_limit(memory_limit)?,
        threads,
    })
}

/// Runs a spec and writes its outputs as one unit (all renamed into place
/// only once every one is ready); returns the spec and the files written.
/// Holds a lock on the spec's name in the results directory meanwhile.
pub fn run_experiment(x: &Experiment) -> anyhow::Result<(Spec, Vec<PathBuf>)> {
    let (spec, text) = load(x.spec)?;
    let (spec, text) = match x.trace {
        Some(t) => with_trace(spec, text, t)?,
        None => (spec, text),
    };
    let _lock = x.lock(&spec)?;
    if x.fresh {
        sweep::clear_checkpoint(x.results_dir, &spec, x.quick, None);
    }
    let budget = budget(&spec, x.threads, x.memory_limit)?;
    let threads = budget.threads;
    let opts = RunOptions {
        threads: Some(threads),
        quick: x.quick,
        checkpoint_dir: Some(x.results_dir.to_path_buf()),
        progress: sweep::Progress::for_stderr(),
        shard: None,
    };
    let started = std::time::Instant::now();
    let prepared = sweep::prepare(&spec, x.quick, &budget)?;
    eprintln!(
        "{}: {} point(s), {threads} thread(s){}{}",
        spec.name,
        prepared.plans.len(),
        if x.quick { ", quick precision" } else { "" },
        prepared.announce(threads)
    );
    let out = sweep::run(&spec, &text, &prepared, &opts)?;
    crate::report::check_columns(&spec, &out.rows)
        .map_err(|e| anyhow::anyhow!("spec {}: {e}", x.spec.display()))?;
    let mut command = run_command(x.spec, x.quick);
    if let Some(t) = x.trace {
        command += &format!(" --trace {}", t.path.display());
        for (flag, v) in [
            ("--trace-format", &t.fields.format),
            ("--trace-key", &t.fields.key),
            ("--trace-column", &t.fields.column),
        ] {
            if let Some(v) = v {
                command += &format!(" {flag} {v}");
            }
        }
    }
    let provenance = format!(
        "Ran on {}, finished {} UTC.",
        crate::resources::machine(),
        crate::resources::utc_now()
    );
    let written = write_outputs(&spec, &out, x, &command, &provenance)?;
    sweep::clear_checkpoint(x.results_dir, &spec, x.quick, None);
    eprintln!(
        "{}: done in {:.1} s; wrote {}",
        spec.name,
        started.elapsed().as_secs_f64(),
        written
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok((spec, written))
}

/// The command that reproduces a spec's results, as the markdown names it
/// (the same whether the run was whole or sharded and merged).
pub fn run_command(spec: &Path, quick: bool) -> String {
    format!(
        "cargo run --release -- run {}{}",
        spec.display(),
        if quick { " --quick" } else { "" }
    )
}

/// Stages every output of a run (CSV, markdown, profile and convergence
/// tables, charts) and renames them into place together.
pub fn write_outputs(
    spec: &Spec,
    out: &sweep::Outcome,
    x: &Experiment,
    command: &str,
    provenance: &str,
) -> anyhow::Result<Vec<PathBuf>> {
    let suffix = if x.quick { "_quick" } else { "" };
    let base = x.results_dir.join(format!("{}{suffix}", spec.name));
    let mut staged = report::Staged::new();
    staged.write(
        &base.with_extension("csv"),
        report::csv_string(&out.rows)?.as_bytes(),
    )?;
    staged.write(
        &base.with_extension("md"),
        report::markdown(spec, &out.rows, command, spec.measure.ci_level, provenance).as_bytes(),
    )?;
    for table in crate::metrics::TableKind::ALL.into_iter().skip(1) {
        let rows = out.side(table);
        if !rows.is_empty() {
            let p = x
                .results_dir
                .join(format!("{}_{}{suffix}.csv", spec.name, table.suffix()));
            staged.write(&p, report::csv_string(rows)?.as_bytes())?;
        }
    }
    let tables = staged.len();
    report::render_plots(spec, out, x.plots_dir, suffix, &mut staged)?;
    // the charts say which results they were drawn for
    let owner = report::plots_owner(x.plots_dir, &format!("{}{suffix}", spec.name));
    if staged.len() > tables {
        staged.write(&owner, report::owner_text(x.results_dir).as_bytes())?;
    }
    let mut written = staged.commit()?;
    written.retain(|p| p != &owner);
    Ok(written)
}

/// The experiment specs in a directory, by name.
pub fn experiment_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(anyhow::anyhow!(
            "no experiment specs (*.toml) in {}",
            dir.display()
        ));
    }
    // two specs of one name would write (and check) the same results
    let mut names: BTreeMap<String, PathBuf> = BTreeMap::new();
    for f in &files {
        let name = Spec::load(f)?.name;
        if let Some(other) = names.insert(name.clone(), f.clone()) {
            return Err(anyhow::anyhow!(
                "{} and {} are both named {name:?}: their results would overwrite each other",
                other.display(),
                f.display()
            ));
        }
    }
    Ok(files)
}

/// Reads and parses a spec; returns it with its text.
pub fn load(path: &Path) -> anyhow::Result<(Spec, String)> {
    let text = crate::spec::read_text(path)?;
    let spec = Spec::parse(&text).map_err(|e| anyhow::anyhow!("spec {}: {e}", path.display()))?;
    Ok((spec, text))
}

/// The default directory of a spec's part files: `<results>/shards/<name>`.
pub fn default_parts_dir(results_dir: &Path, spec: &Spec, quick: bool) -> PathBuf {
    results_dir.join("shards").join(format!(
        "{}{}",
        spec.name,
        if quick { "_quick" } else { "" }
    ))
}
