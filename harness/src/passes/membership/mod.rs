//! The membership pass: its metrics, defined once.
//!
//! One *point* is measured as follows. The filter is warmed up with w + s +
//! margin insertions (steady state: every slice has cycled) and aligned to the
//! worst phase (insertions ≡ 0 mod period, just before a shift; the
//! geometry's `worst_phase` insertions later for a design whose worst moment
//! lies inside its period, the Sl-BF's). Then each of
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
//!   sampling is part of its error), or Clopper-Pearson's over the pooled
//!   queries when every round measured the same rate (that interval would
//!   have zero width); `fpr_expired` on inserted keys of age in (w + s, w + s + margin],
//!   worst phase.
//!   Queries are spread evenly over rounds (filter states) so that the
//!   state-to-state variation of the fill averages out; the binomial interval
//!   ignores that variation, which is valid while the number of states is large
//!   against the relative spread of the per-state FPR (documented in README).
//! * `fnr` — share of no answers on keys of age <= w (random ages, plus age w
//!   itself each round for designs that guarantee the window, at both
//!   phases); 0 for windowed designs. For designs without a window (Stable
//!   Bloom), w is a window of interest and the theory is the mean FNR over
//!   ages 1..=w. Its interval is Clopper-Pearson's over the pooled queries;
//!   for a design without a guaranteed window, the wider of that and a
//!   Student t over the rounds' rates (a round's queries ask one state).
//! * `zero_fraction` — fraction of zero cells, per round (both phases), normal
//!   interval over rounds.
//! * `convergence` — from empty filters: zero fraction and FPR at log-spaced
//!   insertion counts, over `rounds` independent runs (written to
//!   `<name>_convergence.csv`).
//! * `probes_negative` — mean probes (slice accesses) of negative queries that
//!   answered no, worst phase, with a Student-t interval over the per-round means
//!   (queries within one filter state share its fill, so per-query intervals
//!   would be too narrow at tens of millions of queries).
//! * `lines_query_negative` (with `accesses`, for the designs that count
//!   their lines, `Instrumented::counted_lines`) — mean distinct 64-byte
//!   lines of every never-inserted key's query at the worst phase, counted
//!   by a second query of the same key; Student-t interval over rounds.
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
//! Speed without a moved figure: the insertion, never-inserted-key and
//! slack-zone loops draw their keys in chunks (the generator's draws in the
//! same order) and, for a filter past `HINT_FROM_BITS` (2^23 bits), hint it
//! `AHEAD` (8) keys ahead of the one they work on
//! (`Instrumented::prefetch_insert`, `prefetch_query`), so that the cache
//! misses of several keys overlap at windows far past the cache. A
//! hint changes no state and no answer: every figure but the `*_ns`
//! timings is what the loops gave without them (`scripts/same-results`
//! against the committed results), and the timed operations of the speed
//! pass are not hinted.
//!
//! The code: this module (warm-up, rounds at the worst and a random phase,
//! then one function per metric turning the accumulators into columns),
//! [`plan`] (the pass's time scales, work and memory), `convergence.rs`,
//! `history.rs`, and the [`Pass`](crate::passes::Pass) in `pass.rs`.

mod columns;
mod convergence;
mod history;
mod pass;
pub mod plan;

pub use convergence::ConvergenceRow;
pub use pass::{profile_interval, MembershipPass};

use crate::designs::{Built, Theory};
use crate::metrics::stats::{binomial_ci, in_interval, Binomial, Welford};
use crate::metrics::{info_bound_ratio, Row, Value};
use crate::spec::{MeasureSpec, Metric};
use crate::workload::KeyStream;
use bloomlab_filters::Instrumented;
use columns::{columns, profile_rows};
use convergence::measure_convergence;
use history::History;
use plan::MembershipPlan;
use rand::Rng;
use rand_pcg::Pcg64;
use std::collections::BTreeSet;
use std::hint::black_box;
use std::time::Instant;

/// One bucket of the measured age profile.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileRow {
    /// "worst" or "avg".
    pub phase: &'static str,
    /// First age in the bucket.
    pub age_lo: u64,
    /// Last age in the bucket.
    pub age_hi: u64,
    /// Yes answers.
    pub yes: u64,
    /// Queries.
    pub n: u64,
    /// The bucket's P(yes) in each round (one filter state each).
    pub rounds: Welford,
    /// Theoretical P(yes) averaged over the bucket's ages.
    pub theory: f64,
}

