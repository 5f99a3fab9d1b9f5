//! The APBF's slice probes eight at a time with AVX-512, for the processors
//! that have it ([`crate::cpu::avx512`]): the same hash, index and bit as
//! [`super::Apbf`]'s one-at-a-time probe, so the same answers (tested here
//! and against Algorithm 1 in the filter's tests).

use crate::hash::{GOLDEN, MIX64_MUL};

/// Bit j set when the key's bit is set in physical slice (`first` + j) mod
/// h of `words` (slices of m bits each, laid end to end), for j < `count`:
/// slice p's bit is p m + fastrange(mix64(key + (p + 1) φ), m), as
/// [`crate::hash::index`] derives it.
///
/// # Safety
///
/// The processor must have AVX-512F and AVX-512DQ; `first < h`,
/// `count <= h`, `count <= 64`, `m < 2^32`, and `words` must hold h m bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
pub(super) unsafe fn matches(
    words: &[u64],
    key: u64,
    first: u64,
    count: u32,
    h: u64,
    m: u64,
) -> u64 {
    use std::arch::x86_64::*;
    debug_assert!(first < h && count as u64 <= h && count <= 64 && m < 1 << 32);
    debug_assert!(words.len() as u64 * 64 >= h * m);
    let set = |x: u64| _mm512_set1_epi64(x as i64);
    let (hv, mv, one, low6) = (set(h), set(m), set(1), set(63));
    let (c1, c2) = (set(MIX64_MUL[0]), set(MIX64_MUL[1]));
    let lanes_up = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    let step = |x: u64| _mm512_mullo_epi64(lanes_up, set(x));
    // per lane: its slice's offset p m and its hash input key + (p + 1) φ,
    // stepped from the first slice by additions (a vector multiply has a
    // latency of 15 cycles), less h m and h φ where p wraps
    let (m_steps, golden_steps) = (step(m), step(GOLDEN));
    let (h_m, h_golden) = (set(h * m), set(h.wrapping_mul(GOLDEN)));
    let mut mask = 0u64;
    let mut j = 0u32;
    while j < count {
        let live = (0xffu16 >> (8 - (count - j).min(8))) as __mmask8;
        // physical slices first + j + lane, wrapped once (first + j + 7 <
        // 2 h + 7; lanes past `count` are masked off below)
        let q = first + j as u64;
        let p = _mm512_add_epi64(set(q), lanes_up);
        let wrapped = _mm512_cmpge_epu64_mask(p, hv);
        let offset = _mm512_add_epi64(set(q * m), m_steps);
        let offset = _mm512_mask_sub_epi64(offset, wrapped, offset, h_m);
        let x = key.wrapping_add((q + 1).wrapping_mul(GOLDEN));
        let x = _mm512_add_epi64(set(x), golden_steps);
        // mix64(key + (p + 1) φ)
        let mut x = _mm512_mask_sub_epi64(x, wrapped, x, h_golden);
        x = _mm512_xor_si512(x, _mm512_srli_epi64::<30>(x));
        x = _mm512_mullo_epi64(x, c1);
        x = _mm512_xor_si512(x, _mm512_srli_epi64::<27>(x));
        x = _mm512_mullo_epi64(x, c2);
        x = _mm512_xor_si512(x, _mm512_srli_epi64::<31>(x));
        // fastrange(x, m) = (x m) >> 64 with m < 2^32, from two 32 x 32-bit
        // products: (x_hi m + (x_lo m >> 32)) >> 32, which cannot overflow
        let hi = _mm512_mul_epu32(_mm512_srli_epi64::<32>(x), mv);
        let lo = _mm512_srli_epi64::<32>(_mm512_mul_epu32(x, mv));
        let index = _mm512_srli_epi64::<32>(_mm512_add_epi64(hi, lo));
        let bit = _mm512_add_epi64(offset, index);
        // SAFETY: every live lane's bit is p m + index < h m, a bit of
        // `words`; masked-off lanes are not read.
        let word = unsafe {
            _mm512_mask_i64gather_epi64::<8>(
                _mm512_setzero_si512(),
                live,
                _mm512_srli_epi64::<6>(bit),
                words.as_ptr().cast(),
            )
        };
        let shifted = _mm512_srlv_epi64(word, _mm512_and_si512(bit, low6));
        mask |= (_mm512_mask_test_epi64_mask(live, shifted, one) as u64) << j;
        j += 8;
    }
    mask
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::bits::BitArray;
    use crate::hash::{index, mix64};

    #[test]
    fn vector_probes_are_the_probes() {
        if !crate::cpu::avx512() {
            eprintln!("no AVX-512 here: the vector probes are not used, nothing to test");
            return;
        }
        // slice sizes around word boundaries and a large one (the
        // fastrange halves), every start, lengths up to 64 across the wrap
        for (h, m) in [
            (17u64, 8454u64),
            (5, 64),
            (3, 1),
            (64, 1000),
            (2, (1 << 26) + 3),
        ] {
            let mut bits = BitArray::new(h * m);
            for t in 0..(h * m).min(20_000) {
                bits.set(mix64(t) % (h * m));
            }
            for first in 0..h {
                for count in [1, 2, 3, 7, 8, 9, 17, 63, 64] {
                    if count as u64 > h {
                        continue;
                    }
                    for t in 0..20u64 {
                        let key = mix64(t ^ first << 20 ^ (count as u64) << 40);
                        let expected = (0..count as u64)
                            .map(|j| (first + j) % h)
                            .map(|p| bits.get(p * m + index(key, p, m)))
                            .enumerate()
                            .fold(0u64, |acc, (j, hit)| acc | (hit as u64) << j);
                        // SAFETY: AVX-512 checked above; the arguments
                        // meet the function's conditions
                        let got = unsafe { matches(bits.as_words(), key, first, count, h, m) };
                        assert_eq!(got, expected, "h {h} m {m} first {first} count {count}");
                    }
                }
            }
        }
    }
}
