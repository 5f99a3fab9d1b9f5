//! `bloomlab plan`: for a window and a target FPR, every design that can meet
//! the constraints, with the parameters and the figures its theory predicts,
//! sorted by memory; and one line for each design that cannot.
//!
//! Only figures the theory modules compute and the tests check against
//! simulation are shown: memory (exact `memory_bits`, conformance suite),
//! worst-phase FPR, window and slack (conformance and theory-vs-simulation
//! tests), peak NPWS (from P(yes | generation), tested per design), bits
//! written per insertion (exact) and the reads of a negative query: 64-byte
//! lines for the blocked APBF (tested against counted lines in
//! `apbf::blocked::tests::counted_lines_match_the_theory`) and for the
//! jumping window and double buffering (`segmented_vs_simulation`; A2 is a
//! two-segment jumping window); slice probes for the APBF (tested against
//! simulation); none for the Forgetful filter; for the Naor-Yogev filter,
//! slots read, tested in `naor_yogev_vs_simulation`. The
//! SWAMP paper's designs (SWAMP, SWBF, the timing Bloom filter) keep an exact
//! window: slack 0, NPWS 0; their probes are slots (two buckets of four) or,
//! for the TBF, timestamp cells.

use crate::designs::REGISTRY;
pub use crate::designs::{Candidate, Constraints};

/// A design that cannot meet the constraints, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejected {
    /// Design name.
    pub design: &'static str,
    /// One line.
    pub reason: String,
}

/// The plan: feasible designs (cheapest configuration each, sorted by memory)
/// and the reasons for the others.
pub fn plan(c: &Constraints) -> (Vec<Candidate>, Vec<Rejected>) {
    plan_only(c, &[])
}

/// The plan of the designs named in `only` (canonical names; empty: every
/// design).
pub fn plan_only(c: &Constraints, only: &[&str]) -> (Vec<Candidate>, Vec<Rejected>) {
    let (ok, _, rejected) = plan_with_fast(c, only);
    (ok, rejected)
}

pub use crate::designs::FAST_MEMORY;

/// Fewest lines a fast sizing must save: at most this share of the
/// least-memory sizing's.
pub const FAST_LINES: f64 = 0.8;

/// The fast sizing among a design's fitting configurations, if it has one
/// that differs from the least-memory `best`: the fewest expected 64-byte
/// lines of a negative query (the design's theory) within [`FAST_MEMORY`]
/// times its memory, saving at least 1 - [`FAST_LINES`] of its lines.
/// Designs without a lines theory, or with one configuration, have none.
fn fast_sizing<'a>(fitting: &[&'a Candidate], best: &Candidate) -> Option<&'a Candidate> {
    let base = best.query_lines?;
    fitting
        .iter()
        .copied()
        .filter(|x| x.memory_bits as f64 <= FAST_MEMORY * best.memory_bits as f64)
        .filter(|x| x.query_lines.is_some_and(|p| p <= FAST_LINES * base))
        .min_by(|a, b| {
            let (pa, pb) = (a.query_lines.unwrap_or(0.0), b.query_lines.unwrap_or(0.0));
            pa.total_cmp(&pb).then(a.memory_bits.cmp(&b.memory_bits))
        })
}

