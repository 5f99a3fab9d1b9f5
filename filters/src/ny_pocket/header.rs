//! The 128-bit block header of the pocket dictionary: bucket occupancy in
//! unary (per bucket, one 1 per entry and a terminating 0), with the select
//! that finds a bucket's entries and the update that adds one.

/// `SELECT_IN_BYTE[8 b + k]`: position of the k-th set bit of byte b (8 if
/// there is none).
static SELECT_IN_BYTE: [u8; 2048] = {
    let mut t = [8u8; 2048];
    let mut b = 0;
    while b < 256 {
        let (mut k, mut i) = (0, 0);
        while i < 8 {
            if b >> i & 1 == 1 {
                t[b * 8 + k] = i as u8;
                k += 1;
            }
            i += 1;
        }
        b += 1;
    }
    t
};

const ONES_STEP_8: u64 = 0x0101_0101_0101_0101;
const MSBS_STEP_8: u64 = 0x8080_8080_8080_8080;

/// Position of the `k`-th set bit of `x` (0-based; `k` < popcount), without
/// branches or the `popcnt` instruction (the crate builds for baseline
/// x86-64): byte counts by SWAR, their prefix sums by one multiplication,
/// the byte by a parallel comparison, the bit by a table (Vigna, *Broadword
/// implementation of rank/select queries*, 2008).
#[inline]
pub(super) fn select64(x: u64, k: u32) -> u32 {
    let mut s = x - ((x >> 1) & 0x5555_5555_5555_5555);
    s = (s & 0x3333_3333_3333_3333) + ((s >> 2) & 0x3333_3333_3333_3333);
    s = (s + (s >> 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    // byte i of cum: set bits in bytes 0..=i (at most 64, so no carries)
    let cum = s.wrapping_mul(ONES_STEP_8);
    let kk = k as u64 * ONES_STEP_8;
    // high bit of byte i set iff cum_i <= k: bytes wholly before the bit
    let le = ((kk | MSBS_STEP_8) - cum) & MSBS_STEP_8;
    let byte = ((le >> 7).wrapping_mul(ONES_STEP_8) >> 56) as u32;
    let before = ((cum << 8) >> (8 * byte)) as u32 & 0xFF;
    let in_byte = (x >> (8 * byte)) as usize & 0xFF;
    8 * byte + SELECT_IN_BYTE[in_byte * 8 + (k - before) as usize] as u32
}

/// Position of the `k`-th zero of a 128-bit header.
#[inline]
pub(super) fn select0(h: u128, k: u32) -> u32 {
    let z = !h;
    let lo = z as u64;
    let c = lo.count_ones();
    if k < c {
        select64(lo, k)
    } else {
        64 + select64((z >> 64) as u64, k - c)
    }
}

/// Bucket `q` of a header: (its first entry, its entries, the header bit
/// where its run of ones starts).
#[inline]
pub(super) fn bucket_range(h: u128, q: u32) -> (u32, u32, u32) {
    let start = if q == 0 { 0 } else { select0(h, q - 1) + 1 };
    let count = if start >= 128 {
        0
    } else {
        (h >> start).trailing_ones()
    };
    (start - q, count, start)
}

/// The header with one more entry in the bucket whose terminating zero is at
/// bit `pos` (the caller has checked that the block has a free slot).
#[inline]
pub(super) fn header_insert(h: u128, pos: u32) -> u128 {
    let low = h & ((1u128 << pos) - 1);
    let high = if pos < 127 {
        (h >> pos) << (pos + 1)
    } else {
        0
    };
    low | 1u128 << pos | high
}
