//! `bloomlab plan`: the table (or JSON) of `crate::plan::plan`.

use super::args::PlanArgs;
use crate::plan::{Candidate, Rejected};
use crate::report;

/// `bloomlab plan`; `words` are the flags as given (see
/// [`super::given_words`]), which a Slurm job of `--measure --slurm`
/// repeats.
pub(super) fn plan(a: PlanArgs, words: &[String]) -> anyhow::Result<()> {
    if !a.measured.fixed.slurm {
        super::slurm::refuse_without_slurm(&a.measured.fixed.jobs)?;
    }
    if !(a.fpr > 0.0 && a.fpr < 1.0) {
        return Err(anyhow::anyhow!("--fpr {} must be in (0, 1)", a.fpr));
    }
    for (name, v) in [
        ("--max-npws", a.max_npws),
        ("--max-bits-per-element", a.max_bits_per_element),
    ] {
        if let Some(x) = v {
            if x.is_nan() || x <= 0.0 {
                return Err(anyhow::anyhow!("{name} {x} must be positive"));
            }
        }
    }
    let time = match (a.window_time, a.peak_rate) {
        (Some(t), Some(r)) => {
            for (name, x) in [("--window-time", t), ("--peak-rate", r)] {
                if !(x > 0.0 && x.is_finite()) {
                    return Err(anyhow::anyhow!("{name} {x} must be positive"));
                }
            }
            Some((t, r))
        }
        _ => None,
    };
    // a time window at the peak rate holds T·R keys: the count designs'
    // window for the same request
    let window = match (a.window, time) {
        (Some(w), _) => w as f64,
        (None, Some((t, r))) => {
            // T·R underflowed to 0, or holds less than one key: no window
            // to plan for (it was planned as a window of 0 keys)
            if t * r < 1.0 {
                return Err(anyhow::anyhow!(
                    "--window-time {t:e} at --peak-rate {r:e} holds {:e} keys: the window must hold at least one",
                    t * r
                ));
            }
            (t * r).ceil()
        }
        (None, None) => unreachable!("clap requires --window or --window-time"),
    };
    if window > (1u64 << 40) as f64 {
        return Err(anyhow::anyhow!(
            "the window ({window} keys) is larger than 2^40"
        ));
    }
    let c = crate::plan::Constraints {
        window: window as u64,
        fpr: a.fpr,
        max_npws: a.max_npws,
        max_bits_per_element: a.max_bits_per_element,
        time,
    };
    let only = a
        .designs
        .iter()
        .map(|n| crate::designs::lookup(n).map(|d| d.name()))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let started = std::time::Instant::now();
    let (ok, fast, rejected) = crate::plan::plan_with_fast(&c, &only);
    if a.measured.measure {
        return super::plan_measure::measure(&a, c.window, (&ok, &fast), started, words);
    }
    if a.measured.trace.trace.is_some() {
        return Err(anyhow::anyhow!("--trace needs --measure"));
    }
    if a.json {
        print_json(&a, c.window, &ok, &fast, &rejected);
    } else {
        print_table(&ok, &fast, &rejected);
        if time.is_some() {
            println!("\n{}", time_note());
        }
    }
    Ok(())
}

/// What a time request means for each kind of design: every design the
/// plan can rank for it falls in one of the three. The count designs are
/// read off the registry (a sliding or exact window, not one of time); the
/// time designs are named, since whether one switches by time alone or
/// also by a count of keys is not a capability.
fn time_note() -> String {
    let count: Vec<&str> = crate::designs::REGISTRY
        .iter()
        .filter(|d| {
            let c = d.capabilities();
            c.membership && c.guaranteed_window && !c.time_window
        })
        .map(|d| d.name())
        .collect();
    format!(
        "A time request is planned as a window of T·R keys (R the peak rate). \
The designs that count insertions ({}) keep T only while the rate stays at or below R, and \
remember longer than T when it is lower. The designs that switch by time alone (apbf_time, \
jumping_time, double_buffer_time, tbf_time, sliding_bloom_time, half_sliding_time, \
clock_bloom_time, she_bloom_time) keep T whatever the rate, with the FPR shown \
holding only up to R. The hybrids (apbf_hybrid, naor_yogev_hybrid, swbf_hybrid) switch after \
a time or a count of keys, whichever comes first: they keep the FPR shown whatever the rate, \
with T shrinking in bursts above R. The time-limited Bloom filter (tlbf) keeps both T and \
about the FPR shown whatever the rate, its memory following the rate (the memory shown is at R). \
docs/time.md has the measurements.",
        count.join(", ")
    )
}

