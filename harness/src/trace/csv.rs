//! CSV traces: a header line, then one record per line; the key is one
//! column, chosen by its header name. Lines are read with the text trace's
//! checks (length, NUL, UTF-8), so a quoted field cannot span lines.

use super::for_each_line;
use std::path::Path;

/// The fields of one CSV line.
fn fields(line: &[u8]) -> Option<csv::ByteRecord> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(line);
    let mut record = csv::ByteRecord::new();
    reader.read_byte_record(&mut record).ok()?.then_some(record)
}

/// Calls `key` with the named column of every record of `path`, and with
/// the record's `time_column` read as seconds when one is named.
pub(super) fn for_each_field(
    path: &Path,
    column: &str,
    time_column: Option<&str>,
    mut key: impl FnMut(&[u8], Option<f64>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let shown = path.display();
    let mut index: Option<usize> = None;
    let mut time_index: Option<usize> = None;
    let mut n = 0u64;
    for_each_line(path, |line| {
        n += 1;
        let record = fields(line)
            .ok_or_else(|| anyhow::anyhow!("trace file {shown} record {n} is not CSV"))?;
        match index {
            None => {
                let find = |name: &str| {
                    record
                        .iter()
                        .position(|h| h == name.as_bytes())
                        .ok_or_else(|| {
                            let names: Vec<String> = record
                                .iter()
                                .map(|h| String::from_utf8_lossy(h).into_owned())
                                .collect();
                            anyhow::anyhow!(
                                "trace file {shown} has no column {name:?} in its header ({})",
                                names.join(", ")
                            )
                        })
                };
                index = Some(find(column)?);
                time_index = time_column.map(find).transpose()?;
                Ok(())
            }
            Some(i) => {
                let field = record.get(i).ok_or_else(|| {
                    anyhow::anyhow!(
                        "trace file {shown} record {n} has {} field(s), no column {column:?}",
                        record.len()
                    )
                })?;
                if field.is_empty() {
                    return Ok(());
                }
                let time = match time_index {
                    None => None,
                    Some(t) => {
                        let text = record
                            .get(t)
                            .map(String::from_utf8_lossy)
                            .unwrap_or_default();
                        let secs: f64 = text.trim().parse().ok().filter(|x: &f64| x.is_finite() && *x >= 0.0).ok_or_else(|| {
                            anyhow::anyhow!(
                                "trace file {shown} record {n}: time {text:?} is not a number of seconds >= 0"
                            )
                        })?;
                        Some(secs)
                    }
                };
                key(field, time)
            }
        }
    })?;
    if index.is_none() {
        return Err(anyhow::anyhow!(
            "trace file {shown} is empty (no CSV header)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, column: &str) -> anyhow::Result<Vec<String>> {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("t.csv");
        std::fs::write(&p, text).unwrap();
        let mut out = Vec::new();
        for_each_field(&p, column, None, |k, _| {
            out.push(String::from_utf8(k.to_vec()).unwrap());
            Ok(())
        })?;
        Ok(out)
    }

    #[test]
    fn the_named_column_is_read_with_quotes_and_empty_fields_skipped() {
        let text = "ts,src,dst\n1,10.0.0.1,10.0.0.2\n2,\"a,b\",x\n3,,y\n4,10.0.0.1,z\n";
        assert_eq!(read(text, "src").unwrap(), ["10.0.0.1", "a,b", "10.0.0.1"]);
        assert_eq!(read(text, "dst").unwrap(), ["10.0.0.2", "x", "y", "z"]);
    }

    #[test]
    fn bad_csv_is_refused_in_one_line() {
        let e = read("a,b\n1,2\n", "c").unwrap_err().to_string();
        assert!(e.contains("no column \"c\"") && e.contains("(a, b)"), "{e}");
        let e = read("a,b\n1,2\n3\n", "b").unwrap_err().to_string();
        assert!(e.contains("record 3 has 1 field(s)"), "{e}");
        let e = read("", "a").unwrap_err().to_string();
        assert!(e.contains("is empty"), "{e}");
    }
}
