//! The 64-byte lines a query of the segmented designs reads, counted on the
//! filter: each segment is a partitioned Bloom filter of its own
//! allocation, read slice by slice until a zero
//! ([`PartitionedBloomFilter::lines_read`]); a query reads the segments
//! newest first until one answers yes. The theory is
//! [`super::theory::jumping_lines_negative`] and
//! [`super::theory::double_buffer_lines_negative`].

use super::{A2Buffer, DoubleBuffer, JumpingWindow};
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
