//! Timestamp-based sliding-window baselines of the SWAMP paper: the timing
//! Bloom filter ([`TimingBloom`]) and SWBF ([`Swbf`]), both over wraparound
//! timestamps with incremental cleanup (the crate's shared wraparound
//! clock).

pub use crate::clock::stamp_bits;
pub mod swbf;
pub mod tbf;

pub use swbf::{Swbf, SwbfShape};
pub use tbf::{TimingBloom, TimingBloomShape};
mod quanta;
pub mod timed;
pub mod timed_swbf;
pub use timed::{TimedTbf, TimedTbfShape};
pub use timed_swbf::{TimedSwbf, TimedSwbfShape};
