//! An ordered map from `u64` keys to values with expected O(1) lookup,
//! update, removal and successor for keys spread over the 64-bit range
//! (the broom filter's keys are hashes).
//!
//! Linear probing whose home slot is the key's top bits, a monotone hash:
//! the occupied slots hold the keys in increasing order, each key at or
//! after its home with no empty slot between the two. A successor is then
//! the first occupied slot past the home of `z + 1` holding a key above
//! `z`, and the frontier's walk through key order reads the slots in order.
//! There is no wraparound: keys that spill past the last home slot go to a
//! tail that grows as needed. The map doubles its home slots when it is
//! 3/4 full. Keys bunched in a few home slots (not hashes) still give the
//! right answers, at a cost that grows with the bunch.

/// The ordered map. Values are `Copy` and small.
#[derive(Debug, Clone)]
pub(crate) struct OrderedMap<V: Copy> {
    keys: Vec<u64>,
    vals: Vec<Option<V>>,
    /// log2 of the number of home slots.
    bits: u32,
    len: usize,
}

impl<V: Copy> Default for OrderedMap<V> {
    fn default() -> Self {
        Self::with_bits(4)
    }
}

impl<V: Copy> OrderedMap<V> {
    fn with_bits(bits: u32) -> Self {
        let slots = 1usize << bits;
        OrderedMap {
            keys: vec![0; slots],
            vals: vec![None; slots],
            bits,
            len: 0,
        }
    }

    /// The number of keys.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    fn home(&self, key: u64) -> usize {
        (key >> (64 - self.bits)) as usize
    }

    /// The slot of `key`, or `Err` with the slot where it would go: the
    /// first slot from its home that is empty or holds a larger key.
    fn locate(&self, key: u64) -> Result<usize, usize> {
        let mut i = self.home(key);
        while i < self.vals.len() && self.vals[i].is_some() {
            match self.keys[i].cmp(&key) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Equal => return Ok(i),
                std::cmp::Ordering::Greater => return Err(i),
            }
        }
        Err(i)
    }

    /// The value of `key`.
    pub(crate) fn get(&self, key: u64) -> Option<V> {
        self.locate(key).ok().and_then(|i| self.vals[i])
    }

    /// Sets `key`'s value; returns the value it replaces.
    pub(crate) fn insert(&mut self, key: u64, val: V) -> Option<V> {
        match self.locate(key) {
            Ok(i) => self.vals[i].replace(val),
            Err(i) => {
                if 4 * (self.len + 1) > 3 << self.bits {
                    self.grow();
                    return self.insert(key, val);
                }
                self.place(i, key, val);
                self.len += 1;
                None
            }
        }
    }

    /// Puts `key` at slot `i`, shifting the occupied slots from `i` to the
    /// next empty one right by one.
    fn place(&mut self, i: usize, key: u64, val: V) {
        let mut end = i;
        while end < self.vals.len() && self.vals[end].is_some() {
            end += 1;
        }
        if end == self.vals.len() {
            self.keys.push(0);
            self.vals.push(None);
        }
        self.keys.copy_within(i..end, i + 1);
        self.vals.copy_within(i..end, i + 1);
        self.keys[i] = key;
        self.vals[i] = Some(val);
    }

    /// Removes `key`; returns its value.
    pub(crate) fn remove(&mut self, key: u64) -> Option<V> {
        let i = self.locate(key).ok()?;
        let old = self.vals[i].take();
        self.len -= 1;
        // shift the rest of the cluster back while its keys are past home
        let mut j = i + 1;
        while j < self.vals.len() && self.vals[j].is_some() && self.home(self.keys[j]) < j {
            j += 1;
        }
        self.keys.copy_within(i + 1..j, i);
        self.vals.copy_within(i + 1..j, i);
        self.vals[j - 1] = None;
        old
    }

    /// The smallest key above `z` (the smallest key if `z` is `None`), with
    /// its value.
    pub(crate) fn next_after(&self, z: Option<u64>) -> Option<(u64, V)> {
        let (mut i, z) = match z {
            None => (0, None),
            Some(u64::MAX) => return None,
            Some(z) => (self.home(z + 1), Some(z)),
        };
        while i < self.vals.len() {
            if let Some(v) = self.vals[i] {
                if z.is_none_or(|z| self.keys[i] > z) {
                    return Some((self.keys[i], v));
                }
            }
            i += 1;
        }
        None
    }

    /// Every key and value, in key order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u64, V)> + '_ {
        self.keys
            .iter()
            .zip(&self.vals)
            .filter_map(|(&k, v)| v.map(|v| (k, v)))
    }

    /// Doubles the home slots, keeping the key order.
    fn grow(&mut self) {
        let mut next = Self::with_bits(self.bits + 1);
        let mut at = 0;
        for (k, v) in self.iter() {
            let i = next.home(k).max(at);
            if i >= next.vals.len() {
                next.keys.push(0);
                next.vals.push(None);
            }
            next.keys[i] = k;
            next.vals[i] = Some(v);
            at = i + 1;
        }
        next.len = self.len;
        *self = next;
    }
}