/// The plan as one JSON object.
fn print_json(
    a: &PlanArgs,
    window: u64,
    ok: &[Candidate],
    fast: &[Candidate],
    rejected: &[Rejected],
) {
    let cands = |ok: &[Candidate]| -> Vec<serde_json::Value> {
        ok
            .iter()
            .map(|x| {
                serde_json::json!({
                    "design": x.design,
                    "params": x.params.iter().map(|(k, v)| (k.to_string(), v.to_json())).collect::<serde_json::Map<_, _>>(),
                    "memory_bits": x.memory_bits,
                    "bits_per_element": x.bits_per_element,
                    "fpr": x.fpr,
                    "window": x.window,
                    "slack": x.slack,
                    "npws_peak": x.npws_peak,
                    "insert_bits": x.insert_bits,
                    "query_lines": x.query_lines,
                })
            })
            .collect()
    };
    let rej: Vec<serde_json::Value> = rejected
        .iter()
        .map(|r| serde_json::json!({"design": r.design, "reason": r.reason}))
        .collect();
    println!(
        "{}",
        serde_json::json!({"window": window, "window_time": a.window_time, "peak_rate": a.peak_rate, "fpr": a.fpr, "candidates": cands(ok), "fast": cands(fast), "rejected": rej})
    );
}

/// The plan as a table, one line per design, its columns as wide as the
/// longest name and parameter list in it.
fn print_table(ok: &[Candidate], fast: &[Candidate], rejected: &[Rejected]) {
    let params: Vec<String> = ok.iter().chain(fast).map(Candidate::params_text).collect();
    let names = ok
        .iter()
        .chain(fast)
        .map(|x| x.design)
        .chain(rejected.iter().map(|r| r.design));
    let dw = names.map(str::len).max().unwrap_or(0).max("design".len());
    let pw = params
        .iter()
        .map(String::len)
        .max()
        .unwrap_or(0)
        .max("parameters".len());
    println!(
        "{:<dw$} {:<pw$} {:>12} {:>8} {:>10} {:>10} {:>10} {:>7} {:>10} {:>9}",
        "design",
        "parameters",
        "memory bits",
        "bits/el",
        "FPR",
        "window",
        "slack",
        "NPWS",
        "write bits",
        "neg lines"
    );
    let row = |x: &Candidate, params: &str| {
        println!(
            "{:<dw$} {:<pw$} {:>12} {:>8.2} {:>10} {:>10} {:>10} {:>7.4} {:>10} {:>9}",
            x.design,
            params,
            x.memory_bits,
            x.bits_per_element,
            report::fmt_num(x.fpr),
            x.window,
            x.slack,
            x.npws_peak,
            x.insert_bits,
            x.query_lines.map_or("-".into(), |p| format!("{p:.2}"))
        );
    };
    for (x, params) in ok.iter().zip(&params) {
        row(x, params);
    }
    for r in rejected {
        println!("{:<dw$} cannot: {}", r.design, r.reason);
    }
    if !fast.is_empty() {
        println!(
            "fast sizings (fewest negative-query lines within {}x the memory, saving at least {:.0}% of them):",
            crate::plan::FAST_MEMORY,
            100.0 * (1.0 - crate::plan::FAST_LINES)
        );
        for (x, params) in fast.iter().zip(&params[ok.len()..]) {
            row(x, params);
        }
    }
    println!(
        "write bits: bits written per insertion; neg lines: expected 64-byte cache lines a \
         never-inserted key's query reads, by each design's theory (tested against lines counted \
         on the filter; the APBF's on the path a processor with AVX-512 takes, every slice \
         once the middle ones match where k + l <= 64, on every processor, {}), at the worst phase (the broom filter's at its \
         load, a full window and no ghosts); - where no theory gives it",
        if bloomlab_filters::apbf::lines::QueryPath::of_apbf(10, 7, 1 << 20)
            == bloomlab_filters::apbf::lines::QueryPath::counted(10, 7, 1 << 20)
        {
            "the path this processor takes"
        } else {
            "not this processor's: without AVX-512 it runs Algorithm 1 after the middle slices, \
             docs/lines.md"
        }
    );
}

#[cfg(test)]
mod tests {
    /// The time request's note names every design the plan ranks for it,
    /// whatever the registry holds.
    #[test]
    fn the_time_note_covers_every_ranked_design() {
        let c = crate::plan::Constraints {
            window: 3000,
            fpr: 1e-2,
            max_npws: None,
            max_bits_per_element: None,
            time: Some((0.6, 5000.0)),
        };
        let (ok, _) = crate::plan::plan(&c);
        assert!(ok.len() > 10);
        for x in ok {
            let named = super::time_note()
                .split(|ch: char| !(ch.is_alphanumeric() || ch == '_'))
                .any(|w| w == x.design);
            assert!(named, "{} is ranked but not in the note", x.design);
        }
    }
}
