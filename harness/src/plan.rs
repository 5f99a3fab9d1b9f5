//! `bloomlab plan`: for a window and a target FPR, every design that can meet
//! the constraints, with the parameters and the figures its theory predicts,
//! sorted by memory; and one line for each design that cannot.
//!
//! Only figures the theory modules compute and the tests check against
//! simulation are shown: memory (exact `memory_bits`, conformance suite),
//! worst-phase FPR, window and slack (conformance and theory-vs-simulation
//! tests), peak NPWS (from P(yes | generation), tested per design), bits
//! written per insertion (exact) and slice probes of a negative query (tested
//! against simulation for the APBF, the jumping window and double buffering;
//! A2 is a two-segment jumping window; none for the Forgetful filter; for the
//! Naor-Yogev filter, slots read, tested in `naor_yogev_vs_simulation`). The
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
    let mut ok = Vec::new();
    let mut rejected = Vec::new();
    for d in REGISTRY
        .iter()
        .filter(|d| only.is_empty() || only.contains(&d.name()))
    {
        let design = d.name();
        let configs = match d.plan(c) {
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
        match configs
            .iter()
            .filter(|x| fits(x))
            .min_by_key(|x| x.memory_bits)
        {
            Some(best) => ok.push(best.clone()),
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
    (ok, rejected)
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
            let mut params: std::collections::BTreeMap<String, f64> = x
                .params
                .iter()
                .map(|(k, v)| (k.to_string(), v.num().unwrap()))
                .collect();
            if x.design == "naor_yogev" || x.design == "ny_pocket" {
                params.insert("fpr".into(), c.fpr);
            }
            let built = crate::designs::build(x.design, &params, 0).unwrap();
            let f = built.filter.as_ref().unwrap();
            assert_eq!(f.memory_bits(), x.memory_bits, "{}", x.design);
            assert!((built.theory.get("fpr").unwrap() - x.fpr).abs() < 1e-12);
            match built.theory.get("npws_peak") {
                Some(n) => assert!((n - x.npws_peak).abs() < 1e-9),
                None => assert_eq!((x.slack, x.npws_peak), (0, 0.0), "{}", x.design),
            }
        }
        assert!(ok.windows(2).all(|p| p[0].memory_bits <= p[1].memory_bits));
    }
}
