//! The resource budget of a run, checked before any measurement allocates:
//! each point's peak memory is estimated from its built design and the
//! measurement settings (the filter beside the harness's own structures),
//! the points that can run at once are summed, and a run that would not fit
//! in the memory the system reports available (or `--memory-limit`) is
//! refused with the estimate. Loops whose length a user sets are bounded
//! the same way, by an estimate of their work.

use crate::designs::Built;
use crate::spec::{AdversarySpec, MeasureSpec};
use crate::sweep::Passes;

use crate::metrics::plan::MAP_ENTRY;

/// The largest number of operations (insertions plus queries) one
/// adversary attack may take: about an hour at 100 ns an operation.
pub const MAX_ATTACK_OPS: f64 = 4e10;

/// The most work one point may be estimated at, in nanoseconds of the
/// shard weights (`shard::point_cost`, this repository's machine): a day.
/// `--rounds` or `--queries` of 2^64 - 1 ran silently for ever.
pub const MAX_POINT_NS: f64 = 86_400e9;

/// A run estimated above this many seconds says so before it starts.
pub const ANNOUNCE_S: f64 = 10.0;

/// `bytes` with a quarter on top: what an estimate must fit in, for what
/// it leaves out (the allocator's own, the process's code and stacks) and
/// for the machine's other work (an estimate of 22.4 GiB was accepted
/// against 22.9 GiB available).
pub fn with_headroom(bytes: u64) -> u64 {
    bytes.saturating_add(bytes / 4)
}

/// Refuses a point whose estimated work passes [`MAX_POINT_NS`].
pub fn check_work(cost_ns: f64) -> anyhow::Result<()> {
    if cost_ns.is_finite() && cost_ns <= MAX_POINT_NS {
        return Ok(());
    }
    Err(anyhow::anyhow!(
        "its work is estimated at {}, above the limit of a day a point: fewer rounds, queries or operations",
        duration(cost_ns * 1e-9)
    ))
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

/// One point's estimated peak memory, by part.
#[derive(Debug, Clone, Default)]
pub struct PointBytes {
    /// (what, bytes), largest first.
    pub parts: Vec<(&'static str, u64)>,
}

impl PointBytes {
    /// The whole estimate.
    pub fn total(&self) -> u64 {
        self.parts.iter().map(|p| p.1).sum()
    }

    /// "14.0 GiB age history, 0.8 GiB filter".
    pub fn describe(&self) -> String {
        self.parts
            .iter()
            .filter(|p| p.1 > 0)
            .take(3)
            .map(|(what, b)| format!("{} {what}", gib(*b)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A size in GiB, for messages.
pub fn gib(bytes: u64) -> String {
    let g = bytes as f64 / (1u64 << 30) as f64;
    if g >= 0.1 {
        format!("{g:.1} GiB")
    } else {
        format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
    }
}

/// The estimated peak memory of measuring one point of `built`.
pub fn point_bytes(
    built: &Built,
    passes: &Passes,
    m: &MeasureSpec,
    attack: &AdversarySpec,
    metrics: &std::collections::BTreeSet<crate::spec::Metric>,
    time: &crate::timed::TimeSpec,
    distinct: bool,
) -> PointBytes {
    use crate::spec::Metric;
    let g = &built.geometry;
    let (w, s) = (g.window, g.slack);
    let design = built
        .filter
        .as_ref()
        .map(|f| f.memory_bits())
        .or_else(|| built.summary.as_ref().map(|s| s.summary_bits()))
        .unwrap_or(0)
        / 8;
    // the design, plus a second copy while the adversary or a rebuilt
    // filter (convergence, repeats) lives beside it
    let copies = 1 + u64::from(passes.adversary || metrics.contains(&Metric::Convergence));
    let mut parts = vec![("filter", design.saturating_mul(copies))];
    if passes.filter {
        // the pass's own plan: the horizon and buckets it runs with
        let plan = crate::metrics::plan::MembershipPlan::new(built, metrics, m);
        parts.extend(plan.peak_bytes(distinct));
    }
    if passes.summary {
        // the exact window: keys in a ring and their counts
        parts.push(("exact window", w.saturating_mul(8 + MAP_ENTRY)));
    }
    if passes.adversary {
        let found = attack.queries.saturating_mul(8 + 2 * MAP_ENTRY);
        let pool = attack.pool.saturating_mul(8);
        let recent = if attack.query_trace.is_some() {
            (w + s).saturating_mul(8 + MAP_ENTRY)
        } else {
            0
        };
        parts.push((
            "adversary",
            found.saturating_add(pool).saturating_add(recent),
        ));
    }
    if passes.time {
        if let Some(b) = crate::timed::pass::peak_bytes(built, time, distinct) {
            parts.push(("arrival history", b));
        }
    }
    parts.sort_by_key(|p| std::cmp::Reverse(p.1));
    PointBytes { parts }
}

/// The memory a run may use: `--memory-limit` GiB if given, else what the
/// system reports available (`MemAvailable` of /proc/meminfo); `None` where
/// neither is known (no check).
pub fn memory_limit(flag_gib: Option<f64>) -> anyhow::Result<Option<u64>> {
    if let Some(g) = flag_gib {
        if !(g.is_finite() && g > 0.0) {
            return Err(anyhow::anyhow!(
                "--memory-limit {g} must be a positive number of GiB"
            ));
        }
        return Ok(Some((g * (1u64 << 30) as f64).min(u64::MAX as f64) as u64));
    }
    Ok(available_memory())
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

/// Refuses an adversary attack whose operations (queries plus the
/// insertions between them) would run for hours.
pub fn check_attack(attack: &AdversarySpec) -> anyhow::Result<()> {
    let ops = attack.queries as f64 * (1.0 + attack.inserts_per_query);
    if ops > MAX_ATTACK_OPS {
        return Err(anyhow::anyhow!(
            "the attack takes {} queries x (1 + {} insertions) = {ops:.2e} operations, above the limit of {MAX_ATTACK_OPS:.0e} (about an hour): fewer queries or insertions per query",
            attack.queries,
            attack.inserts_per_query
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
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
