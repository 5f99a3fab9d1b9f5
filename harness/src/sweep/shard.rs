//! Splitting a spec's points into shards: `bloomlab run SPEC --shard I/N`
//! runs shard I of N. Each point's cost is its plan's
//! ([`crate::passes::PointPlan::cost`]: the insertions and queries its
//! passes perform, weighted by the design's cost per operation), and the
//! points are dealt out longest first to the least-loaded shard, so
//! the assignment is deterministic (it depends only on the spec and the
//! precision) and the shards' estimated work is balanced.

/// Shard `index` of `count` (`I/N` on the command line, 0 <= I < N).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// Which shard, from 0.
    pub index: usize,
    /// How many shards.
    pub count: usize,
}

/// The most shards a spec is split into (a Slurm array's usual limit).
pub const MAX_SHARDS: usize = 10_000;

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("shard {s:?} is not I/N with 0 <= I < N <= {MAX_SHARDS}");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || count > MAX_SHARDS || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Points (index, cost), most costly first, equal costs by index: the order
/// shards are dealt in, and the order one run hands points to its threads.
pub fn costliest_first(costs: &[(usize, f64)]) -> Vec<(usize, f64)> {
    let mut order = costs.to_vec();
    order.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    order
}

/// Deals points (index, cost) to `count` shards: most costly first, each to
/// the shard with the least estimated work so far (ties: the lower shard;
/// equal costs: the lower index). Returns each shard's point indices in
/// ascending order; every point is in exactly one shard.
pub fn assign(costs: &[(usize, f64)], count: usize) -> Vec<Vec<usize>> {
    let count = count.max(1);
    let mut load = vec![0.0f64; count];
    let mut shards = vec![Vec::new(); count];
    for (index, cost) in costliest_first(costs) {
        let (best, _) = load
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1).then(a.0.cmp(&b.0)))
            .expect("at least one shard");
        load[best] += cost;
        shards[best].push(index);
    }
    for s in &mut shards {
        s.sort_unstable();
    }
    shards
}

/// The assignment as a table: per shard, its points, their estimated
/// cost (in nanoseconds of `OP_NS` operations, so roughly seconds of this
/// repository's machine) and its share of the total (for `--dry-run`).
pub fn describe(costs: &[(usize, f64)], count: usize, mark: Option<usize>) -> String {
    let shards = assign(costs, count);
    let cost_of: std::collections::BTreeMap<usize, f64> = costs.iter().copied().collect();
    let total: f64 = costs.iter().map(|c| c.1).sum::<f64>().max(1.0);
    let mut out = format!(
        "{} point(s) in {count} shard(s), by estimated cost:\nshard  points  est. s   share  point indices\n",
        costs.len()
    );
    for (i, pts) in shards.iter().enumerate() {
        let ops: f64 = pts.iter().map(|p| cost_of[p]).sum();
        out += &format!(
            "{}{:<5} {:>6}  {:>7.1}  {:>5.1}%  {}\n",
            if mark == Some(i) { ">" } else { " " },
            i,
            pts.len(),
            ops * 1e-9,
            100.0 * ops / total,
            ranges(pts)
        );
    }
    out
}

/// The deal of `count` shards judged by measured seconds: its max/mean by
/// the estimate it was dealt by, by the points' measured seconds, and what
/// bounds any deal of whole points (the longest point against the mean
/// share), with the deal that dealing by the measured seconds themselves
/// would give.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Balance {
    /// Shards.
    pub count: usize,
    /// max/mean of the shards' estimated costs (what `--dry-run` predicts).
    pub predicted: f64,
    /// max/mean of the same deal's measured seconds.
    pub measured: f64,
    /// max/mean of the deal made by the measured seconds (longest first).
    pub by_measured: f64,
    /// max(longest point, mean share) / mean share: no deal of whole
    /// points does better.
    pub bound: f64,
    /// The longest point's measured seconds.
    pub longest: f64,
    /// The mean share: measured seconds over all points / count.
    pub mean: f64,
}

/// max/mean of the loads of `shards` under `cost`.
fn max_over_mean(shards: &[Vec<usize>], cost: &dyn Fn(usize) -> f64) -> f64 {
    let loads: Vec<f64> = shards
        .iter()
        .map(|s| s.iter().map(|&p| cost(p)).sum())
        .collect();
    let mean = loads.iter().sum::<f64>() / loads.len().max(1) as f64;
    let max = loads.iter().copied().fold(0.0, f64::max);
    if mean > 0.0 {
        max / mean
    } else {
        1.0
    }
}

/// The [`Balance`] of `count` shards: `costs` the estimates the points are
/// dealt by, `measured` every point's measured seconds (`None` if a point
/// has none).
pub fn balance(
    costs: &[(usize, f64)],
    measured: &std::collections::BTreeMap<usize, f64>,
    count: usize,
) -> Option<Balance> {
    let count = count.max(1);
    let est: std::collections::BTreeMap<usize, f64> = costs.iter().copied().collect();
    let secs: Vec<(usize, f64)> = costs
        .iter()
        .map(|&(i, _)| measured.get(&i).map(|&s| (i, s)))
        .collect::<Option<_>>()?;
    let dealt = assign(costs, count);
    let by_measured = assign(&secs, count);
    let sec = |p: usize| measured[&p];
    let total: f64 = secs.iter().map(|s| s.1).sum();
    let longest = secs.iter().map(|s| s.1).fold(0.0, f64::max);
    let mean = total / count as f64;
    Some(Balance {
        count,
        predicted: max_over_mean(&dealt, &|p| est[&p]),
        measured: max_over_mean(&dealt, &sec),
        by_measured: max_over_mean(&by_measured, &sec),
        bound: if mean > 0.0 {
            longest.max(mean) / mean
        } else {
            1.0
        },
        longest,
        mean,
    })
}

