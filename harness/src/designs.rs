//! The design registry: from a design name and a parameter map to a filter and
//! its theory. Adding a design means adding one arm to [`build`]; the sweep,
//! metrics and reports pick it up without special cases.

use bloomlab_filters::apbf::theory::{self as apbf_theory, ApbfTheory};
use bloomlab_filters::{Apbf, SlidingFilter};
use std::collections::BTreeMap;

/// Designs the harness can build.
pub const DESIGNS: &[&str] = &["apbf"];

/// A filter ready to measure, with its resolved parameters and theory.
pub struct Built {
    /// The filter.
    pub filter: Box<dyn SlidingFilter + Send>,
    /// Parameters actually used (after choosing k from an FPR target, say).
    pub resolved: Vec<(&'static str, f64)>,
    /// Theoretical figures.
    pub theory: Theory,
}

/// Theoretical figures of one configuration. Scalar names match the measured
/// metric names in `metrics.rs` (`fpr`, `fpr_avg`, `probes_negative`,
/// `npws_peak`, `npws_avg`, `bits_per_element`, ...).
#[derive(Default)]
pub struct Theory {
    /// name -> value.
    pub scalars: Vec<(&'static str, f64)>,
    /// P(yes | age) at the worst phase and averaged over phases.
    pub profile: Option<Box<dyn ProfileTheory>>,
}

impl Theory {
    /// The named scalar, if this design's theory has it.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.scalars
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, v)| v)
    }
}

/// The theoretical age profile.
pub trait ProfileTheory: Send + Sync {
    /// P(yes | age) at the worst phase (phase = period).
    fn worst(&self, age: u64) -> f64;
    /// P(yes | age) averaged over phases.
    fn avg(&self, age: u64) -> f64;
}

struct ApbfProfile {
    g: u64,
    /// (phase, P(yes | j shifts) for j = 0..=k+l)
    by_phase: Vec<(u64, Vec<f64>)>,
}

impl ProfileTheory for ApbfProfile {
    fn worst(&self, age: u64) -> f64 {
        let (phase, by_j) = self.by_phase.last().expect("phase grid ends at g");
        let j = apbf_theory::shifts_at_age(age, *phase, self.g) as usize;
        by_j[j.min(by_j.len() - 1)]
    }
    fn avg(&self, age: u64) -> f64 {
        self.by_phase
            .iter()
            .map(|(phase, by_j)| {
                let j = apbf_theory::shifts_at_age(age, *phase, self.g) as usize;
                by_j[j.min(by_j.len() - 1)]
            })
            .sum::<f64>()
            / self.by_phase.len() as f64
    }
}

/// Reads parameter `name` as a whole number >= 1.
fn whole(params: &BTreeMap<String, f64>, name: &str) -> Result<Option<u64>, String> {
    match params.get(name) {
        None => Ok(None),
        Some(&v) if v >= 1.0 && v.fract() == 0.0 && v < 2f64.powi(53) => Ok(Some(v as u64)),
        Some(&v) => Err(format!(
            "parameter {name} = {v} must be a whole number >= 1"
        )),
    }
}

fn small(name: &str, v: u64) -> Result<u32, String> {
    u32::try_from(v).map_err(|_| format!("parameter {name} = {v} is too large"))
}

/// Builds design `design` from `params`; `with_theory` = false skips the
/// (cheap but not free) theory for callers that only need the filter.
pub fn build(design: &str, params: &BTreeMap<String, f64>) -> Result<Built, String> {
    match design {
        "apbf" => build_apbf(params),
        other => Err(format!(
            "unknown design {other:?} (known: {})",
            DESIGNS.join(", ")
        )),
    }
}