/// The plan with each design's fast sizing beside its least-memory one
/// (the fewest negative-query lines within [`FAST_MEMORY`] times the memory,
/// saving at least 1 - [`FAST_LINES`] of them): (least memory, fast,
/// rejected), each sorted by memory.
pub fn plan_with_fast(
    c: &Constraints,
    only: &[&str],
) -> (Vec<Candidate>, Vec<Candidate>, Vec<Rejected>) {
    use rayon::prelude::*;
    let mut fast = Vec::new();
    let mut ok = Vec::new();
    let mut rejected = Vec::new();
    // each design's configurations, planned in parallel (the exact
    // theories of the swept and SHE designs take seconds at a window of
    // millions), then ranked in the registry's order; the designs over
    // insertions first, then those over time, whose plans reuse their count
    // twins' (memoized: planned together, a twin's thread would wait on the
    // other's sizing with its core idle)
    let wanted = |d: &&&dyn crate::designs::Design| only.is_empty() || only.contains(&d.name());
    let mut planned: Vec<(usize, &str, anyhow::Result<Vec<Candidate>>)> = Vec::new();
    for over_time in [false, true] {
        planned.par_extend(
            REGISTRY
                .par_iter()
                .enumerate()
                .filter(|(_, d)| wanted(d) && d.capabilities().time_window == over_time)
                .map(|(i, d)| (i, d.name(), d.plan(c))),
        );
    }
    planned.sort_by_key(|p| p.0);
    let planned = planned
        .into_iter()
        .map(|(_, name, configs)| (name, configs));
    for (design, configs) in planned {
        let configs = match configs {
            // a configuration whose theory gave a non-finite figure is
            // left out, never ranked
            Ok(configs) => configs
                .into_iter()
                .filter(Candidate::is_finite)
                .collect::<Vec<_>>(),
            Err(reason) => {
                let reason = reason.to_string();
                rejected.push(Rejected { design, reason });
                continue;
            }
        };
        if configs.is_empty() {
            rejected.push(Rejected {
                design,
                reason: format!("no configuration reaches FPR {:e}", c.fpr),
            });
            continue;
        }
        let fits = |x: &Candidate| {
            x.fpr <= c.fpr * (1.0 + 1e-9)
                && c.max_npws.is_none_or(|n| x.npws_peak <= n)
                && c.max_bits_per_element
                    .is_none_or(|b| x.bits_per_element <= b)
        };
        let fitting: Vec<&Candidate> = configs.iter().filter(|x| fits(x)).collect();
        match fitting.iter().min_by_key(|x| x.memory_bits) {
            Some(best) => {
                fast.extend(fast_sizing(&fitting, best).cloned());
                ok.push((*best).clone())
            }
            None => {
                let min_npws = configs
                    .iter()
                    .map(|x| x.npws_peak)
                    .fold(f64::INFINITY, f64::min);
                let min_bits = configs
                    .iter()
                    .map(|x| x.bits_per_element)
                    .fold(f64::INFINITY, f64::min);
                let reason = match (c.max_npws, c.max_bits_per_element) {
                    (Some(n), _) if min_npws > n => {
                        format!("peak NPWS at least {min_npws:.4} over its configurations > {n}")
                    }
                    (_, Some(b)) if min_bits > b => {
                        format!("at least {min_bits:.2} bits per element > {b}")
                    }
                    _ => "no single configuration meets both limits".to_string(),
                };
                rejected.push(Rejected { design, reason });
            }
        }
    }
    ok.sort_by_key(|x| x.memory_bits);
    fast.sort_by_key(|x| x.memory_bits);
    (ok, fast, rejected)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_candidate_meets_the_constraints_and_matches_its_filter() {
        let c = Constraints {
            window: 10_000,
            fpr: 1e-3,
            max_npws: Some(0.3),
            max_bits_per_element: None,
            time: None,
        };
        let (ok, rejected) = plan(&c);
        assert!(ok.iter().any(|x| x.design == "apbf"));
        assert!(ok.iter().any(|x| x.design == "naor_yogev"));
        for d in ["swamp", "swbf", "tbf"] {
            assert!(ok.iter().any(|x| x.design == d), "{d}");
        }
        assert!(
            rejected.iter().any(|r| r.design == "double_buffer"),
            "NPWS 1 > 0.3"
        );
        for x in &ok {
            assert!(x.fpr <= 1e-3 && x.npws_peak <= 0.3 && x.window >= 10_000);
            // the predicted memory is what the filter reports
            let params = x.point().unwrap();
            let built = crate::designs::build(x.design, &params, 0).unwrap();
            let f = built.filter.as_ref().unwrap();
            assert_eq!(f.memory_bits(), x.memory_bits, "{}", x.design);
            assert!(
                (built.theory.get(crate::metrics::columns::col::FPR).unwrap() - x.fpr).abs()
                    < 1e-12
            );
            match built.theory.get(crate::metrics::columns::col::NPWS_PEAK) {
                Some(n) => assert!((n - x.npws_peak).abs() < 1e-9),
                None => assert_eq!((x.slack, x.npws_peak), (0, 0.0), "{}", x.design),
            }
        }
        assert!(ok.windows(2).all(|p| p[0].memory_bits <= p[1].memory_bits));
    }

    /// Each fast sizing takes at most 1.25x its design's least memory,
    /// reads at most 0.8x its probes, meets the same limits, and is the
    /// fewest probes among the design's fitting configurations in that
    /// memory; the APBF has one at W = 10^6, FPR 1e-3.
    #[test]
    fn fast_sizings_trade_bounded_memory_for_probes() {
        let c = Constraints {
            window: 1_000_000,
            fpr: 1e-3,
            max_npws: None,
            max_bits_per_element: None,
            time: None,
        };
        let (ok, fast, _) = plan_with_fast(&c, &[]);
        assert!(fast.iter().any(|x| x.design == "apbf"));
        for f in &fast {
            let least = ok.iter().find(|x| x.design == f.design).unwrap();
            assert!(f.memory_bits as f64 <= FAST_MEMORY * least.memory_bits as f64);
            assert!(f.query_lines.unwrap() <= FAST_LINES * least.query_lines.unwrap());
            assert!(f.fpr <= c.fpr * (1.0 + 1e-9) && f.window >= c.window);
            let d = crate::designs::lookup(f.design).unwrap();
            let fewer = d.plan(&c).unwrap().into_iter().any(|x| {
                x.fpr <= c.fpr * (1.0 + 1e-9)
                    && x.memory_bits as f64 <= FAST_MEMORY * least.memory_bits as f64
                    && x.query_lines.unwrap() < f.query_lines.unwrap() - 1e-12
            });
            assert!(!fewer, "{}", f.design);
        }
    }

    /// The criterion benchmark's two APBF sizings at FPR 1.5e-3
    /// (`bench/benches/ops.rs`, `apbf_least` and `apbf_fast`) are the plan's
    /// at every window it times: least memory (13, 30), fast (11, 10).
    #[test]
    fn the_benchmark_s_apbf_sizings_are_the_plan_s() {
        for log_w in [12u32, 16, 20, 24] {
            let c = Constraints {
                window: 1 << log_w,
                fpr: 1.5e-3,
                max_npws: None,
                max_bits_per_element: None,
                time: None,
            };
            let (ok, fast, _) = plan_with_fast(&c, &["apbf"]);
            let kl = |x: &Candidate| {
                (
                    x.params_text().contains("k=13 l=30"),
                    x.params_text().contains("k=11 l=10"),
                )
            };
            assert_eq!(
                kl(&ok[0]),
                (true, false),
                "2^{log_w}: {}",
                ok[0].params_text()
            );
            assert_eq!(
                kl(&fast[0]),
                (false, true),
                "2^{log_w}: {}",
                fast[0].params_text()
            );
        }
    }
}
