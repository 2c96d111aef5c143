//! The KOSMOS intermediate representation.
//!
//! Typed SSA with structured control flow: a [`Module`] holds [`Kernel`]s, a kernel a body
//! [`Region`] of [`Inst`]s, each an [`Op`] defining [`Value`]s. Build kernels with
//! [`KernelBuilder`], check them with [`verify`], and read or write them in the `.kir` text
//! format with [`parse_module`] and [`print_module`] (see `docs/ir.md`).

pub mod async_copy;
mod builder;
mod kernel;
mod math;
mod ops;
mod text;
mod types;
mod verifier;

pub use builder::{KernelBuilder, natural_align};
pub use kernel::{
    Failure, Inst, InstPos, Kernel, Loc, Module, Region, Value, ValueData, shared_alloc_align,
};
pub use math::MathFn;
pub use ops::{
    ATile, BTile, BinOp, CmpPred, Constant, Dim, ForRange, IdKind, MmaLayout, Op, OpFamily,
    Ordering, Origin, RegsDir, RmwOp, Scope, TileLayout, UnOp, Want,
};
pub use text::{ParseError, parse_module, print_kernel, print_module};
pub use types::{
    AddrSpace, FRAG_K, FRAG_M, FRAG_N, FragRole, GROUP_K, GROUP_N, GROUP_SUBGROUPS,
    MAX_PENDING_MMA_GROUPS, MAX_VECTOR_BYTES, MAX_VECTOR_LANES, ScalarType, Type,
    valid_register_count,
};
pub use verifier::{
    KERNEL_OP, MAX_MIN_RESIDENT, MAX_REGION_DEPTH, MAX_SHARED_BYTES, MAX_WORKGROUP_SIZE,
    VerifiedKernel, VerifiedModule, VerifyError, VerifyErrorKind, VerifyErrors, verify,
    verify_module,
};
