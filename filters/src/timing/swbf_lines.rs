//! SWBF's cache lines, counted on the filter ([`Swbf::lines_read`]) and in
//! theory ([`crate::lines::two_bucket_lines`]).
//!
//! The slots (fingerprint and timestamp, f + b bits) are packed four to a
//! bucket; a query reads the key's first bucket slot by slot, then its
//! second, then the stash, stopping at a live match. A negative query reads
//! both buckets: 2μ lines, μ the mean lines a bucket spans. A positive one
//! stops in the bucket its entry sits in, which depends on the cuckoo
//! walks: not derived here.

use super::{Swbf, SLOTS};
use crate::lines::{two_bucket, LineSet, Lines};

impl Swbf {
    /// The answer to a query for `key` and the distinct 64-byte lines
    /// [`contains`](crate::Filter::contains) reads for it (the stash as an
    /// array of its own).
    pub fn lines_read(&self, key: u64) -> (bool, u32) {
        let (q1, q2, fp) = self.locate(key);
        let width = self.slots.width() as u64;
        let mut lines = LineSet::default();
        for b in [q1, q2] {
            for s in b * SLOTS..(b + 1) * SLOTS {
                lines.touch_field(0, s * width, width);
                let (f, c) = self.split(self.slots.get(s));
                if f == fp && self.clock.live(c) {
                    return (true, lines.count());
                }
            }
        }
        let entry = 8 * std::mem::size_of::<super::StashEntry>() as u64;
        for (i, e) in self.stash.iter().enumerate() {
            lines.touch_field(1, i as u64 * entry, entry);
            if e.fp == fp && (e.bucket == q1 || e.bucket == q2) && self.clock.live(e.code) {
                return (true, lines.count());
            }
        }
        (false, lines.count())
    }

    /// Expected lines of a negative query and of an insertion's two
    /// buckets (its walk and the sweep aside); the positive query's are NaN
    /// (not derived).
    pub fn lines(&self) -> Lines {
        two_bucket(
            self.slots.width(),
            self.fpr_theory(self.clock.window() as f64),
            self.buckets,
        )
    }
}
#[cfg(test)]
mod tests {
    use super::Swbf;
    use crate::hash::mix64;
    use crate::Filter;

    /// Counted lines of never-inserted keys against the theory, with an
    /// empty stash, within 4 standard errors.
    #[test]
    fn counted_lines_match_the_theory() {
        for (w, eps) in [(100_000u64, 1e-3), (50_000, 1e-4)] {
            let mut f = Swbf::with_fpr(w, eps).unwrap();
            for t in 0..3 * w {
                f.insert(mix64(t));
            }
            assert_eq!(f.stash_len(), 0, "the theory leaves the stash out");
            crate::lines::assert_lines(
                &format!("W {w} eps {eps} slot {} bits", f.slots.width()),
                |key| f.lines_read(key),
                |key| f.contains(key),
                (3 * w, None),
                f.lines(),
                0.0,
            );
        }
    }
}
