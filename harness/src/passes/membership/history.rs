//! The recent insertions, to query keys by age.

use bloomlab_filters::hash::KeyMap;

/// The last `cap` insertions, to query keys by age.
pub(crate) struct History {
    ring: Vec<u64>,
    t: u64,
    /// Where the next insertion goes: t mod the ring's length, kept rather
    /// than divided for (a push and a query per key of every pass).
    head: usize,
    /// key -> time of its last insertion (1-based); only for repeating
    /// streams. Hashed by one `mix64` rather than SipHash (a lookup or two
    /// per key pushed and per age asked; nothing iterates the map, so its
    /// order never reaches a figure).
    last: Option<KeyMap<u64>>,
}

impl History {
    pub(crate) fn new(cap: u64, distinct: bool) -> Self {
        History {
            ring: vec![0; cap as usize],
            t: 0,
            head: 0,
            last: (!distinct).then(KeyMap::default),
        }
    }
    pub(crate) fn push(&mut self, key: u64) {
        let cap = self.ring.len() as u64;
        let idx = self.head;
        if let Some(last) = &mut self.last {
            if self.t >= cap {
                let old = self.ring[idx];
                if last.get(&old) == Some(&(self.t - cap + 1)) {
                    last.remove(&old);
                }
            }
            last.insert(key, self.t + 1);
        }
        self.ring[idx] = key;
        self.t += 1;
        self.head = if idx + 1 == self.ring.len() {
            0
        } else {
            idx + 1
        };
    }
    /// The key whose most recent insertion was `age` insertions ago (1 = last).
    pub(crate) fn at_age(&self, age: u64) -> Option<u64> {
        let cap = self.ring.len() as u64;
        if age == 0 || age > self.t.min(cap) {
            return None;
        }
        let time = self.t - age + 1;
        // age <= cap: the slot age places back from the head, wrapping once
        let back = age as usize;
        let idx = if back <= self.head {
            self.head - back
        } else {
            self.head + self.ring.len() - back
        };
        let key = self.ring[idx];
        match &self.last {
            Some(last) if last.get(&key) != Some(&time) => None,
            _ => Some(key),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_skips_reinserted_keys() {
        let mut h = History::new(4, false);
        for k in [1, 2, 1, 3] {
            h.push(k);
        }
        assert_eq!(h.at_age(1), Some(3));
        assert_eq!(h.at_age(2), Some(1));
        assert_eq!(h.at_age(3), Some(2));
        assert_eq!(h.at_age(4), None); // 1 was inserted again since
        assert_eq!(h.at_age(5), None);
        h.push(9); // evicts the first 1, which is stale anyway
        assert_eq!(h.at_age(3), Some(1));
    }

    #[test]
    fn ages_match_a_brute_force_over_many_wraps() {
        // keys from a small universe, so they repeat; ring of 7
        for distinct in [true, false] {
            let mut h = History::new(7, distinct);
            let mut all = Vec::new();
            for t in 0..200u64 {
                let key = bloomlab_filters::hash::mix64(t) % 9;
                h.push(key);
                all.push(key);
                for age in 0..10u64 {
                    let want = if age == 0 || age > all.len().min(7) as u64 {
                        None
                    } else {
                        let i = all.len() - age as usize;
                        let later = all[i + 1..].contains(&all[i]);
                        (distinct || !later).then_some(all[i])
                    };
                    assert_eq!(h.at_age(age), want, "distinct {distinct} t {t} age {age}");
                }
            }
        }
    }
}