/// APBF from (k, l, g), or (fpr, l, g|window) picking k, or (fpr, window)
/// picking k and l (fewest bits per element, l <= 32); g = ⌈window / l⌉ when
/// only the window is given.
fn build_apbf(params: &BTreeMap<String, f64>) -> Result<Built, String> {
    for key in params.keys() {
        if !["k", "l", "g", "fpr", "window"].contains(&key.as_str()) {
            return Err(format!(
                "apbf has no parameter {key} (expected k, l, g, fpr, window)"
            ));
        }
    }
    let fpr = params.get("fpr").copied();
    if let Some(p) = fpr {
        if !(p > 0.0 && p < 1.0) {
            return Err(format!("parameter fpr = {p} must be in (0, 1)"));
        }
    }
    let (mut k, mut l) = (whole(params, "k")?, whole(params, "l")?);
    let (g, window) = (whole(params, "g")?, whole(params, "window")?);
    if k.is_some() && fpr.is_some() {
        return Err("apbf: give k or fpr, not both".into());
    }
    if g.is_some() && window.is_some() {
        return Err("apbf: give g or window, not both".into());
    }
    match (k, l, fpr) {
        (None, None, Some(p)) => {
            let (kk, ll) = apbf_theory::choose_kl(p, bloomlab_filters::apbf::DEFAULT_MAX_L)
                .ok_or_else(|| format!("apbf: no (k, l) reaches fpr {p}"))?;
            (k, l) = (Some(kk as u64), Some(ll as u64));
        }
        (None, Some(ll), Some(p)) => {
            let kk = apbf_theory::choose_k(p, small("l", ll)?)
                .ok_or_else(|| format!("apbf: no k reaches fpr {p} with l = {ll}"))?;
            k = Some(kk as u64);
        }
        (Some(_), Some(_), None) => {}
        _ => return Err("apbf needs k and l, or fpr (and optionally l)".into()),
    }
    let (k, l) = (small("k", k.unwrap())?, small("l", l.unwrap())?);
    let g = match (g, window) {
        (Some(g), None) => g,
        (None, Some(w)) => w.div_ceil(l as u64),
        _ => return Err("apbf needs g or window".into()),
    };
    let f = Apbf::new(k, l, g).map_err(|e| format!("apbf: {e}"))?;
    let t: ApbfTheory = f.theory();
    let cost = t.query_cost();
    let grid: Vec<u64> = if g <= 256 {
        (1..=g).collect()
    } else {
        (1..=256u64).map(|j| (j * g).div_ceil(256)).collect()
    };
    let profile = ApbfProfile {
        g,
        by_phase: grid.iter().map(|&p| (p, t.presence_by_shift(p))).collect(),
    };
    let theory = Theory {
        scalars: vec![
            ("fpr", t.fpr()),
            ("fpr_paper_formula", apbf_theory::fpr_paper(k, l)),
            ("fpr_asymptotic", apbf_theory::fpr(k, l)),
            ("fpr_avg", t.fpr_avg()),
            ("fpr_expired", t.fpr()),
            ("fnr", 0.0),
            ("probes_negative", cost.probes_no),
            ("probes_false_positive", cost.probes_yes),
            ("npws_peak", t.npws_peak()),
            (
                "npws_peak_paper_formula",
                apbf_theory::npws_peak_paper(k, l),
            ),
            ("npws_avg", t.npws_avg()),
            ("bits_per_element", t.bits_per_element()),
            ("efficiency_vs_bloom", t.efficiency_vs_bloom()),
        ],
        profile: Some(Box::new(profile)),
    };
    Ok(Built {
        resolved: vec![
            ("k", k as f64),
            ("l", l as f64),
            ("g", g as f64),
            ("m", f.m() as f64),
            ("window", f.window() as f64),
            ("slack", f.slack() as f64),
        ],
        filter: Box::new(f),
        theory,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn resolves_each_parameterisation() {
        let b = build("apbf", &p(&[("k", 4.0), ("l", 3.0), ("g", 10.0)])).unwrap();
        assert_eq!(b.filter.window(), 30);
        let b = build("apbf", &p(&[("fpr", 0.01), ("l", 14.0), ("g", 100.0)])).unwrap();
        assert_eq!(b.resolved[0], ("k", 10.0));
        let b = build("apbf", &p(&[("fpr", 0.01), ("window", 1000.0)])).unwrap();
        assert!(b.filter.window() >= 1000);
        assert!(b.theory.get("fpr").unwrap() <= 0.0101);
    }

    #[test]
    fn bad_parameters_give_one_line_errors() {
        for bad in [
            p(&[("k", 0.0), ("l", 3.0), ("g", 10.0)]),
            p(&[("k", 2.5), ("l", 3.0), ("g", 10.0)]),
            p(&[("k", 4.0), ("l", 3.0)]),
            p(&[("k", 4.0), ("l", 3.0), ("g", 10.0), ("x", 1.0)]),
            p(&[("fpr", 1.5), ("window", 10.0)]),
            p(&[("k", 4.0), ("fpr", 0.1), ("l", 3.0), ("g", 10.0)]),
            p(&[("k", 4.0), ("l", 3.0), ("g", 1e15)]),
            p(&[("k", 1e12), ("l", 3.0), ("g", 10.0)]),
        ] {
            let e = build("apbf", &bad).err().expect("must fail");
            assert!(!e.contains('\n'));
        }
        assert!(build("nope", &p(&[]))
            .err()
            .unwrap()
            .contains("unknown design"));
    }
}
