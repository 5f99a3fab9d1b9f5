//! The design files' shared parts (see `designs`): not designs themselves.

pub mod built;
pub mod candidate;
pub mod exact_loads;
pub mod params;
pub mod presence;
pub mod shared;
pub mod sketches;
pub mod time_shared;
