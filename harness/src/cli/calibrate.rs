//! `bloomlab calibrate`: the measured coverage of the intervals
//! ([`crate::calibration`]), as a table, markdown and a chart.

use crate::calibration::{self, Coverage};
use crate::report::figure::{Draw, Figure, Panel, Point, Reference, Series};
use clap::Args;
use std::path::PathBuf;

/// `bloomlab calibrate`'s flags.
#[derive(Args, Debug)]
pub struct CalibrateArgs {
    /// Independent seeds per interval kind and level
    #[arg(long, default_value_t = 8000, value_parser = clap::value_parser!(u64).range(20..))]
    pub seeds: u64,
    /// 1000 seeds, files named *_quick (about a minute on 2 cores)
    #[arg(long)]
    pub quick: bool,
    /// Exit 1 if any interval kind covers clearly less than its level (by
    /// more than three standard errors)
    #[arg(long)]
    pub check: bool,
    /// Where calibration.csv and .md go
    #[arg(long, default_value = "results")]
    pub results_dir: PathBuf,
    /// Where calibration.svg and .png go
    #[arg(long, default_value = "plots")]
    pub plots_dir: PathBuf,
}

/// The levels every kind is calibrated at.
const LEVELS: [f64; 2] = [0.95, 0.99];

/// Runs the calibration and writes its outputs.
pub fn calibrate(a: CalibrateArgs) -> anyhow::Result<()> {
    let seeds = if a.quick { 1000 } else { a.seeds };
    let name = if a.quick {
        "calibration_quick"
    } else {
        "calibration"
    };
    let cases = calibration::cases();
    let points = calibration::points(&cases);
    eprintln!(
        "calibrate: {} interval kinds at 95% and 99%, {seeds} seeds each \
         ({} measurements)",
        cases.len(),
        points.len() as u64 * seeds * LEVELS.len() as u64
    );
    let started = std::time::Instant::now();
    let out = calibration::calibrate(seeds, &LEVELS, &|c: &Coverage| {
        eprintln!(
            "calibrate: {} at {} covered {:.4} of {seeds} seeds, short; \
             confirming on seeds {}..={}",
            c.case.column.name(),
            c.level,
            c.coverage(),
            seeds + 1,
            5 * seeds
        )
    })?;
    let rows: Vec<_> = out.iter().map(calibration::row).collect();
    for r in &rows {
        r.check().map_err(|e| anyhow::anyhow!("calibrate: {e}"))?;
    }
    std::fs::create_dir_all(&a.results_dir)?;
    std::fs::create_dir_all(&a.plots_dir)?;
    let csv = a.results_dir.join(format!("{name}.csv"));
    let md = a.results_dir.join(format!("{name}.md"));
    let svg = a.plots_dir.join(format!("{name}.svg"));
    crate::report::write_atomic(&csv, crate::report::csv_string(&rows)?.as_bytes())?;
    let command = if a.quick {
        "bloomlab calibrate --quick".to_string()
    } else {
        format!("bloomlab calibrate --seeds {seeds}")
    };
    let table = markdown(&out, &command);
    crate::report::write_atomic(&md, table.as_bytes())?;
    let fig = chart(&out);
    crate::report::write_atomic(&svg, crate::report::svg_string(&fig)?.as_bytes())?;
    crate::report::write_png(&fig, &svg.with_extension("png"))?;
    eprint!("{table}");
    eprintln!(
        "calibrate: done in {:.0} s; wrote {}, {}, {}",
        started.elapsed().as_secs_f64(),
        csv.display(),
        md.display(),
        svg.display()
    );
    let short: Vec<String> = out
        .iter()
        .filter(|c| c.clearly_short())
        .map(|c| format!("{} at {}", c.case.column.name(), c.level))
        .collect();
    if a.check && !short.is_empty() {
        return Err(anyhow::anyhow!(
            "calibrate: covers clearly less than its level: {}",
            short.join(", ")
        ));
    }
    Ok(())
}

