//! `kosmos._native`: the kernels crate's ops for Python, on DLPack arrays (numpy arrays,
//! torch tensors). The `kosmos` Python package wraps it (output allocation, bfloat16 for
//! numpy through `ml_dtypes`, torch custom ops and autograd); docs/python.md describes both.
//!
//! - `gemm` runs where its arrays are: host arrays on the CPU device (copied in and out),
//!   CUDA tensors on their GPU without a copy, on the caller's stream (`staging`), through
//!   plans kept across calls (`plans`).
//! - `World` runs the fused tensor-parallel ops and the MoE layer on ranks emulated on one
//!   device, over host arrays stacked by rank (`world`).
//! - `JoinedWorld` is this process's rank of a world of processes (one per GPU under
//!   `torchrun`), running the fused ops on the rank's own arrays (`joined`), in place on
//!   its symmetric arrays (`symmetric`).
//! - Every failure is a Python exception with the Rust message, panics included (`errors`).

mod arrays;
mod errors;
mod gemm;
mod joined;
mod moe_args;
mod plans;
mod pool;
mod staging;
mod symmetric;
mod world;

use pyo3::prelude::*;

/// The CUDA GPUs the driver shows (0 without a driver): where `World(device="cuda:N")` and
/// CUDA tensors can run.
#[pyfunction]
fn cuda_device_count() -> usize {
    kosmos_runtime::Device::cuda_device_count()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("KosmosError", m.py().get_type::<errors::KosmosError>())?;
    m.add_function(wrap_pyfunction!(gemm::gemm, m)?)?;
    m.add_class::<world::World>()?;
    m.add_class::<joined::JoinedWorld>()?;
    m.add_class::<symmetric::SymmetricArray>()?;
    m.add_function(wrap_pyfunction!(cuda_device_count, m)?)?;
    Ok(())
}
