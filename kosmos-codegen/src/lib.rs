//! kosmos-codegen
