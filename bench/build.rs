//! Compiles the kernels the benchmarks run for every target in `KOSMOS_TARGETS` and embeds
//! them (`BENCH`).

fn main() {
    let module = kosmos_ir::Module {
        kernels: vec![kosmos_testkernels::gemm_bf16_mma()],
    };
    kosmos_build::Build::from_env()
        .module("bench", module)
        .compile()
        .unwrap_or_else(|e| panic!("compiling the benchmark kernels: {e}"));
}
