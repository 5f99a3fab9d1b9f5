//! Parameter structs several designs share: the exact-window fingerprint
//! designs (SWAMP, SWBF) and the register sketches (sliding HLL, SWLC).

use serde::{Deserialize, Serialize};

/// An exact window and its fingerprints: window and fpr, or window and
/// fingerprint_bits.
#[derive(clap::Args, Deserialize, Serialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct FingerprintParams {
    /// Window W (arrivals)
    #[arg(long, alias = "w", value_parser = clap::value_parser!(u64).range(1..))]
    pub(in crate::designs) window: Option<u64>,
    /// Target FPR ε, in (0, 1) (picks the fingerprint bits)
    #[arg(long, alias = "eps")]
    pub(in crate::designs) fpr: Option<f64>,
    /// Fingerprint bits (instead of fpr)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub(in crate::designs) fingerprint_bits: Option<u32>,
}

/// A window and a number of registers.
#[derive(clap::Args, Deserialize, Serialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct RegistersParams {
    /// Window (arrivals)
    #[arg(long, alias = "w", value_parser = clap::value_parser!(u64).range(1..))]
    pub(in crate::designs) window: Option<u64>,
    /// Registers
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub(in crate::designs) registers: Option<u64>,
}
