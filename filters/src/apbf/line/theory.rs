//! The line APBF's exact theory: the blocked APBF's programme over the
//! correlated line loads, with 16-bit lanes for its words (see the parent
//! module's documentation and [`crate::apbf::blocked`]'s).

use super::LANE_BITS;
use crate::apbf::blocked::theory::Correlated;

/// The theory of a line APBF (k, l, g, L).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineTheory {
    /// Slices written per insertion.
    pub k: u32,
    /// Extra slices.
    pub l: u32,
    /// Generation size.
    pub g: u64,
    /// Lines.
    pub lines: u64,
}

impl LineTheory {
    fn correlated(&self) -> Correlated {
        Correlated {
            k: self.k,
            l: self.l,
            g: self.g,
            blocks: self.lines,
            word_bits: LANE_BITS,
        }
    }

    /// FPR at phase φ ∈ 1..=g, exact (k <= 20; `None` above).
    pub fn fpr_at(&self, phase: u64) -> Option<f64> {
        self.correlated().fpr_at(phase)
    }

    /// FPR at the worst phase φ = g.
    pub fn fpr(&self) -> Option<f64> {
        self.fpr_at(self.g)
    }

    /// The FPR with the line loads' variance dropped (each lane at its mean
    /// fill): the unblocked APBF's FPR with 16 L bits per slice. The gap to
    /// [`fpr_at`](Self::fpr_at) is the price of one line.
    pub fn fpr_independent(&self, phase: u64) -> f64 {
        self.correlated().fpr_independent(phase)
    }

    /// P(yes | j shifts) for j = 0..=k+l at phase φ (j = k + l: expired):
    /// 1 up to j = l, then the chance the key's surviving slices and the
    /// rest make a run of k.
    pub fn presence_by_shift(&self, phase: u64) -> Option<Vec<f64>> {
        self.correlated().presence_by_shift(phase)
    }

    /// The 64-byte lines an operation touches: one for an insertion and
    /// for every query (its key's line), and per insertion the sweep's L
    /// lines every [`SWEEP`](super::SWEEP) generations (a shift itself
    /// touches none). Counted on the filter by
    /// [`Instrumented::counted_lines`](crate::Instrumented::counted_lines).
    pub fn lines_touched(&self) -> crate::lines::Lines {
        crate::lines::Lines {
            insert: 1.0,
            shift: self.lines as f64 / (super::SWEEP as f64 * self.g as f64),
            query_negative: 1.0,
            query_positive: 1.0,
        }
    }

    /// Payload bits: 512 per line.
    pub fn payload_bits(&self) -> u64 {
        self.lines * 512
    }

    /// Payload bits per window element.
    pub fn bits_per_element(&self) -> f64 {
        self.payload_bits() as f64 / (self.l as u64 * self.g) as f64
    }
}
