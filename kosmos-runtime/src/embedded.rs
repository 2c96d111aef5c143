//! Modules compiled by `kosmos-build` in a build script and embedded in the program.

use crate::error::{Error, Result};
use crate::module::ModuleImage;

/// A module as `kosmos-build` embeds it: the IR text and the binary of each target that was
/// built (`KOSMOS_TARGETS`).
#[derive(Copy, Clone, Debug)]
pub struct EmbeddedModule {
    pub name: &'static str,
    pub kir: &'static str,
    pub ptx: Option<&'static str>,
    pub hsaco_gfx942: Option<&'static [u8]>,
    pub hsaco_gfx950: Option<&'static [u8]>,
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

    /// A loadable image of the module.
    pub fn image(&self) -> Result<ModuleImage> {
        Ok(ModuleImage {
            ir: self.ir()?,
            ptx: self.ptx.map(str::to_string),
            hsaco_gfx942: self.hsaco_gfx942.map(<[u8]>::to_vec),
            hsaco_gfx950: self.hsaco_gfx950.map(<[u8]>::to_vec),
        })
    }
}
