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
    fn saturating_decrement_matches_field_by_field(width in 1u32..=64, vals in proptest::collection::vec(any::<u64>(), 1..200), a in 0u64..200, b in 0u64..200, zeros in any::<u64>()) {
        let mask = if width == 64 { !0 } else { (1u64 << width) - 1 };
        let n = vals.len() as u64;
        let (a, b) = (a.min(n), b.min(n));
        let (from, to) = (a.min(b), a.max(b));
        let mut p = PackedInts::new(n, width);
        // a share of the fields 0, and some 1 (about to become 0)
        let val = |i: usize| match (zeros >> (i % 64)) & 3 { 0 => 0, 1 => 1 & mask, _ => vals[i] & mask };
        for i in 0..vals.len() { p.set(i as u64, val(i)); }
        p.saturating_decrement(from, to);
        for i in 0..vals.len() {
            let v = val(i);
            let want = if (from..to).contains(&(i as u64)) { v.saturating_sub(1) } else { v };
            prop_assert_eq!(p.get(i as u64), want, "field {}", i);
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

    #[test]
    fn word_at_a_time_searches_match_bit_by_bit(len in 1u64..300, seed in any::<u64>(), a in 0u64..300, b in 0u64..300, k in 1u64..300) {
        let mut bits = BitArray::new(len);
        let mut x = seed;
        for i in 0..len {
            x = crate::hash::mix64(x);
            bits.assign(i, x % 3 != 0);
        }
        let (a, b) = (a % len, b % len);
        let (lo, hi) = (a.min(b), a.max(b));
        let ones = (lo..=hi).filter(|&i| bits.get(i)).count() as u64;
        prop_assert_eq!(bits.count_ones_in(lo, hi), ones);
        let prev = (0..=a).rev().find(|&i| !bits.get(i));
        prop_assert_eq!(bits.prev_zero(a), prev);
        let zeros: Vec<u64> = (a..len).filter(|&i| !bits.get(i)).collect();
        let want = zeros.get(k as usize - 1).copied().ok_or(zeros.len() as u64);
        prop_assert_eq!(bits.select_zero_from(a, k), want);
    }
}

#[test]
fn shifting_fields_up_one_matches_moving_them_one_by_one() {
    let mut x = 99u64;
    for width in [1u32, 3, 10, 13, 31, 64] {
        for len in [1u64, 2, 7, 64, 65, 200] {
            for _ in 0..20 {
                let mut a = PackedInts::new(len, width);
                let mask = if width == 64 { !0 } else { (1u64 << width) - 1 };
                for i in 0..len {
                    x = crate::hash::mix64(x);
                    a.set(i, x & mask);
                }
                let mut b = a.clone();
                x = crate::hash::mix64(x);
                let to = x % len;
                let from = (x >> 32) % (to + 1);
                a.shift_up_one(from, to);
                for i in (from..to).rev() {
                    let v = b.get(i);
                    b.set(i + 1, v);
                }
                assert_eq!(a, b, "width {width} len {len} {from}..{to}");
                let mut bits = BitArray::new(len);
                for i in 0..len {
                    bits.assign(i, b.get(i) & 1 == 1);
                }
                if from >= 1 {
                    let (mut c, mut d) = (a.clone(), a.clone());
                    c.shift_down_one(from, to);
                    for i in from..to {
                        let v = d.get(i);
                        d.set(i - 1, v);
                    }
                    assert_eq!(c, d, "down: width {width} len {len} {from}..{to}");
                    let mut down = bits.clone();
                    down.shift_down_one(from, to);
                    for i in 0..len {
                        let want = if i + 1 >= from && i + 1 < to {
                            bits.get(i + 1)
                        } else {
                            bits.get(i)
                        };
                        assert_eq!(down.get(i), want, "bits down len {len} {from}..{to} at {i}");
                    }
                }
                let mut moved = bits.clone();
                moved.shift_up_one(from, to);
                for i in 0..len {
                    let want = if i > from && i <= to {
                        bits.get(i - 1)
                    } else {
                        bits.get(i)
                    };
                    assert_eq!(moved.get(i), want, "bits len {len} {from}..{to} at {i}");
                }
            }
        }
    }
}

#[test]
fn select64_matches_a_bit_by_bit_reading() {
    let mut x = 0x1234_5678_9ABC_DEF1u64;
    for _ in 0..2000 {
        x = crate::hash::mix64(x);
        let ones: Vec<u32> = (0..64).filter(|&i| x >> i & 1 == 1).collect();
        for (k, &p) in ones.iter().enumerate() {
            assert_eq!(select64(x, k as u32), p);
        }
    }
}
