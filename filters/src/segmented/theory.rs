//! Theory of the segmentation baselines.
//!
//! Every segment is a partitioned Bloom filter of k slices of m bits, and all
//! segments use the same k hash functions (slice i of every segment is indexed
//! by `hash::index(key, i, m)`). A *generation* is g insertions; φ ∈ 1..=g is
//! the number of insertions in the current one (φ = g: just before a switch).
//! One generation of n keys fills a slice to r(n) = 1 - (1 - 1/m)^n.
//!
//! * **Jumping window** (n segments, one generation each, the oldest cleared
//!   and reused): a never-inserted key matches segment j with probability
//!   r_j^k, independently (segments hold disjoint keys), so
//!   FPR(φ) = 1 - (1 - r(φ)^k) (1 - r(g)^k)^(n-1). Keys of age <= (n-1)g + φ
//!   are in a live segment (w = (n-1)g, s = g); older keys are like
//!   never-inserted ones.
//! * **Double buffering** (active A queried, warm-up W; both receive every
//!   insertion; every g insertions A := W and W := empty): A holds the last
//!   g + φ keys, so FPR(φ) = r(g + φ)^k, w = g, s = g.
//! * **A2 buffering** (insert into active1, query both, every g insertions
//!   active2 := active1 and active1 := empty): a jumping window of n = 2 while
//!   queries do not copy; see [`super::A2Buffer::query_and_refresh`].
//! * **Forgetful Bloom filter** (future, present and N past filters; insert
//!   into future and present; yes iff two consecutive filters both match; on a
//!   switch the oldest past is dropped and a new future starts): the filter at
//!   position i >= 1 holds generations i-1 and i (generation j = j switches
//!   old), position 0 holds generation 0. A key of generation j <= N is in
//!   positions j and j+1 (w = N g); one of generation N + 1 survives only in
//!   position N + 1 and is still found if position N matches by chance, so the
//!   slack is 2g. The FPR is not a product: consecutive filters share a
//!   generation and the same hash functions. Per slice, the query's position is
//!   set in filter i iff one of its generations set it (independently, with
//!   probability r_j); with S the set of filters whose bit is set, q(A) =
//!   P(A ⊆ S) for every set A of filters, P(all k slices contain A) = q(A)^k,
//!   and Möbius inversion over supersets gives the distribution of T, the set of
//!   filters matching in all slices; FPR = P(T contains two consecutive
//!   positions) ([`forgetful_match`]). Exact in expectation; 2^(N+2) subsets,
//!   so N <= 14.

pub use crate::window::fill;

/// Jumping window FPR at phase φ.
pub fn jumping_fpr(segments: u32, k: u32, g: u64, m: u64, phase: u64) -> f64 {
    let cur = fill(phase, m).powi(k as i32);
    let full = fill(g, m).powi(k as i32);
    // 1 - (1 - cur)(1 - full)^(n-1), without the cancellation that makes
    // it 0 below about 1e-16
    -((-cur).ln_1p() + (segments as f64 - 1.0) * (-full).ln_1p()).exp_m1()
}

/// Expected probes of a negative query of a jumping window just before a
/// switch: every segment answers no, each after
/// [`negative_query_probes`](crate::bloom::negative_query_probes) of its k
/// slices, independently.
pub fn jumping_probes_negative(segments: u32, k: u32, g: u64, m: u64) -> f64 {
    segments as f64 * crate::bloom::negative_query_probes(fill(g, m), k)
}

/// Expected 64-byte lines a never-inserted key's query of a jumping window
/// reads just before a switch, whatever it answers: the segments newest
/// first, each [`query_lines`](crate::bloom::query_lines) (separate
/// allocations), until one answers yes (each does with probability r^k).
pub fn jumping_lines_negative(segments: u32, k: u32, g: u64, m: u64) -> f64 {
    let r = fill(g, m);
    let per = crate::bloom::query_lines(r, k, m);
    let go_on = 1.0 - r.powi(k as i32);
    (0..segments).map(|i| per * go_on.powi(i as i32)).sum()
}

