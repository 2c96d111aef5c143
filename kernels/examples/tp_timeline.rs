//! The timeline of a tensor-parallel MLP block's forward pass (as `kernels::TpMlp` runs it:
//! the fused all-gather+GEMM FC1, GELU, the fused GEMM+reduce-scatter FC2) on an emulated world: one
//! row per workgroup of every rank, one bar per task, coloured by role: the tiles its
//! consumer subgroups multiply above, the pulls and reductions of its communication
//! subgroups (and the producer's waits for a peer's rows) below. It shows every workgroup of
//! one persistent launch moving data and multiplying at once.
//!
//! `cargo run --release -p kernels --example tp_timeline -- [out.svg]` (default
//! `tp-timeline.svg`); on the first GPU, else (`KOSMOS_DEVICE=cpu`, or no GPU) on the CPU
//! device with a smaller block.

use kernels::{Layout, TpOps};
use kosmos::bf16;
use kosmos::runtime::{Device, DeviceKind, SymmetricBuffer, World, WorldOptions};
use kosmos_sched::trace;
use kosmos_testkernels::random_bf16;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "tp-timeline.svg".into());
    let device = Device::from_env()?;
    // Tokens over all ranks, model width, hidden width per rank.
    let (ranks, tokens, d_model, hidden) = if device.kind() == DeviceKind::Cpu {
        (2u32, 512, 256, 512)
    } else {
        (4, 2048, 1024, 1024)
    };
    let options = WorldOptions {
        trace_capacity: 1 << 16,
        ..WorldOptions::default()
    };
    let mut world = World::emulated(&device, ranks, options)?;
    let mut ops = TpOps::new(&world)?;
    let sym = |world: &mut World,
               len: usize,
               seed: u64|
     -> Result<SymmetricBuffer<bf16>, Box<dyn std::error::Error>> {
        let b = world.alloc_symmetric::<bf16>(len)?;
        for (r, copy) in b.ranks().iter().enumerate() {
            copy.upload(&random_bf16(seed + r as u64, len))?;
        }
        Ok(b)
    };
    // Every rank's gathered input starts whole (the gather rewrites its peers' rows with
    // the same values): only the timing matters here.
    let x = world.alloc_symmetric::<bf16>(tokens * d_model)?;
    for copy in x.ranks() {
        copy.upload(&random_bf16(1, tokens * d_model))?;
    }
    let w1 = sym(&mut world, d_model * hidden, 10)?;
    let w2 = sym(&mut world, hidden * d_model, 20)?;
    let z = world.alloc_symmetric::<f32>(tokens * hidden)?;
    let mut h = world.alloc_symmetric::<bf16>(tokens * hidden)?;
    let y = world.alloc_symmetric::<f32>(tokens / ranks as usize * d_model)?;
    let mut events = Vec::new();
    // A warm-up pass, whose records are dropped, then the traced one.
    for pass in 0..2 {
        ops.ag_gemm(&mut world, &x, &w1, Layout::N, &z, tokens, hidden, d_model)?;
        world.synchronize()?;
        let (fc1, _) = world.trace()?;
        ops.each_rank(&world, |local, stream, r| {
            local.gelu(stream, &z.ranks()[r], &mut h.ranks_mut()[r])
        })?;
        ops.gemm_rs(&mut world, &h, &w2, Layout::N, &y, tokens, d_model, hidden)?;
        world.synchronize()?;
        let (fc2, _) = world.trace()?;
        if pass == 1 {
            events = fc1;
            events.extend(fc2);
        }
    }
    let title = format!(
        "TP MLP forward on {device}: {ranks} emulated ranks, {tokens} tokens, d_model {d_model}, \
         d_ff {} (FC1 all-gather+GEMM, GELU, FC2 GEMM+reduce-scatter)",
        hidden * ranks as usize
    );
    std::fs::write(&out, trace::svg_timeline(&events, &title))?;
    println!("{} task records -> {out}", events.len());
    Ok(())
}
