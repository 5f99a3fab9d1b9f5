//! The vocabulary of results: [`Row`] and [`Value`] (a result row and its
//! cells, checked before any output holds them), [`TableKind`] (the
//! results and the side tables), [`stats`] (intervals), [`progress`] (the
//! progress lines of long passes) and the memory constants the passes'
//! plans count with. What each metric means and how it is measured is in
//! the module of the pass that measures it (the table in `crate::passes`).
pub mod columns;
pub mod figure;
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

pub use figure::{Figure, Part, TheoryColumns};
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
