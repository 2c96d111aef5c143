//! Shared helpers for the cross-crate tests: reference kernels and their host references.

pub mod filerun;
pub mod filetest;
pub mod kernels;
