//! The time-limited Bloom filter's bookkeeping, apart from its bits: the
//! slices' sizes, counts, timestamps and hash indices, when a generation
//! ends, what a slide retires and how large the new slice is. The filter
//! ([`super::Tlbf`]) runs it on its insertions; the theory
//! ([`super::theory`]) runs the same code on fluid arrivals.

use std::collections::VecDeque;

/// One slice's bookkeeping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meta {
    /// Bits.
    pub size: u64,
    /// Insertions into it.
    pub count: u64,
    /// Time of its last insertion (`None` before the first).
    pub stamp: Option<u64>,
    /// Which of the k hash functions it uses.
    pub hash: u32,
}

crate::persist::codec_struct!(Meta {
    size,
    count,
    stamp,
    hash
});

impl Meta {
    /// ⌊ln 2 · size⌋: the insertions that fill a slice to one half (in
    /// expectation), the most it takes.
    pub fn capacity(&self) -> u64 {
        (std::f64::consts::LN_2 * self.size as f64) as u64
    }
}

/// What a slide did to the slices, for the filter to do the same to its
/// bits: `retired` slices removed from the old end, then one more if
/// `dropped_last`, then a new slice of `size` bits in front.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slide {
    /// Expired slices removed from the old end (beyond the k + l kept).
    pub retired: usize,
    /// Whether the oldest slice was removed to make room (else the filter
    /// grew by one slice).
    pub dropped_last: bool,
    /// Bits of the new slice.
    pub size: u64,
}

/// The bookkeeping of a time-limited Bloom filter.
#[derive(Debug, Clone, PartialEq)]
pub struct Control {
    /// k: slices written per insertion (and hash functions).
    pub k: u32,
    /// l: the slices beyond k that the filter keeps at least.
    pub l: u32,
    /// T: the window, in time units.
    pub t: u64,
    /// Largest target generation, as a multiple of the first: a guard
    /// against a rate estimated from a generation that took no time.
    pub max_growth: u64,
    /// The first slices' bits, m₀.
    pub m0: u64,
    /// The first generation's size, g₀ = ⌊ln 2 · m₀ / k⌋.
    pub first: u64,
    /// The slices, newest first.
    pub slices: VecDeque<Meta>,
    /// Insertions left in the current generation.
    pub counter: u64,
    /// The current generation's size.
    pub gen_size: u64,
}

crate::persist::codec_struct!(Control {
    k,
    l,
    t,
    max_growth,
    m0,
    first,
    slices,
    counter,
    gen_size
});

impl Control {
    /// k + l slices of `m0` bits, slice i on hash i mod k; the slice at k
    /// stamped at time 0 (the end of a generation before the first).
    pub fn new(k: u32, l: u32, t: u64, m0: u64, max_growth: u64) -> Control {
        let mut slices: VecDeque<Meta> = (0..k + l)
            .map(|i| Meta {
                size: m0,
                count: 0,
                stamp: None,
                hash: i % k,
            })
            .collect();
        slices[k as usize].stamp = Some(0);
        let first = (std::f64::consts::LN_2 * m0 as f64 / k as f64) as u64;
        let mut c = Control {
            k,
            l,
            t,
            max_growth,
            m0,
            first: first.max(1),
            slices,
            counter: 0,
            gen_size: 0,
        };
        c.next_generation_size();
        c
    }

    /// Whether no key has been inserted yet.
    pub fn untouched(&self) -> bool {
        // the cheap tests first: `advance` asks on every call
        self.counter == self.gen_size
            && self.slices.len() == (self.k + self.l) as usize
            && self.slices.iter().all(|s| s.count == 0)
    }

    /// Moves the virtual end of the generation before the first to `now`:
    /// the first generation's duration is measured from there.
    pub fn start_at(&mut self, now: u64) {
        let k = self.k as usize;
        self.slices[k].stamp = Some(now);
    }

    /// Empties slice `i`'s bookkeeping (its keys all older than T).
    pub fn forget(&mut self, i: usize) {
        self.slices[i].count = 0;
        self.slices[i].stamp = None;
    }

    /// The largest slice the bookkeeping makes: 2·m₀·max_growth bits.
    pub fn largest(&self) -> u64 {
        self.m0.saturating_mul(2 * self.max_growth)
    }

    /// Whether slice `i` has expired at `now`: its last insertion is more
    /// than T old (a query counts it as empty).
    pub fn expired(&self, i: usize, now: u64) -> bool {
        matches!(self.slices[i].stamp, Some(s) if s.saturating_add(self.t) < now)
    }

