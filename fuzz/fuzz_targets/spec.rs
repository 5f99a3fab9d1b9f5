//! Any bytes as a spec: parsing and, for a spec that parses (with at most
//! 16 points and parameters up to 1e5), preparing its points under a 1 GiB
//! budget must end in Ok or Err, never a panic.
#![no_main]

use bloomlab_harness::spec::Spec;
use bloomlab_harness::sweep::{self, Budget};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(spec) = Spec::parse(text) {
        // preparation builds every point's design: keep each input cheap
        // (few, small points) so the fuzzer explores instead of allocating
        let small = spec.sweep.iter().all(|b| {
            b.points
                .iter()
                .flat_map(|p| p.values())
                .chain(b.grid.values().flatten())
                .all(|v| v.abs() <= 1e5)
        });
        if spec.point_count() > 16 || !small {
            return;
        }
        let budget = Budget {
            memory: Some(1 << 30),
            threads: 1,
        };
        let _ = sweep::prepare(&spec, true, &budget);
    }
});
