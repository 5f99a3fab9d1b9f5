//! Metrics, defined once.
//!
//! One *point* is measured as follows. The filter is warmed up with w + s +
//! margin insertions (steady state: every slice has cycled) and aligned to the
//! worst phase (insertions ≡ 0 mod period, just before a shift). Then each of
//! `rounds` rounds measures at the worst phase, advances a uniformly random
//! u ∈ 1..=period insertions and measures at that (random) phase, then advances
//! to the worst phase ⌈(w + s)/period⌉ periods after the round began. So
//! "worst" figures are at the phase the paper's F describes, "avg" figures are
//! unbiased averages over phases, and consecutive rounds see filter states that
//! share no inserted key: the per-round samples are independent, which the
//! intervals over rounds (PWS, probes) assume. (Spacing rounds one period apart
//! instead leaves k + l - 1 slices shared between rounds; the PWS intervals were
//! then visibly too narrow.)
//!
//! * `fpr` — share of yes answers to never-inserted keys, worst phase, with a
//!   Clopper-Pearson interval at `ci_level`; `fpr_avg` the same at random
//!   phases, with a Student-t interval over the per-round rates (the phase
//!   sampling is part of its error); `fpr_expired` on inserted keys of age in (w + s, w + s + margin],
//!   worst phase.
//!   Queries are spread evenly over rounds (filter states) so that the
//!   state-to-state variation of the fill averages out; the binomial interval
//!   ignores that variation, which is valid while the number of states is large
//!   against the relative spread of the per-state FPR (documented in README).
//! * `fnr` — share of no answers on keys of age <= w (random ages, plus age w
//!   itself each round for designs that guarantee the window, at both
//!   phases); 0 for windowed designs. For designs without a window (Stable
//!   Bloom), w is a window of interest and the theory is the mean FNR over
//!   ages 1..=w.
//! * `zero_fraction` — fraction of zero cells, per round (both phases), normal
//!   interval over rounds.
//! * `convergence` — from empty filters: zero fraction and FPR at log-spaced
//!   insertion counts, over `rounds` independent runs (written to
//!   `<name>_convergence.csv`).
//! * `probes_negative` — mean probes (slice accesses) of negative queries that
//!   answered no, worst phase, with a Student-t interval over the per-round means
//!   (queries within one filter state share its fill, so per-query intervals
//!   would be too narrow at tens of millions of queries).
//! * `npws_peak` / `npws_avg` (designs with a slack) — PWS = number of yes answers over the keys of
//!   ages w+1 ..= w+s (the slack zone), per round, at the worst / random phase;
//!   NPWS = PWS / w; Student-t interval over rounds. Ages whose key was inserted
//!   again more recently (non-distinct streams) are skipped.
//! * `profile` — P(yes | age) over ages 1 ..= w + s + margin in buckets, at the
//!   worst and random phases, with Clopper-Pearson intervals.
//! * `memory` — `memory_bits`, bits per window element, and the ratio to the
//!   information-theoretic log2(1/ε) bits per element at the theoretical ε.
//! * `speed` — ns per insert / positive query (age <= w) / negative query,
//!   timed over `speed_ops` operations after the rounds; not deterministic.
//! * `batched` — ns per negative query answered by `contains_many` over
//!   `speed_ops` keys at once (`query_neg_batched_ns`): designs that override
//!   it overlap their cache misses; the others loop over `contains`.
//! * `tail` — per-insertion cost over `tail_ops` insertions after the rounds:
//!   slot reads reported by the design (`insert_probes_mean`, `_p99`, `_p999`,
//!   `max_probes`; deterministic) and wall time of each insertion
//!   (`insert_mean_ns`, `insert_p99_ns`, `insert_p999_ns`, `insert_max_ns`;
//!   each includes one `Instant::now()` pair, about 20-40 ns here, and the
//!   maximum catches whatever else the machine did).
//!
//! Every measured figure with a theoretical value gets `<name>_theory`,
//! `<name>_ratio` (measured / theory) and, with an interval, `<name>_theory_in_ci`.
//!
//! The code: [`row`] (result rows), [`stats`] (intervals), the membership
//! pass in `membership.rs` (one function per metric), `convergence.rs` and
//! `history.rs`.

pub mod progress;
pub mod row;

/// The peak bytes one side-table row (a profile bucket, a timeline moment)
/// costs a run, from the measurement to the written CSV: the row's cells,
/// its copy in the checkpoint line and in the outcome, and its CSV text.
/// Measured: a profile of 750,000 rows (`bucket = 1`, an APBF of k = 10,
/// l = 7, g = 20,000) peaked at 3.63 GB resident, 4.8 KB a row
/// (`/usr/bin/time -v bloomlab run`, docs/promises.md).
pub const ROW_BYTES: u64 = 5 << 10;

/// Bytes per entry of a hash map of 64-bit keys and values, with the
/// table's load and control bytes (hashbrown: about 16 bytes of payload over
/// a 7/8 load, doubled at worst just after growth).
pub const MAP_ENTRY: u64 = 40;
pub mod stats;

pub use row::{is_timing_column, Row, TableKind, Value};
pub use stats::{binomial_ci, in_interval, t_value, z_value, Welford};

/// Bits per element over log2(1/p), the information-theoretic bits per
/// element of a filter with FPR p; NaN (a blank cell) where the bound is
/// 0 bits or undefined (p >= 1, or p <= 0): the ratio was infinite there.
pub fn info_bound_ratio(bits_per_element: f64, p: f64) -> f64 {
    let bound = (1.0 / p).log2();
    if bound > 0.0 && bound.is_finite() {
        bits_per_element / bound
    } else {
        f64::NAN
    }
}
