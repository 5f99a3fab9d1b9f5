//! P(yes | age): theory lines and measured points, and their ratio.

use super::figure::{Draw, Figure, Panel, Point, Series};
use super::{ci, finite, label, title, NO_ROWS};
use crate::metrics::columns::col;
use crate::metrics::Part;
use crate::metrics::{Row, Value};
use crate::spec::PlotSpec;
use std::collections::BTreeMap;

/// P(yes | age) at the worst phase, one series per point: against age / w
/// when every design guarantees its window, else against age.
pub(super) fn age_profile(p: &PlotSpec, profile: &[Row]) -> anyhow::Result<Figure> {
    let relative = profile
        .iter()
        .all(|r| matches!(r.get(col::GUARANTEED.name()), Some(Value::Bool(true))));
    let xc = if relative {
        "age_mid_over_w"
    } else {
        "age_mid"
    };
    let mut groups: BTreeMap<u64, Series> = BTreeMap::new();
    for r in profile {
        if r.get(col::PHASE.name()).map(|v| v.to_string()).as_deref() != Some("worst") {
            continue;
        }
        let (Some(point), Some(x), Some(y)) = (
            finite(r, col::POINT.name()),
            finite(r, xc),
            finite(r, col::P_YES.name()),
        ) else {
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
                y_ci: ci(r, col::P_YES.name()),
                theory: finite(r, &Part::Theory.of(col::P_YES.name())),
                ..Point::at(x, y)
            });
    }
    if groups.is_empty() {
        return Err(anyhow::anyhow!(
            "plot age_profile: {NO_ROWS} of the profile (add \"profile\" to metrics)"
        ));
    }
    let x_label = if relative {
        "age / window W (the window ends at 1)"
    } else {
        "age (insertions since the key arrived)"
    };
    let log_y = p.log_y.unwrap_or(true);
    let mut main = Panel::new(x_label, "P(reported present)", false, log_y);
    main.y_from_zero = !log_y;
    main.series = groups.into_values().collect();
    if relative {
        main.vlines.push(1.0);
    }
    let fig = Figure::new(
        title(
            p,
            "Probability a key is reported present, by age (worst phase)",
        ),
        main,
    );
    Ok(fig.with_ratio(0, "measured P(yes)"))
}
