//! What an operation reads of memory, in 64-byte cache lines: the unit in
//! which `plan` and `theory` compare the designs' speed without measuring.
//!
//! Each design counts the lines an operation touches on the filter itself
//! (a `lines_read` beside its `contains`), and its theory gives their
//! expectation; a test in the design's folder holds the two together. Lines
//! are counted from the start of each bit array as if it began a line (a
//! large allocation is page-aligned).

/// Bits of a 64-byte line.
pub const LINE_BITS: u64 = 512;

/// Expected distinct 64-byte lines an operation reads or writes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lines {
    /// An insertion's own reads and writes.
    pub insert: f64,
    /// Periodic maintenance (a shift, a sweep) per insertion, apart.
    pub shift: f64,
    /// A query of a never-inserted key.
    pub query_negative: f64,
    /// A query of a key inserted within the window.
    pub query_positive: f64,
}

/// σ: the share of `bits`-bit fields packed from bit 0 that straddle a
/// 512-bit line boundary (over one period of lcm(bits, 512) bits): a read
/// of such a field reads two lines.
pub fn straddling_share(bits: u32) -> f64 {
    let s = bits as u64;
    let period = LINE_BITS / crate::half_sliding::theory::gcd(LINE_BITS, s);
    let straddle = (0..period)
        .filter(|i| (i * s) / LINE_BITS != (i * s + s - 1) / LINE_BITS)
        .count();
    straddle as f64 / period as f64
}

/// Mean lines a field of `bits` bits spans when fields are packed from bit
/// 0, over one period of lcm(bits, 512) bits: 1 + σ for fields of at most
/// 512 bits.
pub fn field_lines_mean(bits: u64) -> f64 {
    let period = LINE_BITS / crate::half_sliding::theory::gcd(LINE_BITS, bits);
    let spanned: u64 = (0..period)
        .map(|i| (i * bits + bits - 1) / LINE_BITS - (i * bits) / LINE_BITS + 1)
        .sum();
    spanned as f64 / period as f64
}

/// Expected lines of a negative query of a two-choice table of buckets of
/// `bucket_bits` bits (the Naor-Yogev filter's, SWBF's, SWAMP's): it reads
/// both of the key's buckets whole, 2·[`field_lines_mean`]. Left out, each
/// at most a few in 10^4 lines at the sizes `plan` gives: two buckets that
/// coincide or share a line (about 2μ/L for L lines), an early stop at a
/// false match ([`two_bucket_lines_stopping`] counts it) and a stash (empty
/// at the design loads, which the tests check).
pub fn two_bucket_lines(bucket_bits: u64) -> f64 {
    2.0 * field_lines_mean(bucket_bits)
}

/// [`two_bucket_lines`] with the query's stop at a false match and the
/// lines its two buckets share, in a table of `buckets` buckets: the eight
/// slots are read in order, each matching with probability p, 1 - p =
/// (1 - `fpr`)^(1/8), and a stop at slot s reads the lines of the slots so
/// far (the first bucket's prefix, or the first bucket and the second's
/// prefix), averaged over the buckets' offsets; when both buckets are read,
/// the second, uniform and independent of the first, shares Σ_λ n_λ²/B²
/// lines with it on average (n_λ the buckets touching line λ; a bucket
/// that is its own other counts once).
///
/// A table of fewer than eight periods of lcm(bucket bits, 512) is averaged
/// over its own pairs of buckets instead: its
/// buckets do not take every offset of the period evenly (a table of one
/// or two buckets never straddles a line), and the period's figures came
/// out at 1.128 lines where the filter reads exactly 1, and below 0 for the
/// shared lines of a window of 1 to 32 keys.
pub fn two_bucket_lines_stopping(slot_bits: u64, fpr: f64, buckets: u64) -> f64 {
    let bucket = 4 * slot_bits;
    let p = 1.0 - (1.0 - fpr.clamp(0.0, 1.0)).powf(1.0 / 8.0);
    let period = LINE_BITS / crate::half_sliding::theory::gcd(LINE_BITS, bucket);
    if buckets < 8 * period {
        return small_table_lines(slot_bits, p, buckets.max(1));
    }
    let mu = field_lines_mean(bucket);
    let prefix = |j: u64| prefix_lines_mean(bucket, j * slot_bits);
    let mut total = 0.0;
    for s in 1..=8u64 {
        let lines = if s <= 4 {
            prefix(s)
        } else {
            mu + prefix(s - 4)
        };
        total += (1.0 - p).powi(s as i32 - 1) * p * lines;
    }
    let shared = shared_lines(bucket, buckets);
    total + (1.0 - p).powi(4) * (1.0 - p).powi(4) * (2.0 * mu - shared)
}

