//! The key's bits in every word of its block, as one mask: the work of the
//! blocked APBF's positive query, with an AVX-512 version chosen at run time
//! where the processor has it. Both give the same mask (tested here); only
//! the speed differs.

use super::{key_bit, MAX_SLICES};

/// Bit p set when the word of physical slice p in `block` (at most
/// [`MAX_SLICES`] words) holds the key's bit for multiplier `mult[p]`.
/// `simd` must be what [`crate::cpu::avx512`] returned on this machine.
#[inline]
pub(super) fn physical(
    block: &[u64],
    mult: &[u64; MAX_SLICES as usize],
    key: u64,
    simd: bool,
) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if simd {
        // SAFETY: `simd` is true only when the processor has AVX-512F and
        // AVX-512DQ (`cpu::avx512`), the features the function needs.
        return unsafe { physical_avx512(block, mult, key) };
    }
    let _ = simd;
    scalar(block, mult, key)
}

/// The portable version: one multiply and one bit test per word.
#[inline]
fn scalar(block: &[u64], mult: &[u64; MAX_SLICES as usize], key: u64) -> u64 {
    // built from the last slice down by constant one-bit shifts, each bit by
    // a bit test (a variable shift is three micro-ops on x86-64 without
    // BMI2; a bit test one)
    let mut physical = 0u64;
    for (&word, &m) in block.iter().zip(&mult[..block.len()]).rev() {
        physical = physical << 1 | (word & key_bit(key, m) != 0) as u64;
    }
    physical
}

/// Eight words at a time: multiply the key by eight multipliers, shift
/// the products' top 6 bits into single-bit masks, and test them against
/// eight words in one instruction, which yields eight bits of the mask.
///
/// # Safety
///
/// The processor must have AVX-512F and AVX-512DQ.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn physical_avx512(block: &[u64], mult: &[u64; MAX_SLICES as usize], key: u64) -> u64 {
    use std::arch::x86_64::*;
    let n = block.len().min(MAX_SLICES as usize);
    let keys = _mm512_set1_epi64(key as i64);
    let one = _mm512_set1_epi64(1);
    let mut mask = 0u64;
    let mut p = 0;
    while p < n {
        let lanes = (n - p).min(8);
        let live = (0xffu16 >> (8 - lanes)) as __mmask8;
        // SAFETY: lanes p .. p + lanes are inside `block` (p + lanes <= n
        // <= block.len()), and the masked-off lanes are not read; `mult`
        // has 64 entries and p <= 56, so p .. p + 8 is inside it.
        let (words, mults) = unsafe {
            (
                _mm512_maskz_loadu_epi64(live, block.as_ptr().add(p).cast()),
                _mm512_loadu_epi64(mult.as_ptr().add(p).cast()),
            )
        };
        let top = _mm512_srli_epi64::<58>(_mm512_mullo_epi64(keys, mults));
        let bits = _mm512_sllv_epi64(one, top);
        let hits = _mm512_mask_test_epi64_mask(live, words, bits);
        mask |= (hits as u64) << p;
        p += 8;
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::mix64;

    #[test]
    fn both_versions_give_the_same_mask() {
        // every length 1 ..= 64 (whole and partial groups of eight), words
        // from empty to full, through `physical` with what this machine has
        let simd = crate::cpu::avx512();
        let mut mult = [0u64; MAX_SLICES as usize];
        for (p, m) in mult.iter_mut().enumerate() {
            *m = mix64(p as u64 + 99) | 1;
        }
        let mut seen_hits = 0;
        for len in 1..=MAX_SLICES as usize {
            for t in 0..50u64 {
                let key = mix64(t << 8 | len as u64);
                let block: Vec<u64> = (0..len as u64)
                    .map(|p| {
                        let w = mix64(t * 64 + p);
                        match t % 3 {
                            0 => w,
                            1 => w & mix64(w),
                            _ => w | mix64(w),
                        }
                    })
                    .collect();
                let expected = (0..len)
                    .filter(|&p| block[p] & key_bit(key, mult[p]) != 0)
                    .fold(0u64, |m, p| m | 1 << p);
                assert_eq!(
                    physical(&block, &mult, key, simd),
                    expected,
                    "len {len} t {t}"
                );
                assert_eq!(scalar(&block, &mult, key), expected);
                assert!(len == 64 || expected >> len == 0);
                seen_hits += expected.count_ones();
            }
        }
        assert!(seen_hits > 1000, "{seen_hits}");
    }
}
