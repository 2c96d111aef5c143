//! Compiles the reference kernels (`REFERENCE`), the math accuracy kernels (`MATH`, one per
//! case of `src/math_cases.rs`), the kernels of `src/waits.rs` (`WAITS`) and of
//! `src/tensor_stores.rs` (`TENSOR_STORES`) for every target in `KOSMOS_TARGETS` and embeds
//! them, as any crate with kernels does.

include!("src/math_cases.rs");

fn main() {
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let math = out.join("math_kernels.rs");
    std::fs::write(&math, kernel_source()).expect("writing the math kernels");
    println!("cargo:rerun-if-changed=src/math_cases.rs");
    kosmos_build::Build::from_env()
        .module("reference", kosmos_testkernels::module())
        .rust_module("math", [math])
        .rust_module("waits", ["src/waits.rs"])
        .rust_module("tensor_stores", ["src/tensor_stores.rs"])
        .compile()
        .unwrap_or_else(|e| panic!("compiling the test kernels: {e}"));
}
