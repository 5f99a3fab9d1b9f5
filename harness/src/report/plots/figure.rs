//! What a chart shows, apart from how it is drawn: every chart kind builds a
//! [`Figure`] of stacked [`Panel`]s, and `plots::render` draws it under one
//! set of rules (labels with units, interval bars, ranges from the data, a
//! style per series, the legend outside the data, notes for what cannot be
//! drawn).

/// One measured point, with its interval and the theory at its x.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Where it sits on the x axis.
    pub x: f64,
    /// The measured value.
    pub y: f64,
    /// The interval of y, if the figure has one.
    pub y_ci: Option<(f64, f64)>,
    /// The interval of x (a measured x, such as the FPR), if any.
    pub x_ci: Option<(f64, f64)>,
    /// What theory predicts for y at this point, if anything.
    pub theory: Option<f64>,
}

impl Point {
    /// A point with no interval and no theory.
    pub fn at(x: f64, y: f64) -> Point {
        Point {
            x,
            y,
            y_ci: None,
            x_ci: None,
            theory: None,
        }
    }
}

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Draw {
    /// Markers at the measurements, joined by a line.
    Joined,
    /// Markers at the measurements; the theory (if any) as a line.
    Marks,
    /// A line through the measurements, no markers (a rate over time).
    Line,
}

/// One series of a panel.
#[derive(Debug, Clone)]
pub struct Series {
    /// The name in the legend; series of one name share a style across
    /// panels.
    pub name: String,
    /// Its points, in any order (drawn in x order).
    pub points: Vec<Point>,
    /// How it is drawn.
    pub draw: Draw,
}

/// A black or grey reference line (a bound, y = x, y = 1).
#[derive(Debug, Clone)]
pub struct Reference {
    /// The legend's words for it ("" for no legend entry).
    pub name: String,
    /// The line's points, in x order.
    pub points: Vec<(f64, f64)>,
    /// Dashed rather than solid.
    pub dashed: bool,
}

/// One x-y panel.
#[derive(Debug, Clone)]
pub struct Panel {
    /// The x axis's words and unit.
    pub x_label: String,
    /// The y axis's words and unit.
    pub y_label: String,
    /// A logarithmic x axis.
    pub log_x: bool,
    /// A logarithmic y axis.
    pub log_y: bool,
    /// The measured series.
    pub series: Vec<Series>,
    /// Bounds and other reference lines.
    pub references: Vec<Reference>,
    /// Vertical marks (the end of a window).
    pub vlines: Vec<f64>,
    /// Height relative to the other panels.
    pub weight: f64,
    /// The y axis includes 0 on a linear axis.
    pub y_from_zero: bool,
    /// The y range covers the points (and references) but not every
    /// interval: a ratio to a theory of 10⁻¹² can have an interval of 10¹¹
    /// that would flatten every other point; such bars end at the edge.
    pub y_from_points: bool,
}

impl Panel {
    /// An empty panel with these axes.
    pub fn new(
        x_label: impl Into<String>,
        y_label: impl Into<String>,
        log_x: bool,
        log_y: bool,
    ) -> Panel {
        Panel {
            x_label: x_label.into(),
            y_label: y_label.into(),
            log_x,
            log_y,
            series: Vec::new(),
            references: Vec::new(),
            vlines: Vec::new(),
            weight: 1.0,
            y_from_zero: false,
            y_from_points: false,
        }
    }

    /// Whether any point carries a theory.
    pub fn has_theory(&self) -> bool {
        self.series
            .iter()
            .any(|s| s.points.iter().any(|p| p.theory.is_some()))
    }

