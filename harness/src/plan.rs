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

use bloomlab_filters::apbf::theory::{self as apbf_theory, ApbfTheory};
use bloomlab_filters::naor_yogev;
use bloomlab_filters::segmented::{theory as seg, DoubleBuffer, ForgetfulBloom, JumpingWindow};
use bloomlab_filters::swamp::{table as swamp_table, theory as swamp_theory};
use bloomlab_filters::timing::{Swbf, TimingBloom};
use bloomlab_filters::window;

/// Constraints of a plan.
#[derive(Debug, Clone, Copy)]
pub struct Constraints {
    /// Window (insertions) the design must guarantee.
    pub window: u64,
    /// Target worst-phase FPR.
    pub fpr: f64,
    /// Largest acceptable peak NPWS.
    pub max_npws: Option<f64>,
    /// Largest acceptable bits per window element.
    pub max_bits_per_element: Option<f64>,
}

/// One design that meets the constraints.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// Design name as `bloomlab run` knows it.
    pub design: &'static str,
    /// Parameters (name, value).
    pub params: Vec<(&'static str, u64)>,
    /// Predicted `memory_bits`.
    pub memory_bits: u64,
    /// memory_bits / window.
    pub bits_per_element: f64,
    /// Worst-phase FPR.
    pub fpr: f64,
    /// Guaranteed window (>= the requested one).
    pub window: u64,
    /// Slack.
    pub slack: u64,
    /// Peak NPWS.
    pub npws_peak: f64,
    /// Bits written per insertion.
    pub insert_bits: u64,
    /// Expected slice probes of a negative query, where the theory has them.
    pub query_probes: Option<f64>,
}

/// A design that cannot meet the constraints, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejected {
    /// Design name.
    pub design: &'static str,
    /// One line.
    pub reason: String,
}

fn npws_peak(by_j: &[f64], tail: f64, w: u64, s: u64, g: u64) -> f64 {
    window::pws(by_j, tail, w, s, g, g) / w as f64
}

