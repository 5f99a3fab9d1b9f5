//! The expected probes of the APBF's query (the paper's Algorithm 1) for
//! given slice fill ratios: [`query_cost`], re-exported by
//! [`super::theory`].

/// Cost of Algorithm 1 on slices matching with probabilities `q` (length k + l).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QueryCost {
    /// P(the query answers no). Equals 1 - [`match_probability`](super::theory::match_probability).
    pub p_no: f64,
    /// E[probes | no].
    pub probes_no: f64,
    /// E[probes | yes]; NaN when P(yes) = 0.
    pub probes_yes: f64,
}

/// Most (slice, p, c) states [`query_cost`] tabulates: (k + l) k^2 of them,
/// 24 bytes each (768 MiB at this limit).
pub const MAX_COST_STATES: u64 = 1 << 25;

/// Expected probes of Algorithm 1 (start at slice l, move right on matches,
/// jump back k on a miss), tabulated on every state variable (i, p, c). All
/// NaN when the table would exceed [`MAX_COST_STATES`].
///
/// The table is filled without recursion (a recursion l / k deep overflowed
/// the stack at l = 100 000): a hit goes from (i, p, c) to (i + 1, p, c + 1),
/// keeping d = i - c; a miss goes to (i - k, c, 0), lowering d (c < k). So
/// the states are filled by d upwards and, within one d, by c downwards.
pub fn query_cost(q: &[f64], k: u32, l: u32) -> QueryCost {
    let ones = vec![1.0; q.len()];
    let Some((p_no, g_no, g_yes)) = cost_from(q, &ones, k, l, l as usize, 0) else {
        return QueryCost {
            p_no: f64::NAN,
            probes_no: f64::NAN,
            probes_yes: f64::NAN,
        };
    };
    QueryCost {
        p_no,
        probes_no: g_no / p_no,
        probes_yes: if p_no < 1.0 {
            g_yes / (1.0 - p_no)
        } else {
            f64::NAN
        },
    }
}

/// Algorithm 1 from slice `start` with `matched` consecutive matches
/// counted and p = 0 (as [`query_cost`]'s table): (P(no), E[cost 1{no}],
/// E[cost 1{yes}]), a probe of slice i costing `cost[i]` (1 to count
/// probes), counted from there. `None` when the table would exceed
/// [`MAX_COST_STATES`].
pub(crate) fn cost_from(
    q: &[f64],
    cost: &[f64],
    k: u32,
    l: u32,
    start: usize,
    matched: usize,
) -> Option<(f64, f64, f64)> {
    let (k, l) = (k as usize, l as usize);
    assert_eq!(q.len(), k + l, "one probability per slice");
    assert_eq!(cost.len(), k + l, "one cost per slice");
    let states = (k as u64 + l as u64)
        .checked_mul(k as u64)
        .and_then(|x| x.checked_mul(k as u64));
    if states.is_none_or(|s| s > MAX_COST_STATES) {
        return None;
    }
    let n = k + l;
    // table[(i * k + p) * k + c] = (P(no), E[probes 1{no}], E[probes 1{yes}])
    let mut table = vec![(0.0f64, 0.0f64, 0.0f64); n * k * k];
    let at = |table: &[(f64, f64, f64)], i: isize, p: usize, c: usize| {
        if i < 0 {
            (1.0, 0.0, 0.0)
        } else {
            table[(i as usize * k + p) * k + c]
        }
    };
    // one probe of slice i, then either branch
    let add_probe = |i: isize, (pn, gn, gy): (f64, f64, f64)| {
        (
            pn,
            gn + cost[i as usize] * pn,
            gy + cost[i as usize] * (1.0 - pn),
        )
    };
    for d in -(k as isize - 1)..n as isize {
        for c in (0..k).rev() {
            let i = d + c as isize;
            if i < 0 || i >= n as isize {
                continue;
            }
            for p in 0..k - c {
                let hit = if p + c + 1 == k {
                    (0.0, 0.0, 1.0)
                } else if i + 1 < n as isize {
                    add_probe(i, at(&table, i + 1, p, c + 1))
                } else {
                    // past the last slice: no reachable state gets here
                    (0.0, 0.0, 1.0)
                };
                let miss = add_probe(i, at(&table, i - k as isize, c, 0));
                let qi = q[i as usize];
                table[(i as usize * k + p) * k + c] = (
                    qi * hit.0 + (1.0 - qi) * miss.0,
                    qi * hit.1 + (1.0 - qi) * miss.1,
                    qi * hit.2 + (1.0 - qi) * miss.2,
                );
            }
        }
    }
    if matched >= k {
        return Some((0.0, 0.0, 0.0));
    }
    Some(at(&table, start as isize, 0, matched))
}
