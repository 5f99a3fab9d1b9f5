//! The membership pass's columns: the point's row from the rounds'
//! tallies, one function per metric, the timed metrics, and the age
//! profile's buckets.

use super::*;
use crate::metrics::columns::{col, Col};
use crate::metrics::{Figure, Part, TheoryColumns};
use crate::passes::speed;
use bloomlab_filters::Filter as _;

/// The point's row from the rounds' tallies, then the timed metrics.
pub(super) fn columns(
    plan: &MembershipPlan,
    r: &mut Runner,
    theory: &Theory,
    (worst, avg, fnr, zeros): (&PhaseStats, &PhaseStats, &FnrTally, &Welford),
) -> Row {
    let spec = plan.spec;
    let mut row = Row::default();
    row.push(col::ROUNDS, Value::Int(spec.rounds));
    let level = spec.ci_level;
    if plan.has(Metric::Fpr) {
        fpr_columns(&mut row, theory, worst, avg, level);
    }
    if plan.has(Metric::Fnr) {
        let all = &fnr.all;
        row.push(col::FNR_QUERIES, Value::Int(all.n));
        row.push(col::FALSE_NEGATIVES, Value::Int(all.x));
        // a design without a guaranteed window loses keys at a rate that
        // moves with its state (a Stable filter's fill, the HSS-BF's
        // clock phase), and one round's queries ask one state at two
        // phases: the rounds, not the queries, are the independent draws.
        // The wider of Clopper-Pearson and the Student t over the rounds'
        // rates (Clopper-Pearson alone covered 92.6% at 95% at a Stable
        // filter, docs/metrics.md, "Calibration")
        let ci = if plan.guaranteed {
            binomial_ci(all.x, all.n, level)
        } else {
            crate::metrics::stats::pooled_or_rounds_ci(all.x, all.n, &fnr.rounds, level)
        };
        with_theory(&mut row, theory, col::FNR, all.rate(), ci);
    }
    if plan.has(Metric::Accesses) {
        let ci = worst.probes.ci_within(level, 0.0, f64::INFINITY);
        with_theory(
            &mut row,
            theory,
            col::PROBES_NEGATIVE,
            worst.probes.mean(),
            ci,
        );
        if worst.lines.count() > 0 {
            let ci = worst.lines.ci_within(level, 0.0, f64::INFINITY);
            with_theory(
                &mut row,
                theory,
                col::LINES_QUERY_NEGATIVE,
                worst.lines.mean(),
                ci,
            );
        }
    }
    if plan.has(Metric::ZeroFraction) && zeros.count() > 0 {
        let z = zeros;
        with_theory(
            &mut row,
            theory,
            col::ZERO_FRACTION,
            z.mean(),
            z.ci_within(level, 0.0, 1.0),
        );
    }
    if plan.has(Metric::Npws) && plan.s > 0 {
        npws_columns(&mut row, theory, worst, avg, plan.w, level);
    }
    if plan.has(Metric::Memory) {
        memory_columns(&mut row, theory, r.f.memory_bits(), plan.w);
    }
    if plan.has(Metric::Speed) {
        if spec.speed_reference {
            speed_against_bloom(r, spec.speed_ops.max(8), plan.w, &mut row);
        } else {
            speed(r, spec.speed_ops.max(1), plan.w, &mut row);
        }
    }
    if plan.has(Metric::Batched) {
        batched(r, spec.speed_ops.max(1), &mut row);
    }
    if plan.has(Metric::Tail) {
        tail(r, spec.tail_ops.max(1), &mut row);
    }
    row
}

/// A measured figure with its interval and, where the theory has it, the
/// theoretical value, the ratio and whether the interval holds it.
fn with_theory(row: &mut Row, theory: &Theory, name: Col, x: f64, ci: (f64, f64)) {
    row.figure(Figure::new(name, x, ci).theory(theory.get(name), TheoryColumns::Full));
}