/// Expected 64-byte lines a query of a key inside the window (its age
/// uniform over 1 ..= (n - 1)·g) reads of a jumping window just before a
/// switch: a key of segment s (0 the newest) reads the newer segments as
/// a never-inserted key does ([`query_lines`](crate::bloom::query_lines)
/// each, stopping at the first that answers yes, each with probability
/// r^k), then, if it gets there, all k slices of its own
/// ([`present_query_lines`](crate::bloom::present_query_lines)).
pub fn jumping_lines_positive(segments: u32, k: u32, g: u64, m: u64) -> f64 {
    let r = fill(g, m);
    let per = crate::bloom::query_lines(r, k, m);
    let all = crate::bloom::present_query_lines(k, m);
    let go_on = 1.0 - r.powi(k as i32);
    let held = segments.saturating_sub(1).max(1);
    let (mut total, mut before) = (0.0, 0.0);
    for s in 0..held {
        let reach = go_on.powi(s as i32);
        total += before + reach * all;
        before += reach * per;
    }
    total / held as f64
}

/// Expected 64-byte lines an insertion writes into `filters` segments of
/// k slices of m bits (jumping window and A2: 1; double buffering and the
/// Forgetful Bloom filter: 2), and the lines per insertion of the switch
/// every g insertions, which clears one segment whole: (insert, shift).
pub fn segment_insert_lines(filters: u32, k: u32, m: u64, g: u64) -> (f64, f64) {
    let cleared = (k as u64 * m).div_ceil(crate::lines::LINE_BITS) as f64;
    (
        filters as f64 * crate::bloom::present_query_lines(k, m),
        cleared / g as f64,
    )
}

/// Expected 64-byte lines a query of a key inside the window reads of
/// double buffering: the active filter holds it, so all k slices.
pub fn double_buffer_lines_positive(k: u32, m: u64) -> f64 {
    crate::bloom::present_query_lines(k, m)
}

/// Expected 64-byte lines a never-inserted key's query of double
/// buffering reads just before a switch, whatever it answers (the active
/// filter, holding 2g keys).
pub fn double_buffer_lines_negative(k: u32, g: u64, m: u64) -> f64 {
    crate::bloom::query_lines(fill(2 * g, m), k, m)
}

/// Expected probes of a negative query of double buffering just before a
/// switch (the active filter holds 2g keys).
pub fn double_buffer_probes_negative(k: u32, g: u64, m: u64) -> f64 {
    crate::bloom::negative_query_probes(fill(2 * g, m), k)
}

/// Double-buffering FPR at phase φ.
pub fn double_buffer_fpr(k: u32, g: u64, m: u64, phase: u64) -> f64 {
    fill(g + phase, m).powi(k as i32)
}

/// P(some two consecutive filters of a Forgetful Bloom filter match), given
/// the per-slice probability `r[j]` that generation j (j = 0..=N+1) set the
/// query's position; `r[j] = 1` forces generation j (a key of that
/// generation). Filters: position 0 holds generation 0, position i >= 1 holds
/// generations i-1 and i.
pub fn forgetful_match(r: &[f64], k: u32) -> f64 {
    let filters = r.len();
    forgetful_match_by(r, k, |b| (0..filters - 1).any(|i| b >> i & 3 == 3))
}

/// The Sliding Sketches code's answer ([`super::ForgetfulCode`]) in the
/// same model: P(the future filter matches, or the oldest, or two
/// consecutive filters from the present on).
pub fn forgetful_code_match(r: &[f64], k: u32) -> f64 {
    let filters = r.len();
    forgetful_match_by(r, k, |b| {
        b & 1 == 1 || b >> (filters - 1) & 1 == 1 || (1..filters - 1).any(|i| b >> i & 3 == 3)
    })
}

