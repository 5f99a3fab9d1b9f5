//! The design registry: from a design name and a parameter map to a filter and
//! its theory. Adding a design means adding one arm to [`build`]; the sweep,
//! metrics and reports pick it up without special cases.

use bloomlab_filters::apbf::blocked::{self, BlockedApbf};
use bloomlab_filters::apbf::theory::{self as apbf_theory, ApbfTheory};
use bloomlab_filters::naor_yogev::{self, NaorYogev};
use bloomlab_filters::segmented::{
    theory as seg_theory, A2Buffer, DoubleBuffer, ForgetfulBloom, JumpingWindow,
};
use bloomlab_filters::sketches::{SlidingHll, Swlc, Wcss};
use bloomlab_filters::stable::{self, Decrement, StableBloomFilter};
use bloomlab_filters::swamp::{self, Swamp};
use bloomlab_filters::timing::{Swbf, TimingBloom};
use bloomlab_filters::{window, Apbf, Filter, ParamError, SlidingFilter, WindowSummary};
use std::collections::BTreeMap;

/// Designs the harness can build.
pub const DESIGNS: &[&str] = &[
    "apbf",
    "blocked_apbf",
    "stable",
    "jumping",
    "double_buffer",
    "a2",
    "forgetful",
    "naor_yogev",
    "swamp",
    "tbf",
    "swbf",
    "wcss",
    "swhll",
    "swlc",
    "broom",
];

/// How the harness drives a design: its window and the time scales of its
/// state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Geometry {
    /// w: the guaranteed window of a sliding design; for a design without
    /// one, the window of interest over which `fnr` is reported.
    pub window: u64,
    /// s: the slack (0 for designs without a window).
    pub slack: u64,
    /// Insertions after which the expected state repeats (1: smooth).
    pub period: u64,
    /// Whether the design promises no false negatives within `window`.
    pub guaranteed: bool,
    /// Ages profiled (None: w + s + margin).
    pub horizon: Option<u64>,
    /// Insertions from empty to the steady state (None: the horizon).
    pub warmup: Option<u64>,
    /// Insertions between measurement rounds (None: w + s in whole periods).
    pub spacing: Option<u64>,
}

impl Geometry {
    /// An exact window of w arrivals: no slack, smooth sliding.
    fn exact(w: u64, guaranteed: bool) -> Geometry {
        Geometry {
            window: w,
            slack: 0,
            period: 1,
            guaranteed,
            horizon: None,
            warmup: None,
            spacing: None,
        }
    }

    fn sliding(f: &dyn SlidingFilter) -> Geometry {
        Geometry {
            window: f.window(),
            slack: f.slack(),
            period: f.period(),
            guaranteed: true,
            horizon: None,
            warmup: None,
            spacing: None,
        }
    }
}

/// Theoretical zero fraction and FPR after t insertions from empty.
pub type ConvergenceTheory = Box<dyn Fn(u64) -> (f64, f64) + Send + Sync>;

/// A filter ready to measure, with its resolved parameters and theory.
pub struct Built {
    /// The filter (None for sketches that answer no membership queries).
    pub filter: Option<Box<dyn Filter + Send>>,
    /// The design as a sliding-window summary (frequency, distinct count,
    /// entropy), if it is one; a separate instance from `filter`, measured on
    /// its own stream.
    pub summary: Option<Box<dyn WindowSummary + Send>>,
    /// Window, slack and time scales.
    pub geometry: Geometry,
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
    /// Zero fraction and FPR over time from empty.
    pub convergence: Option<ConvergenceTheory>,
    /// Expected errors of the summary's estimates, given the window.
    pub estimates: Option<Box<dyn EstimateTheory>>,
}

/// Expected errors of a summary's estimates as functions of the window's
/// true contents (SWAMP's, derived in `bloomlab_filters::swamp::theory`).
pub trait EstimateTheory: Send + Sync {
    /// Expected squared error of the frequency estimate of a key of window
    /// frequency `f` in a window of `n` arrivals with Σ f² = `s2`.
    fn count_mse(&self, n: u64, s2: f64, f: u64) -> f64;
    /// Expected lower bound (Z) with D distinct keys in the window.
    fn distinct_lb(&self, d: f64) -> f64;
    /// Standard deviation of the point estimate with D distinct keys.
    fn distinct_sd(&self, d: f64) -> f64;
    /// Expected entropy error H - Ĥ for a window with these flow counts.
    fn entropy_error(&self, counts: &mut dyn Iterator<Item = u64>) -> f64;
    /// FPR with D distinct keys in the window (the membership theory's
    /// figure is for D = W, a stream of distinct keys).
    fn fpr(&self, d: f64) -> f64;
    /// Expected pairs of distinct keys sharing a fingerprint, D(D-1)/2M:
    /// below about 1 per round, the errors are rare events.
    fn colliding_pairs(&self, d: f64) -> f64;
}

/// SWAMP's estimate theory at L-bit fingerprints.
struct SwampEstimates(u32);