/// Everything measured at one point.
#[derive(Default)]
pub struct PointResult {
    /// The scalar row (without the point's identifying columns).
    pub row: Row,
    /// The age profile, when requested.
    pub profile: Vec<ProfileRow>,
    /// The convergence curve, when requested.
    pub convergence: Vec<ConvergenceRow>,
}

/// The filter, its key stream and its history.
pub(super) struct Runner<'a> {
    f: &'a mut (dyn Instrumented + Send),
    stream: KeyStream,
    rng: Pcg64,
    hist: History,
    /// How many keys ahead the loops hint the filter: [`AHEAD`] for a
    /// filter past [`HINT_FROM_BITS`], else 0 (no hints).
    ahead: usize,
}

/// How many keys ahead of the one it works on a loop hints the filter
/// ([`Instrumented::prefetch_insert`], [`Instrumented::prefetch_query`]):
/// enough that the misses of several keys overlap. Hints change no state
/// and no answer, so the figures are those of a loop without them.
pub(super) const AHEAD: usize = 8;

/// The smallest filter the loops hint: 2^23 bits (1 MiB, a core's L2
/// cache on the machines measured here). A smaller filter's lines are
/// mostly in cache already, and with hints for every filter the specs of
/// small filters ran slower (`clock_sketch_claim_zipf` 102 -> 138 s in a
/// full `reproduce`, docs/speed.md).
pub(super) const HINT_FROM_BITS: u64 = 1 << 23;

/// Keys drawn at a time before a loop works on them: the stream's draws
/// keep their order (nothing else draws from the generator inside the
/// loops that do this), so the keys are the ones drawn one at a time.
const CHUNK: usize = 4096;

/// Sizes of the chunks `n` keys are drawn in.
fn chunks(n: u64) -> impl Iterator<Item = usize> {
    let whole = n / CHUNK as u64;
    let rest = (n % CHUNK as u64) as usize;
    (0..whole).map(|_| CHUNK).chain((rest > 0).then_some(rest))
}

/// A hinted loop's order over `keys`: the first `ahead` keys' hints, then
/// each key's work with the hint of the key `ahead` places later
/// (`(hint, work)`; no hints when `ahead` is 0).
fn hinted(keys: &[u64], ahead: usize) -> impl Iterator<Item = (Option<u64>, Option<u64>)> + '_ {
    let first = keys.iter().take(ahead).map(|&k| (Some(k), None));
    let rest = keys.iter().enumerate().map(move |(i, &k)| {
        let hint = (ahead > 0).then(|| keys.get(i + ahead).copied()).flatten();
        (hint, Some(k))
    });
    first.chain(rest)
}

impl Runner<'_> {
    /// Inserts the stream's next `n` keys, hinting each [`AHEAD`] keys
    /// before its insertion.
    fn advance(&mut self, n: u64) {
        let mut keys = Vec::with_capacity(CHUNK.min(n as usize));
        for c in chunks(n) {
            keys.clear();
            keys.extend((0..c).map(|_| self.stream.next_key(&mut self.rng)));
            for (hint, key) in hinted(&keys, self.ahead) {
                if let Some(h) = hint {
                    self.f.prefetch_insert(h);
                }
                if let Some(key) = key {
                    self.f.insert(key);
                    self.hist.push(key);
                }
            }
        }
    }

    /// Calls `visit` on `n` never-inserted keys from the stream, hinting
    /// each [`AHEAD`] keys before its visit.
    fn negatives(&mut self, n: u64, mut visit: impl FnMut(&(dyn Instrumented + Send), u64)) {
        let mut keys = Vec::with_capacity(CHUNK.min(n as usize));
        for c in chunks(n) {
            keys.clear();
            keys.extend((0..c).map(|_| self.stream.negative(&mut self.rng)));
            for (hint, key) in hinted(&keys, self.ahead) {
                if let Some(h) = hint {
                    self.f.prefetch_query(h);
                }
                if let Some(key) = key {
                    visit(self.f, key);
                }
            }
        }
    }

    /// The yes answers to the keys of ages `ages` (those still held by
    /// the history), hinting each [`AHEAD`] keys before its query.
    fn yes_at_ages(&self, ages: std::ops::RangeInclusive<u64>) -> usize {
        let (mut yes, mut keys) = (0, Vec::with_capacity(CHUNK));
        let mut ages = ages.filter_map(|a| self.hist.at_age(a)).peekable();
        while ages.peek().is_some() {
            keys.clear();
            keys.extend(ages.by_ref().take(CHUNK));
            for (hint, key) in hinted(&keys, self.ahead) {
                if let Some(h) = hint {
                    self.f.prefetch_query(h);
                }
                yes += key.is_some_and(|k| self.f.contains(k)) as usize;
            }
        }
        yes
    }
}

