//! The 64-byte lines a query of the segmented designs reads, counted on the
//! filter: each segment is a partitioned Bloom filter of its own
//! allocation, read slice by slice until a zero
//! ([`PartitionedBloomFilter::lines_read`]); a query reads the segments
//! newest first until one answers yes. The theory is
//! [`super::theory::jumping_lines_negative`] and
//! [`super::theory::double_buffer_lines_negative`].
//!
//! The Forgetful Bloom filter reads its N + 2 filters in turn until two
//! consecutive ones answer yes ([`ForgetfulBloom::lines_read`]); a
//! never-inserted key reads every filter but at a false positive, so its
//! lines are the sum over the filters of [`crate::bloom::query_lines`] at
//! each filter's fill (filter i holds generations i - 1 and i), which
//! linearity gives whatever the filters' correlation through the
//! generations they share ([`super::theory::forgetful_lines_negative`]).
//! An early stop at a false positive, which that leaves out, saves at most
//! the FPR times the lines.

use super::{A2Buffer, DoubleBuffer, ForgetfulBloom, JumpingWindow};
use crate::bloom::PartitionedBloomFilter;

impl JumpingWindow {
    /// The answer to a query for `key` and the distinct lines it reads.
    pub fn lines_read(&self, key: u64) -> (bool, u32) {
        self.ring.until_yes(|seg| seg.lines_read(key))
    }
}

impl A2Buffer {
    /// The answer to a query for `key` and the distinct lines it reads.
    pub fn lines_read(&self, key: u64) -> (bool, u32) {
        self.inner.lines_read(key)
    }
}

impl DoubleBuffer {
    /// The answer to a query for `key` and the distinct lines it reads
    /// (the active filter's).
    pub fn lines_read(&self, key: u64) -> (bool, u32) {
        PartitionedBloomFilter::lines_read(&self.active, key)
    }
}

impl ForgetfulBloom {
    /// The answer to a query for `key` and the distinct lines it reads.
    pub fn lines_read(&self, key: u64) -> (bool, u32) {
        let n = self.ring.segs.len();
        let (mut prev, mut lines) = self.ring.at(0).lines_read(key);
        for i in 1..n {
            let (y, l) = self.ring.at(i).lines_read(key);
            lines += l;
            if y && prev {
                return (true, lines);
            }
            prev = y;
        }
        (false, lines)
    }
}

#[cfg(test)]
mod tests {
    use super::super::theory;
    use super::{DoubleBuffer, JumpingWindow};
    use crate::hash::mix64;
    use crate::lines::Lines;
    use crate::Filter;

    /// Counted lines of never-inserted keys and of every key in the window
    /// just before a switch, against the theory: jumping windows of 2
    /// (A2's shape) and 4 segments, and double buffering; slices of 440,000
    /// bits (lines straddle slices) about half full, so that a newer
    /// segment answers yes for an older segment's key about once in 30.
    #[test]
    fn counted_lines_match_the_theory_for_keys_in_and_out() {
        let (k, g, m) = (5u32, 300_000u64, 440_000u64);
        // what the theory counts and a sample may not meet: two probes
        // sharing a line across two slices
        let shared = crate::lines::shared_lines_bound(k, m);
        for n in [2u32, 4] {
            let mut f = JumpingWindow::new(n, k, g, m).unwrap();
            let t = (n as u64 + 2) * g;
            for i in 0..t {
                f.insert(mix64(i));
            }
            crate::lines::assert_lines(
                &format!("jumping n {n} k {k} g {g} m {m}"),
                |key| f.lines_read(key),
                |key| f.contains(key),
                (t, Some((n as u64 - 1) * g)),
                Lines {
                    insert: f64::NAN,
                    shift: f64::NAN,
                    query_negative: theory::jumping_lines_negative(n, k, g, m),
                    query_positive: theory::jumping_lines_positive(n, k, g, m),
                },
                shared,
            );
        }
        let mut f = DoubleBuffer::new(k, g, m).unwrap();
        let t = 6 * g;
        for i in 0..t {
            f.insert(mix64(i));
        }
        crate::lines::assert_lines(
            &format!("double buffer k {k} g {g} m {m}"),
            |key| f.lines_read(key),
            |key| f.contains(key),
            (t, Some(g)),
            Lines {
                insert: f64::NAN,
                shift: f64::NAN,
                query_negative: theory::double_buffer_lines_negative(k, g, m),
                query_positive: theory::double_buffer_lines_positive(k, m),
            },
            shared,
        );
    }
}
