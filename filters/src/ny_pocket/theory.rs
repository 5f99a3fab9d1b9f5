//! Sizing and theory of the pocket-dictionary sliding filter.
//!
//! # Generations, window and slack
//!
//! Exactly the Naor-Yogev construction's ([`crate::naor_yogev::theory`]):
//! generations of g = ⌈(n - 1)/c⌉ insertions, an entry active while the
//! generation counter ℓ is at most c generations ahead of its tag, window n,
//! slack s = (c + 1)g - n, and at most N = (c + 1)g active keys.
//!
//! # Tags: c + 2 values
//!
//! The Naor-Yogev filter cycles its tags over 2c + 2 values because its scan
//! frees one slot at a time. Here the sweep purges whole blocks: every
//! insertion advances it by b/g blocks (b blocks in all, exactly b blocks in
//! any g consecutive insertions), so during the generation in which a tag τ
//! stops being active (ℓ = τ + c + 1) every block is purged once, and no entry
//! tagged τ is left when ℓ reaches τ + c + 2. Tags therefore cycle over
//! T = c + 2 values and cost t = ⌈log2(c + 2)⌉ bits, with no code for "empty"
//! (a block's header says how many entries it holds).
//!
//! # The dictionary
//!
//! b blocks of 128 + C·(r + t) bits: a 128-bit header and C entry slots. The
//! header codes the occupancy of the block's B = 128 - C buckets in unary
//! (per bucket, one 1 per entry and a terminating 0), the entries follow in
//! bucket order, each its r-bit remainder and t-bit tag. A key hashes to two
//! distinct blocks, a bucket q ∈ \[B\] and a remainder; it is stored in the
//! emptier block (power of two choices), in a stash when both are full of
//! active entries. A query compares the remainders in bucket q of both
//! blocks: about 2N/(bB) ≈ 2αC/B candidates, against the eight slots a
//! 4-way cuckoo table compares, and the header costs 128/C bits per slot
//! (the quotient filter's metadata idea; the prefix filter's and vector
//! quotient filter's "pocket dictionary").
//!
//! # False positives
//!
//! An active entry y sits in one block, bucket and remainder; a never-inserted
//! x matches it iff y's block is one of x's two (probability 2/b: x's pair is
//! uniform over distinct pairs and independent of where y went), y's bucket is
//! x's (1/B) and the remainders agree (2^-r). With p = 2/(b·B·2^r) and
//! N_φ = cg + φ active keys at phase φ,
//!
//!   FPR(φ) = 1 - (1 - p)^(cg + φ)
//!
//! to first order in the FPR: the events of different entries are not quite
//! independent (they share x's pair of blocks), which changes the FPR by a
//! relative O(ε). Stash entries store the whole fingerprint and add nothing
//! measurable. The worst phase is φ = g.
//!
//! # Memory
//!
//! The block array, rounded up to whole 64-bit words plus one padding word,
//! six 64-bit words of state, and the stash as allocated (128 bits an entry).
//! [`Sizing::new`] searches c (upwards from the smallest whose slack fits in
//! m), C ∈ 8..=120 and r, with b = max(⌈N/(αC)⌉, the fewest blocks meeting ε
//! at the worst phase, 2), for the least memory.

use crate::error::{ParamError, MAX_BITS};
use crate::naor_yogev::theory::{
    fpr_avg_over_phases, fpr_of_match, generation, max_match, presence_rule, pws_rule,
    size_generations,
};

/// Bits of a block header.
pub const HEADER_BITS: u32 = 128;

/// Default maximum load of the blocks (two choices, blocks of 40-60 slots:
/// a stash of tens of entries at n = 2^20; `experiments/ny_pocket_tail.toml`
/// measures the work per insertion up to 2^24).
pub const DEFAULT_MAX_LOAD: f64 = 0.92;

/// Words of state counted in the memory: generation, position in it,
/// insertions, sweep position and its accumulator, the active-tag mask's
/// generation.
pub const STATE_WORDS: u64 = 6;

/// Bits a stash entry is counted at (block pair, bucket, remainder, tag).
pub const STASH_ENTRY_BITS: u64 = 128;

/// Largest c searched beyond the smallest feasible one.
const C_SEARCH: u64 = 256;

/// Slot counts C searched.
const SLOTS_SEARCH: std::ops::RangeInclusive<u32> = 8..=120;