/// Per-phase accumulators.
#[derive(Default)]
struct PhaseStats {
    fpr: Binomial,
    /// Per-round FPR, for the phase-averaged figure.
    fpr_rounds: Welford,
    expired: Binomial,
    probes: Welford,
    /// Per-round mean lines of a negative key's query, where counted.
    lines: Welford,
    pws: Welford,
    profile: Vec<Binomial>,
    /// Each bucket's P(yes) per round: the spread between filter states.
    profile_rounds: Vec<Welford>,
}

impl MembershipPlan<'_> {
    /// Accumulators for one phase kind.
    fn stats(&self) -> PhaseStats {
        let mut st = PhaseStats::default();
        if self.has(Metric::Profile) {
            let buckets = self.horizon.div_ceil(self.bucket) as usize;
            st.profile = vec![Binomial::default(); buckets];
            st.profile_rounds = vec![Welford::default(); buckets];
        }
        st
    }

    /// Everything measured in one filter state.
    fn phase(&self, r: &mut Runner, st: &mut PhaseStats, fnr: &mut Binomial) {
        if self.has(Metric::Fpr) || self.has(Metric::Accesses) {
            self.negatives(r, st);
        }
        if self.has(Metric::Fnr) && self.w > 0 {
            self.in_window(r, fnr);
        }
        if self.has(Metric::Fpr) && self.guaranteed && self.margin > 0 {
            self.expired(r, st);
        }
        if self.has(Metric::Npws) && self.s > 0 {
            let yes = r.yes_at_ages(self.w + 1..=self.w + self.s);
            st.pws.add(yes as f64);
        }
        if self.has(Metric::Profile) {
            let mut round = vec![Binomial::default(); st.profile.len()];
            for age in 1..=self.horizon {
                if let Some(key) = r.hist.at_age(age) {
                    round[((age - 1) / self.bucket) as usize].add(r.f.contains(key));
                }
            }
            for ((all, rates), b) in st.profile.iter_mut().zip(&mut st.profile_rounds).zip(round) {
                all.x += b.x;
                all.n += b.n;
                if b.n > 0 {
                    rates.add(b.rate());
                }
            }
        }
    }

    /// Never-inserted keys: false positives, probes of the negatives, and
    /// (for accesses) the 64-byte lines of every never-inserted key's
    /// query, where the design counts them.
    fn negatives(&self, r: &mut Runner, st: &mut PhaseStats) {
        let (mut sum, mut n, mut fp) = (0u64, 0u64, 0u64);
        let mut lines = crate::passes::CountedLines::default();
        let count_lines = self.has(Metric::Accesses);
        r.negatives(self.per_round, |f, key| {
            let (yes, probes) = f.contains_probes(key);
            st.fpr.add(yes);
            fp += yes as u64;
            if !yes {
                sum += probes as u64;
                n += 1;
            }
            if count_lines {
                lines.add(f, key);
            }
        });
        lines.finish(&mut st.lines);
        st.fpr_rounds.add(fp as f64 / self.per_round.max(1) as f64);
        if n > 0 {
            st.probes.add(sum as f64 / n as f64);
        }
    }

    /// Keys of age <= w: false negatives.
    fn in_window(&self, r: &mut Runner, fnr: &mut Binomial) {
        let w = self.w;
        let mut check = |age: u64, r: &mut Runner| {
            if let Some(key) = r.hist.at_age(age) {
                fnr.add(!r.f.contains(key));
            }
        };
        if self.guaranteed {
            check(w, r); // the oldest guaranteed key, every round
        }
        // Distinct ages, evenly spaced from a random offset: querying the
        // same key twice in one state would count one trial twice.
        let n = self.spec.age_samples.min(w);
        let offset = r.rng.random_range(0..w);
        for i in 0..n {
            check(1 + (offset + i * w / n) % w, r);
        }
    }

    /// Keys of age in (w + s, w + s + margin]: expired keys reported.
    fn expired(&self, r: &mut Runner, st: &mut PhaseStats) {
        let margin = self.margin;
        let n = self.spec.age_samples.min(margin);
        let offset = r.rng.random_range(0..margin);
        for i in 0..n {
            let age = self.w + self.s + 1 + (offset + i * margin / n) % margin;
            if let Some(key) = r.hist.at_age(age) {
                st.expired.add(r.f.contains(key));
            }
        }
    }
}

