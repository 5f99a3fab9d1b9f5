//! Sliding-window sketches that are not membership filters: the SWAMP
//! paper's baselines for per-flow counting ([`Wcss`]) and distinct counting
//! ([`SlidingHll`], [`Swlc`]).

pub mod hll;
pub mod wcss;

pub use hll::{SlidingHll, SlidingHllShape, Swlc, SwlcShape};
pub use wcss::{Wcss, WcssShape};
