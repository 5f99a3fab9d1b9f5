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

    /// True when the array holds no bits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
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
