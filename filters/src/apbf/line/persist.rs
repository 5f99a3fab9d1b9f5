//! The line APBF's generations over time (`Generational`, for `OnTime`)
//! and its saved form, with the checks a loaded file must pass.

use super::lane_words;
use super::{newest_words, stamp, LineApbf, MAX_SLICES, SWEEP};

impl crate::timewindow::Generational for LineApbf {
    fn write(&mut self, key: u64) {
        LineApbf::write(self, key)
    }
    fn next_generation(&mut self) {
        self.shift()
    }
    fn in_generation(&self) -> u64 {
        self.count
    }
    fn generation_size(&self) -> u64 {
        self.g
    }
    fn kept(&self) -> u64 {
        self.l as u64
    }
    fn forgotten(&self) -> u64 {
        self.slices() as u64
    }
    fn insertions(&self) -> u64 {
        self.inserted
    }
    fn timed_name(trigger: crate::timewindow::Trigger) -> &'static str {
        match trigger {
            crate::timewindow::Trigger::Time => "line_apbf_time",
            crate::timewindow::Trigger::Hybrid => "line_apbf_hybrid",
        }
    }
}

crate::persist::codec_struct!(LineApbf { k, l, g, line_count, lines, base, count, inserted, generation;
    newest = newest_words(k, l, base), runs = super::Runs::of(k, l), simd = crate::cpu::avx2() });

impl crate::persist::sealed::Design for LineApbf {
    fn tag() -> String {
        "line_apbf".into()
    }
    fn check(&self) -> Result<(), String> {
        use crate::persist::ensure;
        Self::check_shape(self.k, self.l, self.g, self.line_count).map_err(|e| e.to_string())?;
        ensure(self.lines.len() as u64 == self.line_count, || {
            format!("{} lines for {}", self.lines.len(), self.line_count)
        })?;
        let n = self.slices();
        ensure(self.base < n, || format!("base {}", self.base))?;
        // every stamp at most the generations since the last sweep behind,
        // and no bit in a lane no slice owns (n .. 30)
        let behind = self.generation % SWEEP;
        let unused = lane_words(((1u64 << MAX_SLICES) - (1u64 << n)) as u32);
        for (i, line) in self.lines.iter().enumerate() {
            let d = (self.generation as u16).wrapping_sub(stamp(line)) as u64;
            ensure(d <= behind, || {
                format!(
                    "line {i}: stamp {} at generation {}",
                    stamp(line),
                    self.generation
                )
            })?;
            ensure(line.0.iter().zip(unused).all(|(w, u)| w & u == 0), || {
                format!("line {i}: bits in lanes past k + l = {n}")
            })?;
        }
        // no bound on count: a time trigger fills a generation past g
        Ok(())
    }
}

crate::persist::persists!(LineApbf);
