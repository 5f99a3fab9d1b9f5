//! Any bytes as a spec: parsing and, for a spec that parses, preparing its
//! points under a 1 GiB budget must end in Ok or Err, never a panic.
#![no_main]

use bloomlab_harness::spec::Spec;
use bloomlab_harness::sweep::{self, Budget};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(spec) = Spec::parse(text) {
        let budget = Budget {
            memory: Some(1 << 30),
            threads: 1,
        };
        let _ = sweep::prepare(&spec, true, &budget);
    }
});
