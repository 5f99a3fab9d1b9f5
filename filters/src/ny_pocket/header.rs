//! The 128-bit block header of the pocket dictionary: bucket occupancy in
//! unary (per bucket, one 1 per entry and a terminating 0), with the select
//! that finds a bucket's entries and the update that adds one.

use crate::bits::select64;

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
