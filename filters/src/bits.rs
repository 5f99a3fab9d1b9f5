//! A packed bit array with range clearing, the storage of the Bloom-family designs.

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

    /// Reads field `i`.
    #[inline]
    pub fn get(&self, i: u64) -> u64 {
        debug_assert!(i < self.len);
        let bit = i * self.width as u64;
        let (w, off) = ((bit >> 6) as usize, (bit & 63) as u32);
        let two = self.words[w] as u128 | (self.words[w + 1] as u128) << 64;
        (two >> off) as u64 & self.mask
    }

    /// The word holding the first bit of field `i`: a load whose only use
    /// is to start the cache miss early (see `CountingTable::warm`).
    #[inline]
    pub fn word_of(&self, i: u64) -> u64 {
        self.words[((i * self.width as u64) >> 6) as usize]
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn packed_fields_keep_their_values(width in 1u32..=64, vals in proptest::collection::vec(any::<u64>(), 1..80)) {
            let mask = if width == 64 { !0 } else { (1u64 << width) - 1 };
            let mut p = PackedInts::new(vals.len() as u64, width);
            for (i, v) in vals.iter().enumerate() { p.set(i as u64, v & mask); }
            // overwrite every other field, then check all
            for (i, v) in vals.iter().enumerate().step_by(2) { p.set(i as u64, !v & mask); }
            for (i, v) in vals.iter().enumerate() {
                let want = if i % 2 == 0 { !v & mask } else { v & mask };
                prop_assert_eq!(p.get(i as u64), want);
            }
        }

        #[test]
        fn clear_range_clears_exactly_the_range(len in 1u64..300, a in 0u64..300, b in 0u64..300) {
            let (a, b) = (a.min(len), b.min(len));
            let (start, end) = (a.min(b), a.max(b));
            let mut bits = BitArray::new(len);
            for i in 0..len { bits.set(i); }
            bits.clear_range(start, end);
            for i in 0..len {
                prop_assert_eq!(bits.get(i), !(start..end).contains(&i));
            }
        }
    }
}
