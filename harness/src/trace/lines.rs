//! Text traces: one key per line, checked as it is read. A line longer
//! than [`MAX_LINE`] bytes, a NUL byte or invalid UTF-8 is refused with its
//! line number, so that a binary file is an error rather than a few garbage
//! keys or an endless read.

use super::open;
use std::io::{BufRead, Read};
use std::path::Path;

/// The longest line (key) a trace may have, in bytes.
pub const MAX_LINE: usize = 4096;

/// Calls `key` with every non-empty line of `path` (a trailing `\r`
/// stripped), in file order; stops at the first error `key` returns.
pub fn for_each_line(
    path: &Path,
    mut key: impl FnMut(&[u8]) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let shown = path.display();
    let mut input = open(path)?;
    let mut line = Vec::with_capacity(256);
    let mut n = 0u64;
    // progress by lines, not keys: a file of blank lines (2 GiB of them in
    // a gzip) was read for 26 s with nothing said
    let started = std::time::Instant::now();
    let mut said = 0u64;
    loop {
        n += 1;
        if n.is_multiple_of(1 << 20) {
            let secs = started.elapsed().as_secs();
            if secs >= said + 10 {
                said = secs;
                eprintln!("trace {shown}: {n} lines read ({secs} s)");
            }
        }
        line.clear();
        // at most MAX_LINE + 2 bytes (the key, \r, \n): a longer line stops here
        let read = (&mut input)
            .take(MAX_LINE as u64 + 2)
            .read_until(b'\n', &mut line)
            .map_err(|e| anyhow::anyhow!("trace file {shown} line {n}: {e}"))?;
        if read == 0 {
            return Ok(());
        }
        let ended = line.last() == Some(&b'\n');
        if ended {
            line.pop();
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if line.len() > MAX_LINE || (!ended && read == MAX_LINE + 2) {
            return Err(anyhow::anyhow!(
                "trace file {shown} line {n} is longer than {MAX_LINE} bytes (a binary file? one key per line)"
            ));
        }
        if line.contains(&0) {
            return Err(anyhow::anyhow!(
                "trace file {shown} line {n} has a NUL byte (a binary file? traces are text, one key per line; gzip is read as is)"
            ));
        }
        if std::str::from_utf8(&line).is_err() {
            return Err(anyhow::anyhow!(
                "trace file {shown} line {n} is not valid UTF-8 (traces are text, one key per line)"
            ));
        }
        if !line.is_empty() {
            key(&line)?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn lines(path: &Path) -> anyhow::Result<Vec<String>> {
        let mut out = Vec::new();
        for_each_line(path, |l| {
            out.push(String::from_utf8(l.to_vec()).unwrap());
            Ok(())
        })?;
        Ok(out)
    }

    #[test]
    fn gzip_is_read_transparently() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("t.txt.gz");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"a\nbb\r\n\nccc").unwrap();
        std::fs::write(&p, gz.finish().unwrap()).unwrap();
        assert_eq!(lines(&p).unwrap(), ["a", "bb", "ccc"]);
    }

    #[test]
    fn binary_input_is_refused_with_its_line() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("t");
        std::fs::write(&p, b"a\nb\x00c\n").unwrap();
        let e = lines(&p).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("NUL"), "{e}");
        std::fs::write(&p, b"a\n\xff\xfe\n").unwrap();
        let e = lines(&p).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("UTF-8"), "{e}");
        let mut long = vec![b'x'; MAX_LINE];
        std::fs::write(&p, &long).unwrap();
        assert_eq!(lines(&p).unwrap().len(), 1);
        long.push(b'x');
        std::fs::write(&p, &long).unwrap();
        let e = lines(&p).unwrap_err().to_string();
        assert!(e.contains("line 1") && e.contains("longer"), "{e}");
        let e = lines(d.path()).unwrap_err().to_string();
        assert!(e.contains("directory"), "{e}");
    }
}
