//! Compiled modules: the loadable [`ModuleImage`], and the [`EmbeddedModule`] that
//! `kosmos-build` writes into a program in a build script.
//!
//! Binaries are keyed by the name of the code-generation target they were built for (the
//! names of `kosmos_codegen::TargetKind`: `sm_90a`, `gfx942`, `gfx950`), so a new target
//! needs no new field here or in the build step; each backend looks up the target its
//! device runs.

use crate::error::{Error, Result};
use std::collections::BTreeMap;

/// A compiled module as a program loads it: the IR, which gives the kernels' signatures
/// (checked at every launch) and is what the CPU device runs, and the binaries of the GPU
/// targets.
#[derive(Clone, Debug, Default)]
pub struct ModuleImage {
    pub ir: kosmos_ir::VerifiedModule,
    /// The binary of each target, by target name: PTX text for NVIDIA targets, an AMDGPU
    /// code object (HSACO) for AMD ones.
    pub binaries: BTreeMap<String, Vec<u8>>,
}

impl ModuleImage {
    /// An image with the IR alone (enough for the CPU device).
    pub fn new(ir: kosmos_ir::VerifiedModule) -> ModuleImage {
        ModuleImage {
            ir,
            ..ModuleImage::default()
        }
    }

    /// Adds (or replaces) the binary of `target`.
    pub fn with_binary(mut self, target: impl Into<String>, binary: impl Into<Vec<u8>>) -> Self {
        self.binaries.insert(target.into(), binary.into());
        self
    }

    /// The binary of `target` (`sm_90a`, `gfx942`, ...), if the image has one.
    pub fn binary(&self, target: &str) -> Option<&[u8]> {
        self.binaries.get(target).map(Vec::as_slice)
    }
}

/// A module as `kosmos-build` embeds it: the IR text and the binary of each target that was
/// built (`KOSMOS_TARGETS`).
#[derive(Copy, Clone, Debug)]
pub struct EmbeddedModule {
    pub name: &'static str,
    pub kir: &'static str,
    /// `(target name, binary)` for every target built, as in [`ModuleImage::binaries`].
    pub binaries: &'static [(&'static str, &'static [u8])],
}

impl EmbeddedModule {
    /// The IR, parsed and verified.
    pub fn ir(&self) -> Result<kosmos_ir::VerifiedModule> {
        let bad = |message: String| Error::BadEmbeddedModule {
            module: self.name.to_string(),
            message,
        };
        let ir = kosmos_ir::parse_module(self.kir).map_err(|e| bad(e.to_string()))?;
        kosmos_ir::verify_module(ir).map_err(|e| bad(e.to_string()))
    }

    /// The binary of `target`, if it was built.
    pub fn binary(&self, target: &str) -> Option<&'static [u8]> {
        self.binaries
            .iter()
            .find(|(name, _)| *name == target)
            .map(|(_, binary)| *binary)
    }

    /// A loadable image of the module.
    pub fn image(&self) -> Result<ModuleImage> {
        let image = ModuleImage::new(self.ir()?);
        Ok(self.binaries.iter().fold(image, |image, (target, binary)| {
            image.with_binary(*target, *binary)
        }))
    }
}