/// Every size of one configuration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sizing {
    /// Window n.
    pub n: u64,
    /// Largest slack asked for (m).
    pub m: u64,
    /// Target FPR ε.
    pub eps: f64,
    /// Generations per window.
    pub c: u64,
    /// Generation size g = ⌈(n - 1)/c⌉.
    pub g: u64,
    /// Tag values T = c + 2.
    pub tags: u64,
    /// Bits of a tag, ⌈log2(c + 2)⌉.
    pub tag_bits: u32,
    /// Largest number of active keys N = (c + 1)g.
    pub capacity: u64,
    /// Blocks b.
    pub blocks: u64,
    /// Entry slots per block C.
    pub slots_per_block: u32,
    /// Remainder bits r.
    pub remainder_bits: u32,
    /// Largest load α the blocks were sized for.
    pub max_load: f64,
}

/// Bits of a value in 0..x (x >= 1): ⌈log2 x⌉.
fn bits_below(x: u64) -> u32 {
    64 - (x - 1).leading_zeros()
}

impl Sizing {
    /// Sizes a filter for window `n`, slack at most `m`, FPR at most `eps`
    /// at the worst phase; `c` given or chosen for least memory; `max_load`
    /// in [0.5, 1).
    pub fn new(
        n: u64,
        m: u64,
        eps: f64,
        c: Option<u64>,
        max_load: f64,
    ) -> Result<Sizing, ParamError> {
        size_generations(
            n,
            m,
            eps,
            c,
            max_load,
            C_SEARCH,
            Self::with_c,
            Sizing::memory_bits,
        )
    }

    fn with_c(n: u64, m: u64, eps: f64, c: u64, max_load: f64) -> Result<Sizing, ParamError> {
        let g = generation(n, c);
        let too_large = |what| ParamError::TooLarge {
            what,
            limit: format!("{MAX_BITS} bits"),
        };
        let capacity = (c + 1)
            .checked_mul(g)
            .filter(|&x| x <= MAX_BITS)
            .ok_or(too_large("capacity"))?;
        let tags = c + 2;
        let tag_bits = bits_below(tags);
        let p_max = max_match(capacity, eps);
        let mut best: Option<Sizing> = None;
        for slots in SLOTS_SEARCH {
            let buckets = (HEADER_BITS - slots) as f64;
            let by_load = (capacity as f64 / (max_load * slots as f64)).ceil();
            for r in 1..=(56 - tag_bits) {
                let by_fpr = (2.0 / (buckets * 2f64.powi(r as i32) * p_max)).ceil();
                let b = by_load.max(by_fpr).max(2.0);
                let bits = b * (HEADER_BITS + slots * (r + tag_bits)) as f64;
                if bits > MAX_BITS as f64 {
                    continue;
                }
                let s = Sizing {
                    n,
                    m,
                    eps,
                    c,
                    g,
                    tags,
                    tag_bits,
                    capacity,
                    blocks: b as u64,
                    slots_per_block: slots,
                    remainder_bits: r,
                    max_load,
                };
                if best.is_none_or(|x| s.memory_bits() < x.memory_bits()) {
                    best = Some(s);
                }
            }
        }
        best.ok_or(too_large("table"))
    }

    /// Buckets per block B = 128 - C.
    pub fn buckets_per_block(&self) -> u32 {
        HEADER_BITS - self.slots_per_block
    }

    /// Bits of an entry: remainder and tag.
    pub fn entry_bits(&self) -> u32 {
        self.remainder_bits + self.tag_bits
    }

    /// Bits of a block: header and C entries.
    pub fn block_bits(&self) -> u64 {
        HEADER_BITS as u64 + self.slots_per_block as u64 * self.entry_bits() as u64
    }

    /// 64-bit words of the block array (rounded up, plus one padding word
    /// that keeps every two-word read in bounds).
    pub fn words(&self) -> u64 {
        (self.blocks * self.block_bits()).div_ceil(64) + 1
    }

    /// Memory with an empty stash: the block array and the state words.
    pub fn memory_bits(&self) -> u64 {
        (self.words() + STATE_WORDS) * 64
    }

    /// Entry slots b·C.
    pub fn slots(&self) -> u64 {
        self.blocks * self.slots_per_block as u64
    }

