//! Compiles the reference kernels for every target in `KOSMOS_TARGETS` and embeds them
//! (`REFERENCE`), as any crate with kernels does.

fn main() {
    kosmos_build::Build::from_env()
        .module("reference", kosmos_testkernels::module())
        .compile()
        .unwrap_or_else(|e| panic!("compiling the reference kernels: {e}"));
}
