//! Outputs written as one unit: every file of a run is first written to a
//! unique temporary name beside its final place, and all are renamed into
//! place only when the whole run has succeeded. A run that fails part-way
//! (a plot that cannot be drawn, a full disk) leaves the previous results
//! untouched and no temporary files behind.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A unique temporary name beside `path` (same directory, so the final
/// rename is atomic) that keeps the extension: `.tmp-<pid>-<n>-<file>`.
fn temp_beside(path: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".tmp-{}-{n}-{file}", std::process::id()))
}

fn create_parent(path: &Path) -> anyhow::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    }
    Ok(())
}

/// Files staged under temporary names, waiting for [`Staged::commit`].
/// Dropped without a commit, it removes its temporary files.
#[derive(Default)]
pub struct Staged {
    /// (temporary, final) pairs in the order staged.
    files: Vec<(PathBuf, PathBuf)>,
}

impl Staged {
    /// An empty set of outputs.
    pub fn new() -> Staged {
        Staged::default()
    }

    /// How many files are staged.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether nothing is staged.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Stages `bytes` for `path`.
    pub fn write(&mut self, path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
        self.write_with(path, |tmp| {
            std::fs::write(tmp, bytes)
                .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", tmp.display()))
        })
    }

    /// Stages a file that `write` produces at the temporary path it is given.
    pub fn write_with(
        &mut self,
        path: &Path,
        write: impl FnOnce(&Path) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        if self.files.iter().any(|(_, f)| f == path) {
            return Err(anyhow::anyhow!(
                "two outputs of this run would be written to {}",
                path.display()
            ));
        }
        create_parent(path)?;
        let tmp = temp_beside(path);
        // registered first, so a failed write is cleaned up too
        self.files.push((tmp.clone(), path.to_path_buf()));
        write(&tmp)
    }

