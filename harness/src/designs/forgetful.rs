//! The Forgetful Bloom filter: N past filters, a present and a future one;
//! and the Sliding Sketches authors' code's variant of it
//! (`forgetful_code`).

use super::segmented::{self, Sizing};
use super::{at_least_one, Built, DesignDef};
use super::{Candidate, Constraints};
use crate::metrics::columns::col;
use crate::spec::Metric;
use bloomlab_filters::segmented::{theory as seg, ForgetfulBloom, ForgetfulCode};
use bloomlab_filters::{Build, ForgetfulBloomShape, ParamError, SlidingFilter};

segmented::segmented_params! {
    /// Forgetful Bloom filter parameters: past and (window, fpr) or (k, g, m).
    ForgetfulParams {
        /// Past filters N, 1..=14 (window N g, slack 2 g)
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        past: Option<u32>,
    }
}

/// The Forgetful Bloom filter.
pub struct Forgetful;

/// Design `name`'s past filters and filter, from (window, fpr) by the
/// crate's sizing or from (k, g, m) by `new`: the paper's filter's or the
/// code's.
fn filter<F: Build>(
    name: &str,
    p: &ForgetfulParams,
    new: fn(ForgetfulBloomShape) -> Result<F, ParamError>,
) -> anyhow::Result<(u32, F)> {
    let past =
        at_least_one(col::PAST, p.past)?.ok_or_else(|| anyhow::anyhow!("{name} needs past"))?;
    let f = match segmented::sizing(name, p.window, p.fpr, p.k, p.g, p.m)? {
        Sizing::Explicit(k, g, m) => new(ForgetfulBloomShape {
            past_filters: past,
            hashes: k,
            generation: g,
            bits_per_slice: m,
        }),
        Sizing::Target(t) => t.past(past).build::<F>(),
    }
    .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    Ok((past, f))
}

impl DesignDef for Forgetful {
    type Params = ForgetfulParams;
    const NAME: &'static str = "forgetful";
    const FILTER: &'static str = "ForgetfulBloom";
    const OP_NS: (f64, f64) = (115.0, 340.0);
    const ABOUT: &'static str =
        "Forgetful Bloom filter: N past filters, a present and a future one; keys refreshed on insert";
    const CAPS: super::Capabilities = super::Capabilities::SLIDING;
    const METRICS: &'static [Metric] = segmented::METRICS;

    fn build(p: ForgetfulParams, _seed: u64) -> anyhow::Result<Built> {
        let (past, f) = filter(Self::NAME, &p, ForgetfulBloom::new)?;
        let (k, g, m) = (f.k(), f.g(), f.m());
        let payload = (past as u64 + 2) * k as u64 * m;
        let mut t = segmented::theory(&f, payload, &|p| f.theory_fpr(p), &|p| {
            f.theory_presence_by_shift(p)
        });
        t.scalars.extend([
            (
                col::LINES_QUERY_NEGATIVE,
                seg::forgetful_lines_negative(past, k, g, m, g),
            ),
            (
                col::LINES_QUERY_POSITIVE,
                seg::forgetful_lines_positive(past, k, g, m, g),
            ),
            (col::LINES_INSERT, {
                let (insert, shift) = seg::segment_insert_lines(2, k, m, g);
                insert + shift
            }),
        ]);
        let geometry = super::Geometry::sliding(&f);
        Ok(segmented::finish(
            Box::new(f),
            geometry,
            t,
            (k, g, m),
            Some((col::PAST, past)),
        ))
    }

    /// One configuration per N in 1..=8 past filters.
    fn plan(c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        Ok((1..=8u32)
            .filter_map(|past| {
                let (k, g, m) = ForgetfulBloom::sizing(c.window, c.fpr, past)?;
                let fpr = seg::forgetful_fpr(past, k, g, m, g);
                let by_j: Vec<f64> = (0..=past as u64 + 1)
                    .map(|j| seg::forgetful_presence(past, k, g, m, g, j))
                    .collect();
                Some(segmented::candidate(
                    Self::NAME,
                    vec![
                        (col::K, k as u64),
                        (col::G, g),
                        (col::M, m),
                        (col::PAST, past as u64),
                    ],
                    (past as u64 + 2) * k as u64 * m + 128,
                    (past as u64 * g, 2 * g, g),
                    fpr,
                    &by_j,
                    2 * k as u64,
                    // 64-byte lines: every filter, slice by slice
                    Some(seg::forgetful_lines_negative(past, k, g, m, g)),
                ))
            })
            .collect())
    }
}

/// The Forgetful Bloom filter as the Sliding Sketches authors' code builds
/// it (`bloomlab_filters::ForgetfulCode`): a key is written only when its
/// query answers no; yes on the future filter alone, two consecutive
/// filters from the present on, or the oldest alone; window (N + 1) g,
/// slack g, and no window for a key that repeats.
pub struct ForgetfulCodeDesign;

impl DesignDef for ForgetfulCodeDesign {
    type Params = ForgetfulParams;
    const NAME: &'static str = "forgetful_code";
    const FILTER: &'static str = "ForgetfulCode";
    const OP_NS: (f64, f64) = (115.0, 340.0);
    const ABOUT: &'static str = "The Sliding Sketches code's Forgetful filter: writes a key only if absent, answers on single filters; loses repeated keys";
    // a key found at its arrival is not written again, so none is
    // guaranteed: the FNR is measured, not a check that must read 0
    const CAPS: super::Capabilities = super::Capabilities {
        guaranteed_window: false,
        ..super::Capabilities::SLIDING
    };
    const METRICS: &'static [Metric] = segmented::METRICS;

    fn build(p: ForgetfulParams, _seed: u64) -> anyhow::Result<Built> {
        let (past, f) = filter(Self::NAME, &p, ForgetfulCode::new)?;
        let (k, g, m) = (f.k(), f.g(), f.m());
        // its memory only: the FPR on new keys (`ForgetfulCode::theory_fpr`)
        // is an upper bound, not an expectation (a key found at its
        // arrival is not written, so the filters fill less; the filters
        // crate's conformance suite holds it as a bound), and no theory of
        // the keys it loses is derived
        let payload = (past as u64 + 2) * k as u64 * m;
        let t = super::Theory {
            scalars: vec![(
                col::BITS_PER_ELEMENT,
                payload as f64 / SlidingFilter::window(&f) as f64,
            )],
            ..super::Theory::default()
        };
        let mut geometry = super::Geometry::sliding(&f);
        geometry.guaranteed = false;
        Ok(segmented::finish(
            Box::new(f),
            geometry,
            t,
            (k, g, m),
            Some((col::PAST, past)),
        ))
    }

    /// None: a reference variant measured beside the paper's design, not
    /// one to adopt (it loses repeated keys inside its window).
    fn plan(_c: &Constraints) -> anyhow::Result<Vec<Candidate>> {
        Err(anyhow::anyhow!(
            "a reference variant of the Sliding Sketches code, which loses repeated keys inside its window: measured beside forgetful, not planned"
        ))
    }
}