/// `fpr` (worst phase), its alternative formulas, `fpr_avg`, `fpr_expired`.
fn fpr_columns(row: &mut Row, theory: &Theory, worst: &PhaseStats, avg: &PhaseStats, level: f64) {
    row.push(col::FPR_QUERIES, Value::Int(worst.fpr.n));
    row.push(col::FPR_FALSE_POSITIVES, Value::Int(worst.fpr.x));
    let ci = binomial_ci(worst.fpr.x, worst.fpr.n, level);
    with_theory(row, theory, col::FPR, worst.fpr.rate(), ci);
    // alternative formulas for the worst-phase FPR, each scored against
    // the same interval: the paper's, and for the blocked APBF the
    // independent-slices approximation
    for (alt, in_ci) in [
        (col::FPR_PAPER_FORMULA, col::FPR_PAPER_FORMULA_IN_CI),
        (col::FPR_INDEPENDENT, col::FPR_INDEPENDENT_IN_CI),
    ] {
        if let Some(p) = theory.get(alt) {
            row.num(alt, p);
            if let Some(inside) = in_interval(p, ci) {
                row.push(in_ci, Value::Bool(inside));
            }
        }
    }
    // Over rounds, not queries: the FPR moves with the phase, and each
    // round sees one random phase, so the phase sampling is part of the
    // error (a binomial interval missed it for double buffering).
    // When every round measured the same rate (no false positive in any,
    // say) that interval has zero width and would decide a verdict from
    // nothing: it is then Clopper-Pearson's over the pooled queries.
    let mut ci = avg.fpr_rounds.ci_within(level, 0.0, 1.0);
    if ci.0 == ci.1 && avg.fpr.n > 0 {
        ci = binomial_ci(avg.fpr.x, avg.fpr.n, level);
    }
    with_theory(row, theory, col::FPR_AVG, avg.fpr.rate(), ci);
    let expired = worst.expired;
    if expired.n > 0 {
        row.push(col::FPR_EXPIRED_QUERIES, Value::Int(expired.n));
        let ci = binomial_ci(expired.x, expired.n, level);
        with_theory(row, theory, col::FPR_EXPIRED, expired.rate(), ci);
    }
}

/// `npws_peak` (worst phase) and `npws_avg` (random phase).
fn npws_columns(
    row: &mut Row,
    theory: &Theory,
    worst: &PhaseStats,
    avg: &PhaseStats,
    w: u64,
    level: f64,
) {
    let scale = |(a, b): (f64, f64)| (a / w as f64, b / w as f64);
    let (mean, ci) = (
        worst.pws.mean() / w as f64,
        scale(worst.pws.ci_within(level, 0.0, f64::INFINITY)),
    );
    with_theory(row, theory, col::NPWS_PEAK, mean, ci);
    if let Some(p) = theory.get(col::NPWS_PEAK_PAPER_FORMULA) {
        row.num(col::NPWS_PEAK_PAPER_FORMULA, p);
    }
    let (mean, ci) = (
        avg.pws.mean() / w as f64,
        scale(avg.pws.ci_within(level, 0.0, f64::INFINITY)),
    );
    with_theory(row, theory, col::NPWS_AVG, mean, ci);
}

/// `memory_bits`, bits per window element and the ratios to the bounds.
fn memory_columns(row: &mut Row, theory: &Theory, bits: u64, w: u64) {
    row.push(col::MEMORY_BITS, Value::Int(bits));
    let bpe = bits as f64 / w as f64;
    row.num(col::BITS_PER_ELEMENT, bpe);
    if let Some(t) = theory.get(col::BITS_PER_ELEMENT) {
        row.num(Part::Theory.of(col::BITS_PER_ELEMENT), t);
    }
    // SWAMP: the paper's figure with TinyTable, beside our table's
    if let Some(t) = theory.get(col::TINYTABLE_BITS_PER_ELEMENT) {
        row.num(col::TINYTABLE_BITS_PER_ELEMENT, t);
    }
    if let Some(p) = theory.get(col::FPR) {
        row.num(col::INFO_BOUND_RATIO, info_bound_ratio(bpe, p));
    }
    if let Some(e) = theory.get(col::EFFICIENCY_VS_BLOOM) {
        row.num(col::EFFICIENCY_VS_BLOOM, e);
    }
    if let Some(bound) = theory.get(col::SPACE_BOUND_BITS) {
        row.num(col::SPACE_BOUND_PER_ELEMENT, bound / w as f64);
        row.num(col::MEMORY_OVER_BOUND, bits as f64 / bound);
    }
}