    /// Before an insertion at `now`: the slide that ends a full generation,
    /// if it is due.
    pub fn before_insert(&mut self, now: u64) -> Option<Slide> {
        (self.counter == 0).then(|| self.slide(now))
    }

    /// After `n` insertions (the last at `now`) into the k newest slices.
    /// `n` is at most the insertions left in the generation.
    pub fn after_insert(&mut self, n: u64, now: u64) {
        for s in self.slices.iter_mut().take(self.k as usize) {
            s.count += n;
            s.stamp = Some(now);
        }
        self.counter -= n;
    }

    /// Ends a generation at `now`: sets the next generation's target from
    /// the last one's rate, retires the expired slices beyond k + l, drops
    /// the oldest slice unless it still holds keys younger than T (then the
    /// filter grows), and puts a new slice in front sized for the target.
    fn slide(&mut self, now: u64) -> Slide {
        let target = self.target_generation_size();
        let floor = (self.k + self.l) as usize;
        let expired = |s: &Meta| matches!(s.stamp, Some(x) if x.saturating_add(self.t) < now);
        let mut retired = 0;
        while self.slices.len() > floor && expired(self.slices.back().unwrap()) {
            self.slices.pop_back();
            retired += 1;
        }
        let last = *self.slices.back().unwrap();
        let keep = last.count > 0 && last.stamp.is_some_and(|x| x.saturating_add(self.t) >= now);
        if !keep {
            self.slices.pop_back();
        }
        let size = self.predict_size(target);
        let hash = (self.slices[0].hash + self.k - 1) % self.k;
        self.slices.push_front(Meta {
            size,
            count: 0,
            stamp: None,
            hash,
        });
        self.next_generation_size();
        Slide {
            retired,
            dropped_last: !keep,
            size,
        }
    }

    /// The insertions of the next generation: the most that fills none of
    /// the k newest slices past its capacity by the time it leaves them
    /// (slice i takes k - i more generations).
    fn next_generation_size(&mut self) {
        let k = self.k as u64;
        let g = (0..k)
            .map(|i| {
                let s = &self.slices[i as usize];
                s.capacity().saturating_sub(s.count).div_ceil(k - i)
            })
            .min()
            .unwrap_or(0);
        // a generation of 0 would slide on every insertion: one key at least
        self.gen_size = g.max(1);
        self.counter = self.gen_size;
    }

    /// The insertions a generation should hold so that it lasts T/l at the
    /// rate of the last one: ⌈g·(T/l)/tbs⌉ + 1, tbs the last generation's
    /// duration (at least one time unit), at most `max_growth` times the
    /// first generation.
    fn target_generation_size(&self) -> u64 {
        let k = self.k as usize;
        let (a, b) = (self.slices[k - 1].stamp, self.slices[k].stamp);
        let tbs = match (a, b) {
            (Some(a), Some(b)) => a.saturating_sub(b).max(1),
            _ => self.t.div_ceil(self.l as u64).max(1),
        };
        let per = self.t as f64 / self.l as f64;
        let g = (self.gen_size as f64 * per / tbs as f64).ceil() + 1.0;
        let cap = self.first.saturating_mul(self.max_growth) as f64;
        g.min(cap) as u64
    }

    /// Bits of the new slice (the slices already shifted: slice j here was
    /// slice j - 1): the capacity for the k generations it will take, of
    /// the target size except where an older slice will bind them first,
    /// at least 2k bits.
    fn predict_size(&self, target: u64) -> u64 {
        let k = self.k as usize;
        // slices 1..k-1 of the shifted array are today's 0..k-2
        let at = |j: usize| &self.slices[j - 1];
        let mut i = k;
        let mut count: u64 = 0;
        while i > 1 {
            let (mut min_gen, mut j_min) = (u64::MAX, i);
            for j in (1..i).rev() {
                let s = at(j);
                // a slice already past this much acts as no bound (the
                // reference's unsigned arithmetic wraps it to a huge one)
                let gen = match s.capacity().checked_sub(s.count + count) {
                    Some(left) => left.div_ceil((i - j) as u64),
                    None => u64::MAX,
                };
                if gen <= min_gen {
                    min_gen = gen;
                    j_min = j;
                }
            }
            if target <= min_gen {
                break;
            }
            count = count.saturating_add(min_gen.saturating_mul((i - j_min) as u64));
            i = j_min;
        }
        let capacity = count.saturating_add((i as u64).saturating_mul(target));
        let size = (capacity as f64 / std::f64::consts::LN_2).ceil() as u64;
        // never binds when the target is capped: k·g₀·max_growth/ln 2 is
        // about m₀·max_growth (a guard for a crafted state)
        size.min(self.largest()).max(2 * self.k as u64)
    }
}