/// The table, one line per kind and level.
fn markdown(out: &[Coverage], command: &str) -> String {
    let mut s = format!(
        "# Calibration: the coverage of bloomlab's intervals\n\n`{command}`. \
         Each interval kind over independent seeds of a point whose truth is \
         known exactly, or at a real design pooled over 500 further seeds \
         (docs/metrics.md, \"Calibration\"): the share of seeds \
         whose interval holds the truth, with its 95% Clopper-Pearson interval; \
         the seeds whose interval misses its own estimate; the mean width over \
         the estimate. A kind covers unless it falls below its level by more \
         than two standard errors (short), or covers above 99.9% at 95% (wide). \
         A kind short on the first seeds is measured again on four times as many \
         fresh ones, and the verdict is theirs (confirmation: coverage and \
         seeds).\n\n\
         | interval | level | seeds | truth | mean estimate | coverage | its interval | estimate outside | width / estimate | confirmation | verdict |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n"
    );
    for c in out {
        let (lo, hi) = crate::metrics::binomial_ci(c.covered, c.seeds, 0.95);
        let again = c.confirmation.map_or(String::new(), |f| {
            format!("{:.4} of {}", f.coverage(), f.seeds)
        });
        s += &format!(
            "| {} | {} | {} | {} | {:.4} | {:.3} | [{:.3}, {:.3}] | {} | {:.3} | {again} | {} |\n",
            c.case.interval,
            c.level,
            c.seeds,
            c.mean_truth,
            c.mean_estimate,
            c.coverage(),
            lo,
            hi,
            c.estimate_outside,
            c.mean_relative_width,
            c.verdict.word()
        );
    }
    s += "\nKinds that may cover above 99.9% at 95%, and why:\n\n";
    for c in out.iter().filter(|c| c.level == LEVELS[0]) {
        if let Some(why) = c.case.wide {
            s += &format!("- {}: {why}.\n", c.case.interval);
        }
    }
    s
}

/// A kind's mark at `x`: `covered` of `seeds`, with its 95% interval.
fn mark(x: f64, covered: u64, seeds: u64) -> Point {
    Point {
        x,
        y: covered as f64 / seeds.max(1) as f64,
        y_ci: Some(crate::metrics::binomial_ci(covered, seeds, 0.95)),
        x_ci: None,
        theory: None,
    }
}

/// Coverage against kind, one series per level, the levels as lines.
fn chart(out: &[Coverage]) -> Figure {
    let mut panel = Panel::new(
        "interval kind (numbered as in the table)",
        "coverage",
        false,
        false,
    );
    for level in LEVELS {
        let points = out
            .iter()
            .filter(|c| c.level == level)
            .enumerate()
            .map(|(i, c)| mark((i + 1) as f64, c.covered, c.seeds))
            .collect();
        panel.series.push(Series {
            name: format!("{:.0}% intervals", level * 100.0),
            points,
            draw: Draw::Marks,
        });
        let again: Vec<Point> = out
            .iter()
            .filter(|c| c.level == level)
            .enumerate()
            .filter_map(|(i, c)| {
                let f = c.confirmation?;
                Some(mark((i + 1) as f64 + 0.25, f.covered, f.seeds))
            })
            .collect();
        if !again.is_empty() {
            panel.series.push(Series {
                name: format!("{:.0}%, confirmed on fresh seeds", level * 100.0),
                points: again,
                draw: Draw::Marks,
            });
        }
        let n = out.iter().filter(|c| c.level == level).count() as f64;
        panel.references.push(Reference {
            name: format!("{:.0}%", level * 100.0),
            points: vec![(0.5, level), (n + 0.5, level)],
            dashed: true,
        });
    }
    let mut fig = Figure::new("Coverage of bloomlab's intervals", panel);
    fig.ci_level = 0.95;
    let kinds: Vec<String> = out
        .iter()
        .filter(|c| c.level == LEVELS[0])
        .enumerate()
        .map(|(i, c)| format!("{}: {}", i + 1, c.case.column.name()))
        .collect();
    fig.notes.push(kinds.join("; "));
    fig
}
