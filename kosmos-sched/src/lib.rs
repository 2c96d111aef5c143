//! Self-scheduling for persistent KOSMOS kernels, emitted as IR so that every backend (the
//! CPU device, gfx942/gfx950, sm_90a) runs the same protocol:
//!
//! - [`Team`]: a workgroup's rank, the world's size and peer views of symmetric buffers;
//! - [`Sched`]: workgroup-level queue claims ([`Sched::claim`], [`Sched::claim_if_ready`]),
//!   readiness signals and bounded waits ([`Sched::signal`], [`Sched::wait`]), the start
//!   barrier, role dispatch ([`Sched::dispatch_loop`]) and trace records;
//! - [`plan`]: the host-side planner of demand-ordered task tables;
//! - [`abi`]: the contract with the host (team parameters, control buffer layout, error and
//!   trace records). It is defined by `kosmos_runtime::world::abi`, next to the `World`
//!   that implements it, and re-exported here for the kernels that follow it;
//! - [`trace`]: Chrome/Perfetto trace JSON and SVG timelines of traced runs;
//! - [`pipeline`] and [`latency`]: a synthetic pipeline and latency kernels built from the
//!   primitives.
//!
//! The protocol and its memory-model reasoning are described in `docs/scheduling.md`.

mod dispatch;
pub mod latency;
pub mod pipeline;
pub mod plan;
mod sync;
mod team;
pub mod trace;

pub use kosmos_runtime::world::abi;

pub use abi::{CapacityRecord, ErrorRecord, Role, TraceEvent, WaitKind};
pub use dispatch::Queues;
pub use sync::{POLL_SLEEP_NS, SCRATCH_WORDS, Sched, SchedOptions};
pub use team::Team;

/// Every kernel of this crate, as one module (what build scripts compile and embed).
pub fn module() -> kosmos_ir::Module {
    let mut kernels = vec![
        pipeline::Pipeline::kernel(SchedOptions::default()),
        pipeline::Pipeline::kernel(SchedOptions { trace: true }),
    ];
    kernels.extend(latency::kernels());
    kosmos_ir::Module { kernels }
}