/// Measures one configuration. Deterministic given `rng`'s seed, except for
/// the `*_ns` timing columns. `rebuild(seed)` makes a fresh copy of the design
/// (for the convergence metric, which starts from empty filters).
pub fn measure(
    built: &mut Built,
    stream: KeyStream,
    mut rng: Pcg64,
    metrics: &BTreeSet<Metric>,
    spec: &MeasureSpec,
    rebuild: &dyn Fn(u64) -> anyhow::Result<Built>,
) -> anyhow::Result<PointResult> {
    let convergence = if metrics.contains(&Metric::Convergence) {
        measure_convergence(built, &stream, &mut rng, spec, rebuild)?
    } else {
        Vec::new()
    };
    let plan = MembershipPlan::new(built, metrics, spec);
    let distinct = stream.is_distinct();
    let theory = &built.theory;
    let Some(f) = built.filter.as_mut() else {
        return Err(anyhow::anyhow!(
            "{} is not a membership filter: only the count, distinct and entropy metrics apply",
            built
                .summary
                .as_ref()
                .map_or("this design", |s| s.summary_name())
        ));
    };
    let ahead = if f.memory_bits() >= HINT_FROM_BITS {
        AHEAD
    } else {
        0
    };
    let mut r = Runner {
        f: f.as_mut(),
        stream,
        rng,
        hist: History::new(plan.horizon, distinct),
        ahead,
    };

    let (worst, avg, fnr, zeros) = run_rounds(&plan, &mut r, spec);

    let row = columns(&plan, &mut r, theory, (&worst, &avg, &fnr, &zeros));
    let profile = if plan.has(Metric::Profile) {
        profile_rows(&plan, theory, &worst, &avg)
    } else {
        Vec::new()
    };
    Ok(PointResult {
        row,
        profile,
        convergence,
    })
}

/// The warm-up to the worst phase, then the rounds: each measures the
/// worst phase, advances a random 1..=period, measures that phase, and
/// advances to the next round's worst phase. Returns the worst and random
/// phases' tallies, the FNR's and the zero fraction's.
/// The FNR's queries pooled, and its rate per round over both phases.
#[derive(Default)]
pub(super) struct FnrTally {
    pub(super) all: Binomial,
    pub(super) rounds: Welford,
}

fn run_rounds(
    plan: &MembershipPlan,
    r: &mut Runner,
    spec: &MeasureSpec,
) -> (PhaseStats, PhaseStats, FnrTally, Welford) {
    let mut steps = crate::metrics::progress::Steps::new("rounds", spec.rounds);
    // Warm-up to steady state, aligned to the worst phase, in chunks so
    // that a long one reports its progress (the same insertions as one
    // call: advance is a loop)
    let warm = plan.warm_to_worst();
    let mut done = 0;
    while done < warm {
        let chunk = (warm - done).min(1 << 20);
        r.advance(chunk);
        done += chunk;
        steps.warming(done, warm);
    }
    let (mut worst, mut avg, mut fnr) = (plan.stats(), plan.stats(), FnrTally::default());
    // the zero fraction: one observation per round, the mean of its two
    // states (the two states of a round are of one filter a phase apart,
    // not independent: counted as two, they made the interval too narrow)
    let mut zeros = Welford::default();
    let zero = |r: &Runner| {
        plan.has(Metric::ZeroFraction)
            .then(|| r.f.zero_fraction())
            .flatten()
    };
    for round in 0..spec.rounds {
        steps.done(round);
        let start = fnr.all;
        plan.phase(r, &mut worst, &mut fnr.all);
        let z = zero(r);
        let u = r.rng.random_range(1..=plan.period);
        r.advance(u);
        plan.phase(r, &mut avg, &mut fnr.all);
        if fnr.all.n > start.n {
            fnr.rounds.add(fnr.all.since(&start));
        }
        if let (Some(a), Some(b)) = (z, zero(r)) {
            zeros.add((a + b) / 2.0);
        }
        r.advance(plan.spacing - u);
    }

    (worst, avg, fnr, zeros)
}
