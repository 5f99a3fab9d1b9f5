//! Sliding-window sketches that are not membership filters: the SWAMP
//! paper's baselines for per-flow counting ([`Wcss`]) and distinct counting
//! ([`SlidingHll`], [`Swlc`]).

pub mod hll;
pub mod swlc;
pub mod wcss;

pub use hll::{SlidingHll, SlidingHllShape};
pub use swlc::{Swlc, SwlcShape};
pub use wcss::{Wcss, WcssShape};
