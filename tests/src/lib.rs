//! Shared helpers for the cross-crate tests: the file-test harness, access to the CPU device,
//! the reference kernels (compiled for every target at build time and embedded as
//! [`REFERENCE`]) and the suite that runs them on any device, and the check of the kernels
//! crate's GEMMs.

pub mod cpu;
pub mod filerun;
pub mod filetest;
pub mod gemm_check;
pub mod moe_check;
pub mod suite;
pub mod tp_check;

pub use kosmos_testkernels as kernels;

include!(concat!(env!("OUT_DIR"), "/kosmos_modules.rs"));