/// [`two_bucket_lines_stopping`] of a table of `buckets` buckets, averaged
/// over every ordered pair of its buckets (the key's two, uniform and
/// independent), each slot matching with probability `p`: a stop at slot s
/// reads the lines of the first bucket's first s slots, or of the first
/// bucket and the second's first s - 4; no stop, of both.
fn small_table_lines(slot_bits: u64, p: f64, buckets: u64) -> f64 {
    let bucket = 4 * slot_bits;
    // the lines of bucket b's first j slots, as a range
    let range = |b: u64, j: u64| {
        let start = b * bucket;
        (start / LINE_BITS, (start + j * slot_bits - 1) / LINE_BITS)
    };
    let len = |(a, z): (u64, u64)| (z - a + 1) as f64;
    let overlap =
        |x: (u64, u64), y: (u64, u64)| (x.1.min(y.1) + 1).saturating_sub(x.0.max(y.0)) as f64;
    let stop = |s: u64| (1.0 - p).powi(s as i32 - 1) * p;
    // Σ over second buckets of the lines of their first j slots
    let sums: Vec<f64> = (0..=4)
        .map(|j| {
            if j == 0 {
                0.0
            } else {
                (0..buckets).map(|b| len(range(b, j))).sum()
            }
        })
        .collect();
    let n = buckets as f64;
    let mut total = 0.0;
    for b1 in 0..buckets {
        let whole = range(b1, 4);
        let mut first = 0.0;
        for s in 1..=4 {
            first += stop(s) * len(range(b1, s));
        }
        // Σ over b2 of |whole ∪ prefix(b2, j)|: the sizes less the overlaps,
        // which only the buckets touching `whole`'s lines have
        let lo = (whole.0 * LINE_BITS / bucket).saturating_sub(1);
        let hi = ((whole.1 + 1) * LINE_BITS / bucket + 1).min(buckets - 1);
        let unions = |j: u64| {
            let shared: f64 = (lo..=hi).map(|b2| overlap(whole, range(b2, j))).sum();
            n * len(whole) + sums[j as usize] - shared
        };
        let mut second = 0.0;
        for s in 5..=8 {
            second += stop(s) * unions(s - 4);
        }
        second += (1.0 - p).powi(8) * unions(4);
        total += first + second / n;
    }
    total / n
}

/// E[lines two independent uniform buckets of `bucket_bits` bits, among
/// `buckets`, have in common]: Σ_λ n_λ² / B², over one period of
/// lcm(bucket_bits, 512) bits (the table's last partial period aside).
fn shared_lines(bucket_bits: u64, buckets: u64) -> f64 {
    let period = LINE_BITS / crate::half_sliding::theory::gcd(LINE_BITS, bucket_bits);
    let lines = period * bucket_bits / LINE_BITS;
    let mut touching = vec![0u64; lines as usize];
    for b in 0..period {
        let (first, last) = (
            b * bucket_bits / LINE_BITS,
            ((b + 1) * bucket_bits - 1) / LINE_BITS,
        );
        for n in &mut touching[first as usize..=last as usize] {
            *n += 1;
        }
    }
    let squares: u64 = touching.iter().map(|n| n * n).sum();
    squares as f64 / (period as f64 * buckets.max(1) as f64)
}

/// The lines of a two-choice table of four-slot buckets of `slot_bits`-bit
/// slots among `buckets`, at FPR `fpr` (the Naor-Yogev filter's and
/// SWBF's): a negative query [`two_bucket_lines_stopping`], an insertion at
/// least both buckets (its cuckoo walk and the expiry sweep aside); a
/// positive query's not derived (NaN: it stops in the bucket its entry sits
/// in, which the cuckoo walks decide).
pub fn two_bucket(slot_bits: u32, fpr: f64, buckets: u64) -> Lines {
    Lines {
        insert: two_bucket_lines(4 * slot_bits as u64),
        shift: 0.0,
        query_negative: two_bucket_lines_stopping(slot_bits as u64, fpr, buckets),
        query_positive: f64::NAN,
    }
}

/// Mean lines spanned by bits b·`stride` .. b·`stride` + `len` over the
/// b of one period of lcm(stride, 512) bits.
pub fn prefix_lines_mean(stride: u64, len: u64) -> f64 {
    let period = LINE_BITS / crate::half_sliding::theory::gcd(LINE_BITS, stride);
    let spanned: u64 = (0..period)
        .map(|i| (i * stride + len - 1) / LINE_BITS - (i * stride) / LINE_BITS + 1)
        .sum();
    spanned as f64 / period as f64
}

