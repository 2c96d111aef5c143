//! The op families, one module each, holding both halves of every op: how
//! [`crate::compile`] resolves it into an instruction of the family's enum and how
//! [`crate::exec`] runs that instruction over a workgroup's lanes. Adding an op touches its
//! family's module and the routing in `Compiler::inst`.

mod arith;
mod async_copy;
mod atomic;
mod control;
mod machine;
mod memory;
mod shared_tile;
mod tile;
mod vector;

pub(crate) use arith::Arith;
pub(crate) use async_copy::AsyncCopy;
pub(crate) use atomic::Atomic;
pub(crate) use control::Control;
pub(crate) use machine::Machine;
pub(crate) use memory::Memory;
pub(crate) use shared_tile::SharedTile;
pub(crate) use tile::Tile;
pub(crate) use vector::Vector;