/// The balance as the lines `--dry-run --measured` prints.
pub fn describe_balance(b: &Balance) -> String {
    format!(
        "balance of {} shard(s), max/mean: predicted {:.2}, measured {:.2} (dealt by the measured seconds: {:.2}; no deal of whole points below {:.2}: the longest point {:.1} s against a mean share of {:.1} s)\n",
        b.count, b.predicted, b.measured, b.by_measured, b.bound, b.longest, b.mean
    )
}

/// "0-3,7,9-10" for a sorted list of indices.
fn ranges(v: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        parts.push(if j == i {
            v[i].to_string()
        } else {
            format!("{}-{}", v[i], v[j])
        });
        i = j + 1;
    }
    if parts.is_empty() {
        "(none)".into()
    } else {
        parts.join(",")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three points dealt to two shards by estimates that get the order
    /// wrong: the prediction is even, the measurement is not, the deal by
    /// measured seconds is the best possible, and the bound is the longest
    /// point's.
    #[test]
    fn the_balance_compares_the_estimate_with_the_measurement() {
        let costs = [(0, 3.0), (1, 2.0), (2, 1.0)];
        let measured: std::collections::BTreeMap<usize, f64> =
            [(0, 1.0), (1, 1.0), (2, 4.0)].into_iter().collect();
        let b = balance(&costs, &measured, 2).unwrap();
        // dealt {0}, {1, 2}: estimated 3 and 3, measured 1 and 5
        assert_eq!(b.predicted, 1.0);
        assert!((b.measured - 5.0 / 3.0).abs() < 1e-12);
        // by measured: {2}, {0, 1}: 4 and 2
        assert!((b.by_measured - 4.0 / 3.0).abs() < 1e-12);
        assert!((b.bound - 4.0 / 3.0).abs() < 1e-12);
        assert_eq!((b.longest, b.mean), (4.0, 3.0));
        let missing: std::collections::BTreeMap<usize, f64> = [(0, 1.0)].into_iter().collect();
        assert!(balance(&costs, &missing, 2).is_none());
    }

    #[test]
    fn the_costliest_points_come_first_and_ties_keep_their_order() {
        let costs = [(0, 1.0), (1, 5.0), (2, 1.0), (3, 9.0), (4, 0.0)];
        let items: Vec<usize> = costliest_first(&costs).iter().map(|c| c.0).collect();
        assert_eq!(items, vec![3, 1, 0, 2, 4]);
    }

    #[test]
    fn every_point_is_in_exactly_one_shard_for_1_to_8_shards() {
        // costs spread over six orders of magnitude, with ties, and indices
        // with gaps (quick runs leave blocks out)
        let costs: Vec<(usize, f64)> = (0..37)
            .map(|i| (i * 3 + 1, 10f64.powi((i % 7) as i32) * (1 + i % 3) as f64))
            .collect();
        for n in 1..=8 {
            let shards = assign(&costs, n);
            assert_eq!(shards.len(), n);
            let mut all: Vec<usize> = shards.concat();
            all.sort_unstable();
            let mut want: Vec<usize> = costs.iter().map(|c| c.0).collect();
            want.sort_unstable();
            assert_eq!(all, want, "{n} shards");
            // the same input gives the same assignment
            assert_eq!(assign(&costs, n), shards);
            // input order does not matter
            let mut rev = costs.clone();
            rev.reverse();
            assert_eq!(assign(&rev, n), shards);
        }
    }

    #[test]
    fn shards_are_balanced_within_the_largest_point() {
        let costs: Vec<(usize, f64)> = (0..100).map(|i| (i, 1.0 + (i % 10) as f64)).collect();
        for n in 2..=8 {
            let loads: Vec<f64> = assign(&costs, n)
                .iter()
                .map(|s| s.iter().map(|&i| costs[i].1).sum())
                .collect();
            let (lo, hi) = loads
                .iter()
                .fold((f64::MAX, 0f64), |(a, b), &x| (a.min(x), b.max(x)));
            assert!(hi - lo <= 10.0, "{n} shards: {loads:?}");
        }
    }

    #[test]
    fn more_shards_than_points_leaves_some_empty() {
        let shards = assign(&[(0, 1.0), (1, 5.0)], 4);
        assert_eq!(shards, vec![vec![1], vec![0], vec![], vec![]]);
    }

    #[test]
    fn shard_syntax() {
        assert_eq!(
            "2/4".parse::<Shard>().unwrap(),
            Shard { index: 2, count: 4 }
        );
        for bad in ["4/4", "1/0", "x/2", "1", "-1/3", "0/10001", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn ranges_compress_runs() {
        assert_eq!(ranges(&[0, 1, 2, 5, 7, 8]), "0-2,5,7-8");
        assert_eq!(ranges(&[]), "(none)");
    }
}
