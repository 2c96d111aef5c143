//! The verified forms of kernels and modules.

use crate::{Kernel, Module};

/// A kernel the verifier accepted. Only [`verify`] and [`verify_module`] make one, and it is
/// read-only, so whoever holds one may rely on every fact the verifier checks (operand types,
/// scoping, terminators, limits) without checking them again.
#[derive(Clone, Debug, PartialEq)]
pub struct VerifiedKernel(pub(super) Kernel);

impl VerifiedKernel {
    pub fn into_kernel(self) -> Kernel {
        self.0
    }
}

impl std::ops::Deref for VerifiedKernel {
    type Target = Kernel;

    fn deref(&self) -> &Kernel {
        &self.0
    }
}

/// A module whose kernels the verifier accepted, with unique names.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VerifiedModule {
    pub(super) kernels: Vec<VerifiedKernel>,
}

impl VerifiedModule {
    pub fn kernels(&self) -> &[VerifiedKernel] {
        &self.kernels
    }

    pub fn kernel(&self, name: &str) -> Option<&VerifiedKernel> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// The module as plain IR again (to edit it, or to print it).
    pub fn to_module(&self) -> Module {
        Module {
            kernels: self.kernels.iter().map(|k| k.0.clone()).collect(),
        }
    }

    pub fn into_module(self) -> Module {
        Module {
            kernels: self.kernels.into_iter().map(|k| k.0).collect(),
        }
    }
}

impl From<VerifiedKernel> for VerifiedModule {
    /// A single verified kernel is a verified module: its name is unique.
    fn from(kernel: VerifiedKernel) -> VerifiedModule {
        VerifiedModule {
            kernels: vec![kernel],
        }
    }
}
