//! Timing beside a reference: the design and a plain Bloom filter of the
//! same memory take turns, chunk by chunk, over the same keys, so that both
//! see the same moments of a shared, noisy machine. Used by the membership
//! pass (`[measure] speed_reference`) and the time pass (`[time]
//! speed_ops`).

use crate::metrics::columns::col;
use crate::metrics::Row;
use bloomlab_filters::bloom::BloomFilter;
use bloomlab_filters::BloomShape;
use std::hint::black_box;
use std::time::Instant;

/// Chunks each kind of operation is split into, alternating between the
/// design and the reference.
pub const CHUNKS: usize = 8;

/// A plain Bloom filter of `bits` (at least 64) with its best k for a
/// window of `w` keys, ⌈(bits/w)·ln 2⌉ in 1..=32.
pub fn reference(bits: u64, w: u64) -> BloomFilter {
    let bits = bits.max(64);
    let k = ((bits as f64 / w.max(1) as f64) * std::f64::consts::LN_2)
        .ceil()
        .clamp(1.0, 32.0) as u32;
    BloomFilter::new(BloomShape { bits, hashes: k }).expect("m >= 64 and k in 1..=32")
}

/// Brings the reference to the state `n` keys leave it in
/// ([`BloomFilter::fill_as_if`]) rather than inserting them: its queries
/// then read what they would, and at a window of millions into tens of MB
/// the k random writes a key would cost took seconds a design. A fill of
/// its own, the same for every design of the same memory and window.
pub fn fill(reference: &mut BloomFilter, n: u64) {
    reference.fill_as_if(n, reference.m() ^ n.rotate_left(32));
}

/// ns per operation of `ours` and `theirs` over `keys`, taking turns in
/// [`CHUNKS`] chunks; each returns whether the key was reported (kept
/// from the optimiser).
pub fn interleaved(
    keys: &[u64],
    mut ours: impl FnMut(u64) -> bool,
    mut theirs: impl FnMut(u64) -> bool,
) -> (f64, f64) {
    let (mut a, mut b, mut yes) = (0u128, 0u128, 0u64);
    for part in keys.chunks((keys.len() / CHUNKS).max(1)) {
        let t0 = Instant::now();
        for &k in part {
            yes += ours(black_box(k)) as u64;
        }
        a += t0.elapsed().as_nanos();
        let t0 = Instant::now();
        for &k in part {
            yes += theirs(black_box(k)) as u64;
        }
        b += t0.elapsed().as_nanos();
    }
    black_box(yes);
    let n = keys.len().max(1) as f64;
    (a as f64 / n, b as f64 / n)
}

/// The speed columns: the design's ns per insert, positive and negative
/// query, the reference's, and their ratios.
pub fn columns(
    row: &mut Row,
    insert: (f64, f64),
    pos: (f64, f64),
    neg: (f64, f64),
    reference: &BloomFilter,
) {
    let ops = [
        (
            col::INSERT_NS,
            col::BLOOM_INSERT_NS,
            col::INSERT_VS_BLOOM,
            insert,
        ),
        (
            col::QUERY_POS_NS,
            col::BLOOM_QUERY_POS_NS,
            col::QUERY_POS_VS_BLOOM,
            pos,
        ),
        (
            col::QUERY_NEG_NS,
            col::BLOOM_QUERY_NEG_NS,
            col::QUERY_NEG_VS_BLOOM,
            neg,
        ),
    ];
    for (ns, bloom_ns, vs, (ours, theirs)) in ops {
        row.num(ns, ours);
        row.num(bloom_ns, theirs);
        row.num(vs, ours / theirs.max(1e-3));
    }
    row.num(col::QUERY_NS, (pos.0 + neg.0) / 2.0);
    row.num(col::BLOOM_K, reference.k() as f64);
}
