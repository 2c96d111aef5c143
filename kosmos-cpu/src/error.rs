//! Errors of the CPU device. Every one names the kernel and, where it applies, the
//! workgroup, lane and instruction position, so a failing test reads as a diagnosis.

use kosmos_ir::InstPos;
use std::fmt;
use std::time::Duration;

/// A workgroup found waiting when the watchdog fired.
#[derive(Clone, Debug, PartialEq)]
pub struct StuckWorkgroup {
    pub workgroup: [u32; 3],
    /// The load it was polling, where known: position, address, last value seen.
    pub spinning_on: Option<(InstPos, u64, u64)>,
}

impl fmt::Display for StuckWorkgroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [x, y, z] = self.workgroup;
        write!(f, "workgroup ({x}, {y}, {z})")?;
        match self.spinning_on {
            Some((pos, addr, value)) => {
                write!(f, " spinning at {pos} on {addr:#x} (last value {value:#x})")
            }
            None => write!(f, " making no progress"),
        }
    }
}

/// A workgroup still running when the launch reached its time limit, and the loop it was
/// in.
#[derive(Clone, Debug, PartialEq)]
pub struct StoppedWorkgroup {
    pub workgroup: [u32; 3],
    pub pos: InstPos,
}

impl fmt::Display for StoppedWorkgroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [x, y, z] = self.workgroup;
        write!(f, "workgroup ({x}, {y}, {z}) in the loop at {}", self.pos)
    }
}

fn list<T: fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join("; ")
}

