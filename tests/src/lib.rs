//! Shared helpers for the cross-crate tests.

pub mod filetest;
