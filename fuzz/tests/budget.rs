//! The fuzzer's fixed budget in `cargo test`: about a minute of inputs (a fresh seed each
//! run, printed for replay); a crash not already saved under `tests/filetests/fuzz/` is saved
//! there and fails the test. Longer runs: `cargo xtask fuzz --seconds N` or `--inputs N`.

use std::process::Command;

/// Seconds of fuzzing per test run: long enough for tens of thousands of inputs, short
/// enough for the whole suite to stay well inside CI's time.
const BUDGET_SECONDS: u64 = 60;

#[test]
fn a_minute_of_fuzzing_finds_no_new_crash() {
    let summary = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-summary.json");
    let out = Command::new(env!("CARGO_BIN_EXE_kosmos-fuzz"))
        .args(["--seconds", &BUDGET_SECONDS.to_string(), "--summary"])
        .arg(&summary)
        .output()
        .expect("the fuzzer starts");
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    println!("{report}");
    assert!(out.status.success(), "the fuzzer failed:\n{report}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&summary).expect("a summary")).unwrap();
    assert_eq!(json["new_findings"], serde_json::json!([]), "{report}");
    // The run did something: inputs got through every stage.
    for stage in ["inputs", "parsed", "verified", "ran", "compiled"] {
        assert!(
            json[stage].as_u64().unwrap() > 0,
            "no input {stage}:\n{report}"
        );
    }
}

#[test]
fn a_worker_answers_and_a_silent_one_is_a_hang() {
    use kosmos_fuzz::worker::{CrashKind, Worker};
    use std::time::Duration;
    let exe = std::path::Path::new(env!("CARGO_BIN_EXE_kosmos-fuzz"));
    let input = "kernel @k() max_workgroup_size 1 {\n}\n";
    let mut worker = Worker::spawn(exe).unwrap();
    let reached = worker.check(input, Duration::from_secs(30)).unwrap();
    assert!(
        reached.verified && reached.ran && reached.compiled,
        "{reached:?}"
    );
    // No worker answers within a nanosecond: the parent gives up on it and says so.
    let crash = worker.check(input, Duration::from_nanos(1)).unwrap_err();
    assert_eq!(crash.kind, CrashKind::Hang);
}
