//! Reading trace files: the keys a trace workload inserts, from text (one
//! key per line), CSV (one column) or packet captures (pcap and pcapng, the
//! key a flow's 5-tuple, its source or destination address, or the pair). A
//! gzip file (recognised by its magic bytes, whatever its name) is
//! decompressed on the fly, in every format. Bad input is refused with one
//! line naming the file and the line or packet.

mod csv;
mod lines;
mod pcap;

pub use lines::{for_each_line, MAX_LINE};
pub use pcap::PacketKey;

use serde::Deserialize;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// How a trace file holds its keys.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum TraceFormat {
    /// One key per line.
    #[default]
    Lines,
    /// A CSV file with a header line; the key is the named column.
    Csv {
        /// The column's name in the header.
        column: String,
    },
    /// A pcap or pcapng capture; the key is taken from each IP packet.
    Pcap {
        /// Which fields make the key.
        key: PacketKey,
    },
}

/// The trace fields of a spec's workload or of `measure`'s flags:
/// `format` ("lines", "csv" or "pcap"), `key` (pcap) and `column` (csv).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FormatFields {
    /// "lines" (default), "csv" or "pcap" (pcap and pcapng alike).
    #[serde(default)]
    pub format: Option<String>,
    /// pcap: "five_tuple" (default), "src_ip", "dst_ip" or "src_dst".
    #[serde(default)]
    pub key: Option<String>,
    /// csv: the column holding the key, by its header name.
    #[serde(default)]
    pub column: Option<String>,
}

impl FormatFields {
    /// The format these fields describe; errors are one line.
    pub fn resolve(&self) -> anyhow::Result<TraceFormat> {
        let (key, column) = (self.key.as_deref(), self.column.as_deref());
        match self.format.as_deref().unwrap_or("lines") {
            "lines" => match (key, column) {
                (None, None) => Ok(TraceFormat::Lines),
                _ => Err(anyhow::anyhow!(
                    "a trace of one key per line takes no key or column (format = \"csv\" or \"pcap\"?)"
                )),
            },
            "csv" => match (key, column) {
                (None, Some(c)) if !c.is_empty() => Ok(TraceFormat::Csv { column: c.into() }),
                (Some(_), _) => Err(anyhow::anyhow!(
                    "a csv trace takes a column, not a key"
                )),
                _ => Err(anyhow::anyhow!(
                    "a csv trace needs column = \"<header name>\""
                )),
            },
            "pcap" | "pcapng" => match column {
                Some(_) => Err(anyhow::anyhow!("a pcap trace takes a key, not a column")),
                None => Ok(TraceFormat::Pcap {
                    key: key.map_or(Ok(PacketKey::FiveTuple), str::parse)?,
                }),
            },
            other => Err(anyhow::anyhow!(
                "unknown trace format {other:?} (lines, csv or pcap)"
            )),
        }
    }
}

/// A trace file and how to read it, typed once when the spec or the flags
/// are read: the file, its format and, for a CSV trace, the column of times
/// a time-window run's arrivals follow.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(try_from = "SourceFields")]
pub struct TraceSource {
    /// The file.
    pub path: std::path::PathBuf,
    /// How it holds its keys.
    pub format: TraceFormat,
    /// csv: a column of times in seconds (pcap and pcapng traces give
    /// packet times).
    pub time_column: Option<String>,
}

/// A trace source as a spec writes it: the file, its format fields and a
/// time column.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SourceFields {
    path: std::path::PathBuf,
    #[serde(default)]
    format: Option<String>,
    #[serde(default)]
    key: Option<String>,
    #[serde(default)]
    column: Option<String>,
    #[serde(default)]
    time_column: Option<String>,
}

impl TryFrom<SourceFields> for TraceSource {
    type Error = anyhow::Error;
    fn try_from(s: SourceFields) -> anyhow::Result<TraceSource> {
        let fields = FormatFields {
            format: s.format,
            key: s.key,
            column: s.column,
        };
        TraceSource::new(s.path, &fields, s.time_column)
    }
}

