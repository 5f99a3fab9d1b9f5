//! Tick labels: 10ⁿ on log axes, superscripts in titles.

/// The tick labels of an axis over `(lo, hi)`: a log axis within 0.01..10⁴
/// in plain numbers (10, 20, 50), any other in 10ⁿ and m×10ⁿ, a linear one
/// by [`tick`].
pub(super) fn ticker((lo, hi): (f64, f64), log: bool) -> impl Fn(&f64) -> String {
    let plain_log = log && lo >= 1e-2 && hi <= 1e4;
    move |v: &f64| {
        if plain_log {
            plain(*v)
        } else {
            tick(*v, log)
        }
    }
}

/// The ticks of a log axis over `(lo, hi)` (plotters' own were few under
/// two decades: an axis of 13 to 600 ns had 100 to 500 alone): every
/// m×10ⁿ under a decade, 1, 2 and 5×10ⁿ under three, the powers of ten
/// above, every s-th one so that there are at most 13. Computed in closed
/// form over the exponents, so an axis of 5e-324 to 1.8e308 has a dozen
/// ticks, and one that is not a finite positive range has none.
pub(super) fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite() && lo > 0.0 && hi >= lo) {
        return Vec::new();
    }
    let decades = (hi / lo).log10();
    let ms: &[f64] = if decades < 1.0 {
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
    } else if decades < 3.0 {
        &[1.0, 2.0, 5.0]
    } else {
        &[1.0]
    };
    // both within ±325: the exponents of finite positive doubles
    let (e0, e1) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let step = if decades > 12.0 {
        ((e1 - e0) as f64 / 12.0).ceil().max(2.0) as i32
    } else {
        1
    };
    let mut out = Vec::new();
    let first = e0 + (step - e0.rem_euclid(step)) % step;
    for e in (first..=e1).step_by(step as usize) {
        for m in ms {
            let v = m * 10f64.powi(e);
            if v >= lo && v <= hi {
                out.push(v);
            }
        }
    }
    out
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
        assert_eq!(ticker((0.1, 5.0), true)(&0.5), "0.5");
        assert_eq!(tick(1.5, false), "1.5");
        assert_eq!(tick(250000.0, false), "2.5×10⁵");
        assert_eq!(tick(0.0, false), "0");
        assert_eq!(ticker((100.0, 1000.0), true)(&200.0), "200");
        assert_eq!(ticker((1e-5, 1.0), true)(&2e-3), "2×10⁻³");
        assert_eq!(
            log_ticks(13.0, 600.0),
            vec![20.0, 50.0, 100.0, 200.0, 500.0]
        );
        assert_eq!(log_ticks(1.2e6, 4.1e6), vec![2e6, 3e6, 4e6]);
        assert_eq!(log_ticks(1e-9, 1.0).len(), 10);
        assert_eq!(log_ticks(1e-20, 1.0).len(), 11);
        // the ends of the doubles: a dozen ticks at once, none of nothing
        assert!((1..=13).contains(&log_ticks(5e-324, f64::MAX).len()));
        assert!((1..=13).contains(&log_ticks(1e-300, 0.99).len()));
        assert!(log_ticks(1.0, f64::INFINITY).is_empty());
        assert!(log_ticks(0.0, 1.0).is_empty());
        assert_eq!(powers("W = 2^16, n = 2^-3, a^b"), "W = 2¹⁶, n = 2⁻³, a^b");
    }
}
