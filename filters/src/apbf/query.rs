//! The paper's Algorithm 1 (the backwards-jumping query) and the probes
//! shared by the APBF's scalar, blocked and AVX-512 query paths.

/// Algorithm 1 of the paper over abstract slice probes `bit(i)` (logical slice
/// i matches): start at slice l, count consecutive matches c moving right; on a
/// miss at slice i, keep p = c and restart at i - k; yes when p + c = k, no when
/// the index falls below 0. Returns the answer and the number of probes.
#[inline]
pub(crate) fn algorithm1(k: u32, l: u32, bit: impl FnMut(usize) -> bool) -> (bool, u32) {
    algorithm1_from(k, l as isize, 0, bit)
}

/// Algorithm 1 from slice `i` with `c` consecutive matches counted and
/// p = 0: where the algorithm stands after its first c probes matched.
#[inline]
fn algorithm1_from(k: u32, i: isize, c: u32, mut bit: impl FnMut(usize) -> bool) -> (bool, u32) {
    let k_i = k as isize;
    let (mut i, mut p, mut c, mut probes) = (i, 0u32, c, 0u32);
    if c == k {
        return (true, 0);
    }
    while i >= 0 {
        probes += 1;
        if bit(i as usize) {
            c += 1;
            if p + c == k {
                return (true, probes);
            }
            i += 1;
        } else {
            p = c;
            c = 0;
            i -= k_i;
        }
    }
    (false, probes)
}

/// The slices Algorithm 1 reads while every probe misses: l, l - k,
/// l - 2k, ... down to 0 (what a negative query reads first).
pub(crate) fn miss_chain(k: u32, l: u32) -> impl Iterator<Item = usize> {
    (0..=l as usize).rev().step_by(k.max(1) as usize)
}

/// Algorithm 1's answer for a key known to match the middle slices
/// l .. k - 1 (see [`middle_hits`]): Algorithm 1 starts at slice l and
/// moves right while slices match, so it is resumed after them (at slice
/// max(k, l) with max(k - l, 0) matches) instead of probing them again.
#[inline]
pub(crate) fn algorithm1_after_middle(k: u32, l: u32, bit: impl FnMut(usize) -> bool) -> bool {
    let c = k.saturating_sub(l);
    algorithm1_from(k, (l + c) as isize, c, bit).0
}

/// Whether a key can be present by the slices every run of k covers: when
/// l < k, each run of k consecutive slices among the k + l contains the
/// logical slices l .. k - 1, so a miss in any of them answers no. Reads
/// them all (no branch between the probes, so their loads overlap); `true`
/// when l >= k (no slice is common to every run).
#[inline]
pub(crate) fn middle_hits(k: u32, l: u32, mut bit: impl FnMut(usize) -> bool) -> bool {
    let mut all = true;
    for i in l..k {
        all &= bit(i as usize);
    }
    all
}

/// Whether `mask` (bit i: logical slice i matches) holds k consecutive
/// ones, by log2 k shift-and-ANDs: after each, bit i says that slices
/// i .. i + have - 1 all match.
#[inline]
pub(crate) fn has_run(mut run: u64, k: u32) -> bool {
    let mut have = 1;
    while have < k {
        let step = have.min(k - have);
        run &= run >> step;
        have += step;
    }
    run != 0
}
