//! The team a workgroup belongs to: its rank, the world's size and the peer views of
//! symmetric buffers, all read from the team parameters (see [`crate::abi::TEAM_PARAMS`]).

use crate::abi::{CONTROL_BUFFER, TEAM_PARAMS};
use kosmos_ir::{CmpPred, Dim, KernelBuilder, ScalarType, Type, Value};

/// IR values describing the calling workgroup's team. Build it first thing in a kernel with
/// [`Team::params`], which declares the team parameters.
#[derive(Copy, Clone, Debug)]
pub struct Team {
    peers: Value,
    ranks: Value,
    wgs: Value,
    bound: Value,
    apart: Value,
    rank: Value,
    local_wg: Value,
}

impl Team {
    /// Declares the team parameters (they must come before the kernel's own) and computes
    /// the workgroup's rank and index within its rank.
    ///
    /// One launch may carry several ranks (the CPU device and emulated worlds: workgroup
    /// `g` belongs to rank `rank_base + g / team_wgs`) or a single one (one launch per GPU:
    /// `team_wgs` equals the grid); the same code serves both.
    pub fn params(b: &mut KernelBuilder) -> Team {
        let [peers, ranks, rank_base, wgs, bound, apart] = TEAM_PARAMS;
        let peers = b.param(peers, Type::GLOBAL_PTR);
        let ranks = b.param(ranks, Type::U32);
        let rank_base = b.param(rank_base, Type::U32);
        let wgs = b.param(wgs, Type::U32);
        let bound = b.param(bound, Type::U32);
        let apart = b.param(apart, Type::U32);
        let wg = b.workgroup_id(Dim::X);
        let rank_in_launch = b.div(wg, wgs);
        let rank = b.add(rank_base, rank_in_launch);
        b.set_name(rank, "rank");
        let local_wg = b.rem(wg, wgs);
        b.set_name(local_wg, "rank_wg");
        Team {
            peers,
            ranks,
            wgs,
            bound,
            apart,
            rank,
            local_wg,
        }
    }

    /// This workgroup's rank (`u32`).
    pub fn rank(&self) -> Value {
        self.rank
    }

    /// Number of ranks in the world (`u32`).
    pub fn world_size(&self) -> Value {
        self.ranks
    }

    /// This workgroup's index among its rank's workgroups (`u32`).
    pub fn workgroup(&self) -> Value {
        self.local_wg
    }

    /// Workgroups per rank (`u32`).
    pub fn workgroups_per_rank(&self) -> Value {
        self.wgs
    }

    /// How the world's workgroups run (`u32`, bits of [`crate::abi::apart`]): `START` where
    /// they may start far apart — its ranks run in several launches, or on the CPU device,
    /// whose threads start as the host schedules them (a kernel's start barrier makes them
    /// meet first) —, and `LAUNCHES` too for the former; `TRACE` where the world keeps
    /// trace records.
    pub fn apart(&self) -> Value {
        self.apart
    }

    /// Whether `team_apart` has `bit`, one of [`crate::abi::apart`]'s (`i1`).
    pub fn apart_has(&self, b: &mut KernelBuilder, bit: u32) -> Value {
        let bit = b.const_u32(bit);
        let set = b.and(self.apart, bit);
        let zero = b.const_u32(0);
        b.cmp(CmpPred::Ne, set, zero)
    }

    /// Polls a bounded wait makes before giving up (`u32`).
    pub fn wait_bound(&self) -> Value {
        self.bound
    }

    /// Rank `rank`'s copy of symmetric buffer `buffer` (index 0 is the world's control
    /// buffer, the world's allocations follow). The peer table holds each copy's byte
    /// offset from the table itself (`i64`), so a peer pointer is one `ptr.offset` of the
    /// table pointer: the IR has no integer-to-pointer conversion, and needs none.
    pub fn peer_ptr(&self, b: &mut KernelBuilder, buffer: u32, rank: Value) -> Value {
        let buffer = b.const_u32(buffer);
        self.peer_ptr_of(b, buffer, rank)
    }

    /// [`Team::peer_ptr`] of a buffer index known at run time (a `u32` value: a DSL
    /// kernel's `&Sym<[T]>` parameter).
    pub fn peer_ptr_of(&self, b: &mut KernelBuilder, buffer: Value, rank: Value) -> Value {
        let row = b.mul(buffer, self.ranks);
        let slot = b.add(row, rank);
        let entry = b.ptr_offset(self.peers, slot, Type::I64);
        let delta = b.load(entry, Type::I64);
        b.ptr_offset(self.peers, delta, Type::Scalar(ScalarType::U8))
    }

    /// This rank's own copy of symmetric buffer `buffer`.
    pub fn local_ptr(&self, b: &mut KernelBuilder, buffer: u32) -> Value {
        self.peer_ptr(b, buffer, self.rank)
    }

    /// This rank's control buffer.
    pub fn control(&self, b: &mut KernelBuilder) -> Value {
        self.local_ptr(b, CONTROL_BUFFER)
    }
}