    /// Load of the slots when N keys are active.
    pub fn load(&self) -> f64 {
        self.capacity as f64 / self.slots() as f64
    }

    /// Slack (c + 1)g - n.
    pub fn slack(&self) -> u64 {
        self.capacity - self.n
    }

    /// Probability p = 2/(b·B·2^r) that an active entry matches a
    /// never-inserted key.
    pub fn match_probability(&self) -> f64 {
        2.0 / (self.blocks as f64
            * self.buckets_per_block() as f64
            * 2f64.powi(self.remainder_bits as i32))
    }

    /// Effective fingerprint bits log2(1/p).
    pub fn fingerprint_bits(&self) -> f64 {
        -self.match_probability().log2()
    }

    /// FPR at phase φ ∈ 1..=g: 1 - (1 - p)^(cg + φ).
    pub fn fpr_at(&self, phase: u64) -> f64 {
        fpr_of_match(self.match_probability(), self.c * self.g + phase)
    }

    /// FPR at the worst phase (φ = g).
    pub fn fpr(&self) -> f64 {
        self.fpr_at(self.g)
    }

    /// FPR averaged over phases 1..=g (closed form of the geometric sum).
    pub fn fpr_avg(&self) -> f64 {
        fpr_avg_over_phases(1.0 / self.match_probability(), self.c, self.g)
    }

    /// P(yes | age) at phase φ: 1 while the key's generation is active (age
    /// <= φ + cg), else the FPR.
    pub fn presence(&self, age: u64, phase: u64) -> f64 {
        presence_rule(age, phase, self.c, self.g, || self.fpr_at(phase))
    }

    /// PWS at phase φ: expected yes answers over ages n + 1 ..= n + s.
    pub fn pws_at(&self, phase: u64) -> f64 {
        pws_rule(
            self.n,
            self.slack(),
            self.c,
            self.g,
            phase,
            self.fpr_at(phase),
        )
    }

    /// Candidates a negative query compares at the worst phase, stale
    /// entries aside: 2N/(b·B), the mean bucket size in two blocks.
    pub fn candidates_negative(&self) -> f64 {
        2.0 * self.capacity as f64 / (self.blocks as f64 * self.buckets_per_block() as f64)
    }

    /// Where the bits go, per window key (n), at the worst phase: remainder,
    /// header (metadata), tag, the load's empty slots and the slack's extra
    /// keys, as (theory column name, bits per key); they sum to the memory per key less the
    /// state words and rounding.
    pub fn breakdown(&self) -> Vec<(&'static str, f64)> {
        let n = self.n as f64;
        let slots = self.slots() as f64;
        let used = self.capacity as f64;
        let (r, t) = (self.remainder_bits as f64, self.tag_bits as f64);
        let header = self.blocks as f64 * HEADER_BITS as f64;
        vec![
            ("bits_remainder", r),
            ("bits_metadata", header / n),
            ("bits_tag", t),
            ("bits_empty_slots", (slots - used) * (r + t) / n),
            ("bits_slack_keys", (used - n) * (r + t) / n),
        ]
    }
}

