//! The `convergence` metric: zero fraction and FPR from empty filters.

use crate::designs::Built;
use crate::metrics::stats::Welford;
use crate::spec::MeasureSpec;
use crate::workload::KeyStream;
use rand::Rng;
use rand_pcg::Pcg64;

/// One checkpoint of the convergence curve.
#[derive(Debug, Clone, PartialEq)]
pub struct ConvergenceRow {
    /// Insertions since the filter was empty.
    pub t: u64,
    /// Zero fraction over runs.
    pub zeros: Welford,
    /// False positives over all runs' queries.
    pub fp: u64,
    /// Queries.
    pub n: u64,
    /// Theoretical zero fraction at t.
    pub zero_theory: f64,
    /// Theoretical FPR at t.
    pub fpr_theory: f64,
}

/// Zero fraction and FPR from empty filters: `rounds` runs (fresh filter and
/// key stream each), measured at `convergence_points` log-spaced checkpoints
/// up to 1.5 x the design's warm-up (its time to reach the stable point).
pub(super) fn measure_convergence(
    built: &Built,
    stream: &KeyStream,
    rng: &mut Pcg64,
    spec: &MeasureSpec,
    rebuild: &dyn Fn(u64) -> anyhow::Result<Built>,
) -> anyhow::Result<Vec<ConvergenceRow>> {
    let Some(curve) = built.theory.convergence.as_ref() else {
        return Err(anyhow::anyhow!(
            "metric convergence: this design has no convergence theory"
        ));
    };
    let end = (built.geometry.warmup.unwrap_or(1000) as f64 * 1.5).max(2.0);
    let n = spec.convergence_points.max(2);
    let mut ts: Vec<u64> = (0..n)
        .map(|i| end.powf(i as f64 / (n - 1) as f64).round() as u64)
        .collect();
    ts.dedup();
    let mut rows: Vec<ConvergenceRow> = ts
        .iter()
        .map(|&t| {
            let (zero_theory, fpr_theory) = curve(t);
            ConvergenceRow {
                t,
                zeros: Welford::default(),
                fp: 0,
                n: 0,
                zero_theory,
                fpr_theory,
            }
        })
        .collect();
    for _ in 0..spec.rounds {
        let mut b = rebuild(rng.random())?;
        let f = b
            .filter
            .as_mut()
            .ok_or_else(|| anyhow::anyhow!("convergence needs a membership filter"))?;
        let mut st = stream.fresh(rng);
        let mut t = 0u64;
        for row in rows.iter_mut() {
            while t < row.t {
                t += 1;
                f.insert(st.next_key(rng));
            }
            if let Some(z) = f.zero_fraction() {
                row.zeros.add(z);
            }
            for _ in 0..spec.convergence_queries {
                row.fp += f.contains(st.negative(rng)) as u64;
                row.n += 1;
            }
        }
    }
    Ok(rows)
}