    /// The ratio view of this panel: measured / theory (and its interval)
    /// at each point whose theory is positive, against the same x, with the
    /// line y = 1. Points whose theory is 0 or missing are counted in the
    /// returned number, for a note.
    pub fn ratio(&self, what: &str) -> (Panel, usize) {
        let mut p = Panel::new(
            self.x_label.clone(),
            format!("{what} / theory"),
            self.log_x,
            false,
        );
        let mut skipped = 0;
        for s in &self.series {
            let mut pts = Vec::new();
            for q in &s.points {
                match q.theory.filter(|t| *t > 0.0 && t.is_finite()) {
                    Some(t) => pts.push(Point {
                        x: q.x,
                        y: q.y / t,
                        y_ci: q.y_ci.map(|(lo, hi)| (lo / t, hi / t)),
                        x_ci: q.x_ci,
                        theory: None,
                    }),
                    None if q.theory.is_some() => skipped += 1,
                    None => {}
                }
            }
            if !pts.is_empty() {
                p.series.push(Series {
                    name: s.name.clone(),
                    points: pts,
                    draw: Draw::Marks,
                });
            }
        }
        let (x0, x1) = self.x_span();
        p.references.push(Reference {
            name: String::new(),
            points: vec![(x0, 1.0), (x1, 1.0)],
            dashed: false,
        });
        p.vlines = self.vlines.clone();
        p.weight = 0.45;
        p.y_from_points = true;
        // a ratio spread over more than a factor 20 reads better on a log axis
        let (lo, hi) = p
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|q| q.y))
            .filter(|v| *v > 0.0)
            .fold((f64::INFINITY, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
        p.log_y = hi / lo > 20.0;
        (p, skipped)
    }

    /// The smallest and largest x of the data.
    pub fn x_span(&self) -> (f64, f64) {
        span(
            self.series
                .iter()
                .flat_map(|s| s.points.iter().flat_map(x_values))
                .chain(
                    self.references
                        .iter()
                        .flat_map(|r| r.points.iter().map(|p| p.0)),
                )
                .chain(self.vlines.iter().copied()),
            self.log_x,
        )
    }

    /// The smallest and largest y of the data (measurements, intervals,
    /// theory and references).
    pub fn y_span(&self) -> (f64, f64) {
        let (lo, hi) = span(
            self.series
                .iter()
                .flat_map(|s| {
                    s.points
                        .iter()
                        .flat_map(|p| y_values(p).take(if self.y_from_points { 1 } else { 4 }))
                })
                .chain(
                    self.references
                        .iter()
                        .flat_map(|r| r.points.iter().map(|p| p.1)),
                ),
            self.log_y,
        );
        if self.y_from_zero && !self.log_y {
            (lo.min(0.0), hi)
        } else {
            (lo, hi)
        }
    }
}

fn x_values(p: &Point) -> impl Iterator<Item = f64> {
    let ci = p.x_ci.unwrap_or((p.x, p.x));
    [p.x, ci.0, ci.1].into_iter()
}

fn y_values(p: &Point) -> impl Iterator<Item = f64> {
    let ci = p.y_ci.unwrap_or((p.y, p.y));
    [p.y, ci.0, ci.1, p.theory.unwrap_or(p.y)].into_iter()
}

/// The range of the finite values (positive ones on a log axis); (1, 10)
/// or (0, 1) when there are none.
fn span(values: impl Iterator<Item = f64>, log: bool) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite() && (!log || *v > 0.0))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    match (lo.is_finite(), log) {
        (true, _) => (lo, hi),
        (false, true) => (1.0, 10.0),
        (false, false) => (0.0, 1.0),
    }
}

/// An axis range around `(lo, hi)` with room at both ends, never empty,
/// and finite whatever finite values it is given (an end of 1.797e308
/// padded to infinity made the tick generator loop 2^31 times).
pub fn padded((lo, hi): (f64, f64), log: bool) -> (f64, f64) {
    if log {
        let (l, h) = (lo.log10(), hi.log10());
        let pad = ((h - l) * 0.06).max(0.08);
        let lo2 = 10f64.powf(l - pad).max(f64::MIN_POSITIVE.min(lo));
        return (lo2, 10f64.powf(h + pad).min(f64::MAX));
    }
    let pad = if hi > lo {
        // each end scaled first: hi - lo overflows for ends near ±f64::MAX
        hi * 0.06 - lo * 0.06
    } else {
        lo.abs().max(1.0) * 0.1
    };
    let lo2 = if lo >= 0.0 {
        (lo - pad).max(0.0)
    } else {
        (lo - pad).max(-f64::MAX)
    };
    // a range that starts at 0 stays there
    let lo2 = if lo == 0.0 { 0.0 } else { lo2 };
    (lo2, (hi + pad).min(f64::MAX))
}

