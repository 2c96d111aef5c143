//! kosmos-ir
