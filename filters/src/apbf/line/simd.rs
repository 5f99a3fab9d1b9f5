//! The line APBF's per-lane bit tests and sets: AVX2 and the portable loop
//! with the same bits (tested against each other in `tests.rs`).

use super::position;

/// Bit j: whether lane j of `line` has the key's bit (positions `a`, `b`).
pub(super) fn hits_portable(line: &[u64; 8], a: u64, b: u64) -> u32 {
    let mut hits = 0u32;
    for j in 0..super::LANES {
        let word = line[(j / 4) as usize] >> (16 * (j % 4));
        hits |= ((word >> position(a, b, j)) as u32 & 1) << j;
    }
    hits
}

#[cfg(target_arch = "x86_64")]
pub(super) mod avx2 {
    use std::arch::x86_64::*;

    /// Per 16-bit lane j, 1 << p_j: lanes 0..15 and 16..31 as two vectors.
    /// The 32 nibbles become bytes (unpack), each lane's two bytes index
    /// p and p ^ 8 into a table of 1 << i for i < 8 and 0 above, so the
    /// low byte holds the bit when p < 8 and the high byte when p >= 8.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn lane_bits(a: u64, b: u64) -> (__m256i, __m256i) {
        let v = _mm_set_epi64x(b as i64, a as i64);
        let low = _mm_set1_epi8(0x0F);
        let lo = _mm_and_si128(v, low);
        let hi = _mm_and_si128(_mm_srli_epi16(v, 4), low);
        let eight = _mm_set1_epi8(8);
        let table = _mm256_setr_epi8(
            1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, -128, 0,
            0, 0, 0, 0, 0, 0, 0,
        );
        let half = |p: __m128i| {
            let x = _mm_xor_si128(p, eight);
            let idx = _mm256_set_m128i(_mm_unpackhi_epi8(p, x), _mm_unpacklo_epi8(p, x));
            _mm256_shuffle_epi8(table, idx)
        };
        // p_0 .. p_15 (nibbles of a, low first) and p_16 .. p_31 (of b)
        (
            half(_mm_unpacklo_epi8(lo, hi)),
            half(_mm_unpackhi_epi8(lo, hi)),
        )
    }

    /// See [`super::hits_portable`].
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) fn hits(line: &[u64; 8], a: u64, b: u64) -> u32 {
        let (m0, m1) = lane_bits(a, b);
        let ptr = line.as_ptr().cast::<__m256i>();
        // SAFETY: 64 readable bytes; unaligned loads (a `Line` is aligned to
        // 64, but a caller's array need not be).
        let (l0, l1) = unsafe { (_mm256_loadu_si256(ptr), _mm256_loadu_si256(ptr.add(1))) };
        let h0 = _mm256_cmpeq_epi16(_mm256_and_si256(l0, m0), m0);
        let h1 = _mm256_cmpeq_epi16(_mm256_and_si256(l1, m1), m1);
        // bytes: lanes 0-7, 16-23 | 8-15, 24-31; reorder the 64-bit quarters
        let packed = _mm256_packs_epi16(h0, h1);
        let ordered = _mm256_permute4x64_epi64::<0b11_01_10_00>(packed);
        _mm256_movemask_epi8(ordered) as u32
    }

    /// An insertion's whole update of its line: the lanes in `stale` (bit
    /// j: lane j) cleared, the key's bits ORed into the lanes of `newest`
    /// (line words), and lane 31 replaced by `stamp` (the word 7 value with
    /// the stamp in its top 16 bits, zero below).
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) fn update(
        line: &mut [u64; 8],
        a: u64,
        b: u64,
        newest: &[u64; 8],
        stale: u32,
        stamp: u64,
    ) {
        let (m0, m1) = lane_bits(a, b);
        let lane = _mm256_setr_epi16(
            1,
            2,
            4,
            8,
            16,
            32,
            64,
            128,
            256,
            512,
            1024,
            2048,
            4096,
            8192,
            16384,
            i16::MIN,
        );
        // each lane of a half all ones where its bit of the mask is set;
        // lane 31 (the stamp) is always replaced
        let expand = |m: u16| {
            let v = _mm256_and_si256(_mm256_set1_epi16(m as i16), lane);
            _mm256_cmpeq_epi16(v, lane)
        };
        let c0 = expand(stale as u16);
        let c1 = expand((stale >> 16) as u16 | 1 << 15);
        let st = _mm256_set_epi64x(stamp as i64, 0, 0, 0);
        let ptr = line.as_mut_ptr().cast::<__m256i>();
        let sel = newest.as_ptr().cast::<__m256i>();
        // SAFETY: 64 readable and writable bytes each; unaligned accesses.
        unsafe {
            let n0 = _mm256_loadu_si256(sel);
            let n1 = _mm256_loadu_si256(sel.add(1));
            let l0 = _mm256_andnot_si256(c0, _mm256_loadu_si256(ptr));
            let l1 = _mm256_andnot_si256(c1, _mm256_loadu_si256(ptr.add(1)));
            let l0 = _mm256_or_si256(l0, _mm256_and_si256(m0, n0));
            let l1 = _mm256_or_si256(_mm256_or_si256(l1, _mm256_and_si256(m1, n1)), st);
            _mm256_storeu_si256(ptr, l0);
            _mm256_storeu_si256(ptr.add(1), l1);
        }
    }
}
