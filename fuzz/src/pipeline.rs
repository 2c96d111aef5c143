//! What happens to one input: parse, verify, run every kernel on the CPU device, compile for
//! sm_90a and gfx942. Errors returned by any stage are expected (most mutated inputs do not
//! parse); only a panic, an abort or a hang is a defect, and those are caught around this
//! function, not in it.

use kosmos_codegen::{Emit, Options, TargetKind};
use kosmos_cpu::{Arg, CpuConfig, CpuDevice, CpuError};
use kosmos_ir::{ScalarType, Type, VerifiedKernel};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::time::Duration;

/// The GPU targets every verified input is compiled for (one NVIDIA, one AMD). The assembly
/// stage runs all of LLVM's backend; linking and ptxas add external tools, not our code.
pub const TARGETS: [TargetKind; 2] = [TargetKind::Sm90a, TargetKind::Gfx942];

/// Bytes of each buffer passed for a pointer parameter.
const BUFFER_BYTES: usize = 4096;
/// Largest workgroup launched: enough lanes for group-wide ops, few enough to stay fast.
const MAX_BLOCK: u32 = 128;

/// How far an input got; each stage only runs when the one before succeeded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reached {
    pub parsed: bool,
    pub verified: bool,
    /// Every kernel launched and returned `Ok`.
    pub ran: bool,
    /// Every target compiled.
    pub compiled: bool,
}

impl Reached {
    /// One byte for the worker protocol.
    pub fn to_bits(self) -> u8 {
        u8::from(self.parsed)
            | u8::from(self.verified) << 1
            | u8::from(self.ran) << 2
            | u8::from(self.compiled) << 3
    }

    pub fn from_bits(bits: u8) -> Reached {
        Reached {
            parsed: bits & 1 != 0,
            verified: bits & 2 != 0,
            ran: bits & 4 != 0,
            compiled: bits & 8 != 0,
        }
    }
}

/// The CPU device's limits for fuzzed kernels: a kernel that spins or counts forever is an
/// error after a fraction of a second, well inside the worker's per-input timeout.
pub fn cpu_config() -> CpuConfig {
    CpuConfig {
        max_resident_workgroups: 4,
        watchdog: Duration::from_millis(200),
        time_limit: Duration::from_millis(500),
        ..CpuConfig::default()
    }
}

/// Runs `text` through every stage. Launch arguments come from a generator seeded by the
/// text's hash, so an input behaves the same every time it is run.
pub fn check(text: &str) -> Reached {
    let mut reached = Reached::default();
    let Ok(module) = kosmos_ir::parse_module(text) else {
        return reached;
    };
    reached.parsed = true;
    let Ok(module) = kosmos_ir::verify_module(module) else {
        return reached;
    };
    reached.verified = true;
    let mut rng = SmallRng::seed_from_u64(crate::hash(text.as_bytes()));
    let device = CpuDevice::with_config(cpu_config());
    reached.ran = module
        .kernels()
        .iter()
        .all(|kernel| launch(&device, kernel, &mut rng));
    reached.compiled = TARGETS.iter().all(|&target| {
        kosmos_codegen::compile_to(&module, target, Emit::Asm, &Options::default()).is_ok()
    });
    reached
}

/// Launches `kernel` with small random arguments; whether it returned `Ok`.
fn launch(device: &CpuDevice, kernel: &VerifiedKernel, rng: &mut SmallRng) -> bool {
    let mut args = Vec::with_capacity(kernel.params.len());
    for &param in &kernel.params {
        let arg = match kernel.ty(param) {
            Type::Ptr(_) => {
                let mut bytes = vec![0u8; BUFFER_BYTES];
                rng.fill(&mut bytes[..]);
                let Ok(addr) = device.alloc(BUFFER_BYTES as u64) else {
                    return false;
                };
                if device.write(addr, &bytes).is_err() {
                    return false;
                }
                Arg::Ptr(addr)
            }
            Type::Scalar(ty) => Arg::Scalar(small_scalar(ty, rng)),
            // Not a valid parameter type: passing a scalar shows how the launch refuses it.
            Type::Vector { .. } | Type::Frag(_) => Arg::Scalar(small_scalar(ScalarType::U32, rng)),
        };
        args.push(arg);
    }
    let widest = kernel.max_workgroup_size.clamp(1, MAX_BLOCK);
    let block = [[widest, 1, 1], [32, 1, 1], [1, 1, 1]][rng.random_range(0..3)];
    let grid = [rng.random_range(1..=2), 1, 1];
    match device.launch(kernel, grid, block, &args) {
        Ok(_) => true,
        // The device turns a panic on one of its threads into an error; it is still a defect
        // (a `fuzz` file test runs this in-process, where no panic hook aborts first).
        Err(e @ CpuError::WorkerPanic { .. }) => panic!("{e}"),
        Err(_) => false,
    }
}

/// A scalar of `ty` in 0..16 (floats with a fraction): small enough for loop bounds and
/// indices to stay inside the buffers most of the time.
fn small_scalar(ty: ScalarType, rng: &mut SmallRng) -> kosmos_ir::Constant {
    if ty.is_float() {
        kosmos_ir::Constant::float(ty, rng.random_range(0.0..16.0))
    } else if ty == ScalarType::I1 {
        kosmos_ir::Constant::int(ty, rng.random_range(0..=1))
    } else {
        kosmos_ir::Constant::int(ty, rng.random_range(0..16))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reached_survives_the_protocol_byte() {
        for bits in 0..16 {
            assert_eq!(Reached::from_bits(bits).to_bits(), bits);
        }
    }

    #[test]
    fn a_valid_kernel_reaches_every_stage_and_garbage_none() {
        let text = "kernel @k(%out: ptr<global>) max_workgroup_size 64 {\n  \
                    %t = workitem.id x\n  %p = ptr.offset %out, %t, u32\n  \
                    store %p, %t, align 4\n}\n";
        let all = Reached {
            parsed: true,
            verified: true,
            ran: true,
            compiled: true,
        };
        assert_eq!(check(text), all);
        assert_eq!(check("kernel @k("), Reached::default());
    }
}