/// The `speed` metric: `n` insertions, then `n` positive (age <= w) and `n`
/// negative queries, each batch timed as a whole.
fn speed(r: &mut Runner, n: u64, w: u64, row: &mut Row) {
    let keys: Vec<u64> = (0..n).map(|_| r.stream.next_key(&mut r.rng)).collect();
    let t0 = Instant::now();
    for &k in &keys {
        r.f.insert(k);
    }
    let insert_ns = t0.elapsed().as_nanos() as f64 / n as f64;
    for &k in &keys {
        r.hist.push(k);
    }
    let pos: Vec<u64> = (0..n)
        .filter_map(|_| {
            let age = r.rng.random_range(1..=w);
            r.hist.at_age(age)
        })
        .collect();
    let neg: Vec<u64> = (0..n).map(|_| r.stream.negative(&mut r.rng)).collect();
    let time_queries = |keys: &[u64]| {
        let t0 = Instant::now();
        let mut yes = 0u64;
        for &k in keys {
            yes += r.f.contains(black_box(k)) as u64;
        }
        black_box(yes);
        t0.elapsed().as_nanos() as f64 / keys.len().max(1) as f64
    };
    let (pos_ns, neg_ns) = (time_queries(&pos), time_queries(&neg));
    row.num(col::INSERT_NS, insert_ns);
    row.num(col::QUERY_POS_NS, pos_ns);
    row.num(col::QUERY_NEG_NS, neg_ns);
    row.num(col::QUERY_NS, (pos_ns + neg_ns) / 2.0);
}

/// The `speed` metric beside a plain Bloom filter of the same memory
/// ([`speed::reference`]), the two taking turns chunk by chunk on the same
/// keys ([`speed::interleaved`]): the design's ns and the ratios.
fn speed_against_bloom(r: &mut Runner, n: u64, w: u64, row: &mut Row) {
    let mut reference = speed::reference(r.f.memory_bits(), w);
    // the reference holds the window's keys too, as the design does: the
    // bits they set ([`speed::fill`]), and below the keys it is asked for
    let held = (1..=w.min(1 << 24))
        .filter(|&age| r.hist.at_age(age).is_some())
        .count() as u64;
    speed::fill(&mut reference, held);
    let keys: Vec<u64> = (0..n).map(|_| r.stream.next_key(&mut r.rng)).collect();
    let f = &mut r.f;
    let insert = speed::interleaved(
        &keys,
        |k| {
            f.insert(k);
            false
        },
        |k| {
            reference.insert(k);
            false
        },
    );
    for &k in &keys {
        r.hist.push(k);
    }
    let pos: Vec<u64> = (0..n)
        .filter_map(|_| r.hist.at_age(r.rng.random_range(1..=w)))
        .collect();
    // the positives older than the timed insertions, which the fill
    // stands for but does not hold (at most n keys more than the window's)
    for &k in &pos {
        if !reference.contains(k) {
            reference.insert(k);
        }
    }
    let neg: Vec<u64> = (0..n).map(|_| r.stream.negative(&mut r.rng)).collect();
    let f = &r.f;
    let pos_t = speed::interleaved(&pos, |k| f.contains(k), |k| reference.contains(k));
    let neg_t = speed::interleaved(&neg, |k| f.contains(k), |k| reference.contains(k));
    speed::columns(row, insert, pos_t, neg_t, &reference);
}

/// The `batched` metric: `n` negative queries through `contains_many`.
fn batched(r: &mut Runner, n: u64, row: &mut Row) {
    let neg: Vec<u64> = (0..n).map(|_| r.stream.negative(&mut r.rng)).collect();
    let mut out = vec![false; neg.len()];
    let t0 = Instant::now();
    r.f.contains_many(black_box(&neg), &mut out);
    black_box(out.iter().filter(|&&x| x).count());
    row.num(
        col::QUERY_NEG_BATCHED_NS,
        t0.elapsed().as_nanos() as f64 / n as f64,
    );
}

