//! Result rows: ordered (column, value) pairs, serialized in order.

use super::columns::{self, col, Col, Kind, Resolved};
use super::figure::Part;
use std::fmt;

/// A cell of a result row.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A number.
    Num(f64),
    /// A count.
    Int(u64),
    /// A flag.
    Bool(bool),
    /// Text.
    Text(String),
}

impl Value {
    /// The numeric value, if any.
    pub fn num(&self) -> Option<f64> {
        match *self {
            Value::Num(x) => Some(x),
            Value::Int(x) => Some(x as f64),
            _ => None,
        }
    }
}

impl Value {
    /// A parameter as given (a spec value is a number): a whole number in
    /// 0..2^53 as a count, anything else as a number.
    pub fn from_param(v: f64) -> Value {
        if v >= 0.0 && v.fract() == 0.0 && v < 2f64.powi(53) {
            Value::Int(v as u64)
        } else {
            Value::Num(v)
        }
    }

    /// As JSON: counts stay integers, non-finite numbers become null.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Num(x) => {
                serde_json::Number::from_f64(*x).map_or(serde_json::Value::Null, Into::into)
            }
            Value::Int(x) => (*x).into(),
            Value::Bool(b) => (*b).into(),
            Value::Text(s) => s.clone().into(),
        }
    }
}

impl serde::Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

impl serde::Serialize for Row {
    /// A row serializes as a map, columns in order.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Num(x) if x.is_nan() => write!(f, ""),
            Value::Num(x) => write!(f, "{x}"),
            Value::Int(x) => write!(f, "{x}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Text(s) => write!(f, "{s}"),
        }
    }
}

/// One result row: ordered (column, value) pairs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Row(pub Vec<(String, Value)>);

