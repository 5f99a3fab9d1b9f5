//! A packed bit array with range clearing, the storage of the Bloom-family designs.

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
pub(crate) fn select64(x: u64, k: u32) -> u32 {
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

/// Bits `pos..pos + n` of `words` (`n` in 1..=64), right-aligned.
#[inline]
pub(crate) fn read_bits(words: &[u64], pos: u64, n: u32) -> u64 {
    let (w, off) = ((pos >> 6) as usize, (pos & 63) as u32);
    let mut v = words[w] >> off;
    if off + n > 64 {
        v |= words[w + 1] << (64 - off);
    }
    if n == 64 {
        v
    } else {
        v & ((1u64 << n) - 1)
    }
}

/// Writes the low `n` bits of `v` (`n` in 1..=64) to bits `pos..pos + n`.
#[inline]
pub(crate) fn write_bits(words: &mut [u64], pos: u64, n: u32, v: u64) {
    let (w, off) = ((pos >> 6) as usize, (pos & 63) as u32);
    let mask = if n == 64 { !0 } else { (1u64 << n) - 1 };
    let v = v & mask;
    words[w] = (words[w] & !(mask << off)) | (v << off);
    if off + n > 64 {
        let m2 = (1u64 << (off + n - 64)) - 1;
        words[w + 1] = (words[w + 1] & !m2) | (v >> (64 - off));
    }
}

/// Moves bits `start..end` of `words` up by `by` positions, the top chunk
/// first, so that nothing is overwritten before it is read.
pub(crate) fn shift_bits_up(words: &mut [u64], start: u64, end: u64, by: u64) {
    let mut hi = end;
    while hi > start {
        let n = (hi - start).min(64) as u32;
        let lo = hi - n as u64;
        let v = read_bits(words, lo, n);
        write_bits(words, lo + by, n, v);
        hi = lo;
    }
}

/// Moves bits `start..end` of `words` down by `by` positions (`by <= start`),
/// the bottom chunk first.
fn shift_bits_down(words: &mut [u64], start: u64, end: u64, by: u64) {
    let mut lo = start;
    while lo < end {
        let n = (end - lo).min(64) as u32;
        let v = read_bits(words, lo, n);
        write_bits(words, lo - by, n, v);
        lo += n as u64;
    }
}

/// `len` bits packed into 64-bit words. Slices of segmented designs are laid out
/// back to back at arbitrary bit offsets, so no per-slice padding is wasted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BitArray {
    words: Vec<u64>,
    len: u64,
}

impl BitArray {
    /// An all-zero array of `len` bits. The caller has validated `len`.
    pub fn new(len: u64) -> Self {
        BitArray {
            words: vec![0; len.div_ceil(64) as usize],
            len,
        }
    }

    /// Number of bits.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Reads bit `i`.
    #[inline]
    pub fn get(&self, i: u64) -> bool {
        debug_assert!(i < self.len);
        (self.words[(i >> 6) as usize] >> (i & 63)) & 1 == 1
    }

    /// Asks the processor to bring bit `i`'s line into the cache, for a
    /// write soon after: a hint with no effect on the contents, so that
    /// the misses of many probes overlap (nothing where the target has no
    /// prefetch instruction here).
    #[inline]
    pub fn prefetch(&self, i: u64) {
        prefetch_word(&self.words, (i >> 6) as usize);
    }

    /// Sets bit `i` to 1.
    #[inline]
    pub fn set(&mut self, i: u64) {
        debug_assert!(i < self.len);
        self.words[(i >> 6) as usize] |= 1 << (i & 63);
    }

    /// Sets bit `i` to `v`.
    #[inline]
    pub fn assign(&mut self, i: u64, v: bool) {
        debug_assert!(i < self.len);
        let (w, b) = ((i >> 6) as usize, i & 63);
        self.words[w] = (self.words[w] & !(1 << b)) | ((v as u64) << b);
    }

    /// Word `w` of the array (bits 64w..64w + 64; bits past `len` are 0).
    #[inline]
    pub fn word(&self, w: usize) -> u64 {
        self.words[w]
    }

    /// The words, bit i being bit i % 64 of word i / 64.
    #[inline]
    pub(crate) fn as_words(&self) -> &[u64] {
        &self.words
    }

    /// ORs `x` into word `w`, past the array's last bit excepted (those
    /// stay clear).
    #[inline]
    pub(crate) fn or_word(&mut self, w: usize, x: u64) {
        let tail = self.len - 64 * w as u64;
        let mask = if tail >= 64 { !0 } else { (1u64 << tail) - 1 };
        self.words[w] |= x & mask;
    }

    /// Number of words.
    #[inline]
    pub fn words(&self) -> usize {
        self.words.len()
    }

    /// Moves bits `from..to` one position up, to `from + 1..to + 1`
    /// (`to < len`); bit `to` is overwritten, bit `from` keeps its value.
    pub fn shift_up_one(&mut self, from: u64, to: u64) {
        debug_assert!(from <= to && to < self.len);
        shift_bits_up(&mut self.words, from, to, 1);
    }