    /// Renames every staged file into place; returns the final paths.
    pub fn commit(mut self) -> anyhow::Result<Vec<PathBuf>> {
        let files = std::mem::take(&mut self.files);
        let mut done = Vec::new();
        for (i, (tmp, path)) in files.iter().enumerate() {
            if let Err(e) = std::fs::rename(tmp, path) {
                // leave nothing half-staged behind
                for (t, _) in &files[i..] {
                    let _ = std::fs::remove_file(t);
                }
                return Err(anyhow::anyhow!("cannot write {}: {e}", path.display()));
            }
            done.push(path.clone());
        }
        Ok(done)
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        for (tmp, _) in &self.files {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// Writes `bytes` to `path` atomically (unique temporary file + rename).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let mut s = Staged::new();
    s.write(path, bytes)?;
    s.commit().map(|_| ())
}

/// A lock on one output name, held for the length of a run: a second run of
/// the same spec into the same directory is refused instead of racing the
/// first for its checkpoint and outputs. A lock left by a process that no
/// longer exists is taken over.
pub struct Lock(PathBuf);

impl Lock {
    /// Takes the lock `<dir>/.<name>.lock`.
    pub fn take(dir: &Path, name: &str) -> anyhow::Result<Lock> {
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
        let path = dir.join(format!(".{name}.lock"));
        for _ in 0..2 {
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(mut f) => {
                    use std::io::Write;
                    let _ = writeln!(f, "{}", std::process::id());
                    return Ok(Lock(path));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let holder = std::fs::read_to_string(&path)
                        .ok()
                        .and_then(|s| s.trim().parse::<u32>().ok());
                    match holder {
                        Some(pid) if alive(pid) => {
                            return Err(anyhow::anyhow!(
                                "another run of {name} is writing to {} (process {pid}; lock {}): wait for it, or use another --results-dir",
                                dir.display(),
                                path.display()
                            ))
                        }
                        // a stale lock (or one being written this instant)
                        _ => {
                            if holder.is_none() {
                                std::thread::sleep(std::time::Duration::from_millis(50));
                                let again = std::fs::read_to_string(&path).ok();
                                if again.as_deref().is_some_and(|s| !s.trim().is_empty()) {
                                    continue;
                                }
                            }
                            let _ = std::fs::remove_file(&path);
                        }
                    }
                }
                Err(e) => return Err(anyhow::anyhow!("cannot create {}: {e}", path.display())),
            }
        }
        Err(anyhow::anyhow!(
            "cannot take the lock {} (another run keeps taking it)",
            path.display()
        ))
    }
}

/// Whether process `pid` exists (Linux: /proc; elsewhere assumed alive).
fn alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists()
    } else {
        true
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The lock on one run's whole set of outputs, `NAME` in the results
/// directory and in the plots directory: two runs that share either
/// directory cannot write the same name at once. Taking it also removes
/// the temporary files a killed run left in both, and refuses a run whose
/// charts would replace those of the same name drawn for the results of
/// another directory (see [`plots_owner`]).
pub struct OutputLock {
    _locks: Vec<Lock>,
}

impl OutputLock {
    /// Takes the locks on `name` in `results` and `plots`.
    pub fn take(results: &Path, plots: &Path, name: &str) -> anyhow::Result<OutputLock> {
        let mut locks = vec![Lock::take(results, name)?];
        if !same_dir(results, plots) {
            locks.push(Lock::take(plots, name)?);
        }
        for dir in [results, plots] {
            remove_stale_temps(dir);
        }
        check_plots_owner(results, plots, name)?;
        Ok(OutputLock { _locks: locks })
    }
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// Removes `.tmp-<pid>-*` files of processes that no longer exist: what a
/// run killed while writing its outputs (kill -9, a power cut) left.
pub fn remove_stale_temps(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(".tmp-"))
            .and_then(|n| n.split('-').next())
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !alive(pid) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// The marker beside the charts of `name` that says which results
/// directory they were drawn for: `<plots>/.<name>.owner`, holding that
/// directory's absolute path. It is machine-specific and not committed.
pub fn plots_owner(plots: &Path, name: &str) -> PathBuf {
    plots.join(format!(".{name}.owner"))
}

/// The text of the owner marker for `results`.
pub fn owner_text(results: &Path) -> String {
    let abs = std::fs::canonicalize(results).unwrap_or_else(|_| results.to_path_buf());
    format!("{}\n", abs.display())
}

/// Refuses a run into `results` whose charts of `name` would replace
/// those drawn for another results directory that still holds `name`'s
/// table.
fn check_plots_owner(results: &Path, plots: &Path, name: &str) -> anyhow::Result<()> {
    let Ok(text) = std::fs::read_to_string(plots_owner(plots, name)) else {
        return Ok(());
    };
    let other = PathBuf::from(text.trim_end());
    if text == owner_text(results) || !other.join(format!("{name}.csv")).exists() {
        return Ok(());
    }
    Err(anyhow::anyhow!(
        "the charts {}/{name}* were drawn for the results in {}: this run into {} would replace them (pass --plots-dir, or remove {})",
        plots.display(),
        other.display(),
        results.display(),
        plots_owner(plots, name).display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uncommitted_outputs_leave_nothing_behind() {
        let d = tempfile::tempdir().unwrap();
        let keep = d.path().join("x.csv");
        std::fs::write(&keep, "old").unwrap();
        {
            let mut s = Staged::new();
            s.write(&keep, b"new").unwrap();
            s.write(&d.path().join("y.md"), b"new").unwrap();
            // dropped: the run failed
        }
        assert_eq!(std::fs::read_to_string(&keep).unwrap(), "old");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }

    #[test]
    fn committed_outputs_replace_and_duplicates_are_refused() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("x.csv");
        let mut s = Staged::new();
        s.write(&p, b"a").unwrap();
        assert!(s.write(&p, b"b").is_err());
        assert_eq!(s.commit().unwrap(), vec![p.clone()]);
        assert_eq!(std::fs::read(&p).unwrap(), b"a");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_live_lock_refuses_and_a_stale_one_is_taken_over() {
        let d = tempfile::tempdir().unwrap();
        let held = Lock::take(d.path(), "x").unwrap();
        let e = Lock::take(d.path(), "x").err().unwrap().to_string();
        assert!(e.contains("another run of x"), "{e}");
        drop(held);
        // a process id that cannot exist
        std::fs::write(d.path().join(".x.lock"), "4294967295\n").unwrap();
        let _again = Lock::take(d.path(), "x").unwrap();
    }
}