impl Row {
    /// Appends a column.
    pub fn push(&mut self, name: impl Into<String>, v: Value) {
        self.0.push((name.into(), v));
    }
    /// Appends a number.
    pub fn num(&mut self, name: impl Into<String>, v: f64) {
        self.push(name, Value::Num(v));
    }
    /// Looks a column up.
    pub fn get(&self, name: impl AsRef<str>) -> Option<&Value> {
        let name = name.as_ref();
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
    /// A numeric column.
    pub fn get_num(&self, name: impl AsRef<str>) -> Option<f64> {
        self.get(name).and_then(Value::num)
    }

    /// Checks every number against what its column can hold (see
    /// [`check_cell`]); the error names the first that cannot.
    pub fn check(&self) -> Result<(), String> {
        self.0.iter().try_for_each(|(n, v)| check_cell(n, v))?;
        // an interval's low end is not above its high end
        for (n, v) in &self.0 {
            let Some(base) = n.strip_suffix(Part::CiLow.suffix()) else {
                continue;
            };
            let (Some(lo), Some(hi)) = (v.num(), self.get_num(Part::CiHigh.of(base))) else {
                continue;
            };
            if lo > hi {
                return Err(format!(
                    "column {base}: interval [{lo}, {hi}] has its low end above its high end"
                ));
            }
            // and it holds its own estimate: an interval built from other
            // data than its estimate (per-round rates beside pooled
            // queries, say) would otherwise drift off it unseen
            let slack = 1e-9 * lo.abs().max(hi.abs()).max(f64::MIN_POSITIVE);
            if let Some(x) = self.get_num(base).filter(|x| !x.is_nan()) {
                if x < lo - slack || x > hi + slack {
                    return Err(format!(
                        "column {base}: its estimate {x} lies outside its own interval [{lo}, {hi}]"
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The registered column behind `name` and the part of it `name` is
/// (`None` for the figure itself), where the part holds numbers on the
/// figure's scale: its interval's ends and its theory.
fn on_scale(name: &str) -> Option<(Kind, bool)> {
    match columns::resolve(name)? {
        Resolved::Whole(c) => Some((c.kind, true)),
        Resolved::Part(c, Part::CiLow | Part::CiHigh | Part::Theory) => Some((c.kind, true)),
        Resolved::Part(c, _) | Resolved::Target(c) => Some((c.kind, false)),
    }
}

/// Whether a column holds a probability: its value, interval bounds and
/// theory lie in [0, 1] ([`Kind::Probability`] in the registry).
fn is_probability(name: &str) -> bool {
    on_scale(name) == Some((Kind::Probability, true))
}

/// Whether a column is a measured or theoretical figure, which is always a
/// number: a probability, a signed error, a figure of the registry (a
/// timing, a count of bits or lines), an interval's end or a theory.
fn is_figure(name: &str) -> bool {
    match columns::resolve(name) {
        Some(Resolved::Whole(c)) => c.kind != Kind::Other,
        Some(Resolved::Part(_, p)) => matches!(p, Part::CiLow | Part::CiHigh | Part::Theory),
        _ => false,
    }
}

/// Whether a column may be negative: a signed error (an estimate minus the
/// truth), its interval and its theory.
fn is_signed(name: &str) -> bool {
    on_scale(name) == Some((Kind::Signed, true))
}

/// Checks one cell: a number is finite (NaN stands for "no value", a blank
/// cell), a probability lies in [0, 1], and only a signed error is
/// negative. Every figure that leaves bloomlab passes this, on the way out
/// of a run and on the way into `merge`.
pub fn check_cell(name: &str, v: &Value) -> Result<(), String> {
    if let Value::Text(t) = v {
        // a figure's column holds a number: a part whose checksum was made
        // again over `fpr = "abc"` used to merge into the results
        return if is_figure(name) {
            Err(format!(
                "column {name} = {t:?} is text where a number belongs"
            ))
        } else {
            Ok(())
        };
    }
    let Value::Num(x) = *v else {
        return Ok(());
    };
    if x.is_nan() {
        return Ok(());
    }
    if x.is_infinite() {
        return Err(format!("column {name} = {x} is not a finite number"));
    }
    if is_probability(name) && !(0.0..=1.0).contains(&x) {
        return Err(format!(
            "column {name} = {x} is a probability outside [0, 1]"
        ));
    }
    if x < 0.0 && !is_signed(name) {
        return Err(format!("column {name} = {x} cannot be negative"));
    }
    Ok(())
}

/// The tables a run writes: its results, one row per point, and the side
/// tables of the passes that have them. The one list of them: the writer,
/// the router of a point's side rows, `check` and its row keys all read
/// this enum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TableKind {
    /// One row per point: `<name>.csv`.
    Results,
    /// P(yes | age) per point x phase x bucket: `<name>_profile.csv`.
    Profile,
    /// The convergence curve per point x insertions: `<name>_convergence.csv`.
    Convergence,
    /// FPR over time per point x moment: `<name>_timeline.csv`.
    Timeline,
    /// P(yes | age in seconds) per point x bucket: `<name>_age_time.csv`.
    AgeTime,
}

/// The column that carries a side row's table in checkpoints and part
/// files (the storage form of [`TableKind`]; removed before writing).
const TABLE_TAG: &str = "table";

impl TableKind {
    /// Every table, the results first.
    pub const ALL: [TableKind; 5] = [
        TableKind::Results,
        TableKind::Profile,
        TableKind::Convergence,
        TableKind::Timeline,
        TableKind::AgeTime,
    ];

    /// The suffix of the table's file name (`<name>_<suffix>.csv`), ""
    /// for the results.
    pub fn suffix(self) -> &'static str {
        match self {
            TableKind::Results => "",
            TableKind::Profile => "profile",
            TableKind::Convergence => "convergence",
            TableKind::Timeline => "timeline",
            TableKind::AgeTime => "age_time",
        }
    }

    /// The columns that identify a row: `point` in the results, point x
    /// phase x age bucket in the age profiles, point x time in the curves.
    pub fn key_columns(self) -> &'static [Col] {
        match self {
            TableKind::Results => &[col::POINT],
            TableKind::Profile => &[col::POINT, col::PHASE, col::AGE_LO],
            TableKind::Convergence | TableKind::Timeline => &[col::POINT, col::T],
            TableKind::AgeTime => &[col::POINT, col::AGE_LO],
        }
    }

    /// Marks `row` as a side row of this table (its storage form).
    pub fn tag(self, row: &mut Row) {
        row.push(TABLE_TAG, Value::Text(self.suffix().into()));
    }

    /// A side row's table and the row without its mark (an unmarked side
    /// row is a profile row, as checkpoints of earlier versions hold).
    pub fn untag(row: Row) -> (TableKind, Row) {
        let table = match row.get(TABLE_TAG) {
            Some(Value::Text(t)) => TableKind::ALL
                .into_iter()
                .find(|k| k.suffix() == t && *k != TableKind::Results)
                .unwrap_or(TableKind::Profile),
            _ => TableKind::Profile,
        };
        (
            table,
            Row(row.0.into_iter().filter(|(n, _)| n != TABLE_TAG).collect()),
        )
    }
}

/// Timing columns: excluded from determinism comparisons.
pub fn is_timing_column(name: &str) -> bool {
    columns::resolve(name).is_some_and(|r| r.column().timing)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every side table's rows come back to it, without their mark; an
    /// unmarked row is a profile row (checkpoints of earlier versions).
    #[test]
    fn side_rows_are_routed_by_their_table() {
        for t in TableKind::ALL.into_iter().skip(1) {
            let mut r = Row::default();
            r.num("a", 1.0);
            t.tag(&mut r);
            r.num("b", 2.0);
            let (back, row) = TableKind::untag(r);
            assert_eq!(back, t);
            assert_eq!(row.0.len(), 2);
            assert!(row.get(TABLE_TAG).is_none());
        }
        let (t, _) = TableKind::untag(Row::default());
        assert_eq!(t, TableKind::Profile);
        // file suffixes are distinct, and the results' is empty
        let mut s: Vec<_> = TableKind::ALL.map(TableKind::suffix).to_vec();
        s.sort_unstable();
        s.dedup();
        assert_eq!(s.len(), 5);
        assert_eq!(TableKind::Results.suffix(), "");
    }

    /// An interval holds its own estimate: a 6% drift of the interval off
    /// an estimate it was not built around (the planted undercount
    /// of fpr_avg's per-round counts) stops the row.
    #[test]
    fn an_interval_holds_its_own_estimate() {
        let row = |x: f64, lo: f64, hi: f64| {
            let mut r = Row::default();
            r.num("fpr_avg", x);
            r.num("fpr_avg_ci_low", lo);
            r.num("fpr_avg_ci_high", hi);
            r
        };
        assert!(row(0.01, 0.0098, 0.0102).check().is_ok());
        assert!(row(0.01, 0.01, 0.0102).check().is_ok());
        let drifted = row(0.01, 0.0098 * 0.94, 0.0102 * 0.94).check();
        assert!(drifted.unwrap_err().contains("outside its own interval"));
        // no estimate (a blank cell): nothing to hold
        assert!(row(f64::NAN, 0.0098, 0.0102).check().is_ok());
    }

    #[test]
    fn cells_are_checked_against_their_column() {
        assert!(check_cell("fpr", &Value::Num(0.5)).is_ok());
        assert!(check_cell("fpr", &Value::Num(f64::NAN)).is_ok());
        assert!(check_cell("fpr", &Value::Num(1.5)).is_err());
        assert!(check_cell("fpr_ci_low", &Value::Num(-0.1)).is_err());
        assert!(check_cell("fpr_ratio", &Value::Num(2.5)).is_ok());
        assert!(check_cell("memory_bits", &Value::Num(f64::INFINITY)).is_err());
        assert!(check_cell("bits_per_element", &Value::Num(-1.0)).is_err());
        assert!(check_cell("entropy_error", &Value::Num(-1e-3)).is_ok());
        assert!(check_cell("entropy_error_ci_low", &Value::Num(-1e-3)).is_ok());
        // an interval with its ends crossed is refused (a part or a run)
        let mut r = Row::default();
        r.num("probes", 3.0);
        r.num("probes_ci_low", 3.5);
        r.num("probes_ci_high", 2.5);
        assert!(r.check().unwrap_err().contains("low end above"));
        r.0[2].1 = Value::Num(4.0);
        assert!(r.check().unwrap_err().contains("outside its own interval"));
        r.0[0].1 = Value::Num(3.7);
        assert!(r.check().is_ok());
        // text where a figure belongs
        assert!(check_cell("fpr", &Value::Text("abc".into())).is_err());
        assert!(check_cell("memory_bits", &Value::Text("1".into())).is_err());
        assert!(check_cell("design", &Value::Text("apbf".into())).is_ok());
    }
}
