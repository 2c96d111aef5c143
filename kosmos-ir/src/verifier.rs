//! The verifier: every kernel passes it before it is interpreted or lowered.

use crate::{InstPos, Kernel, Module};
use std::fmt;

/// One verifier finding: the kernel, where, the op, and what is wrong.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{kernel}: {pos}: `{op}`: {message}")]
pub struct VerifyError {
    pub kernel: String,
    pub pos: InstPos,
    pub op: &'static str,
    pub message: String,
}

/// All findings of one verification.
#[derive(Clone, Debug, PartialEq)]
pub struct VerifyErrors(pub Vec<VerifyError>);

impl fmt::Display for VerifyErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for VerifyErrors {}

pub fn verify(_kernel: &Kernel) -> Result<(), VerifyErrors> {
    Ok(())
}

pub fn verify_module(module: &Module) -> Result<(), VerifyErrors> {
    let errors: Vec<VerifyError> = module
        .kernels
        .iter()
        .filter_map(|k| verify(k).err())
        .flat_map(|e| e.0)
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(VerifyErrors(errors))
    }
}
