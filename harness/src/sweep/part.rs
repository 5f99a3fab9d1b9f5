//! Part files: the rows of one shard of a spec (`run SPEC --shard I/N`),
//! and their merge back into the rows a single run would have produced.
//!
//! A part records the spec's name, the hash of its text and precision (the
//! checkpoint's key), the shard, the points the shard holds and each point's
//! rows with every number stored exactly. `merge` accepts a set of parts
//! only if they come from the same spec text and precision, and every point
//! of the spec is in exactly one of them.

use super::checkpoint::{from_json, to_json, CellJson};
use super::{Finished, PointRows, Shard};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The version of the part file format (2: the writer's version and a
/// checksum over the content).
const FORMAT: u32 = 2;

/// The largest part file read: 1 GiB (a shard of the largest committed
/// spec is under 1 MiB).
const MAX_PART_BYTES: u64 = 1 << 30;

#[derive(Serialize, Deserialize)]
struct PartFile {
    bloomlab_part: u32,
    /// The bloomlab version that wrote the part.
    version: String,
    /// XXH3-64 of the file's bytes with this field empty, in hex: an
    /// edited or damaged part is refused.
    checksum: String,
    spec_name: String,
    spec_hash: String,
    quick: bool,
    shard: usize,
    shards: usize,
    points: Vec<usize>,
    results: Vec<PartPoint>,
}

#[derive(Serialize, Deserialize)]
struct PartPoint {
    index: usize,
    seconds: f64,
    row: Vec<(String, CellJson)>,
    extra: Vec<Vec<(String, CellJson)>>,
}

/// A spec's identity in part files: its name, the key of its text and
/// precision, and the precision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecId {
    /// The spec's `name`.
    pub name: String,
    /// [`super::spec_key`] of the spec text and precision, in hex.
    pub hash: String,
    /// Whether the run is at quick precision.
    pub quick: bool,
}

impl SpecId {
    /// The identity of `spec_text` (named `name`) at the given precision.
    pub fn new(name: &str, spec_text: &str, quick: bool) -> SpecId {
        SpecId {
            name: name.to_string(),
            hash: format!("{:016x}", super::spec_key(spec_text, quick)),
            quick,
        }
    }

    /// The file name prefix of this spec's parts: `<name>[_quick].part-`.
    fn prefix(&self) -> String {
        format!(
            "{}{}.part-",
            self.name,
            if self.quick { "_quick" } else { "" }
        )
    }

    /// The part file of `shard` under `dir`.
    pub fn part_path(&self, dir: &Path, shard: Shard) -> PathBuf {
        dir.join(format!(
            "{}{}-of-{}.json",
            self.prefix(),
            shard.index,
            shard.count
        ))
    }
}

/// The bytes of the part file of `shard`: the points it holds and their rows.
pub fn encode(
    id: &SpecId,
    shard: Shard,
    points: &[usize],
    done: &BTreeMap<usize, Finished>,
) -> anyhow::Result<Vec<u8>> {
    let results = points
        .iter()
        .map(|i| {
            let f = done
                .get(i)
                .ok_or_else(|| anyhow::anyhow!("point {i} of shard {shard} was not measured"))?;
            Ok(PartPoint {
                index: *i,
                seconds: f.seconds,
                row: to_json(&f.rows.row),
                extra: f.rows.stored_tables().iter().map(to_json).collect(),
            })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut file = PartFile {
        bloomlab_part: FORMAT,
        version: env!("CARGO_PKG_VERSION").to_string(),
        checksum: String::new(),
        spec_name: id.name.clone(),
        spec_hash: id.hash.clone(),
        quick: id.quick,
        shard: shard.index,
        shards: shard.count,
        points: points.to_vec(),
        results,
    };
    file.checksum = checksum(&file)?;
    serde_json::to_vec(&file).map_err(|e| anyhow::anyhow!("cannot encode part: {e}"))
}

/// The checksum of a part: XXH3-64 of its encoding, taken while its own
/// checksum field is empty.
fn checksum(file: &PartFile) -> anyhow::Result<String> {
    debug_assert!(file.checksum.is_empty(), "a checksum over a checksum");
    let bytes = serde_json::to_vec(file).map_err(|e| anyhow::anyhow!("cannot encode part: {e}"))?;
    Ok(format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes)))
}

/// Parts merged: every point's rows, and per shard its point count and the
/// measured seconds of its points.
pub struct Merged {
    /// The rows of every point, by index.
    pub rows: BTreeMap<usize, PointRows>,
    /// Per shard: (points, seconds of measurement).
    pub shards: Vec<(usize, f64)>,
    /// Each point's measured seconds, by index.
    pub seconds: BTreeMap<usize, f64>,
}

