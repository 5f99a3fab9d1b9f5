//! Any bytes as a trace file (one key per line, a capture, gzip or not)
//! and as a part file: reading must end in Ok or Err, never a panic; a
//! capture's times are finite and non-negative; a part that merges holds
//! only numbers that pass the row check.
#![no_main]

use bloomlab_harness::sweep::part::{merge, SpecId};
use bloomlab_harness::sweep::Shard;
use bloomlab_harness::trace::{for_each_timed_key, PacketKey, TraceFormat};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t");
    std::fs::write(&p, data).unwrap();
    let _ = bloomlab_harness::workload::Trace::load(&p, 1);
    let pcap = TraceFormat::Pcap {
        key: PacketKey::FiveTuple,
    };
    let _ = for_each_timed_key(&p, &pcap, None, |_, t| {
        if let Some(t) = t {
            assert!(t.is_finite() && t >= 0.0, "time {t}");
        }
        Ok(())
    });
    let id = SpecId::new("p", "name = \"p\"", false);
    let shard = Shard { index: 0, count: 1 };
    std::fs::write(id.part_path(dir.path(), shard), data).unwrap();
    if let Ok(m) = merge(dir.path(), &id, &[0]) {
        for rows in m.rows.values() {
            assert!(rows.check().is_ok());
        }
    }
});
