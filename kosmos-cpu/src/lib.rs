//! kosmos-cpu
