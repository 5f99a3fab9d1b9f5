//! How a series looks (colour, marker, line pattern) and the drawing of
//! markers and patterned lines in pixels.

use super::super::err;
use plotters::coord::Shift;
use plotters::prelude::*;

/// Okabe-Ito's seven (without its yellow, too pale on white), then three
/// darker colours of Paul Tol's muted scheme (indigo, wine, olive): ten
/// colours apart for the common colour-vision deficiencies, so that a chart
/// of up to ten series never repeats one.
const PALETTE: [RGBColor; 10] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(230, 159, 0),
    RGBColor(0, 0, 0),
    RGBColor(51, 34, 136),
    RGBColor(136, 34, 85),
    RGBColor(153, 153, 51),
];

/// Marker shapes, cycled with a period prime to the palette's (70 series
/// before a colour and a shape meet again).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    Circle,
    Square,
    Triangle,
    Diamond,
    TriangleDown,
    Cross,
    Plus,
}
const SHAPES: [Shape; 7] = [
    Shape::Circle,
    Shape::Square,
    Shape::Triangle,
    Shape::Diamond,
    Shape::TriangleDown,
    Shape::Cross,
    Shape::Plus,
];

/// Line patterns (on, off pixels): solid for the first ten series.
const DASHES: [Option<(f64, f64)>; 3] = [None, Some((10.0, 6.0)), Some((3.0, 4.0))];

/// How series number `i` looks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Style {
    pub color: RGBColor,
    pub shape: Shape,
    pub filled: bool,
    pub dash: Option<(f64, f64)>,
}

pub(super) fn style(i: usize) -> Style {
    let round = i / PALETTE.len();
    Style {
        color: PALETTE[i % PALETTE.len()],
        shape: SHAPES[i % SHAPES.len()],
        filled: round.is_multiple_of(2),
        dash: DASHES[round % DASHES.len()],
    }
}

/// A polyline, solid or in an (on, off) pattern of pixels.
pub(super) fn polyline<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    pts: &[(i32, i32)],
    dash: Option<(f64, f64)>,
    st: ShapeStyle,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    if pts.len() < 2 {
        return Ok(());
    }
    let Some((on, off)) = dash else {
        return root.draw(&PathElement::new(pts.to_vec(), st)).map_err(err);
    };
    // walk the line, drawing the "on" stretches
    let (mut drawing, mut left) = (true, on);
    for w in pts.windows(2) {
        let (a, b) = (
            (w[0].0 as f64, w[0].1 as f64),
            (w[1].0 as f64, w[1].1 as f64),
        );
        let len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
        let mut at = 0.0;
        while at < len {
            let step = left.min(len - at);
            if drawing {
                let p0 = (a.0 + (b.0 - a.0) * at / len, a.1 + (b.1 - a.1) * at / len);
                let t = at + step;
                let p1 = (a.0 + (b.0 - a.0) * t / len, a.1 + (b.1 - a.1) * t / len);
                root.draw(&PathElement::new(
                    [(p0.0 as i32, p0.1 as i32), (p1.0 as i32, p1.1 as i32)],
                    st,
                ))
                .map_err(err)?;
            }
            at += step;
            left -= step;
            if left <= 0.0 {
                drawing = !drawing;
                left = if drawing { on } else { off };
            }
        }
    }
    Ok(())
}

/// A marker of style `st` centred at pixel `c`.
pub(super) fn marker<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    c: (i32, i32),
    st: Style,
    r: i32,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let fill = if st.filled {
        st.color.filled()
    } else {
        st.color.stroke_width(2)
    };
    let poly = |v: &[(i32, i32)]| -> Vec<(i32, i32)> {
        v.iter().map(|d| (c.0 + d.0, c.1 + d.1)).collect()
    };
    let shape: Vec<(i32, i32)> = match st.shape {
        Shape::Circle => {
            return root.draw(&Circle::new(c, r, fill)).map_err(err);
        }
        Shape::Cross | Shape::Plus => {
            let segs = if st.shape == Shape::Cross {
                [[(-r, -r), (r, r)], [(-r, r), (r, -r)]]
            } else {
                [[(-r - 1, 0), (r + 1, 0)], [(0, -r - 1), (0, r + 1)]]
            };
            for seg in segs {
                root.draw(&PathElement::new(poly(&seg), st.color.stroke_width(2)))
                    .map_err(err)?;
            }
            return Ok(());
        }
        Shape::Square => vec![(-r, -r), (r, -r), (r, r), (-r, r)],
        Shape::Triangle => vec![(0, -r - 1), (r + 1, r), (-r - 1, r)],
        Shape::TriangleDown => vec![(0, r + 1), (r + 1, -r), (-r - 1, -r)],
        Shape::Diamond => vec![(0, -r - 1), (r + 1, 0), (0, r + 1), (-r - 1, 0)],
    };
    let pts = poly(&shape);
    if st.filled {
        root.draw(&Polygon::new(pts, fill)).map_err(err)
    } else {
        let mut closed = pts.clone();
        closed.push(pts[0]);
        root.draw(&PathElement::new(closed, fill)).map_err(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No two of the first 70 series look the same, and the first ten
    /// differ in colour; the first seven in shape too (apart in greyscale).
    #[test]
    fn styles_are_distinct() {
        for i in 0..70 {
            for j in 0..i {
                assert_ne!(style(i), style(j), "{i} {j}");
            }
        }
        for i in 0..10 {
            for j in 0..i {
                assert_ne!(style(i).color, style(j).color);
                if i < 7 {
                    assert_ne!(style(i).shape, style(j).shape);
                }
            }
        }
    }
}