    /// Moves bits `from..to` one position down, to `from - 1..to - 1`
    /// (`from >= 1`); bit `to - 1` keeps its value.
    pub fn shift_down_one(&mut self, from: u64, to: u64) {
        debug_assert!(1 <= from && from <= to && to <= self.len);
        shift_bits_down(&mut self.words, from, to, 1);
    }

    /// The last 0 bit at or before `i`, if any.
    #[inline]
    pub fn prev_zero(&self, i: u64) -> Option<u64> {
        debug_assert!(i < self.len);
        let mut w = (i >> 6) as usize;
        let mut word = !self.words[w] & (!0u64 >> (63 - (i & 63)));
        loop {
            if word != 0 {
                return Some(((w as u64) << 6) + 63 - word.leading_zeros() as u64);
            }
            if w == 0 {
                return None;
            }
            w -= 1;
            word = !self.words[w];
        }
    }

    /// The 1 bits in positions `a..=b` (`a <= b < len`).
    #[inline]
    pub fn count_ones_in(&self, a: u64, b: u64) -> u64 {
        debug_assert!(a <= b && b < self.len);
        let (wa, wb) = ((a >> 6) as usize, (b >> 6) as usize);
        let (lo, hi) = (!0u64 << (a & 63), !0u64 >> (63 - (b & 63)));
        if wa == wb {
            return (self.words[wa] & lo & hi).count_ones() as u64;
        }
        let inner: u64 = self.words[wa + 1..wb]
            .iter()
            .map(|w| w.count_ones() as u64)
            .sum();
        inner
            + (self.words[wa] & lo).count_ones() as u64
            + (self.words[wb] & hi).count_ones() as u64
    }

    /// The `k`-th (`k >= 1`) 0 bit at a position `>= start`: `Ok(position)`,
    /// or `Err(zeros seen)` when fewer than `k` lie before `len`.
    #[inline]
    pub fn select_zero_from(&self, start: u64, mut k: u64) -> Result<u64, u64> {
        debug_assert!(k >= 1);
        if start >= self.len {
            return Err(0);
        }
        let last = self.words.len() - 1;
        let tail = if self.len & 63 == 0 {
            !0u64
        } else {
            !0u64 >> (64 - (self.len & 63))
        };
        let mut w = (start >> 6) as usize;
        let mut word = !self.words[w] & (!0u64 << (start & 63));
        let mut seen = 0;
        loop {
            if w == last {
                word &= tail;
            }
            let c = word.count_ones() as u64;
            if c >= k {
                return Ok(((w as u64) << 6) + select64(word, (k - 1) as u32) as u64);
            }
            k -= c;
            seen += c;
            w += 1;
            if w > last {
                return Err(seen);
            }
            word = !self.words[w];
        }
    }

    /// Clears bits `start..end`.
    pub fn clear_range(&mut self, start: u64, end: u64) {
        debug_assert!(start <= end && end <= self.len);
        if start == end {
            return;
        }
        let (sw, ew) = ((start >> 6) as usize, ((end - 1) >> 6) as usize);
        let lo_mask = !0u64 << (start & 63); // bits >= start in word sw
        let hi_mask = !0u64 >> (63 - ((end - 1) & 63)); // bits <= end-1 in word ew
        if sw == ew {
            self.words[sw] &= !(lo_mask & hi_mask);
        } else {
            self.words[sw] &= !lo_mask;
            self.words[sw + 1..ew].fill(0);
            self.words[ew] &= !hi_mask;
        }
    }
}

/// Asks the processor to bring the line of `words[w]` into the cache, for
/// a read or write soon after: a hint with no effect on the contents, so
/// that the misses of many probes overlap (nothing past the end, or where
/// the target has no prefetch instruction here).
#[inline]
pub(crate) fn prefetch_word(words: &[u64], w: usize) {
    let Some(word) = words.get(w) else {
        return;
    };
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: SSE is part of x86_64; a prefetch reads nothing and
        // writes nothing, and the address is that of a live word.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((word as *const u64).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = word;
}

/// `len` unsigned fields of `width` bits (1..=64) packed back to back into
/// 64-bit words, the slot storage of the dictionary-based designs. Fields may
/// straddle a word boundary; one padding word keeps every read in bounds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackedInts {
    words: Vec<u64>,
    len: u64,
    width: u32,
    mask: u64,
}

impl PackedInts {
    /// Sets every field to zero.
    pub fn clear(&mut self) {
        self.words.fill(0);
    }

    /// `len` zero fields of `width` bits. The caller has validated the sizes.
    pub fn new(len: u64, width: u32) -> Self {
        assert!(
            (1..=64).contains(&width),
            "field width {width} not in 1..=64"
        );
        PackedInts {
            words: vec![0; (len * width as u64).div_ceil(64) as usize + 1],
            len,
            width,
            mask: if width == 64 { !0 } else { (1 << width) - 1 },
        }
    }

