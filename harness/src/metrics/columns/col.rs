//! The registry's table: one line per column. `CONST = "name", group,
//! kind, unit, "words"` then optional flags: `Exact` or `StreamTheory`
//! (how `check` compares it, [`Compare`]) and `Timing` (a figure made of
//! timings, left out where runs are compared for determinism; a column in
//! nanoseconds is one without the flag). A column added here is a constant the passes write
//! through; see the module docs of [`super`].

use super::{Col, Column, Compare, Group, Kind, Unit};

macro_rules! columns {
    ($($konst:ident = $name:literal, $group:ident, $kind:ident, $unit:ident, $label:literal
       $(, $flag:ident)*;)*) => {
        $(
            #[doc = concat!("`", $name, "`")]
            pub const $konst: Col = Col($name);
        )*
        /// Every registered column.
        pub const TABLE: &[Column] = &[$(
            flags(Column {
                col: $konst,
                group: Group::$group,
                kind: Kind::$kind,
                unit: Unit::$unit,
                label: $label,
                compare: Compare::ByParts,
                timing: matches!(Unit::$unit, Unit::Ns),
            }, &[$(Flag::$flag),*])
        ),*];
    };
}

/// The flags a line of the table may end with.
enum Flag {
    Exact,
    StreamTheory,
    Timing,
}

const fn flags(mut c: Column, fl: &[Flag]) -> Column {
    let mut i = 0;
    while i < fl.len() {
        match fl[i] {
            Flag::Exact => c.compare = Compare::Exact,
            Flag::StreamTheory => c.compare = Compare::StreamTheory,
            Flag::Timing => c.timing = true,
        }
        i += 1;
    }
    c
}