/// A whole chart: a title, panels stacked top to bottom (sharing their x
/// where they show the same x), and notes under the legend.
#[derive(Debug, Clone, Default)]
pub struct Figure {
    /// The title, above the panels.
    pub title: String,
    /// The panels, top to bottom.
    pub panels: Vec<Panel>,
    /// Names with no point on any panel: listed in the legend as such,
    /// never dropped silently.
    pub absent: Vec<String>,
    /// Lines of explanation under the legend.
    pub notes: Vec<String>,
    /// Confidence level of the interval bars.
    pub ci_level: f64,
}

impl Figure {
    /// A figure of one panel.
    pub fn new(title: impl Into<String>, panel: Panel) -> Figure {
        Figure {
            title: title.into(),
            panels: vec![panel],
            ci_level: 0.99,
            ..Figure::default()
        }
    }

    /// Adds the ratio view of panel `i` below it when it has a theory (the
    /// measured / theory view every theory-vs-measurement chart carries).
    pub fn with_ratio(mut self, i: usize, what: &str) -> Figure {
        if !self.panels[i].has_theory() {
            return self;
        }
        let (ratio, skipped) = self.panels[i].ratio(what);
        // a figure computed, not measured (memory from the sizing), equals
        // its theory everywhere: a ratio panel would be a flat line
        let all_one = ratio
            .series
            .iter()
            .flat_map(|s| &s.points)
            .all(|q| (q.y - 1.0).abs() < 1e-9 && q.y_ci.is_none());
        if all_one {
            self.notes
                .push(format!("{what} equals theory at every point"));
            return self;
        }
        if skipped > 0 {
            self.notes.push(format!(
                "{skipped} point(s) with a theory of 0 have no ratio (left out of the {what} / theory panel)"
            ));
        }
        if !ratio.series.is_empty() {
            self.panels.insert(i + 1, ratio);
        }
        self
    }

    /// Every series name, in order of first appearance: the style of a
    /// series is its position here.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for s in self.panels.iter().flat_map(|p| &p.series) {
            if !names.contains(&s.name) {
                names.push(s.name.clone());
            }
        }
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratio_divides_by_theory_and_counts_zero_theories() {
        let mut p = Panel::new("x", "y", false, true);
        p.series.push(Series {
            name: "a".into(),
            points: vec![
                Point {
                    y_ci: Some((1.0, 3.0)),
                    theory: Some(2.0),
                    ..Point::at(1.0, 2.0)
                },
                Point {
                    theory: Some(0.0),
                    ..Point::at(2.0, 0.0)
                },
                Point {
                    theory: Some(4.0),
                    ..Point::at(3.0, 5.0)
                },
            ],
            draw: Draw::Marks,
        });
        let (r, skipped) = p.ratio("FPR");
        assert_eq!(skipped, 1);
        let pts = &r.series[0].points;
        assert_eq!(pts.len(), 2);
        assert_eq!((pts[0].y, pts[0].y_ci), (1.0, Some((0.5, 1.5))));
        assert_eq!(pts[1].y, 1.25);
        assert!(!r.log_y);
        assert_eq!(r.y_label, "FPR / theory");
    }

    #[test]
    fn ranges_hold_every_value_and_never_collapse() {
        let mut p = Panel::new("x", "y", true, true);
        p.series.push(Series {
            name: "a".into(),
            points: vec![
                Point {
                    theory: Some(1e-8),
                    y_ci: Some((0.0, 3e-3)),
                    ..Point::at(10.0, 1e-3)
                },
                Point::at(1000.0, 0.0),
            ],
            draw: Draw::Marks,
        });
        assert_eq!(p.x_span(), (10.0, 1000.0));
        assert_eq!(p.y_span(), (1e-8, 3e-3));
        let (lo, hi) = padded(p.y_span(), true);
        assert!(lo < 1e-8 && hi > 3e-3);
        let (lo, hi) = padded((5.0, 5.0), false);
        assert!(lo < 5.0 && hi > 5.0);
        // the ends of the doubles stay finite and ordered (issue 55)
        for (x, log) in [
            ((1.0, f64::MAX), false),
            ((-f64::MAX, f64::MAX), false),
            ((5e-324, 1.0), true),
            ((1e-300, f64::MAX), true),
        ] {
            let (lo, hi) = padded(x, log);
            assert!(
                lo.is_finite() && hi.is_finite() && lo <= x.0 && hi >= x.1,
                "{x:?}"
            );
            assert!(!log || lo > 0.0, "{x:?}");
        }
        assert_eq!(padded((0.0, 1.0), false).0, 0.0);
    }
}
