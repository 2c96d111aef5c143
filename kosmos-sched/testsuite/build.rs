//! Compiles the scheduling kernels for every target in `KOSMOS_TARGETS` and embeds them
//! (`SCHED`).

fn main() {
    kosmos_build::Build::from_env()
        .module("sched", kosmos_sched::module())
        .compile()
        .unwrap_or_else(|e| panic!("compiling the scheduling kernels: {e}"));
}
