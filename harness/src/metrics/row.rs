//! Result rows: ordered (column, value) pairs, serialized in order.

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
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
    /// A numeric column.
    pub fn get_num(&self, name: &str) -> Option<f64> {
        self.get(name).and_then(Value::num)
    }

    /// Checks every number against what its column can hold (see
    /// [`check_cell`]); the error names the first that cannot.
    pub fn check(&self) -> Result<(), String> {
        self.0.iter().try_for_each(|(n, v)| check_cell(n, v))
    }
}

/// Whether a column holds a probability: its value, interval bounds and
/// theory lie in [0, 1].
fn is_probability(name: &str) -> bool {
    let base = ["_ci_low", "_ci_high", "_theory"]
        .iter()
        .find_map(|s| name.strip_suffix(s))
        .unwrap_or(name);
    const RATES: &[&str] = &[
        "fpr",
        "fpr_avg",
        "fpr_expired",
        "fpr_paper_formula",
        "fpr_independent",
        "fpr_theory_at_distinct_true",
        "fpr_time_avg",
        "fpr_time_peak",
        "fnr",
        "fnr_time",
        "p_yes",
        "p_yes_past_window",
        "sustained_fpr",
        "sustained_fpr_bound",
        "adversary_fpr",
        "first_window_fpr",
        "zero_fraction",
        "replay_fraction",
    ];
    RATES.contains(&base)
}

/// Whether a column may be negative: a signed error (an estimate minus the
/// truth) and its interval.
fn is_signed(name: &str) -> bool {
    name.ends_with("_error")
        || name.ends_with("_error_ci_low")
        || name.ends_with("_error_ci_high")
        || name.ends_with("_error_theory")
}

/// Checks one cell: a number is finite (NaN stands for "no value", a blank
/// cell), a probability lies in [0, 1], and only a signed error is
/// negative. Every figure that leaves bloomlab passes this, on the way out
/// of a run and on the way into `merge`.
pub fn check_cell(name: &str, v: &Value) -> Result<(), String> {
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

/// Timing columns: excluded from determinism comparisons.
pub fn is_timing_column(name: &str) -> bool {
    name.ends_with("_ns")
}
