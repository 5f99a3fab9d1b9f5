//! Division by a divisor fixed when a filter is made, by one 128-bit
//! multiply instead of a hardware division (which takes tens of cycles):
//! Lemire, Kaser and Kurz, "Faster remainder by direct computation" (2019),
//! with 128 fractional bits, which is exact for every 64-bit numerator and
//! every divisor.

/// A fixed divisor d >= 1 and its reciprocal c = ⌈2^128 / d⌉.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Divisor {
    d: u64,
    /// ⌈2^128 / d⌉ for d >= 2 (which fits in 128 bits); unused for d = 1.
    c: u128,
}

impl Divisor {
    /// The divisor `d`, which must be at least 1 (the filters check their
    /// parameters before they make one; 0 is taken as 1, so that a filter
    /// never panics here).
    pub(crate) fn new(d: u64) -> Self {
        let d = d.max(1);
        let c = if d == 1 { 0 } else { u128::MAX / d as u128 + 1 };
        Divisor { d, c }
    }

    /// ⌊n / d⌋: ⌊c·n / 2^128⌋, exact because c·d - 2^128 < d <= 2^64 and
    /// n < 2^64 (the paper's theorem 1 with F = 128 >= 64 + log2 d).
    #[inline]
    pub(crate) fn div(&self, n: u64) -> u64 {
        if self.d == 1 {
            return n;
        }
        let lo = (self.c as u64) as u128 * n as u128;
        let hi = (self.c >> 64) * n as u128;
        // hi <= (2^64 - 1)^2 and lo >> 64 < 2^64: the sum fits in 128 bits
        ((hi + (lo >> 64)) >> 64) as u64
    }

    /// (⌊n / d⌋, n mod d).
    #[inline]
    pub(crate) fn div_rem(&self, n: u64) -> (u64, u64) {
        let q = self.div(n);
        (q, n - q * self.d)
    }
}

#[cfg(test)]
mod tests {
    use super::Divisor;

    /// Equal to the hardware's division on the edges (0, 1, d - 1, d,
    /// multiples, u64::MAX) and on a million pseudo-random pairs of every
    /// size.
    #[test]
    fn equals_hardware_division() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x = crate::hash::mix64(x);
            x
        };
        let mut divisors = vec![
            1,
            2,
            3,
            7,
            64,
            1000,
            1 << 32,
            (1 << 32) + 1,
            u64::MAX - 1,
            u64::MAX,
        ];
        for _ in 0..2000 {
            let bits = next() % 64;
            divisors.push((next() >> bits).max(1));
        }
        for d in divisors {
            let div = Divisor::new(d);
            let mut numerators = vec![0, 1, d - 1, d, d.wrapping_mul(3), u64::MAX, u64::MAX - 1];
            for _ in 0..500 {
                let bits = next() % 64;
                numerators.push(next() >> bits);
            }
            for n in numerators {
                assert_eq!(div.div_rem(n), (n / d, n % d), "{n} / {d}");
            }
        }
    }
}