/// Every configuration considered for each design family.
fn configurations(c: &Constraints) -> Vec<(&'static str, Vec<Candidate>)> {
    let (w, e) = (c.window, c.fpr);
    let mut out = Vec::new();

    let apbf: Vec<Candidate> = (1..=bloomlab_filters::apbf::DEFAULT_MAX_L)
        .filter_map(|l| {
            let k = apbf_theory::choose_k(e, l)?;
            let g = w.div_ceil(l as u64);
            let t = ApbfTheory::new(k, l, g)?;
            Some(Candidate {
                design: "apbf",
                params: vec![("k", k as u64), ("l", l as u64), ("g", g)],
                memory_bits: t.payload_bits() + 128,
                bits_per_element: (t.payload_bits() + 128) as f64 / t.window() as f64,
                fpr: t.fpr(),
                window: t.window(),
                slack: t.slack(),
                npws_peak: t.pws_at(g) / t.window() as f64,
                insert_bits: k as u64,
                query_probes: Some(t.expected_probes_negative()),
            })
        })
        .collect();
    out.push(("apbf", apbf));

    let jumping = |design: &'static str, n: u32| {
        let (k, g, m) = JumpingWindow::sizing(w, e, n);
        let (win, slack) = ((n as u64 - 1) * g, g);
        let fpr = seg::jumping_fpr(n, k, g, m, g);
        let mut by_j = vec![1.0; n as usize];
        by_j.push(fpr);
        let memory = n as u64 * k as u64 * m + 128;
        let mut params = vec![("k", k as u64), ("g", g), ("m", m)];
        if design == "jumping" {
            params.push(("segments", n as u64));
        }
        Candidate {
            design,
            params,
            memory_bits: memory,
            bits_per_element: memory as f64 / win as f64,
            fpr,
            window: win,
            slack,
            npws_peak: npws_peak(&by_j, fpr, win, slack, g),
            insert_bits: k as u64,
            query_probes: Some(seg::jumping_probes_negative(n, k, g, m)),
        }
    };
    out.push(("jumping", (3..=16).map(|n| jumping("jumping", n)).collect()));
    out.push(("a2", vec![jumping("a2", 2)]));

    let (k, g, m) = DoubleBuffer::sizing(w, e);
    let fpr = seg::double_buffer_fpr(k, g, m, g);
    let memory = 2 * k as u64 * m + 64;
    out.push((
        "double_buffer",
        vec![Candidate {
            design: "double_buffer",
            params: vec![("k", k as u64), ("g", g), ("m", m)],
            memory_bits: memory,
            bits_per_element: memory as f64 / g as f64,
            fpr,
            window: g,
            slack: g,
            npws_peak: npws_peak(&[1.0, 1.0], fpr, g, g, g),
            insert_bits: 2 * k as u64,
            query_probes: Some(seg::double_buffer_probes_negative(k, g, m)),
        }],
    ));

    let forgetful: Vec<Candidate> = (1..=8u32)
        .filter_map(|past| {
            let (k, g, m) = ForgetfulBloom::sizing(w, e, past)?;
            let fpr = seg::forgetful_fpr(past, k, g, m, g);
            let by_j: Vec<f64> = (0..=past as u64 + 1)
                .map(|j| seg::forgetful_presence(past, k, g, m, g, j))
                .collect();
            let (win, slack) = (past as u64 * g, 2 * g);
            let memory = (past as u64 + 2) * k as u64 * m + 128;
            Some(Candidate {
                design: "forgetful",
                params: vec![("k", k as u64), ("g", g), ("m", m), ("past", past as u64)],
                memory_bits: memory,
                bits_per_element: memory as f64 / win as f64,
                fpr,
                window: win,
                slack,
                npws_peak: npws_peak(&by_j, fpr, win, slack, g),
                insert_bits: 2 * k as u64,
                query_probes: None,
            })
        })
        .collect();
    out.push(("forgetful", forgetful));

    // Naor-Yogev: the least-memory c for each largest slack w / 2^i; its peak
    // NPWS is about slack / w (the whole slack is active just before a shift)
    let naor_yogev: Vec<Candidate> = (0..=12)
        .filter_map(|i| {
            let m = (w >> i).max(1);
            let s = naor_yogev::Sizing::new(w, m, e, None, naor_yogev::DEFAULT_MAX_LOAD).ok()?;
            Some(Candidate {
                design: "naor_yogev",
                params: vec![("window", w), ("slack", m), ("c", s.c)],
                memory_bits: s.memory_bits(),
                bits_per_element: s.memory_bits() as f64 / w as f64,
                fpr: s.fpr(),
                window: w,
                slack: s.slack(),
                npws_peak: s.pws_at(s.g) / w as f64,
                insert_bits: s.slot_bits() as u64,
                query_probes: Some(s.probes_negative()),
            })
        })
        .collect();
    out.push(("naor_yogev", naor_yogev));

    // The SWAMP paper's designs: exact windows, no slack. SWAMP with the
    // fewest fingerprint bits whose exact FPR 1 - (1 - 2^-L)^w meets the
    // target (the paper's ceil(log2(w/eps)) can be one more).
    let exact_window =
        |design: &'static str, params, memory: u64, fpr, insert_bits, probes| Candidate {
            design,
            params,
            memory_bits: memory,
            bits_per_element: memory as f64 / w as f64,
            fpr,
            window: w,
            slack: 0,
            npws_peak: 0.0,
            insert_bits,
            query_probes: Some(probes),
        };
    let swamp: Vec<Candidate> = (1..=bloomlab_filters::swamp::MAX_L)
        .find(|&l| swamp_theory::fpr(l, w as f64) <= e)
        .map(|l| {
            let b = swamp_table::buckets_for(w);
            let slot = swamp_table::remainder_bits(l, b) as u64 + 3;
            exact_window(
                "swamp",
                vec![("window", w), ("fingerprint_bits", l as u64)],
                swamp_theory::memory_bits(w, l),
                swamp_theory::fpr(l, w as f64),
                l as u64 + slot,
                2.0 * swamp_table::SLOTS as f64,
            )
        })
        .into_iter()
        .collect();
    out.push(("swamp", swamp));
    let swbf: Vec<Candidate> = Swbf::with_fpr(w, e)
        .ok()
        .map(|f| {
            let entry = (f.fingerprint_bits() + f.stamp_bits()) as u64;
            exact_window(
                "swbf",
                vec![
                    ("window", w),
                    ("fingerprint_bits", f.fingerprint_bits() as u64),
                ],
                4 * f.buckets() * entry + 3 * 64,
                f.fpr_theory(w as f64),
                entry,
                8.0,
            )
        })
        .into_iter()
        .collect();
    out.push(("swbf", swbf));
    let tbf: Vec<Candidate> = TimingBloom::sizing(w, e)
        .ok()
        .map(|(k, s)| {
            let b = bloomlab_filters::timing::clock::stamp_bits(w) as u64;
            let fill = bloomlab_filters::bloom::fill_ratio(w as f64, s as f64);
            exact_window(
                "tbf",
                vec![("window", w), ("k", k as u64), ("s", s)],
                k as u64 * s * b + 128,
                bloomlab_filters::timing::tbf::fpr(k, s, w as f64),
                k as u64 * b,
                bloomlab_filters::bloom::negative_query_probes(fill, k),
            )
        })
        .into_iter()
        .collect();
    out.push(("tbf", tbf));
    out
}

/// The plan: feasible designs (cheapest configuration each, sorted by memory)
/// and the reasons for the others.
pub fn plan(c: &Constraints) -> (Vec<Candidate>, Vec<Rejected>) {
    let mut ok = Vec::new();
    let mut rejected = vec![Rejected {
        design: "stable",
        reason: "no window: a Stable Bloom filter loses recent keys too (see stable_fnr_by_age)"
            .into(),
    }];
    for (design, configs) in configurations(c) {
        if configs.is_empty() {
            rejected.push(Rejected {
                design,
                reason: format!("no configuration reaches FPR {}", c.fpr),
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
                .map(|(k, v)| (k.to_string(), *v as f64))
                .collect();
            if x.design == "naor_yogev" {
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