crate::persist::codec_struct!(Sizing {
    n,
    m,
    eps,
    c,
    g,
    tags,
    tag_bits,
    capacity,
    blocks,
    slots_per_block,
    remainder_bits,
    max_load
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::naor_yogev::theory::space_bound_bits;

    /// The figures docs/space_bound.md quotes at n = 2^20, m = n, ε = 1e-3:
    /// 19.62 bits per window key less the state words; the breakdown sums
    /// to the blocks' bits (the words add the last word's rounding and one
    /// padding word); PWS between 0 and the slack at every phase.
    #[test]
    fn the_documented_configuration() {
        let n = 1u64 << 20;
        let s = Sizing::new(n, n, 1e-3, None, DEFAULT_MAX_LOAD).unwrap();
        assert_eq!(s.memory_bits(), (s.words() + STATE_WORDS) * 64);
        let per_key = (s.memory_bits() - STATE_WORDS * 64) as f64 / n as f64;
        assert!((per_key - 19.62).abs() < 0.005, "{per_key}");
        let parts: f64 = s.breakdown().iter().map(|p| p.1).sum();
        let blocks = (s.blocks * s.block_bits()) as f64;
        assert!((parts * n as f64 - blocks).abs() < 1e-6 * blocks, "{parts}");
        let padding = s.words() * 64 - s.blocks * s.block_bits();
        assert!((64..128).contains(&padding), "{padding}");
        for phase in [1, s.g / 2, s.g] {
            let pws = s.pws_at(phase);
            assert!(pws >= 0.0 && pws <= s.slack() as f64, "{pws}");
        }
        assert!(s.pws_at(s.g) > 0.0);
    }

    #[test]
    fn sizing_meets_the_target_with_least_memory() {
        for &eps in &[0.1, 1e-2, 1e-3, 1e-5] {
            for &(n, m) in &[(1u64 << 14, 1u64 << 8), (1 << 14, 1 << 14), (1000, 10)] {
                let s = Sizing::new(n, m, eps, None, DEFAULT_MAX_LOAD).unwrap();
                assert!(s.fpr() <= eps, "{s:?}");
                assert!(s.slack() <= m && s.load() <= DEFAULT_MAX_LOAD + 1e-12);
                assert!(s.tags == s.c + 2 && (1u64 << s.tag_bits) >= s.tags);
                assert!((1u64 << s.tag_bits) < 2 * s.tags);
                // one block fewer misses ε or the load
                let fewer = Sizing {
                    blocks: s.blocks - 1,
                    ..s
                };
                assert!(
                    fewer.blocks < 2 || fewer.fpr() > eps || fewer.load() > DEFAULT_MAX_LOAD,
                    "{s:?}"
                );
                for c in s.c.saturating_sub(3).max(1)..=s.c + 3 {
                    if let Ok(o) = Sizing::new(n, m, eps, Some(c), DEFAULT_MAX_LOAD) {
                        assert!(o.memory_bits() >= s.memory_bits());
                    }
                }
            }
        }
    }

    #[test]
    fn fpr_average_matches_the_sum() {
        let s = Sizing::new(3000, 100, 0.01, None, 0.9).unwrap();
        let direct = (1..=s.g).map(|p| s.fpr_at(p)).sum::<f64>() / s.g as f64;
        assert!(
            (s.fpr_avg() - direct).abs() < 1e-9 * direct,
            "{} {direct}",
            s.fpr_avg()
        );
        assert!(s.fpr_avg() < s.fpr());
    }

    #[test]
    fn breakdown_sums_to_the_memory_per_key() {
        for eps in [1e-2, 1e-3, 1e-4] {
            let n = 1 << 20;
            let s = Sizing::new(n, n, eps, None, DEFAULT_MAX_LOAD).unwrap();
            let parts: f64 = s.breakdown().iter().map(|p| p.1).sum();
            let per_key = s.memory_bits() as f64 / n as f64;
            assert!((parts - per_key).abs() < 1e-3, "{parts} vs {per_key}");
        }
    }

    #[test]
    fn closer_to_the_bound_than_naor_yogev() {
        for eps in [1e-2, 1e-3, 1e-4] {
            let n = 1 << 20;
            let s = Sizing::new(n, n, eps, None, DEFAULT_MAX_LOAD).unwrap();
            let ny = crate::naor_yogev::Sizing::new(
                n,
                n,
                eps,
                None,
                crate::naor_yogev::DEFAULT_MAX_LOAD,
            )
            .unwrap();
            let bound = space_bound_bits(n, n, eps);
            let (ours, theirs) = (
                s.memory_bits() as f64 / bound,
                ny.memory_bits() as f64 / bound,
            );
            eprintln!("eps {eps}: {ours:.3} vs naor_yogev {theirs:.3} of the bound");
            assert!(ours < theirs - 0.1, "eps {eps}: {ours} vs {theirs}");
        }
    }

    #[test]
    fn bad_parameters() {
        assert!(Sizing::new(0, 1, 0.1, None, 0.9).is_err());
        assert!(Sizing::new(10, 0, 0.1, None, 0.9).is_err());
        assert!(Sizing::new(10, 1, 1.0, None, 0.9).is_err());
        assert!(Sizing::new(10, 1, 0.1, Some(0), 0.9).is_err());
        assert!(Sizing::new(100, 1, 0.1, Some(2), 0.9).is_err());
        assert!(Sizing::new(100, 1, 0.1, None, 0.4).is_err());
        assert!(Sizing::new(1 << 40, 1 << 40, 0.1, None, 0.9).is_err());
    }
}