impl TraceSource {
    /// The source of `path` in the format `fields` describe; a time column
    /// goes with a CSV trace only. Errors are one line.
    pub fn new(
        path: std::path::PathBuf,
        fields: &FormatFields,
        time_column: Option<String>,
    ) -> anyhow::Result<TraceSource> {
        let format = fields.resolve()?;
        if time_column.is_some() && !matches!(format, TraceFormat::Csv { .. }) {
            return Err(anyhow::anyhow!(
                "workload.time_column goes with format = \"csv\" (pcap and pcapng traces give packet times)"
            ));
        }
        Ok(TraceSource {
            path,
            format,
            time_column,
        })
    }
}

/// Opens a trace file for reading, decompressing gzip.
fn open(path: &Path) -> anyhow::Result<Box<dyn BufRead>> {
    let shown = path.display();
    let file = std::fs::File::open(path).map_err(|e| anyhow::anyhow!("trace file {shown}: {e}"))?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(anyhow::anyhow!("trace file {shown} is a directory"));
    }
    let mut raw = BufReader::new(file);
    let gzip = raw
        .fill_buf()
        .map_err(|e| anyhow::anyhow!("trace file {shown}: {e}"))?
        .starts_with(&[0x1f, 0x8b]);
    Ok(if gzip {
        Box::new(BufReader::new(flate2::bufread::MultiGzDecoder::new(raw)))
    } else {
        Box::new(raw)
    })
}

/// Calls `key` with the bytes of every key of `path` in `format`, in file
/// order; stops at the first error `key` returns.
pub fn for_each_key(
    path: &Path,
    format: &TraceFormat,
    mut key: impl FnMut(&[u8]) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    for_each_timed_key(path, format, None, |k, _| key(k))
}

/// As [`for_each_key`], with each key's time in seconds where the file has
/// one: a CSV trace's `time_column` (a number of seconds), a capture's
/// packet timestamps (none for pcapng simple packets); never for one key
/// per line.
pub fn for_each_timed_key(
    path: &Path,
    format: &TraceFormat,
    time_column: Option<&str>,
    mut key: impl FnMut(&[u8], Option<f64>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    match format {
        TraceFormat::Lines => for_each_line(path, |k| key(k, None)),
        TraceFormat::Csv { column } => csv::for_each_field(path, column, time_column, key),
        TraceFormat::Pcap { key: which } => {
            let counts = pcap::for_each_packet_key(path, *which, key)?;
            if counts.skipped() > 0 {
                eprintln!("trace {}: {counts}", path.display());
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(format: Option<&str>, key: Option<&str>, column: Option<&str>) -> FormatFields {
        FormatFields {
            format: format.map(Into::into),
            key: key.map(Into::into),
            column: column.map(Into::into),
        }
    }

    #[test]
    fn format_fields_resolve_or_say_what_is_wrong() {
        assert_eq!(
            fields(None, None, None).resolve().unwrap(),
            TraceFormat::Lines
        );
        assert_eq!(
            fields(Some("pcap"), None, None).resolve().unwrap(),
            TraceFormat::Pcap {
                key: PacketKey::FiveTuple
            }
        );
        assert_eq!(
            fields(Some("pcapng"), Some("src_dst"), None)
                .resolve()
                .unwrap(),
            TraceFormat::Pcap {
                key: PacketKey::SrcDst
            }
        );
        assert_eq!(
            fields(Some("csv"), None, Some("src")).resolve().unwrap(),
            TraceFormat::Csv {
                column: "src".into()
            }
        );
        for (f, want) in [
            (fields(Some("csv"), None, None), "needs column"),
            (fields(Some("csv"), Some("src_ip"), Some("a")), "not a key"),
            (fields(Some("pcap"), None, Some("a")), "not a column"),
            (
                fields(Some("pcap"), Some("ports"), None),
                "unknown packet key",
            ),
            (fields(None, Some("src_ip"), None), "takes no key"),
            (fields(Some("json"), None, None), "unknown trace format"),
        ] {
            let e = f.resolve().unwrap_err().to_string();
            assert!(e.contains(want), "{f:?}: {e}");
        }
    }
}