impl EstimateTheory for SwampEstimates {
    fn count_mse(&self, n: u64, s2: f64, f: u64) -> f64 {
        swamp::theory::count_mse(self.0, n, s2, f)
    }
    fn distinct_lb(&self, d: f64) -> f64 {
        swamp::theory::expected_distinct_fingerprints(self.0, d)
    }
    fn distinct_sd(&self, d: f64) -> f64 {
        swamp::theory::distinct_mle_sd(self.0, d)
    }
    fn entropy_error(&self, counts: &mut dyn Iterator<Item = u64>) -> f64 {
        swamp::theory::entropy_error_exact(self.0, counts)
    }
    fn fpr(&self, d: f64) -> f64 {
        swamp::theory::fpr(self.0, d)
    }
    fn colliding_pairs(&self, d: f64) -> f64 {
        d * (d - 1.0) / 2.0 * 2f64.powi(-(self.0 as i32))
    }
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

/// P(yes | age) from P(yes | switches) on a grid of phases, for designs that
/// switch every g insertions.
struct ShiftProfile {
    g: u64,
    /// (phase, P(yes | j shifts) for j = 0..=k+l)
    by_phase: Vec<(u64, Vec<f64>)>,
}

impl ProfileTheory for ShiftProfile {
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

/// Rejects parameters `design` does not know; returns `fpr`, checked to lie
/// in (0, 1), if given.
fn check_params(
    design: &str,
    params: &BTreeMap<String, f64>,
    known: &[&str],
) -> Result<Option<f64>, String> {
    if let Some(key) = params.keys().find(|k| !known.contains(&k.as_str())) {
        return Err(format!(
            "{design} has no parameter {key} (expected {})",
            known.join(", ")
        ));
    }
    match params.get("fpr") {
        Some(&p) if !(p > 0.0 && p < 1.0) => Err(format!("parameter fpr = {p} must be in (0, 1)")),
        other => Ok(other.copied()),
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

/// Builds design `design` from `params`; `seed` seeds the design's own
/// randomness (the Stable Bloom filter's decrements).
pub fn build(design: &str, params: &BTreeMap<String, f64>, seed: u64) -> Result<Built, String> {
    match design {
        "apbf" => build_apbf(params),
        "blocked_apbf" => build_blocked_apbf(params),
        "stable" => build_stable(params, seed),
        "jumping" | "double_buffer" | "a2" | "forgetful" => build_segmented(design, params),
        "naor_yogev" => build_naor_yogev(params, seed),
        "swamp" => build_swamp(params, seed),
        "tbf" | "swbf" => build_timing(design, params),
        "wcss" | "swhll" | "swlc" => build_sketch(design, params, seed),
        "broom" => build_broom(params, seed),
        other => Err(format!(
            "unknown design {other:?} (known: {})",
            DESIGNS.join(", ")
        )),
    }
}

/// Largest l the slack-constrained APBF choice considers.
const MAX_L_WITH_SLACK: u32 = 4096;

/// APBF from (k, l, g), or (fpr, l, g|window) picking k, or (fpr, window)
/// picking k and l (fewest bits per element, l <= 32), or (fpr, window, slack)
/// picking the (k, l) with fewest bits whose slack kg is at most `slack`
/// (l <= 4096); g = ⌈window / l⌉ when only the window is given.
fn build_apbf(params: &BTreeMap<String, f64>) -> Result<Built, String> {
    let fpr = check_params("apbf", params, &["k", "l", "g", "fpr", "window", "slack"])?;
    let (mut k, mut l) = (whole(params, "k")?, whole(params, "l")?);
    let (g, window) = (whole(params, "g")?, whole(params, "window")?);
    if let Some(max_slack) = whole(params, "slack")? {
        // fewest bits with slack <= max_slack: needs fpr and window only
        let (Some(p), Some(w), None, None, None) = (fpr, window, k, l, g) else {
            return Err("apbf: slack (the largest slack) goes with fpr and window only".into());
        };
        let (kk, ll) = apbf_theory::choose_kl_with_slack(p, w, max_slack, MAX_L_WITH_SLACK)
            .ok_or_else(|| {
                format!("apbf: no (k, l <= {MAX_L_WITH_SLACK}) reaches fpr {p} with slack <= {max_slack}")
            })?;
        (k, l) = (Some(kk as u64), Some(ll as u64));
    }
    if params.contains_key("k") && fpr.is_some() {
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
        (Some(_), Some(_), Some(_)) if params.contains_key("slack") => {}
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
    // with a largest slack, the Naor-Yogev lower bound for (window, slack, fpr)
    // applies to the APBF as to any sliding Bloom filter
    let bound = match (whole(params, "slack")?, window, fpr) {
        (Some(m), Some(w), Some(p)) => vec![(
            "space_bound_bits",
            naor_yogev::theory::space_bound_bits(w, m, p),
        )],
        _ => Vec::new(),
    };
    let cost = t.query_cost();
    let profile = ShiftProfile {
        g,
        by_phase: window::phase_grid(g, 256)
            .into_iter()
            .map(|p| (p, t.presence_by_shift(p)))
            .collect(),
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
        ]
        .into_iter()
        .chain(bound)
        .collect(),
        profile: Some(Box::new(profile)),
        convergence: None,
        estimates: None,
    };
    Ok(Built {
        geometry: Geometry::sliding(&f),
        resolved: vec![
            ("k", k as f64),
            ("l", l as f64),
            ("g", g as f64),
            ("m", f.m() as f64),
            ("window", f.window() as f64),
            ("slack", f.slack() as f64),
        ],
        filter: Some(Box::new(f)),
        summary: None,
        theory,
    })
}

/// Blocked APBF from (k, l, g | window[, blocks]) (default blocks: the
/// unblocked APBF's bits per slice in whole words) or (fpr, window): the
/// unblocked choice of (k, l) and the fewest blocks meeting fpr in theory.
/// Its theory is the exact programme of `apbf::blocked`, evaluated on a grid
/// of 8 phases for the phase averages and the age profile (each evaluation
/// is k 2^(k-1) states per slice, 1.6e8 updates at (k, l) = (17, 32)). Also reports
/// `fpr_independent`, the slices taken as independent at their mean fills,
/// which is also the FPR of the unblocked APBF with the same k, l, g and
/// memory: the gap to `fpr` is the whole cost of blocking.
fn build_blocked_apbf(params: &BTreeMap<String, f64>) -> Result<Built, String> {
    let fpr = check_params(
        "blocked_apbf",
        params,
        &["k", "l", "g", "window", "blocks", "fpr"],
    )?;
    let (k, l) = (whole(params, "k")?, whole(params, "l")?);
    let (g, window_, blocks) = (
        whole(params, "g")?,
        whole(params, "window")?,
        whole(params, "blocks")?,
    );
    let e = |r: ParamError| format!("blocked_apbf: {r}");
    let f = match (k, l, g, window_, blocks, fpr) {
        (None, None, None, Some(w), None, Some(p)) => BlockedApbf::with_fpr(w, p).map_err(e)?,
        (Some(k), Some(l), g, w, b, None) if g.is_some() != w.is_some() => {
            let (k, l) = (small("k", k)?, small("l", l)?);
            let g = g.unwrap_or_else(|| w.expect("one of g, window").div_ceil(l as u64));
            match b {
                Some(b) => BlockedApbf::new(k, l, g, b),
                None => BlockedApbf::with_default_blocks(k, l, g),
            }
            .map_err(e)?
        }
        _ => return Err(
            "blocked_apbf needs k, l and g or window (and optionally blocks), or fpr and window"
                .into(),
        ),
    };
    let t = f.theory();
    if f.k() > blocked::MAX_EXACT_K {
        return Err(format!(
            "blocked_apbf: its exact theory takes k <= {}, got k = {}",
            blocked::MAX_EXACT_K,
            f.k()
        ));
    }
    const CHECKED: &str = "k checked against MAX_EXACT_K";
    let mut theory = switching_theory(
        &f,
        t.payload_bits(),
        8,
        &|p| t.fpr_at(p).expect(CHECKED),
        &|p| t.presence_by_shift(p).expect(CHECKED),
    );
    theory
        .scalars
        .push(("fpr_independent", t.fpr_independent(f.g())));
    Ok(Built {
        geometry: Geometry::sliding(&f),
        resolved: vec![
            ("k", f.k() as f64),
            ("l", f.l() as f64),
            ("g", f.g() as f64),
            ("blocks", f.blocks() as f64),
            ("window", f.window() as f64),
            ("slack", f.slack() as f64),
        ],
        filter: Some(Box::new(f)),
        summary: None,
        theory,
    })
}

/// The theory every switching design shares, from its FPR and P(yes | j
/// switches) as functions of the phase: worst-phase and phase-averaged FPR and
/// NPWS over a grid of at most `phases` phases, and the age profile.
fn switching_theory(
    f: &dyn SlidingFilter,
    payload_bits: u64,
    phases: u64,
    fpr_at: &dyn Fn(u64) -> f64,
    by_shift: &dyn Fn(u64) -> Vec<f64>,
) -> Theory {
    let (w, s, g) = (f.window(), f.slack(), f.period());
    let grid = window::phase_grid(g, phases);
    let by_phase: Vec<(u64, Vec<f64>)> = grid.iter().map(|&p| (p, by_shift(p))).collect();
    let pws: Vec<f64> = by_phase
        .iter()
        .map(|(p, v)| window::pws(v, fpr_at(*p), w, s, g, *p))
        .collect();
    let n = grid.len() as f64;
    Theory {
        scalars: vec![
            ("fpr", fpr_at(g)),
            ("fpr_avg", grid.iter().map(|&p| fpr_at(p)).sum::<f64>() / n),
            ("fpr_expired", fpr_at(g)),
            ("fnr", 0.0),
            (
                "npws_peak",
                pws.iter().cloned().fold(0.0, f64::max) / w as f64,
            ),
            ("npws_avg", pws.iter().sum::<f64>() / n / w as f64),
            ("bits_per_element", payload_bits as f64 / w as f64),
        ],
        profile: Some(Box::new(ShiftProfile { g, by_phase })),
        convergence: None,
        estimates: None,
    }
}

/// The segmentation baselines from (window, fpr[, segments | past]) or
/// explicit (k, g, m[, segments | past]).
fn build_segmented(design: &str, params: &BTreeMap<String, f64>) -> Result<Built, String> {
    let extra = match design {
        "jumping" => Some("segments"),
        "forgetful" => Some("past"),
        _ => None,
    };
    let mut known = vec!["window", "fpr", "k", "g", "m"];
    known.extend(extra);
    let fpr = check_params(design, params, &known)?;
    let n = match extra {
        Some(name) => Some(small(
            name,
            whole(params, name)?.ok_or_else(|| format!("{design} needs {name}"))?,
        )?),
        None => None,
    };
    let (window_, k, g, m) = (
        whole(params, "window")?,
        whole(params, "k")?,
        whole(params, "g")?,
        whole(params, "m")?,
    );
    let explicit = match (window_, fpr, k, g, m) {
        (Some(w), Some(e), None, None, None) => Err((w, e)),
        (None, None, Some(k), Some(g), Some(m)) => Ok((small("k", k)?, g, m)),
        _ => return Err(format!("{design} needs window and fpr, or k, g and m")),
    };
    let e = |r: ParamError| format!("{design}: {r}");
    type Parts = (Box<dyn Filter + Send>, Geometry, Theory, u32, u64, u64);
    let parts: Parts = match design {
        "jumping" | "a2" => {
            let segments = n.unwrap_or(2);
            // theory and geometry of a jumping window, read before it is boxed
            let parts = |f: &JumpingWindow| {
                let payload = segments as u64 * f.k() as u64 * f.m();
                let mut t = switching_theory(f, payload, 256, &|p| f.theory_fpr(p), &|p| {
                    f.theory_presence_by_shift(p)
                });
                let (k, g, m) = (f.k(), f.g(), f.m());
                t.scalars.push((
                    "probes_negative",
                    seg_theory::jumping_probes_negative(segments, k, g, m),
                ));
                (Geometry::sliding(f), t, k, g, m)
            };
            if design == "a2" {
                // with read-only queries A2 is a two-segment jumping window
                let a = match explicit {
                    Ok((k, g, m)) => A2Buffer::new(k, g, m),
                    Err((w, fpr)) => A2Buffer::with_fpr(w, fpr),
                }
                .map_err(e)?;
                let (geo, t, k, g, m) = parts(a.as_jumping());
                (Box::new(a), geo, t, k, g, m)
            } else {
                let f = match explicit {
                    Ok((k, g, m)) => JumpingWindow::new(segments, k, g, m),
                    Err((w, fpr)) => JumpingWindow::with_fpr(w, fpr, segments),
                }
                .map_err(e)?;
                let (geo, t, k, g, m) = parts(&f);
                (Box::new(f), geo, t, k, g, m)
            }
        }
        "double_buffer" => {
            let f = match explicit {
                Ok((k, g, m)) => DoubleBuffer::new(k, g, m),
                Err((w, fpr)) => DoubleBuffer::with_fpr(w, fpr),
            }
            .map_err(e)?;
            let payload = 2 * f.k() as u64 * f.m();
            let mut t = switching_theory(&f, payload, 256, &|p| f.theory_fpr(p), &|p| {
                f.theory_presence_by_shift(p)
            });
            let (k, g, m) = (f.k(), f.g(), f.m());
            t.scalars.push((
                "probes_negative",
                seg_theory::double_buffer_probes_negative(k, g, m),
            ));
            let geometry = Geometry::sliding(&f);
            (Box::new(f), geometry, t, k, g, m)
        }
        _ => {
            let past = n.unwrap_or(1);
            let f = match explicit {
                Ok((k, g, m)) => ForgetfulBloom::new(past, k, g, m),
                Err((w, fpr)) => ForgetfulBloom::with_fpr(w, fpr, past),
            }
            .map_err(e)?;
            let payload = (past as u64 + 2) * f.k() as u64 * f.m();
            let t = switching_theory(&f, payload, 256, &|p| f.theory_fpr(p), &|p| {
                f.theory_presence_by_shift(p)
            });
            let (k, g, m) = (f.k(), f.g(), f.m());
            let geometry = Geometry::sliding(&f);
            (Box::new(f), geometry, t, k, g, m)
        }
    };
    let (filter, geometry, theory, k, g, m) = parts;
    let mut resolved = vec![("k", k as f64), ("g", g as f64), ("m", m as f64)];
    if let (Some(name), Some(v)) = (extra, n) {
        resolved.push((if name == "past" { "past" } else { "segments" }, v as f64));
    }
    resolved.push(("window", geometry.window as f64));
    resolved.push(("slack", geometry.slack as f64));
    Ok(Built {
        filter: Some(filter),
        summary: None,
        geometry,
        resolved,
        theory,
    })
}

/// P(yes | age) of the Naor-Yogev filter: 1 while the key's generation is
/// active, the FPR after.
struct NaorYogevProfile {
    size: naor_yogev::Sizing,
    /// Phases averaged over (at most 256).
    grid: Vec<u64>,
}

impl ProfileTheory for NaorYogevProfile {
    fn worst(&self, age: u64) -> f64 {
        self.size.presence(age, self.size.g)
    }
    fn avg(&self, age: u64) -> f64 {
        let sum: f64 = self.grid.iter().map(|&p| self.size.presence(age, p)).sum();
        sum / self.grid.len() as f64
    }
}

/// Naor-Yogev sliding Bloom filter from window (n), slack (m, the largest
/// slack allowed) and fpr (ε); optional c (default: least memory) and
/// max_load (default 0.9).
fn build_naor_yogev(params: &BTreeMap<String, f64>, seed: u64) -> Result<Built, String> {
    let fpr = check_params(
        "naor_yogev",
        params,
        &["window", "slack", "fpr", "c", "max_load"],
    )?;
    let n = whole(params, "window")?.ok_or("naor_yogev needs window, slack and fpr")?;
    let m = whole(params, "slack")?.ok_or("naor_yogev needs window, slack and fpr")?;
    let eps = fpr.ok_or("naor_yogev needs window, slack and fpr")?;
    let c = whole(params, "c")?;
    let load = params
        .get("max_load")
        .copied()
        .unwrap_or(naor_yogev::DEFAULT_MAX_LOAD);
    let e = |r: ParamError| format!("naor_yogev: {r}");
    let size = naor_yogev::Sizing::new(n, m, eps, c, load).map_err(e)?;
    let f = NaorYogev::from_sizing(size).map_err(e)?.with_seed(seed);
    let grid = window::phase_grid(size.g, 256);
    let k = grid.len() as f64;
    let bound = naor_yogev::theory::space_bound_bits(n, m, eps);
    let theory = Theory {
        scalars: vec![
            ("fpr", size.fpr()),
            ("fpr_avg", size.fpr_avg()),
            ("fpr_expired", size.fpr()),
            ("fnr", 0.0),
            ("npws_peak", size.pws_at(size.g) / n as f64),
            (
                "npws_avg",
                grid.iter().map(|&p| size.pws_at(p)).sum::<f64>() / k / n as f64,
            ),
            ("probes_negative", size.probes_negative()),
            ("bits_per_element", size.memory_bits() as f64 / n as f64),
            ("space_bound_bits", bound),
            ("space_bound_per_element", bound / n as f64),
            ("memory_over_bound", size.memory_bits() as f64 / bound),
            ("c_paper", naor_yogev::theory::c_paper(eps)),
            ("fingerprint_bits", size.range().log2()),
            ("load", size.load()),
        ],
        profile: Some(Box::new(NaorYogevProfile { size, grid })),
        convergence: None,
        estimates: None,
    };
    Ok(Built {
        geometry: Geometry::sliding(&f),
        resolved: vec![
            ("c", size.c as f64),
            ("g", size.g as f64),
            ("window", n as f64),
            ("slack", size.slack() as f64),
            ("buckets", size.buckets as f64),
            ("remainder_bits", size.remainder_bits as f64),
            ("tag_bits", size.tag_bits as f64),
            ("slack_ratio", m as f64 / n as f64),
        ],
        filter: Some(Box::new(f)),
        summary: None,
        theory,
    })
}

/// SWAMP from window and fpr (L = ⌈log2(W/ε)⌉) or window and
/// fingerprint_bits. `seed` picks the fingerprint hash.
fn build_swamp(params: &BTreeMap<String, f64>, seed: u64) -> Result<Built, String> {
    let fpr = check_params("swamp", params, &["window", "fpr", "fingerprint_bits"])?;
    let w = whole(params, "window")?.ok_or("swamp needs window and fpr (or fingerprint_bits)")?;
    let e = |r: ParamError| format!("swamp: {r}");
    let make = || match (fpr, whole(params, "fingerprint_bits")?) {
        (Some(p), None) => Swamp::with_fpr(w, p).map_err(e),
        (None, Some(l)) => Swamp::new(w, small("fingerprint_bits", l)?).map_err(e),
        _ => Err("swamp needs window and one of fpr, fingerprint_bits".to_string()),
    };
    let f = make()?.with_seed(seed);
    let l = f.fingerprint_bits();
    let memory = swamp::theory::memory_bits(w, l) as f64;
    let theory = Theory {
        scalars: vec![
            ("fpr", swamp::theory::fpr(l, w as f64)),
            ("fpr_expired", swamp::theory::fpr(l, w as f64)),
            ("fnr", 0.0),
            ("memory_bits", memory),
            ("bits_per_element", memory / w as f64),
            (
                "tinytable_bits_per_element",
                swamp::theory::tinytable_memory_bits(w, l) / w as f64,
            ),
        ],
        estimates: Some(Box::new(SwampEstimates(l))),
        ..Theory::default()
    };
    Ok(Built {
        geometry: Geometry::sliding(&f),
        resolved: vec![
            ("window", w as f64),
            ("fingerprint_bits", l as f64),
            ("slots", f.table().slots() as f64),
            ("remainder_bits", f.table().remainder_bits() as f64),
        ],
        summary: Some(Box::new(make()?.with_seed(seed))),
        filter: Some(Box::new(f)),
        theory,
    })
}

/// The timing Bloom filter (window and fpr, or window, k and s) and SWBF
/// (window and fpr, or window and fingerprint_bits).
fn build_timing(design: &str, params: &BTreeMap<String, f64>) -> Result<Built, String> {
    let known: &[&str] = if design == "tbf" {
        &["window", "fpr", "k", "s"]
    } else {
        &["window", "fpr", "fingerprint_bits"]
    };
    let fpr = check_params(design, params, known)?;
    let w = whole(params, "window")?.ok_or(format!("{design} needs window"))?;
    let e = |r: ParamError| format!("{design}: {r}");
    let (f, resolved, p): (Box<dyn Filter + Send>, Vec<(&'static str, f64)>, f64) =
        if design == "tbf" {
            let f = match (fpr, whole(params, "k")?, whole(params, "s")?) {
                (Some(p), None, None) => TimingBloom::with_fpr(w, p).map_err(e)?,
                (None, Some(k), Some(s)) => TimingBloom::new(w, small("k", k)?, s).map_err(e)?,
                _ => return Err("tbf needs window and fpr, or window, k and s".into()),
            };
            let resolved = vec![
                ("window", w as f64),
                ("k", f.k() as f64),
                ("s", f.slice_cells() as f64),
                ("stamp_bits", f.stamp_bits() as f64),
            ];
            let p = f.fpr_theory(w as f64);
            (Box::new(f), resolved, p)
        } else {
            let f = match (fpr, whole(params, "fingerprint_bits")?) {
                (Some(p), None) => Swbf::with_fpr(w, p).map_err(e)?,
                (None, Some(b)) => Swbf::new(w, small("fingerprint_bits", b)?).map_err(e)?,
                _ => return Err("swbf needs window and one of fpr, fingerprint_bits".into()),
            };
            let resolved = vec![
                ("window", w as f64),
                ("fingerprint_bits", f.fingerprint_bits() as f64),
                ("buckets", f.buckets() as f64),
                ("stamp_bits", f.stamp_bits() as f64),
            ];
            let p = f.fpr_theory(w as f64);
            (Box::new(f), resolved, p)
        };
    Ok(exact_window_filter(f, w, p, resolved))
}

/// A filter over an exact window of `w` arrivals with no false negatives,
/// whose theory is its FPR `p` (for never-inserted and expired keys alike)
/// and its memory as built.
fn exact_window_filter(
    f: Box<dyn Filter + Send>,
    w: u64,
    p: f64,
    resolved: Vec<(&'static str, f64)>,
) -> Built {
    let bits = f.memory_bits() as f64;
    Built {
        geometry: Geometry::exact(w, true),
        resolved,
        filter: Some(f),
        summary: None,
        theory: Theory {
            scalars: vec![
                ("fpr", p),
                ("fpr_expired", p),
                ("fnr", 0.0),
                ("memory_bits", bits),
                ("bits_per_element", bits / w as f64),
            ],
            ..Theory::default()
        },
    }
}

/// The broom filter over an exact window of `window` arrivals (its
/// capacity n): from `fpr` (S = ⌈n/load⌉ slots, r = ⌈log2(α/ε)⌉), or from
/// `remainder_bits`; `load` (default 0.85) and `c` (elements moved across
/// the frontier per Adapt, default 3) are optional. Theory: the exact FPR
/// at capacity before any adaptation, n/(S·2^r), and the memory before any
/// adaptivity bit.
fn build_broom(params: &BTreeMap<String, f64>, seed: u64) -> Result<Built, String> {
    use bloomlab_filters::broom::{Broom, BroomFilter, DEFAULT_C, DEFAULT_LOAD};
    let fpr = check_params(
        "broom",
        params,
        &["window", "fpr", "remainder_bits", "load", "c"],
    )?;
    let w = whole(params, "window")?.ok_or("broom needs window and fpr (or remainder_bits)")?;
    let load = match params.get("load") {
        None => DEFAULT_LOAD,
        Some(&a) if a > 0.0 && a < 1.0 => a,
        Some(&a) => return Err(format!("parameter load = {a} must be in (0, 1)")),
    };
    let c = match whole(params, "c")? {
        None => DEFAULT_C,
        Some(c) => small("c", c)?,
    };
    let slots = BroomFilter::slots_for(w, load);
    let r = match (fpr, whole(params, "remainder_bits")?) {
        (Some(p), None) => BroomFilter::remainder_bits_for(w, slots, p),
        (None, Some(r)) => small("remainder_bits", r)?,
        _ => return Err("broom needs window and one of fpr, remainder_bits".into()),
    };
    let f = BroomFilter::new(w, slots, r, c, seed).map_err(|e| format!("broom: {e}"))?;
    let p = f.fpr_bound();
    let resolved = vec![
        ("window", w as f64),
        ("slots", f.slots() as f64),
        ("remainder_bits", f.r() as f64),
        ("load", w as f64 / f.slots() as f64),
        ("c", c as f64),
    ];
    let f = Box::new(Broom::from_filter(f));
    Ok(exact_window_filter(f, w, p, resolved))
}

/// The measurement-only baselines: WCSS (window and counters, or window
/// and eps for ⌈4/eps⌉ counters), sliding HyperLogLog and SWLC (window and
/// registers).
fn build_sketch(design: &str, params: &BTreeMap<String, f64>, seed: u64) -> Result<Built, String> {
    let known: &[&str] = if design == "wcss" {
        &["window", "counters", "eps"]
    } else {
        &["window", "registers"]
    };
    check_params(design, params, known)?;
    let w = whole(params, "window")?.ok_or(format!("{design} needs window"))?;
    let e = |r: ParamError| format!("{design}: {r}");
    let (summary, resolved): (Box<dyn WindowSummary + Send>, Vec<(&'static str, f64)>) =
        match design {
            "wcss" => {
                let f = match (whole(params, "counters")?, params.get("eps")) {
                    (Some(k), None) => Wcss::new(w, k).map_err(e)?,
                    (None, Some(&eps)) => Wcss::with_error(w, eps).map_err(e)?,
                    _ => return Err("wcss needs window and one of counters, eps".into()),
                };
                let k = f.counters() as f64;
                (Box::new(f), vec![("window", w as f64), ("counters", k)])
            }
            _ => {
                let m = whole(params, "registers")?
                    .ok_or(format!("{design} needs window and registers"))?;
                let s: Box<dyn WindowSummary + Send> = if design == "swhll" {
                    Box::new(SlidingHll::new(w, m).map_err(e)?.with_seed(seed))
                } else {
                    Box::new(Swlc::new(w, m).map_err(e)?.with_seed(seed))
                };
                (s, vec![("window", w as f64), ("registers", m as f64)])
            }
        };
    Ok(Built {
        geometry: Geometry::exact(w, false),
        resolved,
        filter: None,
        summary: Some(summary),
        theory: Theory::default(),
    })
}

struct StableProfile(stable::theory::StableTheory);

impl ProfileTheory for StableProfile {
    fn worst(&self, age: u64) -> f64 {
        self.0.presence(age)
    }
    fn avg(&self, age: u64) -> f64 {
        self.0.presence(age)
    }
}

/// Largest history the harness keeps for a design without a window.
const MAX_HORIZON: u64 = 1 << 24;

/// Stable Bloom filter from (m, d, k, p), or (m, d, k, fpr) picking P, or
/// (memory, fpr) picking d, K and P. Optional: `window` (window of interest
/// for `fnr`; default: the age up to which the theoretical FNR stays below 1%),
/// `adjacent` = 1 for adjacent decrements.
fn build_stable(params: &BTreeMap<String, f64>, seed: u64) -> Result<Built, String> {
    let fpr = check_params(
        "stable",
        params,
        &["m", "d", "k", "p", "fpr", "memory", "window", "adjacent"],
    )?;
    let (m, d, k, p) = (
        whole(params, "m")?,
        whole(params, "d")?,
        whole(params, "k")?,
        whole(params, "p")?,
    );
    let memory = whole(params, "memory")?;
    let f = match (m, d, k, p, fpr, memory) {
        (Some(m), Some(d), Some(k), Some(p), None, None) => {
            StableBloomFilter::new(m, small("d", d)?, small("k", k)?, p)
        }
        (Some(m), Some(d), Some(k), None, Some(e), None) => {
            StableBloomFilter::with_fpr_for(m, small("d", d)?, small("k", k)?, e)
        }
        (None, None, None, None, Some(e), Some(bits)) => StableBloomFilter::with_fpr(bits, e),
        _ => {
            return Err("stable needs m, d, k and p; or m, d, k and fpr; or memory and fpr".into())
        }
    }
    .map_err(|e| format!("stable: {e}"))?;
    let adjacent = match params.get("adjacent") {
        None | Some(0.0) => false,
        Some(1.0) => true,
        Some(v) => return Err(format!("parameter adjacent = {v} must be 0 or 1")),
    };
    let f = f.with_seed(seed).with_decrement(if adjacent {
        Decrement::Adjacent
    } else {
        Decrement::Uniform
    });
    let t = f.theory();
    let window = match whole(params, "window")? {
        Some(w) => w,
        None => t.age_at_fnr(0.01).map_or(1, |a| a.saturating_sub(1).max(1)),
    };
    // Profile up to where P(yes | age) is within 1% of its limit, the FPR.
    let horizon = t
        .age_at_fnr((1.0 - t.fpr()) * 0.99)
        .unwrap_or(MAX_HORIZON)
        .clamp(window + 1, MAX_HORIZON);
    let warmup = t.steps_to_stable(1e-4).min(1 << 30);
    let fnr_window = (1..=window).map(|a| t.fnr_at_age(a)).sum::<f64>() / window as f64;
    let theory = Theory {
        scalars: vec![
            ("zero_fraction", t.zero_fraction()),
            ("fpr", t.fpr()),
            ("fpr_avg", t.fpr()),
            ("fpr_expired", t.fpr()),
            ("fnr", fnr_window),
            (
                "half_life",
                t.age_at_fnr(0.5).map_or(f64::NAN, |a| a as f64),
            ),
            ("steps_to_stable", warmup as f64),
            ("bits_per_element", t.payload_bits() as f64 / window as f64),
        ],
        profile: Some(Box::new(StableProfile(t))),
        convergence: Some(Box::new(move |s| (t.zero_fraction_at(s), t.fpr_at(s)))),
        estimates: None,
    };
    Ok(Built {
        geometry: Geometry {
            window,
            slack: 0,
            period: 1,
            guaranteed: false,
            horizon: Some(horizon),
            warmup: Some(warmup),
            spacing: Some(horizon),
        },
        resolved: vec![
            ("m", t.m as f64),
            ("d", t.d as f64),
            ("k", t.k as f64),
            ("p", t.p as f64),
            ("adjacent", adjacent as u8 as f64),
            ("window", window as f64),
        ],
        filter: Some(Box::new(f)),
        summary: None,
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
        let b = build("apbf", &p(&[("k", 4.0), ("l", 3.0), ("g", 10.0)]), 0).unwrap();
        assert_eq!(b.geometry.window, 30);
        let b = build("apbf", &p(&[("fpr", 0.01), ("l", 14.0), ("g", 100.0)]), 0).unwrap();
        assert_eq!(b.resolved[0], ("k", 10.0));
        let b = build("apbf", &p(&[("fpr", 0.01), ("window", 1000.0)]), 0).unwrap();
        assert!(b.geometry.window >= 1000);
        assert!(b.theory.get("fpr").unwrap() <= 0.0101);
    }

    #[test]
    fn apbf_and_naor_yogev_at_the_same_slack() {
        for (w, slack, fpr) in [
            (16384.0, 256.0, 1e-3),
            (16384.0, 16384.0, 1e-2),
            (65536.0, 1024.0, 1e-5),
        ] {
            let a = build(
                "apbf",
                &p(&[("window", w), ("fpr", fpr), ("slack", slack)]),
                0,
            )
            .unwrap();
            let ny = build(
                "naor_yogev",
                &p(&[("window", w), ("fpr", fpr), ("slack", slack)]),
                0,
            )
            .unwrap();
            for b in [&a, &ny] {
                assert!(b.geometry.window >= w as u64);
                assert!(b.geometry.slack <= slack as u64, "{:?}", b.resolved);
            }
            assert!(ny.theory.get("fpr").unwrap() <= fpr);
            // the APBF choice is asymptotic in g; exact theory stays close
            assert!(
                a.theory.get("fpr").unwrap() <= 1.1 * fpr,
                "{:?}",
                a.resolved
            );
        }
        assert!(build(
            "apbf",
            &p(&[("k", 4.0), ("l", 3.0), ("g", 10.0), ("slack", 5.0)]),
            0
        )
        .is_err());
        assert!(build(
            "apbf",
            &p(&[("window", 100.0), ("fpr", 1e-3), ("slack", 1.0)]),
            0
        )
        .is_err());
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
            let e = build("apbf", &bad, 0).err().expect("must fail");
            assert!(!e.contains('\n'));
        }
        let s = build("stable", &p(&[("memory", 80_000.0), ("fpr", 0.01)]), 0).unwrap();
        assert!(s.theory.get("fpr").unwrap() <= 0.01);
        assert!(!s.geometry.guaranteed && s.geometry.slack == 0);
        assert!(build("stable", &p(&[("m", 100.0), ("d", 2.0), ("k", 3.0)]), 0).is_err());
        assert!(build(
            "stable",
            &p(&[
                ("m", 100.0),
                ("d", 2.0),
                ("k", 3.0),
                ("p", 5.0),
                ("adjacent", 2.0)
            ]),
            0
        )
        .is_err());
        assert!(build("nope", &p(&[]), 0)
            .err()
            .unwrap()
            .contains("unknown design"));
    }
}
