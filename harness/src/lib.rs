//! # bloomlab-harness
//!
//! The experiment harness behind the `bloomlab` binary. It reads as a
//! pipeline: [`spec`] (TOML experiment) -> [`workload`] (key streams) ->
//! [`sweep`] (grid expansion, seeding, parallel execution) -> [`metrics`]
//! (what is measured, defined once; [`estimates`] for the measurement
//! summaries, [`adversary`] for the replaying adversary, [`timed`] for time
//! windows) -> [`report`] (CSV,
//! markdown, SVG). [`designs`] holds one module per design behind one
//! trait and the registry every command reads; [`plan`] picks designs from
//! theory; [`check`] compares a rerun with the baselines; [`engine`] runs
//! a spec and writes its outputs under a lock (what `run`, `reproduce`,
//! `check` and `merge` share); [`cli`] is the command line, which parses
//! flags and calls the engine; [`bench`](mod@bench) turns the criterion benchmarks into
//! tables and charts.

#![warn(missing_docs)]

pub mod alloc;
pub mod bench;
pub mod check;
pub mod cli;
pub mod designs;
pub mod engine;
pub mod metrics;
pub mod passes;
pub mod peers;
pub mod plan;
pub mod report;
pub mod resources;
pub mod spec;
pub mod sweep;
pub mod trace;
pub mod workload;
