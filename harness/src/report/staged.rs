//! Outputs written as one unit: every file of a run is first written to a
//! unique temporary name beside its final place, and all are renamed into
//! place only when the whole run has succeeded. A run that fails part-way
//! (a plot that cannot be drawn, a full disk) leaves the previous results
//! untouched and no temporary files behind.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A number no other call in this process returns.
fn unique() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    COUNTER.fetch_add(1, Ordering::Relaxed)
}

/// A unique temporary name beside `path` (same directory, so the final
/// rename is atomic) that keeps the extension: `.tmp-<pid>-<n>-<file>`.
fn temp_beside(path: &Path) -> PathBuf {
    let n = unique();
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

    /// Moves every staged file into place as one transaction; returns the
    /// final paths.
    ///
    /// 1. Every destination is checked first: one that is a directory
    ///    refuses the whole set before anything moves.
    /// 2. Each file that will be replaced is hard-linked (else copied) to a
    ///    backup, and a journal listing every (temporary, final) pair is
    ///    written beside the first output.
    /// 3. The renames run. One that fails puts every file already moved
    ///    back (its backup, or nothing where there was none): the previous
    ///    set is left as it was.
    /// 4. The backups and the journal are removed.
    ///
    /// A process killed during step 3 leaves its journal: the next run that
    /// takes a lock on either directory ([`OutputLock::take`],
    /// [`remove_stale_temps`]) finishes the renames, so the set is the old
    /// one (killed before the journal) or the new one, never a mix.
    pub fn commit(mut self) -> anyhow::Result<Vec<PathBuf>> {
        let files = std::mem::take(&mut self.files);
        // the temporaries are ours until they are moved: clean up on error
        let cleanup = |files: &[(PathBuf, PathBuf)]| {
            for (t, _) in files {
                let _ = std::fs::remove_file(t);
            }
        };
        for (_, path) in &files {
            // a rename cannot replace a directory (a link or a FIFO it
            // replaces, as it always did)
            if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
                cleanup(&files);
                return Err(anyhow::anyhow!(
                    "cannot write {}: it is a directory; nothing was replaced",
                    path.display()
                ));
            }
        }
        let mut backups: Vec<Option<PathBuf>> = Vec::with_capacity(files.len());
        let drop_backups = |b: &[Option<PathBuf>]| {
            for p in b.iter().flatten() {
                let _ = std::fs::remove_file(p);
            }
        };
        for (_, path) in &files {
            if !path.exists() {
                backups.push(None);
                continue;
            }
            let bak = temp_beside(path);
            let made =
                std::fs::hard_link(path, &bak).or_else(|_| std::fs::copy(path, &bak).map(|_| ()));
            if let Err(e) = made {
                cleanup(&files);
                drop_backups(&backups);
                return Err(anyhow::anyhow!("cannot back up {}: {e}", path.display()));
            }
            backups.push(Some(bak));
        }
        stall_for_test("journal");
        let journal = match files.first() {
            Some((_, first)) => match write_journal(first, &files) {
                Ok(j) => Some(j),
                Err(e) => {
                    cleanup(&files);
                    drop_backups(&backups);
                    return Err(e);
                }
            },
            None => None,
        };
        let mut done = Vec::new();
        for (i, (tmp, path)) in files.iter().enumerate() {
            stall_for_test(&i.to_string());
            if let Err(e) = std::fs::rename(tmp, path) {
                // put back what moved, in reverse
                for (j, (_, moved)) in files[..i].iter().enumerate().rev() {
                    match &backups[j] {
                        Some(b) => {
                            let _ = std::fs::rename(b, moved);
                        }
                        None => {
                            let _ = std::fs::remove_file(moved);
                        }
                    }
                }
                cleanup(&files[i..]);
                drop_backups(&backups);
                if let Some(j) = &journal {
                    let _ = std::fs::remove_file(j);
                }
                return Err(anyhow::anyhow!(
                    "cannot write {}: {e}; the previous outputs are left as they were",
                    path.display()
                ));
            }
            done.push(path.clone());
        }
        if let Some(j) = &journal {
            let _ = std::fs::remove_file(j);
        }
        drop_backups(&backups);
        Ok(done)
    }
}

/// The environment variable that stops a commit at one step, for the test
/// that kills a real run there (`harness/tests/harness/killed.rs`):
/// `journal` (backups made, no journal yet) or `n` (the journal written and
/// n files moved). The process says so on stderr and waits to be killed.
pub const STALL_VAR: &str = "BLOOMLAB_TEST_STALL_COMMIT";

fn stall_for_test(step: &str) {
    if std::env::var_os(STALL_VAR).is_some_and(|v| v == step) {
        eprintln!("bloomlab: commit stalled at step {step} for a test");
        loop {
            std::thread::sleep(std::time::Duration::from_secs(1));
        }
    }
}

/// The journal of a commit under way: `.journal-<pid>-<n>` beside `first`,
/// one line per file, the temporary's absolute path, a tab, the final's.
/// Written under a temporary name and renamed, so it is whole or absent.
fn write_journal(first: &Path, files: &[(PathBuf, PathBuf)]) -> anyhow::Result<PathBuf> {
    let abs = |p: &Path| -> PathBuf {
        match (p.parent(), p.file_name()) {
            (Some(d), Some(f)) => {
                let d = if d.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    d
                };
                std::fs::canonicalize(d)
                    .map(|d| d.join(f))
                    .unwrap_or_else(|_| p.to_path_buf())
            }
            _ => p.to_path_buf(),
        }
    };
    let mut text = String::new();
    for (t, f) in files {
        text += &format!("{}\t{}\n", abs(t).display(), abs(f).display());
    }
    let tmp = temp_beside(first);
    let journal = first.with_file_name(format!(".journal-{}-{}", std::process::id(), unique()));
    std::fs::write(&tmp, text.as_bytes())
        .and_then(|_| std::fs::rename(&tmp, &journal))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            anyhow::anyhow!("cannot write the journal {}: {e}", journal.display())
        })?;
    Ok(journal)
}

/// The process id in a file name `<prefix><pid>-...`.
fn pid_of(name: &std::ffi::OsStr, prefix: &str) -> Option<u32> {
    name.to_str()?
        .strip_prefix(prefix)?
        .split('-')
        .next()?
        .parse()
        .ok()
}

/// Finishes the commits that processes killed mid-way left in `dir`: every
/// rename its journal lists whose temporary is still there is done, then
/// the journal is removed.
fn finish_killed_commits(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let Some(pid) = pid_of(&e.file_name(), ".journal-") else {
            continue;
        };
        if alive(pid) {
            continue;
        }
        if let Ok(text) = std::fs::read_to_string(e.path()) {
            for line in text.lines() {
                if let Some((tmp, fin)) = line.split_once('\t') {
                    if Path::new(tmp).is_file() {
                        let _ = std::fs::rename(tmp, fin);
                    }
                }
            }
        }
        let _ = std::fs::remove_file(e.path());
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
        remove_stale_temps(&[results, plots]);
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

/// Cleans up after processes that no longer exist in `dirs`: first every
/// commit they left under way is finished (one commit may span both the
/// results and the plots directory), then the `.tmp-<pid>-*` files nobody
/// will move are removed: what a run killed while writing its outputs
/// (kill -9, a power cut) left.
pub fn remove_stale_temps(dirs: &[&Path]) {
    for dir in dirs {
        finish_killed_commits(dir);
    }
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for e in entries.flatten() {
            let Some(pid) = pid_of(&e.file_name(), ".tmp-") else {
                continue;
            };
            if !alive(pid) {
                let _ = std::fs::remove_file(e.path());
            }
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
