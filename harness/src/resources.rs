//! What this machine gives a run: the memory it may take (what the
//! system reports available, a Slurm allocation, `ulimit -v`, or
//! `--memory-limit`), the worker threads it may start, and the units
//! messages give them in. The bottom of the harness: it imports nothing
//! of the crate.

/// `bytes` with a quarter on top: what an estimate must fit in, for what
/// it leaves out (the allocator's own, the process's code and stacks) and
/// for the machine's other work (an estimate of 22.4 GiB was accepted
/// against 22.9 GiB available).
pub fn with_headroom(bytes: u64) -> u64 {
    bytes.saturating_add(bytes / 4)
}

/// "3.2 h", "41 s", "2.1e9 years": an estimated duration for messages.
pub fn duration(secs: f64) -> String {
    if !secs.is_finite() || secs > 3.15e9 {
        format!("{:.1e} years", secs / 3.15e7)
    } else if secs >= 7200.0 {
        format!("{:.1} h", secs / 3600.0)
    } else if secs >= 120.0 {
        format!("{:.0} min", secs / 60.0)
    } else {
        format!("{secs:.0} s")
    }
}

/// Most worker threads a run may ask for, per core.
pub const THREADS_PER_CORE: usize = 8;

/// A size in GiB, for messages.
pub fn gib(bytes: u64) -> String {
    let g = bytes as f64 / (1u64 << 30) as f64;
    if g >= 0.1 {
        format!("{g:.1} GiB")
    } else {
        format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
    }
}

/// The memory a run may use: `--memory-limit` GiB if given, else what the
/// system reports available (`MemAvailable` of /proc/meminfo); `None` where
/// neither is known (no check).
pub fn memory_limit(flag_gib: Option<f64>) -> anyhow::Result<Option<u64>> {
    if let Some(g) = flag_gib {
        return gib_flag("--memory-limit", g).map(Some);
    }
    Ok(available_memory())
}

/// A flag's positive number of GiB in bytes (`flag` names it in the error).
pub fn gib_flag(flag: &str, g: f64) -> anyhow::Result<u64> {
    if !(g.is_finite() && g > 0.0) {
        return Err(anyhow::anyhow!(
            "{flag} {g} must be a positive number of GiB"
        ));
    }
    Ok((g * (1u64 << 30) as f64).min(u64::MAX as f64) as u64)
}

/// The memory this process may still take, in bytes: `MemAvailable`
/// where the system reports it, lowered to the address-space limit
/// (`ulimit -v`) if one is set and to a Slurm job's memory allocation.
pub fn available_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kib.saturating_mul(1024))
        });
    let var = |name: &str| std::env::var(name).ok();
    let slurm = slurm_memory(
        var("SLURM_MEM_PER_NODE").as_deref(),
        var("SLURM_MEM_PER_CPU").as_deref(),
        var("SLURM_CPUS_PER_TASK").as_deref(),
    );
    [meminfo, address_space_limit(), slurm]
        .into_iter()
        .flatten()
        .min()
}

/// A Slurm job's memory allocation in bytes, from its environment
/// (`SLURM_MEM_PER_NODE`, or `SLURM_MEM_PER_CPU` x `SLURM_CPUS_PER_TASK`,
/// in MiB; Slurm enforces it, so a point above it would be killed).
fn slurm_memory(per_node: Option<&str>, per_cpu: Option<&str>, cpus: Option<&str>) -> Option<u64> {
    let mib = |s: &str| s.trim().parse::<u64>().ok().filter(|&m| m > 0);
    let bytes = |m: u64| m.saturating_mul(1 << 20);
    if let Some(m) = per_node.and_then(mib) {
        return Some(bytes(m));
    }
    let per_cpu = per_cpu.and_then(mib)?;
    let cpus = cpus.and_then(mib).unwrap_or(1);
    Some(bytes(per_cpu.saturating_mul(cpus)))
}

/// The soft `RLIMIT_AS`, if finite.
fn address_space_limit() -> Option<u64> {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given and nothing else.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) } == 0;
    (ok && r.rlim_cur != libc::RLIM_INFINITY).then_some(r.rlim_cur)
}

/// The worker threads a run may use: refused above [`THREADS_PER_CORE`]
/// per core (more only contend, and each holds a point's memory).
pub fn check_threads(threads: usize) -> anyhow::Result<usize> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let max = cores * THREADS_PER_CORE;
    if threads == 0 || threads > max {
        return Err(anyhow::anyhow!(
            "threads = {threads}: must be between 1 and {max} ({THREADS_PER_CORE} per core on this machine's {cores})"
        ));
    }
    Ok(threads)
}

/// This machine in a line, for the record of a run: the CPU model, its
/// logical CPUs, its memory and the OS (what /proc says; "unknown CPU"
/// elsewhere).
pub fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map(|m| m.split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown CPU".into());
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            let line = t.lines().find(|l| l.starts_with("MemTotal:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .map(|kib| format!(", {}", gib(kib * 1024)))
        .unwrap_or_default();
    format!(
        "{model}, {cpus} logical CPUs{total}, {} {}",
        std::env::consts::OS,
        std::env::consts::ARCH
    )
}

/// The current time in UTC as `YYYY-MM-DD HH:MM`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    utc(secs)
}

/// `secs` since 1970 in UTC as `YYYY-MM-DD HH:MM` (the civil calendar
/// from days, after Howard Hinnant's `civil_from_days`).
pub fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let (hh, mm) = ((secs % 86_400) / 3600, (secs % 3600) / 60);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02} {hh:02}:{mm:02}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn utc_dates_follow_the_calendar() {
        assert_eq!(super::utc(0), "1970-01-01 00:00");
        assert_eq!(super::utc(951_782_400), "2000-02-29 00:00");
        assert_eq!(super::utc(1_700_000_000), "2023-11-14 22:13");
        assert!(super::machine().contains("logical CPUs"));
    }

    use super::slurm_memory;

    #[test]
    fn a_slurm_allocation_is_read_from_the_job_environment() {
        assert_eq!(slurm_memory(Some("2048"), None, None), Some(2 << 30));
        assert_eq!(slurm_memory(None, Some("1024"), Some("4")), Some(4 << 30));
        assert_eq!(slurm_memory(None, Some("1024"), None), Some(1 << 30));
        // 0 means "all of the node's memory" to Slurm: no limit of its own
        assert_eq!(slurm_memory(Some("0"), None, None), None);
        assert_eq!(slurm_memory(None, None, Some("4")), None);
        assert_eq!(slurm_memory(Some("lots"), None, None), None);
    }
}
