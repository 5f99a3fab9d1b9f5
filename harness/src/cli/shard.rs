//! `bloomlab run SPEC --shard I/N` and `bloomlab merge SPEC [DIR]`: the
//! flags, handed to [`crate::engine::shards`].

use super::args::{MergeArgs, RunArgs};
use crate::engine::shards::{self, ShardJob};
use crate::engine::Experiment;
use crate::sweep::Shard;

/// `bloomlab run SPEC --shard I/N`.
pub(super) fn run_shard(a: RunArgs, shard: Shard) -> anyhow::Result<()> {
    let (results_dir, _) = a.output.dirs();
    shards::run_shard(&ShardJob {
        spec: &a.spec,
        shard,
        quick: a.output.quick,
        results_dir: &results_dir,
        out: a.out.clone(),
        threads: a.threads.map(usize::from),
        memory_limit: a.memory_limit,
        dry_run: a.dry_run,
        measured: a.measured.clone(),
        fit: a.fit.clone(),
        fresh: a.fresh,
    })
}

/// `bloomlab merge SPEC [DIR]`.
pub(super) fn merge(a: MergeArgs) -> anyhow::Result<()> {
    let (results_dir, plots_dir) = a.output.dirs();
    let x = Experiment {
        spec: &a.spec,
        quick: a.output.quick,
        results_dir: &results_dir,
        plots_dir: &plots_dir,
        threads: None,
        fresh: false,
        memory_limit: None,
        trace: None,
    };
    shards::merge(&x, a.dir.clone())
}
