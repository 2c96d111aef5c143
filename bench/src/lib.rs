//! Benchmarks of KOSMOS kernels against vendor libraries measured in the same run.
//!
//! The kernels under test are the `kernels` crate's operations (compiled and embedded by
//! that crate's build); the benchmark binaries under `benches/` call them through
//! `kernels::Ops`.
//! Every figure a benchmark prints is a ratio to a baseline timed in the same process.

pub mod cublas;
pub mod gemm;
pub mod report;

/// What can go wrong while benchmarking.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error(transparent)]
    Runtime(#[from] kosmos_runtime::Error),
    #[error(transparent)]
    Kernels(#[from] kernels::Error),
    #[error(transparent)]
    World(#[from] kosmos_runtime::WorldError),
    #[error("CUDA {op}: {source}")]
    Driver {
        op: &'static str,
        source: cudarc::driver::DriverError,
    },
    #[error("cuBLAS {op}: {source}")]
    Cublas {
        op: &'static str,
        source: cudarc::cublas::result::CublasError,
    },
    #[error(
        "libcublas was not found; put the directory holding libcublas.so.* (e.g. a CUDA \
         toolkit's lib64, or a Python environment's nvidia/cublas/lib) on LD_LIBRARY_PATH"
    )]
    NoCublas,
    #[error("{what}: {detail}")]
    Invalid { what: String, detail: String },
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

pub type Result<T, E = BenchError> = std::result::Result<T, E>;
