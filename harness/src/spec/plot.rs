//! How a spec asks for its charts and its comparison tables.

use serde::Deserialize;
use std::collections::BTreeMap;

/// A chart to render.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlotSpec {
    /// What to draw.
    pub kind: PlotKind,
    /// Output file stem (defaults to the experiment name, suffixed when there
    /// are several plots).
    #[serde(default)]
    pub file: Option<String>,
    /// Logarithmic y axis (age_profile default true, xy default false).
    #[serde(default)]
    pub log_y: Option<bool>,
    /// xy: column on the x axis.
    #[serde(default)]
    pub x: Option<String>,
    /// xy: column on the y axis; timeline: "memory_bits" draws the
    /// filter's size at each moment instead of the FPR (with
    /// `[time] memory_over_time = true`).
    #[serde(default)]
    pub y: Option<String>,
    /// xy: one line per value of this column (default "design").
    #[serde(default)]
    pub series: Option<String>,
    /// xy, timeline, age_time: only rows whose columns equal these values.
    #[serde(default)]
    pub filter: BTreeMap<String, f64>,
    /// xy, timeline, age_time: only the rows of these designs (default:
    /// every design).
    #[serde(default)]
    pub designs: Vec<String>,
    /// timeline, age_time: columns whose values the legend adds to each
    /// point's design and arrival parameters (e.g. `target_peak_rate`).
    #[serde(default)]
    pub label: Vec<String>,
    /// xy, timeline, age_time: only rows without these columns (the rows
    /// of the sweeps that do not set them, e.g. `target_queries` to leave
    /// out a block that sweeps the query count).
    #[serde(default)]
    pub without: Vec<String>,
    /// xy: logarithmic x axis.
    #[serde(default)]
    pub log_x: bool,
    /// xy: a reference line; "info_bound" draws y = log2(1/x), the
    /// information-theoretic bits per element at FPR x.
    #[serde(default)]
    pub bound: Option<String>,
    /// xy: a column drawn as a black reference line through its values at
    /// each x (e.g. `space_bound_per_element`, a lower bound that depends on
    /// the row's parameters).
    #[serde(default)]
    pub reference: Option<String>,
    /// timeline: only the moments in this range of time (seconds).
    #[serde(default)]
    pub x_range: Option<[f64; 2]>,
    /// xy, timeline, age_time: chart title (default `"<y> vs <x>"` for xy).
    #[serde(default)]
    pub title: Option<String>,
}

/// Chart kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlotKind {
    /// Measured worst-phase FPR (with CI) against theory, log-log, with the
    /// paper-formula values beside.
    FprVsTheory,
    /// P(yes | age), theory lines and measured points: against age / w when
    /// every design guarantees a window, else against age.
    AgeProfile,
    /// Zero fraction and FPR against insertions from empty, theory lines and
    /// measured points.
    Convergence,
    /// Any two result columns, one line per series (see `x`, `y`, `series`,
    /// `filter`, `log_x`, `log_y`, `bound`).
    Xy,
    /// The arrival rate and the FPR over time of a `timeline` run, theory
    /// lines and measured points, one series per point (`filter` selects
    /// points, `title` names the chart).
    Timeline,
    /// P(yes) against age / T of a `timeline` run, theory lines and
    /// measured points (`filter`, `title` as for `timeline`).
    AgeTime,
}

/// How to compare designs at equal measured `x`: for every row of the
/// reference design, every other design's `y` interpolated at that row's
/// `x`, log-linearly between the two of its rows whose `x` bracket it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EqualAt {
    /// The design whose rows give the `x` values.
    pub reference: String,
    /// The measured column held equal (e.g. `fpr`).
    pub x: String,
    /// The column compared (e.g. `bits_per_element`).
    pub y: String,
    /// One comparison per distinct combination of these columns.
    #[serde(default)]
    pub group_by: Vec<String>,
}

/// How to render adoption tables.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Adoption {
    /// One table per distinct combination of these columns.
    pub group_by: Vec<String>,
    /// Columns where the smallest value is best (marked in bold).
    #[serde(default)]
    pub lower_is_better: Vec<String>,
}

impl PlotSpec {
    /// Checks plot `n` (from 1); `files` holds the file names of the plots
    /// before it.
    pub(super) fn check(
        &self,
        n: usize,
        files: &mut std::collections::BTreeSet<String>,
    ) -> anyhow::Result<()> {
        if self.kind == PlotKind::Xy && (self.x.is_none() || self.y.is_none()) {
            return Err(anyhow::anyhow!("plot {}: kind xy needs x and y", n));
        }
        if self.kind == PlotKind::Timeline {
            if let Some(y) = self
                .y
                .as_deref()
                .filter(|y| *y != "fpr" && *y != "memory_bits")
            {
                return Err(anyhow::anyhow!(
                    "plot {n}: a timeline draws y = \"fpr\" (the default) or \"memory_bits\", not {y:?}"
                ));
            }
        }
        if let Some([lo, hi]) = self.x_range {
            if !(lo.is_finite() && hi.is_finite() && lo < hi) {
                return Err(anyhow::anyhow!(
                    "plot {}: x_range [{lo}, {hi}] must be two finite numbers, the first below the second",
                    n
                ));
            }
        }
        if let Some(b) = self.bound.as_deref().filter(|b| *b != "info_bound") {
            return Err(anyhow::anyhow!(
                "plot {}: unknown bound {b:?} (known: info_bound)",
                n
            ));
        }
        if let Some(f) = &self.file {
            // a file stem inside the plots directory, nothing else
            let plain = !f.is_empty()
                && !f.starts_with('.')
                && !f.contains("..")
                && f.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
            if !plain {
                return Err(anyhow::anyhow!(
                    "plot {}: file {f:?} must be a plain name (letters, digits, _, - and inner dots), written under the plots directory",
                    n
                ));
            }
            if !files.insert(f.clone()) {
                return Err(anyhow::anyhow!(
                    "plot {}: file {f:?} is used by an earlier plot too",
                    n
                ));
            }
        }
        Ok(())
    }
}