columns! {
    ADAPTIVE = "adaptive", Membership, Other, None, "";
    ADAPTIVITY_BITS_PER_ELEMENT = "adaptivity_bits_per_element", Adversary, Other, BitsPerKey, "adaptivity memory per window key";
    ADAPTIVITY_BITS_PER_ELEMENT_MAX = "adaptivity_bits_per_element_max", Adversary, Other, BitsPerKey, "";
    ADJACENT = "adjacent", Parameter, Other, None, "";
    ADVERSARY_FPR = "adversary_fpr", Membership, Probability, None, "";
    ADVERSARY_QUERIES = "adversary_queries", Membership, Other, None, "";
    ADVERSARY_RUNS = "adversary_runs", Membership, Other, None, "";
    AGE_HI = "age_hi", Membership, Other, None, "";
    AGE_LO = "age_lo", Membership, Other, None, "";
    AGE_MID = "age_mid", Membership, Other, None, "";
    AGE_MID_OVER_T = "age_mid_over_t", Membership, Other, None, "";
    AGE_MID_OVER_W = "age_mid_over_w", Membership, Other, None, "";
    ALPHA = "alpha", Parameter, Other, None, "";
    ARRIVALS_AMPLITUDE = "arrivals_amplitude", Parameter, Other, None, "daily rate amplitude";
    ARRIVALS_FALL = "arrivals_fall", Parameter, Other, None, "seconds of the fall from the peak rate";
    ARRIVALS_HIGH = "arrivals_high", Parameter, Other, None, "seconds at the peak rate";
    ARRIVALS_LOW = "arrivals_low", Parameter, Other, None, "seconds at the base rate";
    ARRIVALS_LULL = "arrivals_lull", Parameter, Other, None, "seconds without arrivals";
    ARRIVALS_MAX_RATE = "arrivals_max_rate", Membership, Other, None, "";
    ARRIVALS_MEAN_RATE = "arrivals_mean_rate", Membership, Other, None, "";
    ARRIVALS_RATIO = "arrivals_ratio", Parameter, Other, None, "burst rate / base rate";
    ARRIVALS_RISE = "arrivals_rise", Parameter, Other, None, "seconds of the rise to the peak rate";
    BATCHES = "batches", Membership, Other, None, "";
    BITS_EMPTY_SLOTS = "bits_empty_slots", Membership, Other, None, "";
    BITS_METADATA = "bits_metadata", Membership, Other, None, "";
    BITS_PER_ELEMENT = "bits_per_element", Memory, Other, BitsPerKey, "memory per window key";
    BITS_PER_PEAK_KEY = "bits_per_peak_key", Membership, Other, BitsPerKey, "";
    BITS_REMAINDER = "bits_remainder", Membership, Other, None, "";
    BITS_SLACK_KEYS = "bits_slack_keys", Membership, Other, None, "";
    BITS_TAG = "bits_tag", Membership, Other, None, "";
    BLOCKS = "blocks", Parameter, Other, None, "";
    BLOOM_INSERT_NS = "bloom_insert_ns", Speed, Figure, Ns, "";
    BLOOM_K = "bloom_k", Membership, Other, None, "";
    BLOOM_QUERY_NEG_NS = "bloom_query_neg_ns", Speed, Figure, Ns, "";
    BLOOM_QUERY_POS_NS = "bloom_query_pos_ns", Speed, Figure, Ns, "";
    BOUND_MN_PER_ELEMENT = "bound_mn_per_element", Membership, Other, None, "";
    BUCKETS = "buckets", Parameter, Other, None, "";
    BURST = "burst", Parameter, Other, None, "";
    C = "c", Parameter, Other, None, "Naor-Yogev c";
    CALIBRATION = "calibration", Membership, Other, None, "", Timing;
    CANDIDATE = "candidate", Membership, Other, None, "";
    CANDIDATES_NEGATIVE = "candidates_negative", Membership, Other, None, "";
    CI_LEVEL = "ci_level", Calibration, Probability, None, "confidence level";
    CLOCK_BITS = "clock_bits", Parameter, Figure, Bits, "";
    COLLIDING_PAIRS_EXPECTED = "colliding_pairs_expected", Summary, Other, None, "";
    COST_FACTOR = "cost_factor", Speed, Other, None, "measured over estimated seconds";
    COUNTERS = "counters", Parameter, Other, None, "";
    COUNT_ARRIVALS = "count_arrivals", Summary, Other, None, "";
    CONCURRENT = "concurrent", Parameter, Other, None, "open flows of an item-batch stream";
    CONFIRM_COVERAGE = "confirm_coverage", Calibration, Probability, None, "coverage on the confirmation's fresh seeds";
    CONFIRM_COVERED = "confirm_covered", Calibration, Other, None, "";
    CONFIRM_SEEDS = "confirm_seeds", Calibration, Other, None, "";
    COUNT_MEAN_ERROR = "count_mean_error", Summary, Signed, None, "";
    COUNT_RMSE = "count_rmse", Summary, Other, Occurrences, "frequency estimate RMSE", StreamTheory;
    COUNT_UNDERESTIMATES = "count_underestimates", Summary, Other, None, "";
    COVERAGE = "coverage", Calibration, Probability, None, "coverage (share of seeds whose interval holds the truth)";
    COVERED = "covered", Calibration, Other, None, "";
    CYCLE = "cycle", Parameter, Other, None, "";
    C_PAPER = "c_paper", Membership, Other, None, "";
    D = "d", Parameter, Other, None, "cell bits d", Exact;
    DELTA = "delta", Parameter, Other, None, "";
    DEPENDENT_READS_PER_OP = "dependent_reads_per_op", Bench, Other, None, "";
    DEPENDENT_READ_NS = "dependent_read_ns", Bench, Figure, Ns, "";
    DESIGN = "design", Id, Other, None, "";
    DISTINCT_ESTIMATE = "distinct_estimate", Summary, Other, None, "";
    DISTINCT_LB = "distinct_lb", Summary, Other, None, "", StreamTheory;
    DISTINCT_LB_ABOVE_TRUTH = "distinct_lb_above_truth", Summary, Other, None, "";
    DISTINCT_LB_REL_RMSE = "distinct_lb_rel_rmse", Summary, Other, None, "distinct count (lower bound) relative RMSE";
    DISTINCT_MLE = "distinct_mle", Summary, Other, None, "";
    DISTINCT_REL_RMSE = "distinct_rel_rmse", Summary, Other, None, "distinct count relative RMSE", StreamTheory;
    DISTINCT_TRUE = "distinct_true", Summary, Other, None, "";
    DURATION = "duration", Membership, Other, None, "";
    EFFICIENCY_ASYMPTOTIC = "efficiency_asymptotic", Membership, Other, None, "";
    EFFICIENCY_PAPER_FORMULA = "efficiency_paper_formula", Membership, Other, None, "";
    EFFICIENCY_VS_BLOOM = "efficiency_vs_bloom", Memory, Other, None, "";
    ENTROPY = "entropy", Summary, Other, None, "";
    ENTROPY_ERROR = "entropy_error", Summary, Signed, Bits, "entropy error H - Ĥ", StreamTheory;
    ENTROPY_ERROR_THEORY = "entropy_error_theory", Summary, Other, Bits, "expected entropy error";
    ENTROPY_REL_ERROR = "entropy_rel_error", Summary, Signed, None, "";
    ENTROPY_TRUE = "entropy_true", Summary, Other, None, "";
    EPS = "eps", Parameter, Other, None, "";
    ESTIMATED_S = "estimated_s", Speed, Other, None, "estimated seconds (results/point_costs.csv)";
    ESTIMATED_SECONDS = "estimated_seconds", Membership, Other, None, "", Timing;
    ESTIMATE_OUTSIDE = "estimate_outside", Calibration, Other, None, "";
    EXAMPLE_FNR = "example_fnr", Membership, Probability, None, "keys answered no at once (the worked example)";
    EXAMPLE_YES = "example_yes", Membership, Other, None, "";
    EXPECTED_ACCESSES = "expected_accesses", Membership, Other, None, "";
    FALSE_NEGATIVES = "false_negatives", Membership, Other, None, "";
    FALSE_POSITIVES_FIXED = "false_positives_fixed", Membership, Other, None, "";
    FALSE_POSITIVES_FOUND = "false_positives_found", Membership, Other, None, "";
    FINGERPRINT_BITS = "fingerprint_bits", Parameter, Figure, Bits, "";
    FIRST_FALSE_POSITIVE_AT = "first_false_positive_at", Membership, Other, None, "";
    FIRST_WINDOW_FPR = "first_window_fpr", Membership, Probability, None, "";
    FNR = "fnr", Membership, Probability, None, "";
    FNR_QUERIES = "fnr_queries", Membership, Other, None, "";
    FNR_TIME = "fnr_time", Membership, Probability, Share, "keys younger than T answered no";
    FNR_TIME_AT_PEAK = "fnr_time_at_peak", Membership, Probability, None, "";
    FNR_TIME_PROBES = "fnr_time_probes", Membership, Other, None, "";
    FPR = "fpr", Membership, Probability, None, "false-positive rate (worst phase)";
    FPR_ASYMPTOTIC = "fpr_asymptotic", Membership, Probability, None, "";
    FPR_AVG = "fpr_avg", Membership, Probability, None, "false-positive rate (averaged over phases)";
    FPR_EXPIRED = "fpr_expired", Membership, Probability, None, "";
    FPR_EXPIRED_QUERIES = "fpr_expired_queries", Membership, Other, None, "";
    FPR_FALSE_POSITIVES = "fpr_false_positives", Membership, Other, None, "";
    FPR_INDEPENDENT = "fpr_independent", Membership, Probability, None, "";
    FPR_INDEPENDENT_IN_CI = "fpr_independent_in_ci", Membership, Other, None, "";
    FPR_PAPER_FORMULA = "fpr_paper_formula", Membership, Probability, None, "";
    FPR_PAPER_FORMULA_IN_CI = "fpr_paper_formula_in_ci", Membership, Other, None, "";
    FPR_PLANNED = "fpr_planned", Membership, Other, None, "";
    FPR_QUERIES = "fpr_queries", Membership, Other, None, "";
    FPR_THEORY = "fpr_theory", Membership, Other, None, "predicted false-positive rate (worst phase)";
    FPR_THEORY_AT_DISTINCT_TRUE = "fpr_theory_at_distinct_true", Membership, Probability, None, "";
    FPR_TIME_AVG = "fpr_time_avg", Membership, Probability, None, "";
    FPR_TIME_PEAK = "fpr_time_peak", Membership, Probability, None, "false-positive rate at the worst moment";
    FPR_TIME_PEAK_MOMENTS = "fpr_time_peak_moments", Membership, Other, None, "";
    G = "g", Parameter, Other, Insertions, "generation size g", Exact;
    GROUP = "group", Parameter, Other, None, "";
    GUARANTEED = "guaranteed", Id, Other, None, "";
    HALF_LIFE = "half_life", Membership, Other, None, "";
    HEAVY10_F2_SHARE = "heavy10_f2_share", Membership, Other, None, "";
    INDEPENDENT_READS_PER_OP = "independent_reads_per_op", Bench, Other, None, "";
    INDEPENDENT_READ_NS = "independent_read_ns", Bench, Figure, Ns, "";
    INFO_BOUND = "info_bound", Membership, Other, None, "";
    INFO_BOUND_RATIO = "info_bound_ratio", Memory, Other, None, "memory / information-theoretic bound";
    INSERTED = "inserted", Membership, Other, None, "";
    INSERTS_PER_QUERY = "inserts_per_query", Parameter, Other, None, "";
    INSERT_MAX_NS = "insert_max_ns", Speed, Figure, Ns, "";
    INSERT_MEAN_NS = "insert_mean_ns", Speed, Figure, Ns, "";
    INSERT_NS = "insert_ns", Speed, Figure, Ns, "time per insertion";
    INSERT_P999_NS = "insert_p999_ns", Speed, Figure, Ns, "time per insertion, 99.9th percentile";
    INSERT_P99_NS = "insert_p99_ns", Speed, Figure, Ns, "";
    INSERT_PROBES_MEAN = "insert_probes_mean", Speed, Other, None, "";
    INSERT_PROBES_P99 = "insert_probes_p99", Speed, Other, None, "";
    INSERT_PROBES_P999 = "insert_probes_p999", Speed, Other, None, "slot reads per insertion, 99.9th percentile";
    INSERT_VS_BLOOM = "insert_vs_bloom", Speed, Other, None, "", Timing;
    INTERVAL = "interval", Calibration, Other, None, "";
    K = "k", Parameter, Other, None, "hash functions k", Exact;
    KEYS = "keys", Parameter, Other, None, "";
    L = "l", Parameter, Other, None, "slices l", Exact;
    LIMIT_NS = "limit_ns", Bench, Figure, Ns, "";
    LINE_COUNT = "line_count", Parameter, Other, None, "";
    LINES_INSERT = "lines_insert", Membership, Figure, None, "64-byte lines an insertion reads or writes";
    LINES_PER_OP = "lines_per_op", Bench, Figure, None, "";
    LINES_QUERY_NEGATIVE = "lines_query_negative", Membership, Figure, None, "64-byte lines a never-inserted key's query reads";
    LINES_QUERY_NEGATIVE_PLANNED = "lines_query_negative_planned", Membership, Figure, None, "";
    LINES_QUERY_NEGATIVE_ROTATIONS_MEAN = "lines_query_negative_rotations_mean", Membership, Figure, None, "";
    LINES_QUERY_POSITIVE = "lines_query_positive", Membership, Figure, None, "64-byte lines a query of a key in the window reads";
    LO = "lo", Parameter, Other, None, "";
    LOAD = "load", Parameter, Other, None, "";
    LOG2_WINDOW = "log2_window", Bench, Other, Log2Insertions, "window W";
    M = "m", Parameter, Other, None, "cells m", Exact;
    MAX_LOAD = "max_load", Parameter, Other, None, "maximum load";
    MAX_PROBES = "max_probes", Speed, Other, None, "slot reads per insertion, maximum";
    MEAN_RUN = "mean_run", Parameter, Other, None, "mean items per batch";
    MEAN_ESTIMATE = "mean_estimate", Calibration, Signed, None, "";
    MEAN_RELATIVE_WIDTH = "mean_relative_width", Calibration, Other, None, "interval width / estimate";
    MEASURED_S = "measured_s", Speed, Other, None, "measured seconds (results/point_costs.csv)";
    MEMORY = "memory", Parameter, Other, None, "";
    MEMORY_BITS = "memory_bits", Memory, Figure, Bits, "memory", Exact;
    MEMORY_BITS_MAX = "memory_bits_max", Memory, Figure, None, "";
    MEMORY_BITS_MEAN = "memory_bits_mean", Memory, Other, None, "";
    MEMORY_BYTES = "memory_bytes", Bench, Other, Bytes, "memory";
    MEMORY_OVER_BOUND = "memory_over_bound", Memory, Other, None, "memory / Naor-Yogev space bound";
    MEMORY_OVER_BOUND_MN = "memory_over_bound_mn", Memory, Other, None, "memory / Naor-Yogev bound at m = n";
    MLP_LIMIT_NS = "mlp_limit_ns", Bench, Figure, Ns, "";
    MOMENT = "moment", Membership, Other, None, "";
    MOMENTS = "moments", Membership, Other, None, "";
    MOPS_PER_S = "mops_per_s", Bench, Other, Mops, "throughput";
    NPWS_AVG = "npws_avg", Membership, Other, None, "probability-weighted slack / W (phase-averaged)";
    NPWS_PEAK = "npws_peak", Membership, Other, None, "probability-weighted slack / W (worst phase)";
    NPWS_PEAK_PAPER_FORMULA = "npws_peak_paper_formula", Membership, Other, None, "";
    NS_PER_OP = "ns_per_op", Bench, Other, Ns, "time per operation";
    OPERATION = "operation", Bench, Other, None, "";
    P = "p", Parameter, Other, None, "", Exact;
    PARETO = "pareto", Membership, Other, None, "", Timing;
    PAST = "past", Parameter, Other, None, "", Exact;
    PEAK_RATE = "peak_rate", Parameter, Other, None, "";
    PHASE = "phase", Parameter, Other, None, "";
    PHASE_TIME = "phase_time", Parameter, Other, None, "";
    POINT = "point", Id, Other, None, "";
    POINTS = "points", Speed, Other, None, "points";
    POOL = "pool", Parameter, Other, None, "";
    PROBES_FALSE_POSITIVE = "probes_false_positive", Membership, Other, None, "";
    PROBES_NEGATIVE = "probes_negative", Membership, Other, None, "cells read by a negative query";
    P_YES = "p_yes", Membership, Probability, None, "";
    P_YES_PAST_WINDOW = "p_yes_past_window", Membership, Probability, Share, "keys older than T answered yes";
    P_YES_PAST_WINDOW_PROBES = "p_yes_past_window_probes", Membership, Other, None, "";
    QUANTA = "quanta", Parameter, Other, None, "";
    QUERIES = "queries", Membership, Other, None, "queries";
    QUERY_NEG_BATCHED_NS = "query_neg_batched_ns", Speed, Figure, Ns, "time per negative query (batched)";
    QUERY_NEG_NS = "query_neg_ns", Speed, Figure, Ns, "time per negative query";
    QUERY_NEG_VS_BLOOM = "query_neg_vs_bloom", Speed, Other, None, "", Timing;
    QUERY_NS = "query_ns", Speed, Figure, Ns, "time per query (half positive)";
    QUERY_POS_NS = "query_pos_ns", Speed, Figure, Ns, "time per positive query";
    QUERY_POS_VS_BLOOM = "query_pos_vs_bloom", Speed, Other, None, "", Timing;
    QUERY_TRACE_MEMBERS_SKIPPED = "query_trace_members_skipped", Adversary, Other, None, "";
    QUERY_ZIPF = "query_zipf", Parameter, Other, None, "";
    RATE = "rate", Membership, Other, None, "";
    RATIO_TO_FASTBLOOM = "ratio_to_fastbloom", Bench, Other, None, "";
    REGISTERS = "registers", Parameter, Other, None, "";
    REMAINDER_BITS = "remainder_bits", Parameter, Figure, Bits, "";
    REMOTE_ACCESSES_PER_OP = "remote_accesses_per_op", Adversary, Other, None, "";
    REPEAT = "repeat", Id, Other, None, "";
    REPLAY_EVERY = "replay_every", Parameter, Other, None, "";
    REPLAY_FRACTION = "replay_fraction", Adversary, Probability, None, "replayed share of queries";
    ROUNDS = "rounds", Membership, Other, None, "";
    RUNS = "runs", Membership, Other, None, "";
    S = "s", Parameter, Other, None, "";
    SECONDS = "seconds", Membership, Other, None, "", Timing;
    SEEDS = "seeds", Calibration, Other, None, "";
    SEEN_EXPIRED_QUERIES = "seen_expired_queries", Membership, Other, None, "";
    SEEN_FALSE_NEGATIVES = "seen_false_negatives", Membership, Other, None, "";
    SEEN_FALSE_POSITIVES = "seen_false_positives", Membership, Other, None, "";
    SEEN_FNR = "seen_fnr", Membership, Other, None, "keys in the window answered no (the code's FNR)";
    SEEN_FPR = "seen_fpr", Membership, Other, None, "error on seen keys past the window (the code's FPR)";
    SEEN_NEGATIVE_FPR = "seen_negative_fpr", Membership, Other, None, "false-positive rate on never-inserted keys (the code's)";
    SEEN_NEGATIVE_QUERIES = "seen_negative_queries", Membership, Other, None, "";
    SEEN_SAMPLES = "seen_samples", Membership, Other, None, "";
    SEEN_WINDOW_QUERIES = "seen_window_queries", Membership, Other, None, "";
    SEGMENTS = "segments", Parameter, Other, None, "", Exact;
    SERIES = "series", Membership, Other, None, "", Timing;
    SLACK = "slack", Parameter, Other, Insertions, "slack", Exact;
    SLACK_RATIO = "slack_ratio", Parameter, Other, None, "";
    SLACK_TIME = "slack_time", Parameter, Other, None, "";
    SLOTS = "slots", Parameter, Other, None, "";
    SLOTS_PER_BLOCK = "slots_per_block", Parameter, Other, None, "";
    SPACE_BOUND_BITS = "space_bound_bits", Memory, Figure, Bits, "";
    SPACE_BOUND_PER_ELEMENT = "space_bound_per_element", Memory, Other, BitsPerKey, "Naor-Yogev space bound per window key";
    STAMP_BITS = "stamp_bits", Parameter, Figure, Bits, "";
    STEPS_TO_STABLE = "steps_to_stable", Membership, Other, None, "";
    SUMMARY_BITS = "summary_bits", Membership, Figure, Bits, "";
    SUMMARY_ROUNDS = "summary_rounds", Membership, Other, None, "";
    SUSTAINED_FPR = "sustained_fpr", Adversary, Probability, None, "sustained false-positive rate under attack";
    SUSTAINED_FPR_BOUND = "sustained_fpr_bound", Adversary, Probability, None, "";
    SUSTAINED_FPR_WITHIN_BOUND = "sustained_fpr_within_bound", Adversary, Other, None, "";
    T = "t", Membership, Other, None, "";
    TAG_BITS = "tag_bits", Parameter, Figure, Bits, "";
    TAU = "tau", Parameter, Other, None, "";
    THREADS = "threads", Bench, Other, None, "threads";
    THROUGHPUT_VS_MUTEX = "throughput_vs_mutex", Bench, Other, None, "";
    TIME_WINDOW_S = "time_window_s", Parameter, Other, None, "";
    TINYTABLE_BITS_PER_ELEMENT = "tinytable_bits_per_element", Memory, Other, BitsPerKey, "";
    TRUTH = "truth", Calibration, Signed, None, "";
    UNIVERSE = "universe", Parameter, Other, None, "";
    VERDICT = "verdict", Calibration, Other, None, "";
    WARMUP = "warmup", Membership, Other, None, "";
    WINDOW = "window", Parameter, Other, Insertions, "window W", Exact;
    WINDOW_TIME = "window_time", Parameter, Other, None, "";
    X = "x", Membership, Other, None, "";
    X_OVER_LIMIT = "x_over_limit", Bench, Other, None, "";
    X_OVER_MLP_LIMIT = "x_over_mlp_limit", Bench, Other, None, "";
    ZERO_FRACTION = "zero_fraction", Membership, Probability, None, "";
    ZIPF = "zipf", Parameter, Other, None, "Zipf exponent";
}
