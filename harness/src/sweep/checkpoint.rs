//! The checkpoint of a run: one JSON line per finished point, appended as
//! points finish, keyed by the spec text and the precision; an interrupted
//! run started again with the same spec skips the points it holds.

use super::PointRows;
use super::{Finished, Shard};
use crate::metrics::{Row, Value};
use crate::spec::Spec;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

#[derive(Serialize, Deserialize)]
struct Checkpoint {
    key: u64,
    index: usize,
    row: Vec<(String, CellJson)>,
    profile: Vec<Vec<(String, CellJson)>>,
    /// Wall time of the point (absent in checkpoints of older versions).
    #[serde(default)]
    seconds: f64,
}

/// One cell of a row as stored in a checkpoint or a part file. Finite
/// numbers are written by serde_json, whose `float_roundtrip` reading gives
/// back the same bits; NaN as null; the infinities by their bits.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub(super) enum CellJson {
    N(Option<f64>),
    X(u64),
    I(u64),
    B(bool),
    T(String),
}

/// A row's cells for a checkpoint or part file.
pub(super) fn to_json(row: &Row) -> Vec<(String, CellJson)> {
    row.0
        .iter()
        .map(|(n, v)| {
            let c = match v {
                Value::Num(x) if x.is_infinite() => CellJson::X(x.to_bits()),
                Value::Num(x) => CellJson::N(x.is_finite().then_some(*x)),
                Value::Int(x) => CellJson::I(*x),
                Value::Bool(b) => CellJson::B(*b),
                Value::Text(s) => CellJson::T(s.clone()),
            };
            (n.clone(), c)
        })
        .collect()
}

/// A row back from its cells.
pub(super) fn from_json(cells: Vec<(String, CellJson)>) -> Row {
    Row(cells
        .into_iter()
        .map(|(n, c)| {
            let v = match c {
                CellJson::N(x) => Value::Num(x.unwrap_or(f64::NAN)),
                CellJson::X(bits) => Value::Num(f64::from_bits(bits)),
                CellJson::I(x) => Value::Int(x),
                CellJson::B(b) => Value::Bool(b),
                CellJson::T(s) => Value::Text(s),
            };
            (n, v)
        })
        .collect())
}

/// The checkpoint file of `spec` (or of one shard of it) under `dir`.
pub(super) fn path(dir: &Path, spec: &Spec, quick: bool, shard: Option<Shard>) -> PathBuf {
    dir.join(format!(
        ".{}{}{}.partial.jsonl",
        spec.name,
        if quick { "_quick" } else { "" },
        shard.map_or(String::new(), |s| format!(
            ".part-{}-of-{}",
            s.index, s.count
        ))
    ))
}

/// The finished points of a run, and the file the next ones are appended to.
pub(super) struct Open {
    /// Points finished by an earlier run of the same spec.
    pub done: BTreeMap<usize, Finished>,
    file: Mutex<std::fs::File>,
    key: u64,
}

impl Open {
    /// Loads the checkpoint at `path` (keeping only lines of `key`) and opens
    /// it for appending.
    pub fn new(path: &Path, key: u64) -> anyhow::Result<Open> {
        let done = load_checkpoint(path, key);
        std::fs::create_dir_all(path.parent().unwrap_or(Path::new(".")))
            .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", path.display()))?;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| anyhow::anyhow!("cannot open checkpoint {}: {e}", path.display()))?;
        Ok(Open {
            done,
            file: Mutex::new(file),
            key,
        })
    }

    /// Appends a finished point.
    pub fn append(&self, index: usize, rows: &PointRows, seconds: f64) -> anyhow::Result<()> {
        let line = serde_json::to_string(&Checkpoint {
            key: self.key,
            index,
            row: to_json(&rows.row),
            profile: rows.stored_tables().iter().map(to_json).collect(),
            seconds,
        })
        .map_err(|e| anyhow::anyhow!("{e}"))?;
        let mut f = self.file.lock().unwrap();
        writeln!(f, "{line}").map_err(|e| anyhow::anyhow!("checkpoint write: {e}"))?;
        f.flush()
            .map_err(|e| anyhow::anyhow!("checkpoint write: {e}"))
    }
}

fn load_checkpoint(path: &Path, key: u64) -> BTreeMap<usize, Finished> {
    let mut done = BTreeMap::new();
    let Ok(f) = std::fs::File::open(path) else {
        return done;
    };
    let mut stale = false;
    for line in std::io::BufReader::new(f).lines().map_while(Result::ok) {
        // A torn last line (interrupted write) is simply skipped.
        match serde_json::from_str::<Checkpoint>(&line) {
            Ok(c) if c.key == key => {
                done.insert(
                    c.index,
                    Finished {
                        rows: PointRows::from_stored(
                            from_json(c.row),
                            c.profile.into_iter().map(from_json).collect(),
                        ),
                        seconds: c.seconds,
                    },
                );
            }
            Ok(_) => stale = true,
            Err(_) => {}
        }
    }
    if stale && done.is_empty() {
        // A checkpoint of another version of the spec: start afresh.
        let _ = std::fs::remove_file(path);
    } else if !done.is_empty() {
        eprintln!(
            "resuming: {} finished point(s) from {}",
            done.len(),
            path.display()
        );
    }
    done
}

/// Removes the checkpoint once the outputs are written.
pub fn clear_checkpoint(results_dir: &Path, spec: &Spec, quick: bool, shard: Option<Shard>) {
    let _ = std::fs::remove_file(path(results_dir, spec, quick, shard));
}
