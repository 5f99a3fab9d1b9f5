//! Reading spec (and part) files with a limit on their size.

use std::path::Path;

/// The largest spec file read: 1 MiB (the committed specs are under 4 KiB;
/// `run /dev/zero` read 10.5 GB before the allocator gave up).
pub const MAX_SPEC_BYTES: u64 = 1 << 20;

/// Reads at most `limit` bytes of `path`, refusing a longer file (or an
/// endless one, a device or a pipe) after reading `limit + 1` bytes.
/// `what` names the file in errors ("spec", "part").
pub fn read_limited(path: &Path, limit: u64, what: &str) -> anyhow::Result<Vec<u8>> {
    use std::io::Read;
    let shown = path.display();
    // before opening: opening a FIFO waits for a writer, and a device
    // (/dev/zero) never ends
    let meta =
        std::fs::metadata(path).map_err(|e| anyhow::anyhow!("cannot read {what} {shown}: {e}"))?;
    if meta.is_dir() {
        return Err(anyhow::anyhow!(
            "cannot read {what} {shown}: it is a directory"
        ));
    }
    if !meta.is_file() {
        return Err(anyhow::anyhow!(
            "cannot read {what} {shown}: not a regular file (a FIFO or a device?)"
        ));
    }
    let file = std::fs::File::open(path)
        .map_err(|e| anyhow::anyhow!("cannot read {what} {shown}: {e}"))?;
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| anyhow::anyhow!("cannot read {what} {shown}: {e}"))?;
    if bytes.len() as u64 > limit {
        return Err(anyhow::anyhow!(
            "{what} {shown} is larger than {} MiB: not a bloomlab {what}",
            limit >> 20
        ));
    }
    Ok(bytes)
}

/// The text of a spec file, at most [`MAX_SPEC_BYTES`], in UTF-8.
pub fn read_text(path: &Path) -> anyhow::Result<String> {
    String::from_utf8(read_limited(path, MAX_SPEC_BYTES, "spec")?)
        .map_err(|_| anyhow::anyhow!("cannot read spec {}: it is not UTF-8 text", path.display()))
}