#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CpuError {
    #[error("kernel {kernel}: expected {expected} arguments, got {got}")]
    ArgCount {
        kernel: String,
        expected: usize,
        got: usize,
    },
    #[error("kernel {kernel}: argument {index} (%{param}): expected {expected}, got {got}")]
    ArgType {
        kernel: String,
        index: usize,
        param: String,
        expected: String,
        got: String,
    },
    #[error(
        "kernel {kernel}: argument {index} (%{param}): {bytes} bytes at {addr:#x} are not inside a live allocation"
    )]
    ArgPointer {
        kernel: String,
        index: usize,
        param: String,
        addr: u64,
        bytes: u64,
    },
    #[error("kernel {kernel}: bad launch {what} dimension {dim}: {message}")]
    LaunchDim {
        kernel: String,
        what: &'static str,
        dim: char,
        message: String,
    },
    #[error(
        "kernel {kernel}: a workgroup of {block:?} is {} lanes, more than {limit}",
        launch_count(block)
    )]
    WorkgroupTooLarge {
        kernel: String,
        block: [u32; 3],
        limit: u32,
    },
    #[error(
        "kernel {kernel}: a grid of {grid:?} is {} workgroups, more than 2^64 - 1",
        launch_count(grid)
    )]
    GridTooLarge { kernel: String, grid: [u32; 3] },
    /// A kernel with `mma.group` launched with a workgroup that is not whole groups of
    /// [`kosmos_ir::GROUP_SUBGROUPS`] subgroups.
    #[error(
        "kernel {kernel}: workgroup size {size} is not a multiple of {group} lanes: mma.group \
         needs whole groups of 4 subgroups ({subgroup} lanes each)"
    )]
    PartialGroup {
        kernel: String,
        size: u64,
        group: u64,
        subgroup: u32,
    },
    #[error(
        "kernel {kernel}: workgroup {workgroup:?} lane {lane}: {pos}: `{op}` of {bytes} bytes at {addr:#x} is out of bounds ({space})"
    )]
    OutOfBounds {
        kernel: String,
        workgroup: [u32; 3],
        lane: u32,
        addr: u64,
        bytes: u32,
        pos: InstPos,
        op: &'static str,
        space: &'static str,
    },
    #[error(
        "kernel {kernel}: workgroup {workgroup:?} lane {lane}: {origin}: index {index} is out of bounds for a slice of {len} elements"
    )]
    IndexOutOfBounds {
        kernel: String,
        workgroup: [u32; 3],
        lane: u32,
        /// Where the access is in the source, and its text.
        origin: String,
        index: u64,
        len: u64,
    },
    #[error(
        "kernel {kernel}: workgroup {workgroup:?} lane {lane}: {origin}: gave up after {polls} polls"
    )]
    WaitGaveUp {
        kernel: String,
        workgroup: [u32; 3],
        lane: u32,
        /// Where the wait is in the source, and its text.
        origin: String,
        polls: u64,
    },
    #[error("kernel {kernel}: workgroup {workgroup:?} lane {lane}: {pos}: `{op}`: {message}")]
    BadOperand {
        kernel: String,
        workgroup: [u32; 3],
        lane: u32,
        pos: InstPos,
        op: &'static str,
        message: String,
    },
    #[error(
        "kernel {kernel}: workgroup {workgroup:?} lane {lane}: {pos}: `{op}` at {addr:#x} is not aligned to {align}"
    )]
    Misaligned {
        kernel: String,
        workgroup: [u32; 3],
        lane: u32,
        addr: u64,
        align: u32,
        pos: InstPos,
        op: &'static str,
    },
    #[error(
        "kernel {kernel}: workgroup {workgroup:?} lane {lane}: {pos}: integer division by zero"
    )]
    DivByZero {
        kernel: String,
        workgroup: [u32; 3],
        lane: u32,
        pos: InstPos,
    },
    #[error(
        "kernel {kernel}: workgroup {workgroup:?} lane {lane}: `for` with a step that is not positive"
    )]
    NonPositiveStep {
        kernel: String,
        workgroup: [u32; 3],
        lane: u32,
    },
    #[error(
        "kernel {kernel}: workgroup {workgroup:?}: {pos}: divergent barrier (lane {lane} is live but not here)"
    )]
    DivergentBarrier {
        kernel: String,
        workgroup: [u32; 3],
        lane: u32,
        pos: InstPos,
    },
    /// A subgroup-collective op (a fragment op) that some lane of the subgroup did not
    /// reach, or reached with operands that differ from its neighbours'.
    #[error(
        "kernel {kernel}: workgroup {workgroup:?}: {pos}: `{op}` in subgroup {subgroup}: {message}"
    )]
    Subgroup {
        kernel: String,
        workgroup: [u32; 3],
        subgroup: u32,
        pos: InstPos,
        op: &'static str,
        message: String,
    },
    #[error("subgroup size {size} is not supported (a power of two in 8..=64)")]
    SubgroupSize { size: u32 },
    #[error("kernel {kernel}: deadlock: no progress for {watchdog:?}: {}; {not_started} workgroups not started", list(.stuck))]
    Deadlock {
        kernel: String,
        watchdog: Duration,
        stuck: Vec<StuckWorkgroup>,
        not_started: u64,
    },
    /// A launch still running after [`CpuConfig::time_limit`](crate::CpuConfig): workgroups
    /// that keep making progress (a loop counting up forever) never trip the deadlock
    /// watchdog.
    #[error(
        "kernel {kernel}: still running after {limit:?} (CpuConfig::time_limit): {}",
        list(.running)
    )]
    TimeLimit {
        kernel: String,
        limit: Duration,
        running: Vec<StoppedWorkgroup>,
    },
    #[error("cannot allocate {bytes} bytes")]
    AllocFailed { bytes: u64 },
    #[error("free of {addr:#x}, which is not the start of a live allocation")]
    BadFree { addr: u64 },
    #[error("host access of {bytes} bytes at {addr:#x} is outside every live allocation")]
    HostOutOfBounds { addr: u64, bytes: u64 },
    #[error("kernel {kernel}: a workgroup thread panicked")]
    WorkerPanic { kernel: String },
}

/// How many work-items or workgroups launch dimensions make: exact, since three `u32`s
/// multiply to less than 2^96.
pub(crate) fn launch_count(dims: &[u32; 3]) -> u128 {
    dims.iter().map(|d| u128::from(*d)).product()
}
