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
