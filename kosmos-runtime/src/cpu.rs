//! The CPU backend: the IR interpreter of `kosmos-cpu`, which runs launches synchronously.

use crate::error::Result;
use kosmos_cpu::{Arg, CpuConfig, CpuDevice};
use kosmos_ir::VerifiedKernel;

pub(crate) struct CpuBackend {
    device: CpuDevice,
}

impl CpuBackend {
    /// A CPU device running up to `resident` workgroups at once (its default when `None`).
    pub(crate) fn new(resident: Option<u32>) -> CpuBackend {
        let mut config = CpuConfig::default();
        if let Some(n) = resident {
            config.max_resident_workgroups = n as usize;
        }
        CpuBackend {
            device: CpuDevice::with_config(config),
        }
    }

    /// Workgroups that run at once: each is an OS thread, so a persistent grid of this size
    /// never waits on a workgroup that has not started.
    pub(crate) fn resident_workgroups(&self) -> u32 {
        u32::try_from(self.device.config().max_resident_workgroups).unwrap_or(u32::MAX)
    }

    /// Lanes of a subgroup, as the interpreter forms them.
    pub(crate) fn subgroup_size(&self) -> u32 {
        self.device.config().subgroup_size
    }

    pub(crate) fn alloc(&self, bytes: usize) -> Result<u64> {
        Ok(self.device.alloc(bytes as u64)?)
    }

    pub(crate) fn free(&self, addr: u64) -> Result<()> {
        Ok(self.device.free(addr)?)
    }

    pub(crate) fn write(&self, addr: u64, data: &[u8]) -> Result<()> {
        Ok(self.device.write(addr, data)?)
    }

    pub(crate) fn read(&self, addr: u64, out: &mut [u8]) -> Result<()> {
        Ok(self.device.read(addr, out)?)
    }

    /// Runs `kernel` to completion.
    pub(crate) fn launch(
        &self,
        kernel: &VerifiedKernel,
        grid: [u32; 3],
        block: [u32; 3],
        args: &[Arg],
    ) -> Result<()> {
        self.device.launch(kernel, grid, block, args)?;
        Ok(())
    }
}
