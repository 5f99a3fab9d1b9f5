//! The one registry of result columns: every column bloomlab writes is
//! declared once in [`col`] (its name, output group, kind of value, unit
//! and, where the charts need one, its words), and every reader asks here:
//! `measure`'s grouped output, the charts' axis labels, the range checks
//! of [`Row::check`](super::Row::check), `check`'s exact and stream
//! comparisons and its power table. Passes write through the constants
//! ([`col::FPR_AVG`]), so a misspelt name does not compile; a name built at
//! run time (`x_ci_low`, `target_window`) resolves through [`resolve`], and
//! a point whose row holds a column that does not resolve is refused as a
//! bug before any output holds it. The definitions behind each name are in
//! docs/metrics.md and in the module of the pass that measures it.

pub mod col;

use super::figure::Part;

/// A registered column: made only by the registry ([`col`]), so a value of
/// this type names a column that exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Col(&'static str);

impl Col {
    /// The column's name, as the CSVs spell it.
    pub const fn name(self) -> &'static str {
        self.0
    }

    /// The column's entry in the registry.
    pub fn column(self) -> &'static Column {
        lookup(self.0).expect("a Col is made only by the registry")
    }
}

impl std::ops::Deref for Col {
    type Target = str;
    fn deref(&self) -> &str {
        self.0
    }
}

impl AsRef<str> for Col {
    fn as_ref(&self) -> &str {
        self.0
    }
}

impl From<Col> for String {
    fn from(c: Col) -> String {
        c.0.to_string()
    }
}

impl std::fmt::Display for Col {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl PartialEq<str> for Col {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for Col {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

/// Where a column stands in `measure`'s human-readable output (and what
/// kind of column it is elsewhere).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// Identifies the row: point, repeat, design, guaranteed.
    Id,
    /// A design's, workload's, attack's or arrivals' parameter (written
    /// as the design resolved it, and as `target_<name>` as asked).
    Parameter,
    /// Membership figures: error rates, slack, probes, time figures.
    Membership,
    /// The window summaries' estimates and their errors.
    Summary,
    /// The adversary's figures.
    Adversary,
    /// Times per operation.
    Speed,
    /// Memory and its bounds.
    Memory,
    /// The micro-benchmarks' tables (`bloomlab bench`).
    Bench,
    /// The calibration's table (`bloomlab calibrate`).
    Calibration,
}

impl Group {
    /// The groups `measure` prints, in order, with their headings.
    pub const PRINTED: [(Group, &'static str); 5] = [
        (Group::Membership, "membership"),
        (Group::Summary, "summary"),
        (Group::Adversary, "adversary"),
        (Group::Speed, "speed"),
        (Group::Memory, "memory"),
    ];
}

/// What values a column's numbers may take (checked on every row that
/// leaves a run or enters a merge).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A probability: the value, its interval and its theory lie in [0, 1].
    Probability,
    /// A signed error (estimate minus truth): may be negative.
    Signed,
    /// A measured number that is never text (a time, a count of bits or
    /// lines) and never negative.
    Figure,
    /// Anything else: text allowed, a number never negative.
    Other,
}

/// A column's unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// A pure number.
    None,
    /// Bits.
    Bits,
    /// Bits per key of the window (the label says which keys).
    BitsPerKey,
    /// Bytes.
    Bytes,
    /// Insertions (a count-based window or slack).
    Insertions,
    /// log2 of a number of insertions.
    Log2Insertions,
    /// Nanoseconds.
    Ns,
    /// Occurrences of a key.
    Occurrences,
    /// A share of something (a fraction, not a rate of the filter).
    Share,
    /// Million operations per second.
    Mops,
}

impl Unit {
    /// The unit as an axis label writes it ("" for a pure number).
    pub const fn axis(self) -> &'static str {
        match self {
            Unit::None => "",
            Unit::Bits | Unit::BitsPerKey => "bits",
            Unit::Bytes => "bytes",
            Unit::Insertions => "insertions",
            Unit::Log2Insertions => "log2 insertions",
            Unit::Ns => "ns",
            Unit::Occurrences => "occurrences",
            Unit::Share => "share",
            Unit::Mops => "million operations per second",
        }
    }

    /// The unit after a number in `measure`'s output ("" for none).
    pub const fn suffix(self) -> &'static str {
        match self {
            Unit::Ns => " ns",
            Unit::Bits => " bits",
            Unit::BitsPerKey => " bits/element",
            _ => "",
        }
    }
}