/// Expected lines of a query that reads up to k fields of `bits` bits at
/// independent uniform places among `fields` packed in one array, in
/// order, stopping at the first that misses (each hits with probability
/// `fill`): the i-th field's line is new with probability (1 - 1/L)^i, L
/// the lines of the array, and a field reads two lines when it straddles
/// (σ); (1 + σ)·Σ_{i<k} fillⁱ(1 - 1/L)ⁱ, and the positive query's
/// (1 + σ)·Σ_{i<k} (1 - 1/L)ⁱ. A straddling field's second line may be
/// shared too, which this leaves out (at most σ·k²/L).
pub fn one_array_query_lines(fill: f64, k: u32, bits: u32, fields: u64) -> (f64, f64) {
    let per = 1.0 + straddling_share(bits);
    let lines = (fields * bits as u64).div_ceil(LINE_BITS) as f64;
    let new = 1.0 - 1.0 / lines;
    let (mut reach, mut fresh, mut negative, mut positive) = (1.0, 1.0, 0.0, 0.0);
    for _ in 0..k {
        negative += reach * fresh;
        positive += fresh;
        reach *= fill;
        fresh *= new;
    }
    (per * negative, per * positive)
}

/// The most [`one_array_query_lines`] leaves out: σ·k²/L.
pub fn one_array_bound(k: u32, bits: u32, fields: u64) -> f64 {
    let lines = (fields * bits as u64).div_ceil(LINE_BITS) as f64;
    straddling_share(bits) * (k * k) as f64 / lines
}

/// Expected lines of a query that reads up to k fields of `bits` bits, one
/// in each of k partitions of one packed array, in order, stopping at the
/// first that misses; each hits with probability `fill`, independently:
/// (1 + σ)·Σ_{i<k} fillⁱ. Two reads share a line only across a partition
/// boundary, which this leaves out (at most k·(512 / partition bits)² / 4).
pub fn partitioned_query_lines(fill: f64, k: u32, bits: u32) -> f64 {
    let per = 1.0 + straddling_share(bits);
    let (mut reach, mut lines) = (1.0, 0.0);
    for _ in 0..k {
        lines += reach;
        reach *= fill;
    }
    per * lines
}

/// The most that probes sharing a line across the boundary of two of
/// `arrays` arrays (slices) of `bits` bits each can move a query's
/// expected lines, which the theories leave out: k·(512/m)²/4.
pub fn shared_lines_bound(arrays: u32, bits: u64) -> f64 {
    arrays as f64 * (LINE_BITS as f64 / bits as f64).powi(2) / 4.0
}

/// `lines` with its query figures NaN (not derived) when `bound`, the most
/// the lines its theory leaves out could move them, passes 0.01: a filter
/// too small for the theory's approximation.
pub fn unless_shared(mut lines: Lines, bound: f64) -> Lines {
    if bound > 0.01 {
        lines.query_negative = f64::NAN;
        lines.query_positive = f64::NAN;
    }
    lines
}

/// The distinct lines of a short sequence of bit positions. A query's
/// probes are recorded as they come, with no work between them that waits
/// on a read (so that the processor overlaps the probes' cache misses, as
/// the query itself does), in a buffer on the stack; [`count`](Self::count)
/// sorts them and counts the distinct lines. A longer sequence goes on in
/// a vector (the APBF's Algorithm 1 over more than 64 slices, as in
/// `apbf_paper_table`'s k + l up to 136).
#[derive(Debug)]
pub(crate) struct LineSet {
    inline: [u64; INLINE_LINES],
    len: usize,
    spill: Vec<u64>,
}

/// Lines a [`LineSet`] holds without allocating: every query of k + l <= 64
/// slices (the most the APBF's vector path takes) and of the other designs.
const INLINE_LINES: usize = 64;

impl Default for LineSet {
    fn default() -> Self {
        LineSet {
            inline: [0; INLINE_LINES],
            len: 0,
            spill: Vec::new(),
        }
    }
}

impl LineSet {
    /// Counts bit `pos` of an array whose line 0 is `array` (distinct arrays
    /// take distinct `array` numbers, so their lines never coincide).
    #[inline]
    pub(crate) fn touch(&mut self, array: u64, pos: u64) {
        let line = (array << 48) | (pos / LINE_BITS);
        if self.len < INLINE_LINES {
            self.inline[self.len] = line;
            self.len += 1;
        } else {
            self.spill.push(line);
        }
    }