/// The `tail` metric: `ops` insertions, each timed and (where the design
/// reports it) its slot reads counted; mean, p99, p99.9 and max of both.
fn tail(r: &mut Runner, ops: u64, row: &mut Row) {
    let keys: Vec<u64> = (0..ops).map(|_| r.stream.next_key(&mut r.rng)).collect();
    let mut probes = Vec::with_capacity(keys.len());
    let mut ns = Vec::with_capacity(keys.len());
    for &k in &keys {
        let t0 = Instant::now();
        let p = r.f.insert_probes(black_box(k));
        ns.push(t0.elapsed().as_nanos() as u64);
        if let Some(p) = p {
            probes.push(p as u64);
        }
        r.hist.push(k);
    }
    let quantile = |v: &mut Vec<u64>, q: f64| -> u64 {
        // nearest rank on the sorted sample
        let i = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1;
        v.select_nth_unstable(i);
        v[i]
    };
    if !probes.is_empty() {
        row.num(
            col::INSERT_PROBES_MEAN,
            probes.iter().sum::<u64>() as f64 / probes.len() as f64,
        );
        row.push(
            col::INSERT_PROBES_P99,
            Value::Int(quantile(&mut probes, 0.99)),
        );
        row.push(
            col::INSERT_PROBES_P999,
            Value::Int(quantile(&mut probes, 0.999)),
        );
        row.push(col::MAX_PROBES, Value::Int(*probes.iter().max().unwrap()));
    }
    row.num(
        col::INSERT_MEAN_NS,
        ns.iter().sum::<u64>() as f64 / ns.len() as f64,
    );
    row.num(col::INSERT_P99_NS, quantile(&mut ns, 0.99) as f64);
    row.num(col::INSERT_P999_NS, quantile(&mut ns, 0.999) as f64);
    row.num(col::INSERT_MAX_NS, *ns.iter().max().unwrap() as f64);
}

/// The age profile's buckets at both phase kinds, with the theory averaged
/// over each bucket's ages.
pub(super) fn profile_rows(
    plan: &MembershipPlan,
    theory: &Theory,
    worst: &PhaseStats,
    avg: &PhaseStats,
) -> Vec<ProfileRow> {
    let mut profile = Vec::new();
    for (label, st) in [("worst", worst), ("avg", avg)] {
        for (b, (c, rounds)) in st.profile.iter().zip(&st.profile_rounds).enumerate() {
            let lo = b as u64 * plan.bucket + 1;
            let hi = ((b as u64 + 1) * plan.bucket).min(plan.horizon);
            let th = theory.profile.as_ref().map_or(f64::NAN, |p| {
                let at = |a| {
                    if label == "worst" {
                        p.worst(a)
                    } else {
                        p.avg(a)
                    }
                };
                (lo..=hi).map(at).sum::<f64>() / (hi - lo + 1) as f64
            });
            profile.push(ProfileRow {
                phase: label,
                age_lo: lo,
                age_hi: hi,
                yes: c.x,
                n: c.n,
                rounds: *rounds,
                theory: th,
            });
        }
    }
    profile
}

#[cfg(test)]
mod tests {
    use crate::spec::Spec;
    use crate::sweep::{self, Budget, RunOptions};

    /// A design whose FPR is far below what the rounds can see: no round
    /// has a false positive, and the phase-averaged interval is then the
    /// pooled Clopper-Pearson one, not [0, 0], so the theory (about 1e-10)
    /// is inside it rather than refused for want of an observation.
    #[test]
    fn an_all_zero_fpr_avg_keeps_a_finite_interval() {
        let text = "name = \"z\"\nseed = 2\nmetrics = [\"fpr\"]\n[measure]\nrounds = 4\n\
                    [[sweep]]\ndesign = \"apbf\"\npoints = [{ window = 512, fpr = 1e-10 }]\n";
        let spec = Spec::parse(text).unwrap();
        let prepared = sweep::prepare(&spec, false, &Budget::unchecked()).unwrap();
        let out = sweep::run(&spec, text, &prepared, &RunOptions::one_thread()).unwrap();
        let r = &out.rows[0];
        assert_eq!(r.get_num("fpr_avg"), Some(0.0));
        assert_eq!(r.get_num("fpr_avg_ci_low"), Some(0.0));
        assert!(r.get_num("fpr_avg_ci_high").unwrap() > 0.0);
        assert!(r.get_num("fpr_avg_theory").unwrap() > 0.0);
        assert_eq!(
            r.get("fpr_avg_theory_in_ci"),
            Some(&crate::metrics::Value::Bool(true))
        );
    }
}