    /// Number of fields.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Bits per field.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Reads field `i`.
    #[inline]
    pub fn get(&self, i: u64) -> u64 {
        debug_assert!(i < self.len);
        let bit = i * self.width as u64;
        let (w, off) = ((bit >> 6) as usize, (bit & 63) as u32);
        let two = self.words[w] as u128 | (self.words[w + 1] as u128) << 64;
        (two >> off) as u64 & self.mask
    }

    /// Asks the processor to bring the line of field `i`'s first bit into
    /// the cache (as [`BitArray::prefetch`]).
    #[inline]
    pub fn prefetch(&self, i: u64) {
        prefetch_word(&self.words, ((i * self.width as u64) >> 6) as usize);
    }

    /// The word holding the first bit of field `i`: a load whose only use
    /// is to start the cache miss early (see `CountingTable::warm`).
    #[inline]
    pub fn word_of(&self, i: u64) -> u64 {
        self.words[((i * self.width as u64) >> 6) as usize]
    }

    /// Moves fields `from..to` one field up, to `from + 1..to + 1`
    /// (`to < len`); field `to` is overwritten, field `from` keeps its value.
    pub fn shift_up_one(&mut self, from: u64, to: u64) {
        debug_assert!(from <= to && to < self.len);
        let w = self.width as u64;
        shift_bits_up(&mut self.words, from * w, to * w, w);
    }

    /// Moves fields `from..to` one field down, to `from - 1..to - 1`
    /// (`from >= 1`); field `to - 1` keeps its value.
    pub fn shift_down_one(&mut self, from: u64, to: u64) {
        debug_assert!(1 <= from && from <= to && to <= self.len);
        let w = self.width as u64;
        shift_bits_down(&mut self.words, from * w, to * w, w);
    }

    /// Decrements every non-zero field of `from..to` by one (fields at 0
    /// stay 0). Widths dividing 64 go a word at a time: a field's bits are
    /// OR-folded onto its lowest bit, which is then subtracted (a non-zero
    /// field never borrows from its neighbour); other widths field by field.
    pub fn saturating_decrement(&mut self, from: u64, to: u64) {
        debug_assert!(from <= to && to <= self.len);
        let w = self.width as u64;
        if 64 % w != 0 {
            for i in from..to {
                let v = self.get(i);
                if v != 0 {
                    self.set(i, v - 1);
                }
            }
            return;
        }
        let per = 64 / w;
        let lowest = u64::MAX / self.mask;
        let mut i = from;
        while i < to {
            let word = i / per;
            let (first, last) = (i % per, (to - word * per).min(per));
            let above = |f: u64| {
                if f * w >= 64 {
                    !0
                } else {
                    (1u64 << (f * w)) - 1
                }
            };
            let sel = above(last) & !above(first);
            let x = self.words[word as usize];
            let mut fold = x;
            let mut b = 1;
            while b < w {
                fold |= fold >> b;
                b *= 2;
            }
            self.words[word as usize] = x - (fold & lowest & sel);
            i = word * per + last;
        }
    }

    /// Writes field `i` (`v` must fit in `width` bits).
    #[inline]
    pub fn set(&mut self, i: u64, v: u64) {
        debug_assert!(i < self.len && v & !self.mask == 0);
        let bit = i * self.width as u64;
        let (w, off) = ((bit >> 6) as usize, (bit & 63) as u32);
        let mut two = self.words[w] as u128 | (self.words[w + 1] as u128) << 64;
        two &= !((self.mask as u128) << off);
        two |= (v as u128) << off;
        self.words[w] = two as u64;
        self.words[w + 1] = (two >> 64) as u64;
    }
}

impl crate::persist::Codec for BitArray {
    fn put(&self, w: &mut crate::persist::Writer) {
        self.len.put(w);
        self.words.put(w);
    }
    fn get(r: &mut crate::persist::Reader<'_>) -> Result<Self, crate::persist::LoadError> {
        let len = u64::get(r)?;
        let words = Vec::<u64>::get(r)?;
        if words.len() as u64 != len.div_ceil(64) {
            return Err(crate::persist::LoadError::Invalid(format!(
                "{} words for {len} bits",
                words.len()
            )));
        }
        Ok(BitArray { words, len })
    }
}

impl crate::persist::Codec for PackedInts {
    fn put(&self, w: &mut crate::persist::Writer) {
        self.len.put(w);
        self.width.put(w);
        self.words.put(w);
    }
    fn get(r: &mut crate::persist::Reader<'_>) -> Result<Self, crate::persist::LoadError> {
        use crate::persist::LoadError;
        let len = u64::get(r)?;
        let width = u32::get(r)?;
        let words = Vec::<u64>::get(r)?;
        let expected = len
            .checked_mul(width as u64)
            .map(|b| b.div_ceil(64) + 1)
            .filter(|_| (1..=64).contains(&width));
        if expected != Some(words.len() as u64) {
            return Err(LoadError::Invalid(format!(
                "{} words for {len} fields of {width} bits",
                words.len()
            )));
        }
        Ok(PackedInts {
            words,
            len,
            width,
            mask: if width == 64 { !0 } else { (1 << width) - 1 },
        })
    }
}

#[cfg(test)]
#[path = "bits_tests.rs"]
mod tests;
