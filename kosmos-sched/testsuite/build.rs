//! Compiles the scheduling kernels (`SCHED`), the world measurement kernels (`WORLD`) and
//! the DSL kernels (`DSL`)
//! for every target in `KOSMOS_TARGETS` and embeds them.

// Shared with the library, which uses its names and buffer indices, not every builder.
#[allow(dead_code)]
#[path = "src/world_kernels.rs"]
mod world_kernels;

fn main() {
    println!("cargo:rerun-if-changed=src/world_kernels.rs");
    // `DSL`: the `#[kernel]` functions of `src/dsl_kernels.rs`.
    kosmos_build::Build::from_env()
        .module("sched", kosmos_sched::module())
        .module("world", world_kernels::module())
        .rust_module("dsl", ["src/dsl_kernels.rs"])
        .compile()
        .unwrap_or_else(|e| panic!("compiling the scheduling kernels: {e}"));
}
