//! Charts drawn again from the results already written, without rerunning
//! anything: `bloomlab replot`. The rows are read back from the CSVs (the
//! numbers exactly as written) and drawn by the same code a run draws with,
//! so a replot gives the chart a run of the same results gives.

use crate::metrics::TableKind;
use crate::report;
use crate::spec::Spec;
use crate::sweep::Outcome;
use std::path::{Path, PathBuf};

/// What a replot of one spec did.
pub enum Replotted {
    /// The charts written.
    Written(Vec<PathBuf>),
    /// The spec asks for no chart.
    NoCharts,
    /// Its results (`<results>/<name><suffix>.csv`) are not there.
    NotRun(PathBuf),
}

/// The rows of `spec`'s results at this precision, read back from
/// `results_dir`; `None` when its results CSV is not there.
pub fn read_outcome(
    spec: &Spec,
    results_dir: &Path,
    quick: bool,
) -> anyhow::Result<Option<Outcome>> {
    let suffix = if quick { "_quick" } else { "" };
    let mut out = Outcome::default();
    for table in TableKind::ALL {
        let file = match table {
            TableKind::Results => format!("{}{suffix}.csv", spec.name),
            t => format!("{}_{}{suffix}.csv", spec.name, t.suffix()),
        };
        let path = results_dir.join(file);
        if !path.exists() {
            if table == TableKind::Results {
                return Ok(None);
            }
            continue;
        }
        *out.side_mut(table) = report::read_rows(&path)?;
    }
    Ok(Some(out))
}

/// Draws the charts of the spec at `spec_path` again from its results in
/// `results_dir`, into `plots_dir`, under the lock a run takes.
pub fn replot(
    spec_path: &Path,
    results_dir: &Path,
    plots_dir: &Path,
    quick: bool,
) -> anyhow::Result<Replotted> {
    let (spec, _) = super::load(spec_path)?;
    if spec.plot.is_empty() {
        return Ok(Replotted::NoCharts);
    }
    let suffix = if quick { "_quick" } else { "" };
    let name = format!("{}{suffix}", spec.name);
    let _lock = report::OutputLock::take(results_dir, plots_dir, &name)?;
    let Some(out) = read_outcome(&spec, results_dir, quick)? else {
        return Ok(Replotted::NotRun(results_dir.join(format!("{name}.csv"))));
    };
    let mut staged = report::Staged::new();
    report::render_plots(&spec, &out, plots_dir, suffix, &mut staged)?;
    let owner = report::plots_owner(plots_dir, &name);
    if !staged.is_empty() {
        staged.write(&owner, report::owner_text(results_dir).as_bytes())?;
    }
    let mut written = staged.commit()?;
    written.retain(|p| p != &owner);
    Ok(Replotted::Written(written))
}