/// How `check` compares a column, where it does not follow from the
/// column's parts (an interval: a z test; a theory: to 1e-9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compare {
    /// By its interval, its theory or not at all, as its parts say.
    ByParts,
    /// Exactly (a size or a parameter the design resolved).
    Exact,
    /// Its theory moves with the stream a run saw: within
    /// [`STREAM_TOLERANCE`](crate::check::STREAM_TOLERANCE).
    StreamTheory,
}

/// A column of the registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// The column.
    pub col: Col,
    /// Its group.
    pub group: Group,
    /// What values it holds.
    pub kind: Kind,
    /// Its unit.
    pub unit: Unit,
    /// What it is, in words ("" where no chart or table needs them).
    pub label: &'static str,
    /// How `check` compares it.
    pub compare: Compare,
    /// Whether it is made of timings (left out where runs are compared
    /// for determinism).
    pub timing: bool,
}

/// What a column name written at run time is: a registered column, a part
/// of one (`x_ci_low`, `x_theory`, ...), or the target a point asked for
/// (`target_x`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolved {
    /// The column itself.
    Whole(&'static Column),
    /// A part of a figure's columns ([`Part`]).
    Part(&'static Column, Part),
    /// `target_<parameter>`: the value a point asked for.
    Target(&'static Column),
}

impl Resolved {
    /// The registered column behind the name.
    pub fn column(self) -> &'static Column {
        match self {
            Resolved::Whole(c) | Resolved::Part(c, _) | Resolved::Target(c) => c,
        }
    }
}

/// A column's name made from the registry: a column, a part of one, or
/// the target of a parameter (for lists of columns, as the report's
/// default table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Name {
    /// The column itself.
    Of(Col),
    /// A part of a figure's columns.
    Part(Col, Part),
    /// `target_<parameter>`.
    Target(Col),
}

impl Name {
    /// The name as the CSVs spell it.
    pub fn render(self) -> String {
        match self {
            Name::Of(c) => c.name().to_string(),
            Name::Part(c, p) => p.of(c.name()),
            Name::Target(c) => format!("target_{}", c.name()),
        }
    }
}

/// The registered column of exactly this name.
pub fn lookup(name: &str) -> Option<&'static Column> {
    // every cell of every row is resolved (`Row::check`, side tables of
    // hundreds of thousands of rows included): a map, not a scan
    static BY_NAME: std::sync::OnceLock<std::collections::HashMap<&str, &Column>> =
        std::sync::OnceLock::new();
    BY_NAME
        .get_or_init(|| col::TABLE.iter().map(|c| (c.col.0, c)).collect())
        .get(name)
        .copied()
}

/// What `name` is, if it resolves: registered, a part of a registered
/// figure, or a target of a registered parameter.
pub fn resolve(name: &str) -> Option<Resolved> {
    // a part first (`fpr_theory` is fpr's theory, with fpr's range, though
    // it has words of its own), the longest suffix first: `_theory_in_ci`
    // before `_theory`
    let mut parts = Part::ALL;
    parts.sort_by_key(|p| std::cmp::Reverse(p.suffix().len()));
    for p in parts {
        if let Some(c) = p.base(name).and_then(lookup) {
            return Some(Resolved::Part(c, p));
        }
    }
    if let Some(c) = lookup(name) {
        return Some(Resolved::Whole(c));
    }
    let c = name.strip_prefix("target_").and_then(lookup)?;
    Some(Resolved::Target(c))
}

/// What `column` is, in words, and its unit ("" for a pure number); a
/// `target_X` column is the target of X. `None` for a column without words
/// in the registry.
pub fn describe(column: &str) -> Option<(String, &'static str)> {
    if let Some(c) = lookup(column).filter(|c| !c.label.is_empty()) {
        return Some((c.label.to_string(), c.unit.axis()));
    }
    match resolve(column)? {
        Resolved::Whole(c) if !c.label.is_empty() => Some((c.label.to_string(), c.unit.axis())),
        Resolved::Target(c) if !c.label.is_empty() => {
            Some((format!("target {}", c.label), c.unit.axis()))
        }
        _ => None,
    }
}

/// An axis label: the column's description with its unit in parentheses,
/// or the column's own name where it has no description.
pub fn axis_label(column: &str) -> String {
    match describe(column) {
        Some((what, "")) => what,
        Some((what, unit)) => format!("{what} ({unit})"),
        None => column.replace('_', " "),
    }
}

#[cfg(test)]
mod tests;
