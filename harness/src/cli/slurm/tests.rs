use super::script::*;
use super::*;

/// Two shards, one CPU each, written to `out`, not submitted.
fn two_shards_into(out: &Path) -> SlurmOpts {
    SlurmOpts {
        shards: Some(2),
        partition: None,
        time: None,
        cpus_per_task: 1,
        submit: false,
        out: Some(out.to_path_buf()),
        mem_cap: None,
    }
}

#[test]
fn words_are_quoted_for_bash() {
    assert_eq!(sh("a b"), "'a b'");
    assert_eq!(sh("it's"), r"'it'\''s'");
}

#[test]
fn unsafe_sbatch_values_are_refused() {
    assert!(sbatch_safe("x", "debug").is_ok());
    assert!(sbatch_safe("x", "1-00:00:00").is_ok());
    for bad in ["", "a b", "a%j", "x\ny", "a#b", "q'"] {
        assert!(sbatch_safe("x", bad).is_err(), "{bad:?}");
    }
}

/// A spec named `x<newline>touch zz<newline>#.toml` made the array
/// script run `touch`: it is refused before any script is written.
#[test]
fn a_spec_path_with_a_newline_writes_no_script() {
    let d = tempfile::tempdir().unwrap();
    let spec = d.path().join("x\ntouch zz\n#.toml");
    std::fs::write(
        &spec,
        "name = \"x\"\nmetrics = [\"fpr\"]\n[[sweep]]\ndesign = \"apbf\"\npoints = [{ k = 4, l = 3, g = 20 }]\n",
    )
    .unwrap();
    let out = d.path().join("out");
    let o = two_shards_into(&out);
    let f = Flags {
        quick: false,
        update_baselines: false,
        results_dir: &None,
        plots_dir: &None,
    };
    let e = write_jobs(&spec, &o, &f).err().unwrap().to_string();
    assert!(e.contains("control character"), "{e}");
    let scripts = std::fs::read_dir(&out).map(|r| r.count()).unwrap_or(0);
    assert_eq!(scripts, 0);
    // a directory flag with a carriage return, the same
    let cr = Some(PathBuf::from("res\rults"));
    let f = Flags {
        results_dir: &cr,
        ..f
    };
    let ok_spec = d.path().join("ok.toml");
    std::fs::copy(&spec, &ok_spec).unwrap();
    let e = write_jobs(&ok_spec, &o, &f).err().unwrap().to_string();
    assert!(e.contains("--results-dir"), "{e}");
}

/// The array requests its largest point's need (with the headroom and
/// the process's share) and the merge its own; a cap below a point's
/// need refuses the spec before any script is written, naming the point.
#[test]
fn tasks_request_the_plans_memory_and_a_cap_refuses_before_writing() {
    let d = tempfile::tempdir().unwrap();
    let spec = d.path().join("big.toml");
    // an APBF of 4 + 3 slices of about 2^27 bits each: about 112 MiB
    std::fs::write(
        &spec,
        "name = \"big\"\nmetrics = [\"fpr\"]\n[[sweep]]\ndesign = \"apbf\"\npoints = [{ k = 4, l = 3, g = 20 }, { k = 4, l = 3, g = 23000000 }]\n",
    )
    .unwrap();
    let out = d.path().join("out");
    let mut o = two_shards_into(&out);
    let f = Flags {
        quick: true,
        update_baselines: false,
        results_dir: &None,
        plots_dir: &None,
    };
    let jobs = write_jobs(&spec, &o, &f).unwrap();
    let array = std::fs::read_to_string(&jobs.array).unwrap();
    let mem: u64 = array
        .lines()
        .find_map(|l| l.strip_prefix("#SBATCH --mem="))
        .and_then(|v| v.strip_suffix('M'))
        .unwrap()
        .parse()
        .unwrap();
    let prepared = sweep::prepare(&Spec::load(&spec).unwrap(), true, &Budget::unchecked()).unwrap();
    assert_eq!(
        mem,
        (prepared.peak_need(1) + (TASK_BASE_MIB << 20)).div_ceil(1 << 20)
    );
    assert!(
        mem > TASK_BASE_MIB + 100,
        "{mem} MiB for a point of about 112 MiB"
    );
    let merge = std::fs::read_to_string(&jobs.merge).unwrap();
    assert!(merge.contains(&format!("#SBATCH --mem={MERGE_MEM_MIB}M")));
    std::fs::remove_dir_all(&out).unwrap();
    o.mem_cap = Some((mem - 1) as f64 / 1024.0);
    let e = write_jobs(&spec, &o, &f).err().unwrap().to_string();
    assert!(e.contains("1 point(s)") && e.contains("g=23000000"), "{e}");
    let scripts = std::fs::read_dir(&out).map(|r| r.count()).unwrap_or(0);
    assert_eq!(scripts, 0, "a refused spec writes no script");
    o.mem_cap = Some(f64::NAN);
    assert!(write_jobs(&spec, &o, &f).is_err());
}
