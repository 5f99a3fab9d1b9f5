//! Ages, phases and generations of designs that switch state every g
//! insertions (APBF, the segmentation baselines).
//!
//! The phase φ ∈ 1..=g is the number of insertions in the current generation;
//! a key of age a (1 = newest) has seen j = 0 switches if a <= φ, else
//! j = ⌈(a - φ)/g⌉.

/// Expected fill of one slice of m bits after n distinct keys.
pub fn fill(n: u64, m: u64) -> f64 {
    crate::bloom::fill_ratio(n as f64, m as f64)
}

/// Position `i` (< n) steps past `base` (< n) in a ring of n: a conditional
/// subtraction, not a division (a 64-bit `%` costs tens of cycles and was
/// most of an APBF query).
#[inline]
pub(crate) fn ring_index(base: u64, i: u64, n: u64) -> u64 {
    let p = base + i;
    if p >= n {
        p - n
    } else {
        p
    }
}

/// Number of switches j a key of age `age` has seen at phase φ.
pub fn shifts_at_age(age: u64, phase: u64, g: u64) -> u64 {
    if age <= phase {
        0
    } else {
        (age - phase).div_ceil(g)
    }
}

/// PWS at phase φ: the expected number of keys of ages w+1 ..= w+s reported,
/// given P(yes) by switch count, `by_j[j]` (j beyond the vector: `tail`).
pub fn pws(by_j: &[f64], tail: f64, window: u64, slack: u64, g: u64, phase: u64) -> f64 {
    let (lo, hi) = (window + 1, window + slack);
    if slack == 0 {
        return 0.0;
    }
    let j_max = shifts_at_age(hi, phase, g);
    (shifts_at_age(lo, phase, g)..=j_max)
        .map(|j| {
            // ages with j switches: j = 0 -> 1..=φ; j >= 1 -> φ+(j-1)g+1 ..= φ+jg
            let (a0, a1) = if j == 0 {
                (1, phase)
            } else {
                (phase + (j - 1) * g + 1, phase + j * g)
            };
            let (a0, a1) = (a0.max(lo), a1.min(hi));
            let p = by_j.get(j as usize).copied().unwrap_or(tail);
            if a1 >= a0 {
                (a1 - a0 + 1) as f64 * p
            } else {
                0.0
            }
        })
        .sum()
}

/// Phases at which phase-averaged figures are evaluated: every phase 1..=g
/// when g <= `max`, else `max` evenly spaced phases ending at g.
pub fn phase_grid(g: u64, max: u64) -> Vec<u64> {
    if g <= max {
        (1..=g).collect()
    } else {
        (1..=max).map(|j| (j * g).div_ceil(max)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key of age a at phase φ has seen one switch per g insertions
    /// between it and the generation's start, counted by walking back.
    fn shifts_by_walking(age: u64, phase: u64, g: u64) -> u64 {
        // the generation of the newest key ends φ insertions back; each
        // older one g further
        let (mut end, mut j) = (phase, 0);
        while age > end {
            end += g;
            j += 1;
        }
        j
    }

    #[test]
    fn shifts_pws_and_phases_against_brute_force() {
        for g in [1u64, 3, 7] {
            for phase in 1..=g {
                for age in 1..60 {
                    assert_eq!(
                        shifts_at_age(age, phase, g),
                        shifts_by_walking(age, phase, g)
                    );
                }
                let by_j: Vec<f64> = (0..6).map(|j| 1.0 / (j as f64 + 2.0)).collect();
                for (w, s) in [(10u64, 0u64), (10, 1), (10, 17), (4, 40)] {
                    let want: f64 = (w + 1..=w + s)
                        .map(|a| {
                            let j = shifts_by_walking(a, phase, g) as usize;
                            by_j.get(j).copied().unwrap_or(0.01)
                        })
                        .sum();
                    let got = pws(&by_j, 0.01, w, s, g, phase);
                    assert!(
                        (got - want).abs() < 1e-12,
                        "g {g} phase {phase} w {w} s {s}"
                    );
                }
            }
        }
        assert_eq!(phase_grid(4, 8), [1, 2, 3, 4]);
        assert_eq!(phase_grid(10, 4), [3, 5, 8, 10]);
        for n in [1u64, 5, 9] {
            for base in 0..n {
                for i in 0..n {
                    assert_eq!(ring_index(base, i, n), (base + i) % n);
                }
            }
        }
        assert!((fill(100, 1000) - crate::bloom::fill_ratio(100.0, 1000.0)).abs() < 1e-15);
    }
}
