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
//!
//! An insertion writes the k slices of one segment (jumping window, A2) or
//! two (double buffering, the Forgetful Bloom filter), and a switch clears
//! one segment whole (`lines_written`;
//! [`super::theory::segment_insert_lines`]).

use super::{A2Buffer, DoubleBuffer, ForgetfulBloom, JumpingWindow};
use crate::bloom::PartitionedBloomFilter;

impl JumpingWindow {
    /// The answer to a query for `key` and the distinct lines it reads.
    pub fn lines_read(&self, key: u64) -> (bool, u32) {
        self.ring.until_yes(|seg| seg.lines_read(key))
    }

    /// The distinct lines an insertion of `key` writes into the newest
    /// segment, and the lines the switch it may start clears (the
    /// oldest segment, whole; 0 when it starts none).
    pub fn lines_written(&self, key: u64) -> (u32, u64) {
        let (at, cleared) = self.ring.next_insert();
        (at(0).lines_written(key), cleared)
    }
}

impl A2Buffer {
    /// The answer to a query for `key` and the distinct lines it reads.
    pub fn lines_read(&self, key: u64) -> (bool, u32) {
        self.inner.lines_read(key)
    }

    /// As [`JumpingWindow::lines_written`].
    pub fn lines_written(&self, key: u64) -> (u32, u64) {
        self.inner.lines_written(key)
    }
}

impl DoubleBuffer {
    /// The answer to a query for `key` and the distinct lines it reads
    /// (the active filter's).
    pub fn lines_read(&self, key: u64) -> (bool, u32) {
        PartitionedBloomFilter::lines_read(&self.active, key)
    }

    /// The distinct lines an insertion of `key` writes (both filters), and
    /// the lines the switch it may start clears (the warm filter, whole).
    pub fn lines_written(&self, key: u64) -> (u32, u64) {
        let cleared = if self.count == self.g {
            self.warm.lines_cleared()
        } else {
            0
        };
        (
            self.active.lines_written(key) + self.warm.lines_written(key),
            cleared,
        )
    }
}

impl ForgetfulBloom {
    /// The distinct lines an insertion of `key` writes (the filters at
    /// positions 0 and 1), and the lines the switch it may start clears
    /// (one filter, whole).
    pub fn lines_written(&self, key: u64) -> (u32, u64) {
        let (at, cleared) = self.ring.next_insert();
        (at(0).lines_written(key) + at(1).lines_written(key), cleared)
    }

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

    /// Counted lines of insertions (each key's cells, and the segment a
    /// switch clears) against the theory, for every segmented design:
    /// within 4 standard errors plus the lines two slices share for the
    /// cells, exactly for the clearing.
    #[test]
    fn counted_insert_lines_match_the_theory() {
        let (k, g, m) = (5u32, 3_000u64, 4_400u64);
        let shared = crate::lines::shared_lines_bound(k, m);
        let n = 20 * g;
        let check = |name: &str, filters: u32, written: &mut dyn FnMut(u64) -> (u32, u64)| {
            let (mut sum, mut sq, mut cleared) = (0.0, 0.0, 0u64);
            for i in 0..n {
                let (w, c) = written(mix64(i ^ 0x1D));
                sum += w as f64;
                sq += (w as f64).powi(2);
                cleared += c;
            }
            let mean = sum / n as f64;
            let se = ((sq / n as f64 - mean * mean) / n as f64).sqrt();
            let (insert, shift) = theory::segment_insert_lines(filters, k, m, g);
            println!(
                "{name}: {mean:.4} ± {se:.4} lines written (theory {insert:.4}), {:.4} cleared an insertion (theory {shift:.4})",
                cleared as f64 / n as f64
            );
            assert!(
                (mean - insert).abs() <= 4.0 * se + filters as f64 * shared,
                "{name}"
            );
            // a switch every g insertions from the g-th on: n/g - 1 of them
            let switches = n / g - 1;
            assert_eq!(cleared, switches * (k as u64 * m).div_ceil(512), "{name}");
        };
        let mut f = JumpingWindow::new(crate::JumpingWindowShape {
            segments: 4,
            hashes: k,
            generation: g,
            bits_per_slice: m,
        })
        .unwrap();
        check("jumping", 1, &mut |key| {
            let w = f.lines_written(key);
            f.insert(key);
            w
        });
        let mut f = super::A2Buffer::new(crate::A2BufferShape {
            hashes: k,
            generation: g,
            bits_per_slice: m,
        })
        .unwrap();
        check("a2", 1, &mut |key| {
            let w = f.lines_written(key);
            f.insert(key);
            w
        });
        let mut f = DoubleBuffer::new(crate::DoubleBufferShape {
            hashes: k,
            generation: g,
            bits_per_slice: m,
        })
        .unwrap();
        check("double buffer", 2, &mut |key| {
            let w = f.lines_written(key);
            f.insert(key);
            w
        });
        let mut f = super::ForgetfulBloom::new(crate::ForgetfulBloomShape {
            past_filters: 3,
            hashes: k,
            generation: g,
            bits_per_slice: m,
        })
        .unwrap();
        check("forgetful", 2, &mut |key| {
            let w = f.lines_written(key);
            f.insert(key);
            w
        });
    }

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
            let mut f = JumpingWindow::new(crate::JumpingWindowShape {
                segments: n,
                hashes: k,
                generation: g,
                bits_per_slice: m,
            })
            .unwrap();
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
        let mut f = DoubleBuffer::new(crate::DoubleBufferShape {
            hashes: k,
            generation: g,
            bits_per_slice: m,
        })
        .unwrap();
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