/// P(the set of filters matching in all k slices is one `yes` accepts),
/// by the Möbius inversion of [`forgetful_match`].
fn forgetful_match_by(r: &[f64], k: u32, yes: impl Fn(usize) -> bool) -> f64 {
    let gens = r.len(); // N + 2
    let filters = gens; // positions 0..=N+1
    assert!(filters <= 16, "at most 14 past filters");
    let full = 1usize << filters;
    // P(S = exactly s) for one slice, by enumerating which generations set it.
    let mut exact = vec![0.0f64; full];
    for v in 0usize..(1 << gens) {
        let mut p = 1.0;
        for (j, &rj) in r.iter().enumerate() {
            p *= if v >> j & 1 == 1 { rj } else { 1.0 - rj };
        }
        if p == 0.0 {
            continue;
        }
        let mut s = 0usize;
        for i in 0..filters {
            let covers = if i == 0 {
                v & 1
            } else {
                (v >> (i - 1) | v >> i) & 1
            };
            if covers == 1 {
                s |= 1 << i;
            }
        }
        exact[s] += p;
    }
    // q(A) = P(A ⊆ S): superset sums.
    let mut q = exact;
    for b in 0..filters {
        for a in 0..full {
            if a >> b & 1 == 0 {
                q[a] += q[a | 1 << b];
            }
        }
    }
    // P(T ⊇ A) = q(A)^k, then Möbius inversion (supersets) to P(T = B).
    let mut t: Vec<f64> = q.iter().map(|&x| x.powi(k as i32)).collect();
    for b in 0..filters {
        for a in 0..full {
            if a >> b & 1 == 0 {
                t[a] -= t[a | 1 << b];
            }
        }
    }
    (0..full)
        .filter(|&b| yes(b))
        .map(|b| t[b])
        .sum::<f64>()
        .clamp(0.0, 1.0)
}

/// Per-generation fills of a Forgetful Bloom filter with N past filters at
/// phase φ: generation 0 has φ keys, the others g.
pub fn forgetful_fills(past: u32, g: u64, m: u64, phase: u64) -> Vec<f64> {
    (0..past as usize + 2)
        .map(|j| fill(if j == 0 { phase } else { g }, m))
        .collect()
}

/// Expected lines of a never-inserted key's query of a Forgetful Bloom
/// filter at phase φ (see `ForgetfulBloom::lines_read`): filter 0 holds generation 0
/// (φ keys), filter i the generations i - 1 and i, each read slice by slice.
pub fn forgetful_lines_negative(past: u32, k: u32, g: u64, m: u64, phase: u64) -> f64 {
    let r = forgetful_fills(past, g, m, phase);
    (0..r.len())
        .map(|i| {
            let empty = if i == 0 {
                1.0 - r[0]
            } else {
                (1.0 - r[i - 1]) * (1.0 - r[i])
            };
            crate::bloom::query_lines(1.0 - empty, k, m)
        })
        .sum()
}

/// Expected lines of a query of a key inside the window of a Forgetful
/// Bloom filter at phase φ, over the window's keys (generation 0's φ, g of
/// each of generations 1..N - 1 and the newest g - φ of generation N). A
/// key of generation j is in filters j and j + 1: the query reads filters
/// 0..j as a never-inserted key does (filter i's share of bits set from
/// generations i - 1 and i), then all k slices of filter j
/// ([`present_query_lines`](crate::bloom::present_query_lines)), and all of
/// filter j + 1 unless filter j - 1 answered yes (probability its share
/// to the k), which ends the query at j. Left out, as in
/// [`forgetful_lines_negative`]: an earlier stop, at two consecutive
/// filters both answering yes before j - 1 (at most the FPR).
pub fn forgetful_lines_positive(past: u32, k: u32, g: u64, m: u64, phase: u64) -> f64 {
    let r = forgetful_fills(past, g, m, phase);
    let share = |i: usize| {
        if i == 0 {
            r[0]
        } else {
            1.0 - (1.0 - r[i - 1]) * (1.0 - r[i])
        }
    };
    let all = crate::bloom::present_query_lines(k, m);
    let (mut total, mut keys, mut before) = (0.0, 0.0, 0.0);
    for j in 0..=past as usize {
        let n = match j {
            0 => phase.min(g),
            j if j == past as usize => g - phase.min(g),
            _ => g,
        } as f64;
        let stop = if j == 0 {
            0.0
        } else {
            share(j - 1).powi(k as i32)
        };
        total += n * (before + all + (1.0 - stop) * all);
        keys += n;
        before += crate::bloom::query_lines(share(j), k, m);
    }
    total / keys
}

/// Forgetful Bloom filter FPR at phase φ.
pub fn forgetful_fpr(past: u32, k: u32, g: u64, m: u64, phase: u64) -> f64 {
    forgetful_match(&forgetful_fills(past, g, m, phase), k)
}

