//! Zero fraction and FPR against insertions from empty, each with its
//! ratio to theory.

use super::figure::{Draw, Figure, Panel, Point, Series};
use super::{ci, finite, label, title};
use crate::metrics::columns::col;
use crate::metrics::Part;
use crate::metrics::Row;
use crate::spec::PlotSpec;
use std::collections::BTreeMap;

const X: &str = "insertions since the filter was empty";

/// Zero fraction (top) and FPR (below), theory lines and measured points,
/// each followed by its measured / theory panel.
pub(super) fn convergence(p: &PlotSpec, rows: &[Row]) -> anyhow::Result<Figure> {
    let mut panels = Vec::new();
    for (col, what) in [
        (col::ZERO_FRACTION.name(), "share of zero cells"),
        (col::FPR.name(), "false-positive rate"),
    ] {
        let mut groups: BTreeMap<u64, Series> = BTreeMap::new();
        for r in rows {
            let (Some(point), Some(t), Some(y)) =
                (finite(r, col::POINT.name()), finite(r, "t"), finite(r, col))
            else {
                continue;
            };
            groups
                .entry(point as u64)
                .or_insert_with(|| Series {
                    name: label(r),
                    points: Vec::new(),
                    draw: Draw::Marks,
                })
                .points
                .push(Point {
                    y_ci: ci(r, col),
                    theory: finite(r, &Part::Theory.of(col)),
                    ..Point::at(t.max(1.0), y)
                });
        }
        let mut panel = Panel::new(X, what, true, false);
        panel.y_from_zero = true;
        panel.series = groups.into_values().collect();
        panels.push(panel);
    }
    if panels[0].series.is_empty() {
        return Err(anyhow::anyhow!(
            "plot convergence: no convergence rows (add \"convergence\" to metrics)"
        ));
    }
    let mut fig = Figure::new(
        title(p, "Convergence from an empty filter"),
        panels.remove(0),
    )
    .with_ratio(0, "share of zero cells");
    fig.panels.push(panels.remove(0));
    let last = fig.panels.len() - 1;
    for panel in fig.panels.iter_mut() {
        panel.weight *= 0.8;
    }
    Ok(fig.with_ratio(last, "FPR"))
}
