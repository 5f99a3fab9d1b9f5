//! Theory columns computed by the harness for any design, rather than by
//! the design itself (named in a spec's `theory_columns`).

use crate::designs;
use crate::metrics::columns::col;
use crate::metrics::Row;

/// Theory columns any sliding design has, derived from its window, its
/// theory FPR and the measured memory: the Naor-Yogev space bound at slack
/// m = n (the least any filter of that window and FPR needs, whatever slack
/// up to n it allows) per element, and the memory over it.
pub(super) fn derived(name: &str, row: &Row, built: &designs::Built) -> Option<f64> {
    let w = built.geometry.window;
    let eps = built.theory.get(col::FPR).filter(|&e| e > 0.0 && e < 1.0)?;
    if w == 0 {
        return None;
    }
    let bound = bloomlab_filters::naor_yogev::theory::space_bound_bits(w, w, eps);
    match name {
        "bound_mn_per_element" => Some(bound / w as f64),
        "memory_over_bound_mn" => Some(row.get_num(col::MEMORY_BITS)? / bound),
        _ => None,
    }
}