crate::persist::codec_struct!(OrderedMap<V: Copy> { keys, vals, bits, len });

impl<V: Copy> OrderedMap<V> {
    /// The invariants of a loaded map: its arrays of 2^bits slots, `len`
    /// keys, and free slots left (so that a probe ends).
    pub(crate) fn check(&self) -> Result<(), String> {
        let slots = 1usize.checked_shl(self.bits).filter(|_| self.bits < 40);
        let used = self.vals.iter().filter(|v| v.is_some()).count();
        crate::persist::ensure(
            slots == Some(self.keys.len())
                && slots == Some(self.vals.len())
                && used == self.len
                && self.len < self.keys.len(),
            || {
                format!(
                    "an ordered map of {} slots holding {}",
                    self.keys.len(),
                    self.len
                )
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::OrderedMap;
    use crate::hash::mix64;
    use std::collections::BTreeMap;

    /// Random operations against a `BTreeMap`, on hashed keys and on keys
    /// bunched into a few home slots.
    fn differential(key_of: impl Fn(u64) -> u64) {
        let mut ours = OrderedMap::<u32>::default();
        let mut want = BTreeMap::new();
        for step in 0..40_000u64 {
            let r = mix64(step ^ 0x5eed);
            let key = key_of(r % 3000);
            match r >> 62 {
                0 | 1 => assert_eq!(ours.insert(key, step as u32), want.insert(key, step as u32)),
                2 => assert_eq!(ours.remove(key), want.remove(&key)),
                _ => assert_eq!(ours.get(key), want.get(&key).copied()),
            }
            let z = (step % 7 != 0).then_some(key_of(mix64(step) % 3000));
            let succ = match z {
                None => want.iter().next(),
                Some(z) => want
                    .range(z.saturating_add(1)..)
                    .next()
                    .filter(|_| z < u64::MAX),
            };
            assert_eq!(
                ours.next_after(z),
                succ.map(|(&k, &v)| (k, v)),
                "step {step}"
            );
            assert_eq!(ours.len(), want.len());
        }
        let all: Vec<_> = want.iter().map(|(&k, &v)| (k, v)).collect();
        assert_eq!(ours.iter().collect::<Vec<_>>(), all);
    }

    #[test]
    fn agrees_with_a_btreemap_on_hashed_keys() {
        differential(mix64);
    }

    #[test]
    fn agrees_with_a_btreemap_on_bunched_keys() {
        // small integers and the top of the range: every key in two homes
        differential(|x| if x % 2 == 0 { x } else { u64::MAX - x });
    }

    #[test]
    fn successor_of_the_largest_key_is_none() {
        let mut m = OrderedMap::<u8>::default();
        m.insert(u64::MAX, 1);
        m.insert(0, 2);
        assert_eq!(m.next_after(None), Some((0, 2)));
        assert_eq!(m.next_after(Some(0)), Some((u64::MAX, 1)));
        assert_eq!(m.next_after(Some(u64::MAX)), None);
        assert_eq!(m.remove(u64::MAX), Some(1));
        assert_eq!(m.next_after(Some(0)), None);
    }

    /// The layout the speed rests on: each key at or after the slot of its
    /// top bits, a short way on; the homes double when a key would fill
    /// more than 3/4 of them.
    #[test]
    fn keys_sit_near_their_top_bits_and_the_table_grows_at_three_quarters() {
        let mut m = OrderedMap::<u8>::default();
        for k in 0..12u64 {
            m.insert(mix64(k), 0);
        }
        assert_eq!(m.bits, 4, "12 keys fill 3/4 of 16 homes");
        m.insert(mix64(12), 0);
        assert_eq!(m.bits, 5);
        for k in 13..20_000u64 {
            m.insert(mix64(k), 0);
        }
        let (mut total, mut n) = (0usize, 0usize);
        for (i, v) in m.vals.iter().enumerate() {
            if v.is_some() {
                let top = (m.keys[i] >> (64 - m.bits)) as usize;
                assert!(i >= top, "slot {i} before its home {top}");
                total += i - top;
                n += 1;
            }
        }
        assert_eq!(n, 20_000);
        assert!(
            (total as f64 / n as f64) < 3.0,
            "mean displacement {}",
            total as f64 / n as f64
        );
    }
}
