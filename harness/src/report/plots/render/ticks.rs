//! Tick labels: 10ⁿ on log axes, superscripts in titles.

/// The tick labels of an axis over `(lo, hi)`: see [`axis_tick`].
pub(super) fn ticker((lo, hi): (f64, f64), log: bool) -> impl Fn(&f64) -> String {
    let decades = if log { (hi / lo).log10() } else { 0.0 };
    // a log axis within 0.01..10⁴ reads best in plain numbers (10, 20, 50)
    let plain_log = log && lo >= 1e-2 && hi <= 1e4;
    move |v: &f64| axis_tick(*v, log, decades, plain_log)
}

/// A tick label on an axis spanning `decades` (log axes): between the
/// powers of ten only 2× and 5× are labelled, and only on an axis of less
/// than two decades (labels 2×10⁸ to 9×10⁸ ran into each other), all of
/// them on an axis of less than one; `plain` writes them as decimals.
fn axis_tick(v: f64, log: bool, decades: f64, plain_log: bool) -> String {
    let label = |v: f64| if plain_log { plain(v) } else { tick(v, log) };
    if !log || v <= 0.0 || decades < 1.0 {
        return label(v);
    }
    let m = v / 10f64.powf(v.log10().floor());
    let near = |t: f64| (m - t).abs() < 1e-6 * t;
    if near(1.0) || near(10.0) || (decades < 2.0 && (near(2.0) || near(5.0))) {
        label(v)
    } else {
        String::new()
    }
}

/// A tick label: 10ⁿ (or m×10ⁿ) on a log axis and for very large or small
/// values, else a plain decimal of at most six places (one axis never mixes
/// 10⁻³ with 0.002).
pub fn tick(v: f64, log: bool) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let e = v.abs().log10().floor();
    let m = v / 10f64.powf(e);
    if log || v.abs() >= 1e5 || v.abs() < 1e-3 {
        let m = (m * 100.0).round() / 100.0;
        let (m, e) = if m.abs() >= 10.0 {
            (m / 10.0, e + 1.0)
        } else {
            (m, e)
        };
        if (m - 1.0).abs() < 1e-9 {
            return format!("10{}", superscript(e as i64));
        }
        return format!("{}×10{}", plain(m), superscript(e as i64));
    }
    plain(v)
}

/// "2^20" written 2²⁰ (titles name windows so).
pub(super) fn powers(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let digits_follow = chars
            .peek()
            .is_some_and(|d| d.is_ascii_digit() || *d == '-');
        if c != '^' || !digits_follow {
            out.push(c);
            continue;
        }
        let mut n = String::new();
        while let Some(d) = chars.peek().copied() {
            if d.is_ascii_digit() || (d == '-' && n.is_empty()) {
                n.push(d);
                chars.next();
            } else {
                break;
            }
        }
        match n.parse::<i64>() {
            Ok(v) => out += &superscript(v),
            Err(_) => {
                out.push('^');
                out += &n;
            }
        }
    }
    out
}

fn plain(v: f64) -> String {
    let t = format!("{v:.6}");
    t.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn superscript(n: i64) -> String {
    n.to_string()
        .chars()
        .map(|c| match c {
            '-' => '⁻',
            '0' => '⁰',
            '1' => '¹',
            '2' => '²',
            '3' => '³',
            '4' => '⁴',
            '5' => '⁵',
            '6' => '⁶',
            '7' => '⁷',
            '8' => '⁸',
            _ => '⁹',
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_powers_of_ten_on_log_axes() {
        assert_eq!(tick(1e-3, true), "10⁻³");
        assert_eq!(tick(1e6, true), "10⁶");
        assert_eq!(tick(1.0, true), "10⁰");
        assert_eq!(tick(2e-5, true), "2×10⁻⁵");
        assert_eq!(tick(0.5, true), "5×10⁻¹");
        assert_eq!(axis_tick(0.5, true, 0.8, true), "0.5");
        assert_eq!(axis_tick(2e-3, true, 1.5, false), "2×10⁻³");
        assert_eq!(tick(1.5, false), "1.5");
        assert_eq!(tick(250000.0, false), "2.5×10⁵");
        assert_eq!(tick(0.0, false), "0");
        assert_eq!(axis_tick(3e8, true, 1.2, false), "");
        assert_eq!(axis_tick(5e8, true, 1.2, false), "5×10⁸");
        assert_eq!(axis_tick(5e8, true, 4.0, false), "");
        assert_eq!(axis_tick(1e9, true, 4.0, false), "10⁹");
        assert_eq!(axis_tick(3e8, true, 0.5, false), "3×10⁸");
        assert_eq!(axis_tick(200.0, true, 1.5, true), "200");
        assert_eq!(axis_tick(100.0, true, 1.5, true), "100");
        assert_eq!(powers("W = 2^16, n = 2^-3, a^b"), "W = 2¹⁶, n = 2⁻³, a^b");
    }
}
