//! The Naor-Yogev filter's cache lines, counted on the filter
//! ([`NaorYogev::lines_read`]) and in theory
//! ([`crate::lines::two_bucket_lines`]).
//!
//! The slots are packed, four to a bucket, so bucket b is the
//! 4·slot_bits bits from b·4·slot_bits; a query reads the key's first
//! bucket slot by slot, then its second (unless they coincide), then the
//! stash, stopping at an active match. A negative query reads both buckets:
//! 2μ lines, μ the mean lines a bucket spans. A positive one stops in the
//! bucket its entry sits in, which depends on the cuckoo walks; no theory
//! here gives the share of entries in their second bucket, so the expected
//! lines of a positive query are not given.

use super::{NaorYogev, BUCKET_SLOTS};
use crate::lines::{two_bucket, LineSet, Lines};

impl NaorYogev {
    /// The answer to a query for `key` and the distinct 64-byte lines
    /// [`contains`](crate::Filter::contains) reads for it (the stash as an
    /// array of its own).
    pub fn lines_read(&self, key: u64) -> (bool, u32) {
        let (q, rem) = self.fingerprint(key);
        let q2 = self.other(q, rem);
        let width = self.slots.width() as u64;
        let mut lines = LineSet::default();
        for (b, alt) in [(q, 0), (q2, 1)] {
            if alt == 1 && q2 == q {
                break;
            }
            for j in 0..BUCKET_SLOTS {
                let s = b * BUCKET_SLOTS + j;
                lines.touch_field(0, s * width, width);
                let v = self.slots.get(s);
                if self.holds(v, rem, alt, q2 == q) && self.active(v & self.tag_mask) {
                    return (true, lines.count());
                }
            }
        }
        let entry = 8 * std::mem::size_of::<super::StashEntry>() as u64;
        for (i, e) in self.stash.iter().enumerate() {
            lines.touch_field(1, i as u64 * entry, entry);
            if e.bucket == q && e.rem == rem && self.active(e.code) {
                return (true, lines.count());
            }
        }
        (false, lines.count())
    }

    /// Expected lines of a negative query and of an insertion's buckets
    /// (module docs); the positive query's are NaN (not derived).
    pub fn lines(&self) -> Lines {
        two_bucket(self.slots.width(), self.size.fpr(), self.size.buckets)
    }
}
#[cfg(test)]
mod tests {
    use super::NaorYogev;
    use crate::hash::mix64;
    use crate::Filter;

    /// Counted lines of never-inserted keys against the theory, with an
    /// empty stash, at slot widths whose buckets straddle lines, within 4
    /// standard errors.
    #[test]
    fn counted_lines_match_the_theory() {
        for (n, eps) in [(100_000u64, 1e-3), (60_000, 1e-2), (200_000, 1e-4)] {
            let mut f = NaorYogev::new(crate::NaorYogevShape {
                window: n,
                slack: n,
                fpr: eps,
                generations: None,
                max_load: None,
            })
            .unwrap();
            for t in 0..3 * n {
                f.insert(mix64(t));
            }
            assert_eq!(f.stash_len(), 0, "the theory leaves the stash out");
            crate::lines::assert_lines(
                &format!("n {n} eps {eps} slot {} bits", f.slots.width()),
                |key| f.lines_read(key),
                |key| f.contains(key),
                (3 * n, None),
                f.lines(),
                0.0,
            );
        }
    }
}
