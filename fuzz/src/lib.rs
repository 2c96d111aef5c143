//! A mutation fuzzer for the KOSMOS IR pipeline (`docs/fuzzing.md`).
//!
//! Inputs are the `.kir` file tests, mutated ([`mutate`]); each goes through parse, verify,
//! the CPU device and codegen ([`pipeline`]) in a worker process ([`worker`]), so that a
//! panic, an abort or a hang is recorded with the input that caused it; a run ([`parent`])
//! saves every new crash as a `; test fuzz` file test and reports its counts ([`report`]).

pub mod corpus;
pub mod mutate;
pub mod parent;
pub mod pipeline;
pub mod report;
pub mod worker;

use std::hash::Hasher;

/// A stable 64-bit hash (FNV-1a): names saved findings and seeds per-input randomness.
pub fn hash(bytes: &[u8]) -> u64 {
    let mut h = fnv::FnvHasher::default();
    h.write(bytes);
    h.finish()
}
