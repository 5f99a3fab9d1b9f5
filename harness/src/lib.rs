//! # bloomlab-harness
//!
//! The experiment harness behind the `bloomlab` binary, in layers that only
//! call downward ([`LAYERS`], top first; a test fails on an import that
//! reaches up or sideways):
//!
//! 1. [`cli`]: parses flags and calls what is below.
//! 2. [`engine`] (run a spec, write its outputs under a lock, shard, merge),
//!    [`check`] (a rerun against the baselines), [`bench`](mod@bench)
//!    (criterion benchmarks as tables and charts), [`calibration`] (the
//!    measured coverage of the intervals).
//! 3. [`report`]: CSV, markdown and SVG.
//! 4. [`sweep`]: grid expansion, seeding, each point's plan, parallel
//!    execution, checkpoints and shards.
//! 5. [`passes`] (the measurement passes, one [`passes::Pass`] each, with
//!    the metrics they measure), [`plan`] (choosing designs from theory),
//!    [`peers`] (other libraries' parameters).
//! 6. [`designs`]: one module per design, and the registry.
//! 7. [`workload`]: key streams.
//! 8. [`spec`]: the experiment file's sections, checked.
//! 9. [`metrics`] (rows, values, intervals: the vocabulary of results) and
//!    [`trace`] (reading trace files).
//! 10. [`resources`] (the machine's memory and threads) and [`alloc`].
//!
//! How `bloomlab run SPEC` becomes a CSV row: `cli` calls
//! [`engine::run_command`]; [`sweep::prepare`] expands the spec's points and
//! makes each one's [`passes::PointPlan`] (its design's parameters, the
//! settings its passes read, their work and memory, which the shard
//! weights and the budget check read); [`sweep::run_points`] measures the
//! points in parallel with [`sweep::measure_point`], which builds the design
//! once and runs each pass of the plan; [`engine::write_outputs`] writes
//! each table ([`metrics::TableKind`]) with [`report`].

#![warn(missing_docs)]

pub mod alloc;
pub mod bench;
pub mod calibration;
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

/// The harness's modules by layer, top first: a module may import only
/// from the layers below its own (see the crate docs).
pub const LAYERS: &[&[&str]] = &[
    &["cli"],
    &["engine", "check", "bench", "calibration"],
    &["report"],
    &["sweep"],
    &["passes", "plan", "peers"],
    &["designs"],
    &["workload"],
    &["spec"],
    &["metrics", "trace"],
    &["resources", "alloc"],
];