/// P(yes) for a key of generation j (j switches old) at phase φ.
pub fn forgetful_presence(past: u32, k: u32, g: u64, m: u64, phase: u64, j: u64) -> f64 {
    let mut r = forgetful_fills(past, g, m, phase);
    if (j as usize) < r.len() {
        r[j as usize] = 1.0;
    }
    forgetful_match(&r, k)
}

/// The Sliding Sketches code's Forgetful filter's FPR at phase φ when
/// every arrival is written (an upper bound where some are not).
pub fn forgetful_code_fpr(past: u32, k: u32, g: u64, m: u64, phase: u64) -> f64 {
    forgetful_code_match(&forgetful_fills(past, g, m, phase), k)
}

/// P(yes) for a written key of generation j at phase φ, in the code's
/// filter: 1 for j <= N + 1, the FPR beyond.
pub fn forgetful_code_presence(past: u32, k: u32, g: u64, m: u64, phase: u64, j: u64) -> f64 {
    let mut r = forgetful_fills(past, g, m, phase);
    if (j as usize) < r.len() {
        r[j as usize] = 1.0;
    }
    forgetful_code_match(&r, k)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// P(yes) for k = 2 slices by brute force over both slices'
    /// generation vectors: `yes` reads whether filter i matches.
    fn by_enumeration(r: &[f64; 4], yes: impl Fn(&dyn Fn(usize) -> bool) -> bool) -> f64 {
        let gens = r.len();
        let pr = |v: usize| {
            (0..gens)
                .map(|j| if v >> j & 1 == 1 { r[j] } else { 1.0 - r[j] })
                .product::<f64>()
        };
        // filter 0 holds generation 0, filter i generations i - 1 and i
        let set = |v: usize, i: usize| {
            if i == 0 {
                v & 1 == 1
            } else {
                (v >> (i - 1) | v >> i) & 1 == 1
            }
        };
        let mut p_yes = 0.0;
        for v1 in 0usize..16 {
            for v2 in 0usize..16 {
                if yes(&|i| set(v1, i) && set(v2, i)) {
                    p_yes += pr(v1) * pr(v2);
                }
            }
        }
        p_yes
    }

    /// Brute force over per-slice bit patterns for a tiny case (N = 2).
    #[test]
    fn forgetful_match_agrees_with_enumeration() {
        let r = [0.3, 0.5, 0.4, 0.6];
        let p_yes = by_enumeration(&r, |m| (0..3).any(|i| m(i) && m(i + 1)));
        assert!((forgetful_match(&r, 2) - p_yes).abs() < 1e-12);
    }

    /// The code's rule by the same brute force.
    #[test]
    fn forgetful_code_match_agrees_with_enumeration() {
        let r = [0.3, 0.5, 0.4, 0.6];
        let p_yes = by_enumeration(&r, |m| m(0) || m(3) || (1..3).any(|i| m(i) && m(i + 1)));
        assert!((forgetful_code_match(&r, 2) - p_yes).abs() < 1e-12);
        // more ways to say yes than the paper's rule
        assert!(forgetful_code_match(&r, 2) > forgetful_match(&r, 2));
    }

    #[test]
    fn the_codes_written_keys_are_found_a_generation_longer() {
        for j in 0..=4u64 {
            let p = forgetful_code_presence(3, 4, 100, 300, 50, j);
            assert!((p - 1.0).abs() < 1e-12, "generation {j}: {p}");
        }
        let fpr = forgetful_code_fpr(3, 4, 100, 300, 50);
        assert!((forgetful_code_presence(3, 4, 100, 300, 50, 5) - fpr).abs() < 1e-12);
    }

    #[test]
    fn forced_generations_inside_the_window_are_found() {
        for j in 0..=3u64 {
            assert!((forgetful_presence(3, 4, 100, 300, 50, j) - 1.0).abs() < 1e-12);
        }
        let fpr = forgetful_fpr(3, 4, 100, 300, 50);
        let p = forgetful_presence(3, 4, 100, 300, 50, 4);
        assert!(p > fpr && p < 1.0, "{p} vs {fpr}");
    }
}
