//! The build step on a user's crate, as `cargo check` runs it: kernel mistakes reach the user as
//! rustc errors at their tokens, all of them at once, and a file without kernels builds.
//!
//! Each test writes a small crate depending on this workspace's crates by path and checks it
//! with the cargo that runs the tests, in a target directory of its own under `target/`, which
//! later runs reuse.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Writes a crate named `name` whose build script lowers `src/kernels.rs` (holding `kernels`)
/// and runs `cargo check` on it; returns whether it succeeded and its error diagnostics as
/// (message, file, line, column).
fn check_crate(name: &str, kernels: &str) -> (bool, Vec<(String, String, u64, u64)>) {
    let root = root();
    let dir = root.join("target").join("build-step-crates").join(name);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let path = |c: &str| root.join(c).display().to_string();
    let manifest = format!(
        "[package]\nname = {name:?}\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [workspace]\n\n[dependencies]\nkosmos = {{ path = {:?} }}\nkosmos-runtime = {{ path = {:?} }}\n\n\
         [build-dependencies]\nkosmos-build = {{ path = {:?} }}\n",
        path("kosmos"),
        path("kosmos-runtime"),
        path("kosmos-build"),
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(
        dir.join("build.rs"),
        "fn main() {\n    kosmos_build::Build::from_env()\n        .rust_sources([\"src/kernels.rs\"])\n        .compile()\n        .unwrap_or_else(|e| panic!(\"{e}\"));\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("src/lib.rs"),
        "mod kernels;\ninclude!(concat!(env!(\"OUT_DIR\"), \"/kosmos_modules.rs\"));\n",
    )
    .unwrap();
    std::fs::write(dir.join("src/kernels.rs"), kernels).unwrap();
    let output = Command::new(env!("CARGO"))
        .args(["check", "--quiet", "--message-format=json"])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", root.join("target").join("build-step"))
        .env("KOSMOS_TARGETS", "sm_90a,gfx942")
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains("failed to run custom build command"),
        "the build script failed:\n{stderr}"
    );
    let errors = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-message" && m["message"]["level"] == "error")
        .filter_map(|m| {
            let message = &m["message"];
            let span = message["spans"].as_array()?.first()?.clone();
            Some((
                message["message"].as_str()?.to_string(),
                span["file_name"].as_str()?.to_string(),
                span["line_start"].as_u64()?,
                span["column_start"].as_u64()?,
            ))
        })
        .collect();
    (output.status.success(), errors)
}

#[test]
fn every_kernel_mistake_of_a_file_is_a_rustc_error_at_its_tokens() {
    let kernels = "use kosmos::prelude::*;

#[kernel]
fn mismatch(x: &mut [u32]) {
    x[0] = 1.5;
}

#[kernel]
fn heap(x: &mut [u32]) {
    let v = Vec::new();
}

#[kernel]
fn read_only(x: &[u32]) {
    x[0] = 1;
}

#[kernel]
fn fine(x: &mut [u32]) {
    x[0] = 1;
}
";
    let (ok, errors) = check_crate("three-mistakes", kernels);
    assert!(!ok, "the crate has mistakes");
    let at: Vec<(u64, u64)> = errors.iter().map(|e| (e.2, e.3)).collect();
    assert_eq!(at, [(5, 12), (10, 13), (15, 5)], "{errors:#?}");
    assert!(
        errors.iter().all(|e| e.1 == "src/kernels.rs"),
        "{errors:#?}"
    );
    assert!(
        errors[1]
            .0
            .contains("`Vec::new` is not available in kernels"),
        "{errors:#?}"
    );
}

#[test]
fn a_source_file_without_kernels_builds() {
    let (ok, errors) = check_crate("no-kernels", "pub fn host_only() {}\n");
    assert!(ok && errors.is_empty(), "{errors:#?}");
}
