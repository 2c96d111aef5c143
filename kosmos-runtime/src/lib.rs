//! kosmos-runtime
