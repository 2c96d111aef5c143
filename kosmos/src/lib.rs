//! KOSMOS for users: write kernels with [`kernel`], build them with
//! `kosmos_build::Build::rust_sources` in `build.rs`, launch them through [`runtime`].
//!
//! ```ignore
//! use kosmos::prelude::*;
//!
//! #[kernel]
//! pub fn scale(x: &mut [f32], factor: f32, n: u32) {
//!     let i = workgroup_id_x() * workgroup_size_x() + workitem_id_x();
//!     if i < n {
//!         x[i] *= factor;
//!     }
//! }
//! ```
//! `#[device]` marks a function that kernels (and other device functions) call, inlined at
//! each call; kernels also use the file's `const` items.
//!
//! The body of a kernel is never compiled for the host: the macro replaces the function by a
//! module holding its typed launcher (`scale::launch(&module, &stream, cfg, &mut x, 2.0, n)`).
//! The language (a Rust subset) is described, one checked example per topic, in [`dsl`]
//! (`docs/dsl.md`); every intrinsic and rule in `kosmos_frontend`.

pub use half::{bf16, f16};
pub use kosmos_macros::{device, kernel};
pub use kosmos_runtime as runtime;

/// Memory orderings of atomics and fences, as written inside kernels
/// (`Ordering::Acquire`).
pub use kosmos_ir::Ordering;
/// Scopes of atomics and fences, as written inside kernels (`Scope::Agent`).
pub use kosmos_ir::Scope;

/// The first parameter of a kernel that runs on a `World` (`team: &Team`): it stands for the
/// team parameters `World::launch` passes and gives the kernel `team_rank()`,
/// `world_size()`, `team_workgroup()`, `signal`, `wait`, `claim`, `start_barrier()`,
/// `team_barrier()`, `team_last_out()`, `team_one_launch()` and `dispatch`.
/// Only kernel signatures name it; no value of it exists.
pub enum Team {}

/// A symmetric buffer parameter of a kernel with a team (`x: &Sym<[f32]>`): the world's
/// launcher takes a `&SymmetricBuffer<f32>` of that world for it, and the kernel reaches
/// rank `r`'s copy as a slice, `x.peer(r)` (`x.local()` is its own rank's; `x.len()` the
/// length of every copy). Only kernel and `#[device]` signatures name it; no value of it
/// exists.
pub struct Sym<T: ?Sized> {
    _never: std::convert::Infallible,
    _elem: std::marker::PhantomData<T>,
}

/// What kernel files import: the macro, the element types, the names kernels use for
/// orderings and scopes, and the runtime types a host program needs to launch.
pub mod prelude {
    pub use crate::runtime::{Buffer, Device, LaunchConfig, Module, Stream};
    pub use crate::{Ordering, Scope, Sym, Team, bf16, device, f16, kernel};
}

/// The language reference (`docs/dsl.md`): its examples are this crate's doc tests.
#[doc = include_str!("../../docs/dsl.md")]
pub mod dsl {}