    /// Counts the `bits`-bit field at bit `pos` (its first and last bits'
    /// lines: a field of at most 512 bits spans at most two).
    pub(crate) fn touch_field(&mut self, array: u64, pos: u64, bits: u64) {
        debug_assert!(bits <= LINE_BITS);
        self.touch(array, pos);
        self.touch(array, pos + bits - 1);
    }

    /// The distinct lines counted so far (sorting them in place).
    pub(crate) fn count(&mut self) -> u32 {
        if self.spill.is_empty() {
            return distinct(&mut self.inline[..self.len]);
        }
        self.spill.extend_from_slice(&self.inline[..self.len]);
        self.len = 0;
        distinct(&mut self.spill)
    }
}

/// The number of distinct values in `values` (which it sorts).
fn distinct(values: &mut [u64]) -> u32 {
    values.sort_unstable();
    (!values.is_empty()) as u32 + values.windows(2).filter(|w| w[0] != w[1]).count() as u32
}

/// Holds a filter's counted lines to its theory: 200,000 never-inserted
/// keys (`mix64` of the top of the key space) against `want.query_negative`,
/// and, when `window` is given, the keys of ages 1 ..= window (the
/// insertions were `mix64(0 .. n)`) against `want.query_positive`; each
/// within 4 standard errors plus `bound`, what the theory leaves out. The
/// answers must be `contains`'s. Prints the figures under `label`.
#[cfg(test)]
pub(crate) fn assert_lines(
    label: &str,
    read: impl Fn(u64) -> (bool, u32),
    contains: impl Fn(u64) -> bool,
    (n, window): (u64, Option<u64>),
    want: Lines,
    bound: f64,
) {
    use crate::hash::mix64;
    let mut neg = crate::testing::Tally::default();
    for i in 0..200_000u64 {
        let key = mix64(u64::MAX - i);
        let (yes, lines) = read(key);
        assert_eq!(
            yes,
            contains(key),
            "{label}: lines_read answers as contains"
        );
        neg.add(lines);
    }
    let mut checks = vec![("negative", neg, want.query_negative)];
    if let Some(w) = window {
        let mut pos = crate::testing::Tally::default();
        for age in 1..=w {
            let (yes, lines) = read(mix64(n - age));
            assert!(yes, "{label}: a key inside the window");
            pos.add(lines);
        }
        checks.push(("positive", pos, want.query_positive));
    }
    for (what, t, theory) in checks {
        println!(
            "{label} {what}: {:.4} ± {:.4} lines, theory {theory:.4}",
            t.mean(),
            t.se()
        );
        assert!(
            (t.mean() - theory).abs() <= 4.0 * t.se() + bound + 1e-9,
            "{label} {what}: {} against {theory}",
            t.mean()
        );
    }
}

/// One 64-byte cache line of eight words, aligned so that line boundaries in
/// a filter's storage are real cache-line boundaries: the storage unit of
/// the blocked APBF (its blocks' words) and of the line APBF (its lines'
/// lanes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[repr(C, align(64))]
pub(crate) struct Line(pub(crate) [u64; 8]);

impl crate::persist::Codec for Line {
    const MIN_BYTES: usize = 64;
    fn put(&self, w: &mut crate::persist::Writer) {
        self.0.put(w)
    }
    fn get(r: &mut crate::persist::Reader<'_>) -> Result<Self, crate::persist::LoadError> {
        Ok(Line(crate::persist::Codec::get(r)?))
    }
}

#[cfg(test)]
mod line_set_tests {
    use super::{LineSet, INLINE_LINES, LINE_BITS};
    use std::collections::HashSet;

    /// The count is the number of distinct (array, line) pairs, whatever
    /// the order, the repeats, and however far past the inline buffer.
    #[test]
    fn counts_distinct_lines_past_the_buffer() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for len in [
            0,
            1,
            2,
            17,
            INLINE_LINES - 1,
            INLINE_LINES,
            INLINE_LINES + 1,
            300,
        ] {
            let (mut set, mut want) = (LineSet::default(), HashSet::new());
            for _ in 0..len {
                x = crate::hash::mix64(x);
                let (array, pos) = (x % 3, (x >> 8) % (40 * LINE_BITS));
                set.touch(array, pos);
                want.insert((array, pos / LINE_BITS));
            }
            assert_eq!(set.count() as usize, want.len(), "{len} touches");
            assert_eq!(set.count() as usize, want.len(), "counted again");
        }
    }
}