/// Reads the parts of `id` in `dir` and checks that together they hold
/// every one of `expected` points exactly once, from the same spec text and
/// precision. Refusals are one line and name the part.
pub fn merge(dir: &Path, id: &SpecId, expected: &[usize]) -> anyhow::Result<Merged> {
    let files = part_files(dir, id)?;
    let mut count: Option<(usize, PathBuf)> = None;
    let mut by_shard: BTreeMap<usize, PathBuf> = BTreeMap::new();
    let mut owner: BTreeMap<usize, PathBuf> = BTreeMap::new();
    let mut merged = Merged {
        rows: BTreeMap::new(),
        shards: Vec::new(),
        seconds: BTreeMap::new(),
    };
    for path in &files {
        let part = read_part(path, id)?;
        match &count {
            None => count = Some((part.shards, path.clone())),
            Some((n, first)) if *n != part.shards => {
                return Err(anyhow::anyhow!(
                    "{} is a part of {} shards but {} is a part of {n}: remove the parts of the other run",
                    path.display(),
                    part.shards,
                    first.display()
                ))
            }
            Some(_) => {}
        }
        if let Some(other) = by_shard.insert(part.shard, path.clone()) {
            return Err(anyhow::anyhow!(
                "{} and {} are both shard {}/{}: remove one",
                other.display(),
                path.display(),
                part.shard,
                part.shards
            ));
        }
        let mut seconds = 0.0;
        for r in part.results {
            if let Some(other) = owner.insert(r.index, path.clone()) {
                return Err(anyhow::anyhow!(
                    "point {} is in both {} and {}",
                    r.index,
                    other.display(),
                    path.display()
                ));
            }
            seconds += r.seconds;
            merged.seconds.insert(r.index, r.seconds);
            let extra = r.extra.into_iter().map(from_json).collect();
            merged
                .rows
                .insert(r.index, PointRows::from_stored(from_json(r.row), extra));
        }
        merged.shards.push((part.points.len(), seconds));
    }
    let (n, _) = count.expect("at least one part");
    check_complete(dir, id, n, &by_shard, &owner, expected)?;
    Ok(merged)
}

/// The part files of `id` in `dir`, sorted; none is an error.
fn part_files(dir: &Path, id: &SpecId) -> anyhow::Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| anyhow::anyhow!("cannot read the parts directory {}: {e}", dir.display()))?;
    let prefix = id.prefix();
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|f| f.to_str())
                .is_some_and(|f| f.starts_with(&prefix) && f.ends_with(".json"))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(anyhow::anyhow!(
            "no parts of {} in {} (files {prefix}*.json, written by `run --shard`{})",
            id.name,
            dir.display(),
            if id.quick { " --quick" } else { "" }
        ));
    }
    Ok(files)
}

/// Every shard of `n` present, and the parts' points exactly the spec's.
fn check_complete(
    dir: &Path,
    id: &SpecId,
    n: usize,
    by_shard: &BTreeMap<usize, PathBuf>,
    owner: &BTreeMap<usize, PathBuf>,
    expected: &[usize],
) -> anyhow::Result<()> {
    if let Some(missing) = (0..n).find(|s| !by_shard.contains_key(s)) {
        return Err(anyhow::anyhow!(
            "part {} is missing from {} ({} of {n} parts present)",
            id.part_path(
                dir,
                Shard {
                    index: missing,
                    count: n
                }
            )
            .display(),
            dir.display(),
            by_shard.len()
        ));
    }
    let expected_set: std::collections::BTreeSet<usize> = expected.iter().copied().collect();
    if let Some((i, path)) = owner.iter().find(|(i, _)| !expected_set.contains(i)) {
        return Err(anyhow::anyhow!(
            "{} holds point {i}, which the spec does not have",
            path.display()
        ));
    }
    if let Some(i) = expected.iter().find(|i| !owner.contains_key(i)) {
        return Err(anyhow::anyhow!(
            "point {i} of {} is in no part in {}",
            id.name,
            dir.display()
        ));
    }
    Ok(())
}

