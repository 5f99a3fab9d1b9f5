//! Outputs: tidy CSV (here), the markdown tables (`markdown.rs`) and the
//! charts (`plots/`). Every file is written to a temporary name and renamed, so an
//! interrupted run never leaves a half-written result in place of a good one.

mod markdown;
mod plots;
pub mod site;
mod staged;

pub use markdown::markdown;
pub use plots::{figure, plot_path, render_plots, svg_string, write_png};
pub use staged::{
    owner_text, plots_owner, remove_stale_temps, write_atomic, Lock, OutputLock, Staged, STALL_VAR,
};

use crate::metrics::columns::col;
use crate::metrics::{Row, Value};

/// Column names in order of first appearance.
fn columns(rows: &[Row]) -> Vec<String> {
    let mut cols: Vec<String> = Vec::new();
    for r in rows {
        for (n, _) in &r.0 {
            if !cols.contains(n) {
                cols.push(n.clone());
            }
        }
    }
    cols
}

/// Renders rows as CSV, one column per name seen, blanks where a row lacks it.
pub fn csv_string(rows: &[Row]) -> anyhow::Result<String> {
    let cols = columns(rows);
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(&cols).map_err(|e| anyhow::anyhow!("{e}"))?;
    for r in rows {
        let rec: Vec<String> = cols
            .iter()
            .map(|c| r.get(c).map(|v| v.to_string()).unwrap_or_default())
            .collect();
        w.write_record(&rec).map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    String::from_utf8(w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?)
        .map_err(|e| anyhow::anyhow!("{e}"))
}

/// Reads rows back from a CSV that [`csv_string`] wrote: a blank cell is
/// absent, `true`/`false` a flag, a whole number a count, another number a
/// number (Rust prints a float as the shortest text that reads back to
/// it, so the values are the ones written), anything else text.
pub fn read_rows(path: &std::path::Path) -> anyhow::Result<Vec<Row>> {
    let (headers, records) = read_records(path)?;
    let rows = records
        .iter()
        .map(|rec| {
            let mut row = Row::default();
            for (h, v) in headers.iter().zip(rec) {
                let cell = match v.as_str() {
                    "" => continue,
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    _ => match (v.parse::<u64>(), v.parse::<f64>()) {
                        (Ok(n), _) => Value::Int(n),
                        (_, Ok(x)) => Value::Num(x),
                        _ => Value::Text(v.to_string()),
                    },
                };
                row.push(h, cell);
            }
            row
        })
        .collect();
    Ok(rows)
}

/// A results CSV's header and records, as text: a regular file of at most
/// 1 GiB (a FIFO or /dev/zero given as a CSV hung or filled the memory)
/// holding at least one row (an empty or garbled file is an error, not an
/// experiment with nothing to show). What [`read_rows`] and the report
/// site read.
pub fn read_records(path: &std::path::Path) -> anyhow::Result<(Vec<String>, Vec<Vec<String>>)> {
    let bytes = crate::spec::read_limited(path, 1 << 30, "CSV")?;
    let mut r = csv::Reader::from_reader(bytes.as_slice());
    let header = r
        .headers()
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?
        .iter()
        .map(String::from)
        .collect();
    let mut rows = Vec::new();
    for rec in r.records() {
        let rec = rec.map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        rows.push(rec.iter().map(String::from).collect());
    }
    if rows.is_empty() {
        // a run writes a header and a row a point
        return Err(anyhow::anyhow!(
            "{} holds no rows (empty, cut short or not a bloomlab CSV): run its experiment again",
            path.display()
        ));
    }
    Ok((header, rows))
}

/// Four significant digits; scientific notation for small or large values.
pub fn fmt_num(x: f64) -> String {
    if x.is_nan() {
        "".into()
    } else if x == 0.0 {
        "0".into()
    } else if x.abs() < 1e-2 || x.abs() >= 1e5 {
        format!("{x:.3e}")
    } else if x.fract() == 0.0 {
        format!("{x}")
    } else {
        let digits = (3 - x.abs().log10().floor() as i32).max(0) as usize;
        format!("{x:.digits$}")
    }
}

/// Checks that every column the spec's tables and charts name is one the
/// run produced, so that a typo is an error instead of a silently empty
/// column or chart. Called on the rows before any output is written.
pub fn check_columns(spec: &crate::spec::Spec, rows: &[Row]) -> anyhow::Result<()> {
    let mut have: std::collections::BTreeSet<String> = rows
        .iter()
        .flat_map(|r| r.0.iter().map(|(n, _)| n.clone()))
        .collect();
    // a block left out of a --quick run still names its parameters
    for block in &spec.sweep {
        for k in block
            .grid
            .keys()
            .chain(block.points.iter().flat_map(|p| p.keys()))
        {
            have.insert(format!("target_{k}"));
        }
    }
    let mut named: Vec<(String, &str)> = Vec::new();
    for c in spec.table_columns.iter().flatten() {
        named.push(("table_columns".into(), c));
    }
    if let Some(a) = &spec.adoption {
        for c in a.group_by.iter().chain(&a.lower_is_better) {
            named.push(("adoption".into(), c));
        }
    }
    if let Some(c) = &spec.compare_at {
        for col in [&c.x, &c.y].into_iter().chain(&c.group_by) {
            named.push(("compare_at".into(), col));
        }
    }
    for (i, p) in spec.plot.iter().enumerate() {
        let at = format!("plot {}", i + 1);
        for col in [&p.x, &p.y, &p.series, &p.reference].into_iter().flatten() {
            named.push((at.clone(), col));
        }
        for col in p.filter.keys() {
            named.push((format!("{at} filter"), col));
        }
    }
    for (at, col) in named {
        if !have.contains(col) {
            return Err(anyhow::anyhow!(
                "{at}: no column {col:?} in this run's results (columns: {})",
                have.iter().cloned().collect::<Vec<_>>().join(", ")
            ));
        }
    }
    if let Some(c) = &spec.compare_at {
        let known = rows.iter().any(|r| {
            r.get(col::DESIGN)
                .is_some_and(|d| d.to_string() == c.reference)
        });
        if !known {
            return Err(anyhow::anyhow!(
                "compare_at: reference design {:?} is not in this run",
                c.reference
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Value;

    #[test]
    fn csv_fills_missing_columns() {
        let mut a = Row::default();
        a.num("x", 1.0);
        let mut b = Row::default();
        b.num("y", 2.5);
        b.push("x", Value::Int(3));
        assert_eq!(csv_string(&[a, b]).unwrap(), "x,y\n1,\n3,2.5\n");
    }

    #[test]
    fn numbers_are_formatted_readably() {
        assert_eq!(fmt_num(0.000123456), "1.235e-4");
        assert_eq!(fmt_num(12.3456), "12.35");
        assert_eq!(fmt_num(14.0), "14");
        assert_eq!(fmt_num(0.4567), "0.4567");
    }

    /// A set whose last destination cannot be written (a directory where
    /// a chart goes) replaces nothing: the earlier files keep their bytes
    /// and no temporary or backup is left (issue 55).
    #[test]
    fn a_set_that_cannot_all_be_written_replaces_none() {
        let d = tempfile::tempdir().unwrap();
        let (csv, md, svg) = (
            d.path().join("r.csv"),
            d.path().join("r.md"),
            d.path().join("r.svg"),
        );
        std::fs::write(&csv, b"old csv").unwrap();
        std::fs::write(&md, b"old md").unwrap();
        std::fs::create_dir(&svg).unwrap();
        let mut s = Staged::new();
        s.write(&csv, b"new csv").unwrap();
        s.write(&md, b"new md").unwrap();
        s.write(&svg, b"<svg/>").unwrap();
        let e = s.commit().unwrap_err().to_string();
        assert!(
            e.contains("r.svg") && e.contains("nothing was replaced"),
            "{e}"
        );
        assert_eq!(std::fs::read(&csv).unwrap(), b"old csv");
        assert_eq!(std::fs::read(&md).unwrap(), b"old md");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 3);
    }

    /// A commit killed between its renames (its journal written, half the
    /// files moved) is finished by the next lock on the directory: the new
    /// set whole, no journal or temporary left.
    #[test]
    fn a_commit_killed_between_renames_is_finished_by_the_next_lock() {
        let d = tempfile::tempdir().unwrap();
        let dir = std::fs::canonicalize(d.path()).unwrap();
        let names = ["k.csv", "k.md", "k.json"];
        for n in names {
            std::fs::write(dir.join(n), b"old").unwrap();
        }
        // what a process that no longer exists left: pid 4194304 is above
        // Linux's largest
        let dead = 4_194_304u32;
        let mut journal = String::new();
        for (i, n) in names.iter().enumerate() {
            let tmp = dir.join(format!(".tmp-{dead}-{i}-{n}"));
            std::fs::write(&tmp, b"new").unwrap();
            journal += &format!("{}\t{}\n", tmp.display(), dir.join(n).display());
        }
        std::fs::write(dir.join(format!(".journal-{dead}-0")), journal).unwrap();
        std::fs::rename(dir.join(format!(".tmp-{dead}-0-k.csv")), dir.join("k.csv")).unwrap();
        let _lock = OutputLock::take(&dir, &dir, "k").unwrap();
        for n in names {
            assert_eq!(std::fs::read(dir.join(n)).unwrap(), b"new", "{n}");
        }
        let left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.') && !n.ends_with(".lock"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }

    #[test]
    fn atomic_write_replaces() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("sub/x.csv");
        write_atomic(&p, b"a").unwrap();
        write_atomic(&p, b"b").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"b");
        assert_eq!(std::fs::read_dir(p.parent().unwrap()).unwrap().count(), 1);
    }
}
