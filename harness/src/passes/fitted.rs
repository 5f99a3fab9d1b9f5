//! Each design's measured cost over its estimated cost: the factor a
//! point's estimate ([`super::PointPlan::base_cost`], from the design's
//! `OP_NS`) is multiplied by to give the cost shards are dealt by. Fitted
//! from the per-point seconds of a full run of a spec, the measured seconds
//! of a design's points over their estimates summed, and written to
//! `results/point_costs.csv` by `bloomlab run SPEC --shard 0/1 --dry-run
//! --measured DIR --fit results/point_costs.csv` (docs/cluster.md). The
//! table is compiled in, so every machine deals the same way, and it is
//! versioned with the results it was fitted from; a design it does not
//! name keeps its estimate (factor 1).

use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The committed table.
const TABLE: &str = include_str!("../../../results/point_costs.csv");

/// The table's header.
pub const HEADER: &str = "design,points,estimated_s,measured_s,cost_factor";

/// One design's fit: its points, their estimated and measured seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    /// The registry design.
    pub design: String,
    /// Points measured.
    pub points: usize,
    /// Their estimated seconds (from `OP_NS`), summed.
    pub estimated_s: f64,
    /// Their measured seconds, summed.
    pub measured_s: f64,
}

impl Fit {
    /// measured / estimated.
    pub fn factor(&self) -> f64 {
        self.measured_s / self.estimated_s
    }
}

/// The factor of `design`'s estimates (1 where the table has none).
pub fn factor(design: &str) -> f64 {
    static FACTORS: OnceLock<BTreeMap<String, f64>> = OnceLock::new();
    FACTORS
        .get_or_init(|| parse(TABLE).unwrap_or_default())
        .get(design)
        .copied()
        .unwrap_or(1.0)
}

/// The factors of a table's text; an error names the line that is not
/// `design,points,estimated_s,measured_s,cost_factor` with a finite
/// positive factor.
pub fn parse(text: &str) -> Result<BTreeMap<String, f64>, String> {
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return Err(format!("the first line is not {HEADER}"));
    }
    let mut out = BTreeMap::new();
    for (i, line) in lines.enumerate() {
        let cells: Vec<&str> = line.split(',').collect();
        let factor = match cells.as_slice() {
            [_, _, _, _, f] => f.parse::<f64>().ok(),
            _ => None,
        }
        .filter(|f| f.is_finite() && *f > 0.0)
        .ok_or_else(|| format!("line {}: {line:?}", i + 2))?;
        out.insert(cells[0].to_string(), factor);
    }
    Ok(out)
}

/// The table's text for `fits` (by design name).
pub fn write(fits: &[Fit]) -> String {
    let mut fits = fits.to_vec();
    fits.sort_by(|a, b| a.design.cmp(&b.design));
    let mut out = format!("{HEADER}\n");
    for f in &fits {
        out += &format!(
            "{},{},{:.3},{:.3},{:.4}\n",
            f.design,
            f.points,
            f.estimated_s,
            f.measured_s,
            f.factor()
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed table parses (a broken one would silently deal by the
    /// unfitted estimates), and what `write` writes reads back.
    #[test]
    fn the_committed_table_parses_and_written_tables_read_back() {
        parse(TABLE).unwrap();
        let fits = [Fit {
            design: "she_bloom".into(),
            points: 3,
            estimated_s: 10.0,
            measured_s: 95.0,
        }];
        let back = parse(&write(&fits)).unwrap();
        assert_eq!(back["she_bloom"], 9.5);
        assert!(parse("design,points\nx,1").is_err());
        assert!(parse(&format!("{HEADER}\nx,1,0,0,NaN")).is_err());
        assert!(parse(&format!("{HEADER}\nx,1,0,0,-2")).is_err());
    }
}