/// Reads one part and checks that it is of `id` and holds exactly the
/// points it lists.
fn read_part(path: &Path, id: &SpecId) -> anyhow::Result<PartFile> {
    let bytes = crate::spec::read_limited(path, MAX_PART_BYTES, "part")?;
    // the format first, so that an older part is named as such rather
    // than as a file that fails to parse
    #[derive(Deserialize)]
    struct Format {
        bloomlab_part: u32,
    }
    let not_a_part = |e: serde_json::Error| {
        anyhow::anyhow!(
            "{} is not a bloomlab part file (or is cut short): {e}",
            path.display()
        )
    };
    let format: Format = serde_json::from_slice(&bytes).map_err(not_a_part)?;
    if format.bloomlab_part != FORMAT {
        return Err(anyhow::anyhow!(
            "{} is a part file of format {}; this bloomlab reads format {FORMAT}: rerun its shard",
            path.display(),
            format.bloomlab_part
        ));
    }
    let mut part: PartFile = serde_json::from_slice(&bytes).map_err(not_a_part)?;
    let given = std::mem::take(&mut part.checksum);
    if checksum(&part)? != given {
        return Err(anyhow::anyhow!(
            "{} does not match its checksum (edited or damaged since bloomlab {} wrote it): rerun its shard",
            path.display(),
            part.version
        ));
    }
    // a part of another bloomlab: its rows may be another version's
    // figures (the version is under the checksum, but never compared)
    if part.version != env!("CARGO_PKG_VERSION") {
        return Err(anyhow::anyhow!(
            "{} was written by bloomlab {}; this is bloomlab {}: rerun its shard with this one",
            path.display(),
            part.version,
            env!("CARGO_PKG_VERSION")
        ));
    }
    // the values too: a part is input like any other
    for r in &part.results {
        let row = from_json(r.row.clone());
        let extra: Vec<_> = r.extra.iter().cloned().map(from_json).collect();
        let seconds_ok = r.seconds.is_finite() && r.seconds >= 0.0;
        PointRows::from_stored(row, extra)
            .check()
            .and_then(|()| {
                seconds_ok
                    .then_some(())
                    .ok_or(format!("seconds = {}", r.seconds))
            })
            .map_err(|e| anyhow::anyhow!("{}: point {}: {e}", path.display(), r.index))?;
    }
    if part.spec_name != id.name || part.spec_hash != id.hash || part.quick != id.quick {
        return Err(anyhow::anyhow!(
            "{} is from another spec or precision ({}{}, spec hash {}; this spec is {}{}, hash {}): rerun its shard",
            path.display(),
            part.spec_name,
            if part.quick { " --quick" } else { "" },
            part.spec_hash,
            id.name,
            if id.quick { " --quick" } else { "" },
            id.hash
        ));
    }
    if part.shards == 0 || part.shard >= part.shards {
        return Err(anyhow::anyhow!(
            "{} names shard {}/{}, which cannot exist",
            path.display(),
            part.shard,
            part.shards
        ));
    }
    let listed: Vec<usize> = part.points.clone();
    let held: Vec<usize> = part.results.iter().map(|r| r.index).collect();
    if listed != held {
        return Err(anyhow::anyhow!(
            "{} lists {} point(s) but holds rows of {}: rerun its shard",
            path.display(),
            listed.len(),
            held.len()
        ));
    }
    Ok(part)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::{Row, Value};

    /// A one-point part of `fpr`, written to a fresh directory.
    fn part_with(fpr: f64) -> (tempfile::TempDir, SpecId) {
        let id = SpecId::new("p", "name = \"p\"", false);
        let mut row = Row::default();
        row.num("fpr", fpr);
        let done = BTreeMap::from([(
            0,
            Finished {
                rows: PointRows {
                    row,
                    tables: Vec::new(),
                },
                seconds: 1.0,
            },
        )]);
        let shard = Shard { index: 0, count: 1 };
        let bytes = encode(&id, shard, &[0], &done).unwrap();
        let d = tempfile::tempdir().unwrap();
        std::fs::write(id.part_path(d.path(), shard), bytes).unwrap();
        (d, id)
    }

    #[test]
    fn merge_revalidates_every_value_even_under_a_good_checksum() {
        let (d, id) = part_with(0.25);
        assert!(merge(d.path(), &id, &[0]).is_ok());
        // the same part with fpr = -5 and a checksum made to match
        let path = id.part_path(d.path(), Shard { index: 0, count: 1 });
        let mut file: PartFile = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        file.results[0].row = super::to_json(&Row(vec![("fpr".into(), Value::Num(-5.0))]));
        file.checksum.clear();
        file.checksum = checksum(&file).unwrap();
        std::fs::write(&path, serde_json::to_vec(&file).unwrap()).unwrap();
        let e = merge(d.path(), &id, &[0]).err().unwrap().to_string();
        assert!(e.contains("point 0: column fpr = -5"), "{e}");
        // an infinity, and a part of the first format
        for (cell, needle) in [
            (Value::Num(f64::INFINITY), "not a finite number"),
            (Value::Num(1.5), "outside [0, 1]"),
            (Value::Text("abc".into()), "text where a number belongs"),
        ] {
            file.results[0].row = super::to_json(&Row(vec![("fpr".into(), cell)]));
            file.checksum.clear();
            file.checksum = checksum(&file).unwrap();
            std::fs::write(&path, serde_json::to_vec(&file).unwrap()).unwrap();
            let e = merge(d.path(), &id, &[0]).err().unwrap().to_string();
            assert!(e.contains(needle), "{e}");
        }
        // a part of another bloomlab version, its checksum made to match
        file.results[0].row = super::to_json(&Row(vec![("fpr".into(), Value::Num(0.25))]));
        file.version = "0.0.1".into();
        file.checksum.clear();
        file.checksum = checksum(&file).unwrap();
        std::fs::write(&path, serde_json::to_vec(&file).unwrap()).unwrap();
        let e = merge(d.path(), &id, &[0]).err().unwrap().to_string();
        assert!(e.contains("written by bloomlab 0.0.1"), "{e}");
        file.bloomlab_part = 1;
        std::fs::write(&path, serde_json::to_vec(&file).unwrap()).unwrap();
        let e = merge(d.path(), &id, &[0]).err().unwrap().to_string();
        assert!(e.contains("format 1"), "{e}");
    }
}
