//! Measured worst-phase FPR against theory, and the ratio of the two.

use super::figure::{Draw, Figure, Panel, Point, Reference, Series};
use super::{ci, finite, title, NO_ROWS};
use crate::metrics::columns::col;
use crate::metrics::Part;
use crate::metrics::Row;
use crate::spec::PlotSpec;

const X: &str = "predicted false-positive rate (worst phase)";

/// Measured worst-phase FPR against this repository's theory and against
/// the paper's formula, log-log, with y = x; below, measured / predicted,
/// where a few per cent are visible that the log-log panel hides.
pub(super) fn fpr_vs_theory(p: &PlotSpec, rows: &[Row]) -> anyhow::Result<Figure> {
    let mut theory = Vec::new();
    let mut paper = Vec::new();
    for r in rows {
        let (Some(t), Some(y)) = (
            finite(r, &Part::Theory.of(col::FPR.name())),
            finite(r, col::FPR.name()),
        ) else {
            continue;
        };
        let y_ci = ci(r, col::FPR.name());
        theory.push(Point {
            y_ci,
            ..Point::at(t, y)
        });
        if let Some(f) = finite(r, col::FPR_PAPER_FORMULA.name()) {
            paper.push(Point::at(f, y));
        }
    }
    if theory.is_empty() {
        return Err(anyhow::anyhow!(
            "plot fpr_vs_theory: {NO_ROWS} with fpr and fpr_theory (add \"fpr\" to metrics)"
        ));
    }
    let mut main = Panel::new(X, "measured false-positive rate (worst phase)", true, true);
    main.series.push(Series {
        name: "against bloomlab's theory".into(),
        points: theory,
        draw: Draw::Marks,
    });
    if !paper.is_empty() {
        main.series.push(Series {
            name: "against the paper's formula".into(),
            points: paper,
            draw: Draw::Marks,
        });
    }
    let (lo, hi) = (main.x_span(), main.y_span());
    let (lo, hi) = (lo.0.min(hi.0), lo.1.max(hi.1));
    main.references.push(Reference {
        name: "measured = predicted".into(),
        points: vec![(lo, lo), (hi, hi)],
        dashed: false,
    });
    // the ratio to the prediction, each point's own x
    let mut predicted = main.clone();
    for q in predicted
        .series
        .iter_mut()
        .flat_map(|s| s.points.iter_mut())
    {
        q.theory = Some(q.x);
    }
    let (mut ratio, skipped) = predicted.ratio("measured");
    ratio.y_label = "measured / predicted".into();
    let mut fig = Figure::new(
        title(p, "Measured against predicted false-positive rate"),
        main,
    );
    fig.panels.push(ratio);
    if skipped > 0 {
        fig.notes
            .push(format!("{skipped} point(s) predicted at 0 have no ratio"));
    }
    Ok(fig)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Value;

    /// A paper-formula point far below every measurement stays on the
    /// chart (it was clipped onto the edge), and the ratio panel holds
    /// measured / predicted for both predictions.
    #[test]
    fn no_point_is_clipped_and_ratios_are_drawn() {
        let mut r = Row::default();
        r.push("design", Value::Text("apbf".into()));
        for (c, v) in [
            ("fpr", 1e-3),
            ("fpr_ci_low", 0.9e-3),
            ("fpr_ci_high", 1.1e-3),
            ("fpr_theory", 1.02e-3),
            ("fpr_paper_formula", 1e-8),
        ] {
            r.num(c, v);
        }
        let p: PlotSpec = toml::from_str("kind = \"fpr_vs_theory\"").unwrap();
        let fig = fpr_vs_theory(&p, &[r]).unwrap();
        assert!(fig.panels[0].x_span().0 <= 1e-8);
        let ratio = &fig.panels[1];
        let r: Vec<f64> = ratio.series.iter().map(|s| s.points[0].y).collect();
        assert!((r[0] - 1e-3 / 1.02e-3).abs() < 1e-12);
        assert!((r[1] - 1e5).abs() < 1e-6);
        assert!(ratio.log_y, "a spread of 10^5 is drawn on a log axis");
        let svg = super::super::svg_of(&fig);
        assert!(svg.contains("against the paper"));
        assert!(
            svg.contains("10⁻⁸") || svg.contains("10⁻⁹"),
            "log ticks 10ⁿ"
        );
    }
}
