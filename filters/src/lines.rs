//! What an operation reads of memory, in 64-byte cache lines: the unit in
//! which `plan` and `theory` compare the designs' speed without measuring.
//!
//! Each design counts the lines an operation touches on the filter itself
//! (a `lines_read` beside its `contains`), and its theory gives their
//! expectation; a test in the design's folder holds the two together. Lines
//! are counted from the start of each bit array as if it began a line (a
//! large allocation is page-aligned).

/// Bits of a 64-byte line.
pub const LINE_BITS: u64 = 512;

/// Expected distinct 64-byte lines an operation reads or writes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lines {
    /// An insertion's own reads and writes.
    pub insert: f64,
    /// Periodic maintenance (a shift, a sweep) per insertion, apart.
    pub shift: f64,
    /// A query of a never-inserted key.
    pub query_negative: f64,
    /// A query of a key inserted within the window.
    pub query_positive: f64,
}

/// The distinct lines of a short sequence of bit positions, counted as they
/// come (a linear scan: the sequences are a query's few probes).
#[derive(Debug, Default)]
pub(crate) struct LineSet {
    seen: Vec<u64>,
}

impl LineSet {
    /// Counts bit `pos` of an array whose line 0 is `array` (distinct arrays
    /// take distinct `array` numbers, so their lines never coincide).
    pub(crate) fn touch(&mut self, array: u64, pos: u64) {
        let line = (array << 48) | (pos / LINE_BITS);
        if !self.seen.contains(&line) {
            self.seen.push(line);
        }
    }

    /// Lines counted so far.
    pub(crate) fn count(&self) -> u32 {
        self.seen.len() as u32
    }
}
