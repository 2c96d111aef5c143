//! The CPU device: a concurrent interpreter of KOSMOS IR kernels.
//!
//! Each resident workgroup runs on its own OS thread with its lanes in lockstep (or, when its
//! groups of subgroups may wait on each other, with each group on a thread of its own and
//! the lanes of a group in lockstep); device memory is shared by all threads and accessed only through Rust atomics, so racy kernels behave as
//! on a GPU (without undefined behaviour) and every out-of-bounds or misaligned access is an
//! error naming the kernel, workgroup, lane and instruction. A watchdog turns spinning
//! workgroups that make no progress into [`CpuError::Deadlock`], and a launch still running
//! after [`CpuConfig::time_limit`] into [`CpuError::TimeLimit`].
//!
//! Layout: `compile.rs` resolves a verified kernel into the program (`program.rs`) the
//! executor runs; `ops/` holds one module per op family with both its compile and execute
//! halves; `exec/` runs a workgroup (masks, slots, memory access); `arith.rs` and
//! `memory.rs` are the scalar semantics and device memory the ops build on.

mod arith;
mod compile;
mod error;
mod exec;
mod memory;
mod ops;
mod program;

pub use error::{CpuError, StoppedWorkgroup, StuckWorkgroup};

use exec::{Launch, SlotState, Stop, Worker};
use kosmos_ir::{Constant, GROUP_SUBGROUPS, Kernel, Type, VerifiedKernel};
use memory::{Allocation, MemoryView};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering as AO};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

/// Largest workgroup the CPU device runs (the common GPU limit).
pub const MAX_WORKGROUP_SIZE: u32 = 1024;

/// First device address handed out: above 4 GiB, so addresses truncated to 32 bits fault.
const BASE_ADDRESS: u64 = 0x1_0000_0000;
/// Unmapped bytes between allocations, so small overruns fault instead of hitting a neighbour.
const GUARD_BYTES: u64 = 4096;

#[derive(Clone, Debug)]
pub struct CpuConfig {
    /// Workgroups running at once (one OS thread each); the rest wait for a free slot.
    pub max_resident_workgroups: usize,
    /// A launch in which nothing progresses for this long is aborted as a deadlock.
    pub watchdog: Duration,
    /// A launch still running after this long is aborted, progressing or not.
    pub time_limit: Duration,
    /// Lanes per subgroup (what `subgroup.size` reads and fragment ops span): a power of
    /// two in 8..=64; 32 (NVIDIA's warp) by default, 64 to run as AMD's wave64 does.
    pub subgroup_size: u32,
}

impl Default for CpuConfig {
    fn default() -> CpuConfig {
        CpuConfig {
            max_resident_workgroups: 64,
            watchdog: Duration::from_secs(8),
            time_limit: Duration::from_secs(300),
            subgroup_size: 32,
        }
    }
}

/// A kernel argument.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Arg {
    /// A device address (from [`CpuDevice::alloc`], possibly offset) or 0: the buffer from
    /// there to the end of its allocation (`buffer.len` gives that length).
    Ptr(u64),
    /// A buffer of `bytes` at `addr`, inside one allocation (or 0 with no bytes).
    Slice {
        addr: u64,
        bytes: u64,
    },
    Scalar(Constant),
}

/// What a launch did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LaunchStats {
    /// Instructions executed, times the lanes active for each.
    pub lane_ops: u64,
    pub workgroups: u64,
    /// Worker threads used.
    pub threads: usize,
    pub elapsed: Duration,
}

struct Inner {
    config: CpuConfig,
    allocs: RwLock<Allocs>,
}

struct Allocs {
    next: u64,
    live: BTreeMap<u64, Arc<Allocation>>,
}

/// The CPU device. Cloning is cheap and shares the device.
#[derive(Clone)]
pub struct CpuDevice {
    inner: Arc<Inner>,
}

impl Default for CpuDevice {
    fn default() -> CpuDevice {
        CpuDevice::new()
    }
}

impl CpuDevice {
    pub fn new() -> CpuDevice {
        CpuDevice::with_config(CpuConfig::default())
    }

    pub fn with_config(config: CpuConfig) -> CpuDevice {
        CpuDevice {
            inner: Arc::new(Inner {
                config,
                allocs: RwLock::new(Allocs {
                    next: BASE_ADDRESS,
                    live: BTreeMap::new(),
                }),
            }),
        }
    }

    pub fn config(&self) -> &CpuConfig {
        &self.inner.config
    }

    fn allocs(&self) -> std::sync::RwLockReadGuard<'_, Allocs> {
        self.inner.allocs.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Allocates `bytes` of device memory, zero-filled; the address is 256-aligned.
    pub fn alloc(&self, bytes: u64) -> Result<u64, CpuError> {
        let mut a = self.inner.allocs.write().unwrap_or_else(|e| e.into_inner());
        let base = a.next;
        let next = base
            .checked_add(bytes)
            .and_then(|e| e.checked_add(GUARD_BYTES))
            .map(|e| e.next_multiple_of(256))
            .ok_or(CpuError::AllocFailed { bytes })?;
        let alloc = Allocation::new(base, bytes).ok_or(CpuError::AllocFailed { bytes })?;
        a.next = next;
        a.live.insert(base, Arc::new(alloc));
        Ok(base)
    }

    /// Frees the allocation starting at `addr`.
    pub fn free(&self, addr: u64) -> Result<(), CpuError> {
        let mut a = self.inner.allocs.write().unwrap_or_else(|e| e.into_inner());
        a.live
            .remove(&addr)
            .map(|_| ())
            .ok_or(CpuError::BadFree { addr })
    }

    fn host_range(&self, addr: u64, len: usize) -> Result<(Arc<Allocation>, u64), CpuError> {
        let err = CpuError::HostOutOfBounds {
            addr,
            bytes: len as u64,
        };
        let a = self.allocs();
        let (_, alloc) = a.live.range(..=addr).next_back().ok_or(err.clone())?;
        let off = addr - alloc.base;
        match off.checked_add(len as u64) {
            Some(end) if end <= alloc.size => Ok((alloc.clone(), off)),
            _ => Err(err),
        }
    }

    /// Copies `data` to device memory at `addr`.
    pub fn write(&self, addr: u64, data: &[u8]) -> Result<(), CpuError> {
        let (a, off) = self.host_range(addr, data.len())?;
        a.write_bytes(off, data);
        Ok(())
    }

    /// Copies device memory at `addr` into `out`.
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), CpuError> {
        let (a, off) = self.host_range(addr, out.len())?;
        a.read_bytes(off, out);
        Ok(())
    }

    /// Runs `kernel` over `grid` workgroups of `block` work-items and waits for it, at most
    /// [`CpuConfig::time_limit`].
    pub fn launch(
        &self,
        kernel: &VerifiedKernel,
        grid: [u32; 3],
        block: [u32; 3],
        args: &[Arg],
    ) -> Result<LaunchStats, CpuError> {
        self.launch_within(kernel, grid, block, args, self.inner.config.time_limit)
    }

    /// [`CpuDevice::launch`] with a time limit of its own (a caller's bound on how long it
    /// waits for this launch) instead of [`CpuConfig::time_limit`].
    pub fn launch_within(
        &self,
        kernel: &VerifiedKernel,
        grid: [u32; 3],
        block: [u32; 3],
        args: &[Arg],
        time_limit: Duration,
    ) -> Result<LaunchStats, CpuError> {
        let start = Instant::now();
        let subgroup = self.inner.config.subgroup_size;
        if !subgroup.is_power_of_two() || !(8..=64).contains(&subgroup) {
            return Err(CpuError::SubgroupSize { size: subgroup });
        }
        let total = check_dims(kernel, grid, block, subgroup)?;
        let prog = compile::compile(kernel, subgroup);
        let mem = MemoryView {
            allocs: self.allocs().live.values().cloned().collect(),
        };
        let (params, buffer_bytes) = check_args(kernel, args, &mem)?;
        let launch = Launch {
            prog: &prog,
            kernel,
            mem,
            grid,
            block,
            params,
            buffer_bytes,
            groups: exec::threads_per_workgroup(&prog, error::launch_count(&block) as usize),
            abort: AtomicBool::new(false),
        };
        let threads = self
            .inner
            .config
            .max_resident_workgroups
            .max(1)
            .min(total as usize);
        let slots: Vec<SlotState> = (0..threads).map(|_| SlotState::new(&launch)).collect();
        let next = AtomicU64::new(0);
        let exited = AtomicUsize::new(0);
        let error: Mutex<Option<CpuError>> = Mutex::new(None);
        let lane_ops = AtomicU64::new(0);
        let fail = |e: CpuError| {
            let mut slot = error.lock().unwrap_or_else(|p| p.into_inner());
            slot.get_or_insert(e);
            launch.abort.store(true, AO::SeqCst);
        };
        let watchdog = self.inner.config.watchdog;
        let mut timed_out = false;
        let me = std::thread::current();
        let panicked = std::thread::scope(|s| {
            let handles: Vec<_> = slots
                .iter()
                .map(|slot| {
                    let (launch, next, exited, lane_ops, fail, me) =
                        (&launch, &next, &exited, &lane_ops, &fail, me.clone());
                    s.spawn(move || {
                        // Counted as exited even if the worker panics, so that the watchdog
                        // loop below ends and the panic is reported instead of waited on.
                        let _exit = WorkerExit {
                            exited,
                            abort: &launch.abort,
                            launcher: me,
                        };
                        let mut worker = Worker::new(launch, slot);
                        while !launch.abort.load(AO::Relaxed) {
                            let i = next.fetch_add(1, AO::SeqCst);
                            if i >= total {
                                break;
                            }
                            slot.current.store(i, AO::SeqCst);
                            let r = worker.run_workgroup(launch.decode(i));
                            slot.current.store(u64::MAX, AO::SeqCst);
                            match r {
                                Ok(()) => {}
                                Err(Stop::Error(e)) => fail(*e),
                                Err(Stop::Aborted) => break,
                            }
                        }
                        lane_ops.fetch_add(worker.lane_ops(), AO::Relaxed);
                    })
                })
                .collect();
            // The watchdog: the launching thread watches the workers' progress counters.
            let tick = (watchdog / 8).clamp(Duration::from_millis(1), Duration::from_millis(50));
            let mut seen = u64::MAX;
            let mut since = Instant::now();
            while exited.load(AO::SeqCst) < threads {
                std::thread::park_timeout(tick);
                let progress: u64 = slots
                    .iter()
                    .map(|s| s.progress.load(AO::Relaxed))
                    .sum::<u64>()
                    + next.load(AO::Relaxed);
                // A worker yet to take a workgroup while some remain (not started, or between
                // two) is no deadlock: a loaded machine (tests in parallel, each launch's
                // threads, the started ones polling) may take seconds to run it, while the
                // started workgroups of a persistent kernel wait for the rest.
                let taking = next.load(AO::SeqCst) < total
                    && slots.iter().any(|s| s.current.load(AO::SeqCst) == u64::MAX);
                if progress != seen || taking {
                    seen = progress;
                    since = Instant::now();
                }
                if start.elapsed() >= time_limit && !launch.abort.load(AO::SeqCst) {
                    // Named once the workers have stopped and said where.
                    timed_out = true;
                    launch.abort.store(true, AO::SeqCst);
                } else if since.elapsed() >= watchdog && !launch.abort.load(AO::SeqCst) {
                    fail(CpuError::Deadlock {
                        kernel: kernel.name.clone(),
                        watchdog,
                        stuck: slots.iter().filter_map(|s| s.stuck(&launch)).collect(),
                        not_started: total.saturating_sub(next.load(AO::SeqCst)),
                    });
                }
            }
            handles.into_iter().map(|h| h.join()).any(|r| r.is_err())
        });
        if panicked {
            return Err(CpuError::WorkerPanic {
                kernel: kernel.name.clone(),
            });
        }
        if let Some(e) = error.into_inner().unwrap_or_else(|p| p.into_inner()) {
            return Err(e);
        }
        if timed_out {
            return Err(CpuError::TimeLimit {
                kernel: kernel.name.clone(),
                limit: time_limit,
                running: slots.iter().filter_map(|s| s.stopped(&launch)).collect(),
            });
        }
        Ok(LaunchStats {
            lane_ops: lane_ops.into_inner(),
            workgroups: total,
            threads,
            elapsed: start.elapsed(),
        })
    }
}

/// Marks a worker thread as exited when it ends, by returning or by panicking (then also
/// aborting the launch), and wakes the launching thread.
struct WorkerExit<'a> {
    exited: &'a AtomicUsize,
    abort: &'a AtomicBool,
    launcher: std::thread::Thread,
}

impl Drop for WorkerExit<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.abort.store(true, AO::SeqCst);
        }
        self.exited.fetch_add(1, AO::SeqCst);
        self.launcher.unpark();
    }
}

/// Checks the launch's dimensions; returns its number of workgroups. Products are taken in
/// `u128`, where three `u32`s cannot overflow.
fn check_dims(
    kernel: &Kernel,
    grid: [u32; 3],
    block: [u32; 3],
    subgroup: u32,
) -> Result<u64, CpuError> {
    for (what, dims) in [("grid", grid), ("block", block)] {
        for (d, name) in dims.iter().zip(['x', 'y', 'z']) {
            if *d == 0 {
                return Err(CpuError::LaunchDim {
                    kernel: kernel.name.clone(),
                    what,
                    dim: name,
                    message: "size is zero".into(),
                });
            }
        }
    }
    let size = error::launch_count(&block);
    let limit = kernel.workgroup_bound(subgroup).min(MAX_WORKGROUP_SIZE);
    if size > u128::from(limit) {
        return Err(CpuError::WorkgroupTooLarge {
            kernel: kernel.name.clone(),
            block,
            limit,
        });
    }
    // `mma.group` runs on whole groups of subgroups; checked here so that no group of any
    // workgroup lacks lanes.
    let size = size as u64;
    let group = u64::from(GROUP_SUBGROUPS * subgroup);
    if kernel.uses_groups() && !size.is_multiple_of(group) {
        return Err(CpuError::PartialGroup {
            kernel: kernel.name.clone(),
            size,
            group,
            subgroup,
        });
    }
    u64::try_from(error::launch_count(&grid)).map_err(|_| CpuError::GridTooLarge {
        kernel: kernel.name.clone(),
        grid,
    })
}

/// The slot and bits of each parameter, and the byte length of each one's buffer.
type BoundArgs = (Vec<(u32, u64)>, Vec<u64>);

/// Checks `args` against the kernel's parameters.
fn check_args(kernel: &Kernel, args: &[Arg], mem: &MemoryView) -> Result<BoundArgs, CpuError> {
    if args.len() != kernel.params.len() {
        return Err(CpuError::ArgCount {
            kernel: kernel.name.clone(),
            expected: kernel.params.len(),
            got: args.len(),
        });
    }
    let mut out = Vec::with_capacity(args.len());
    let mut buffer_bytes = vec![0; args.len()];
    for (index, (p, arg)) in kernel.params.iter().zip(args).enumerate() {
        let ty = kernel.ty(*p);
        let param = kernel
            .value_name(*p)
            .map_or_else(|| p.0.to_string(), str::to_string);
        let mismatch = |got: String| CpuError::ArgType {
            kernel: kernel.name.clone(),
            index,
            param: param.clone(),
            expected: ty.to_string(),
            got,
        };
        // The verifier keeps shared pointers and fragments out of parameters.
        let bits = match (ty, arg) {
            (Type::Ptr(_), &(Arg::Ptr(addr) | Arg::Slice { addr, .. })) => {
                let holder = mem
                    .allocs
                    .iter()
                    .find(|a| (a.base..=a.end()).contains(&addr));
                let bytes = match *arg {
                    Arg::Slice { bytes, .. } => bytes,
                    _ => holder.map_or(0, |a| a.end() - addr),
                };
                let inside = (addr, bytes) == (0, 0)
                    || holder
                        .is_some_and(|a| addr.checked_add(bytes).is_some_and(|e| e <= a.end()));
                if !inside {
                    return Err(CpuError::ArgPointer {
                        kernel: kernel.name.clone(),
                        index,
                        param,
                        addr,
                        bytes,
                    });
                }
                buffer_bytes[index] = bytes;
                addr
            }
            (Type::Scalar(s), Arg::Scalar(c)) if c.ty == s => c.bits,
            (_, Arg::Ptr(_) | Arg::Slice { .. }) => return Err(mismatch("a pointer".into())),
            (_, Arg::Scalar(c)) => return Err(mismatch(format!("a {} scalar", c.ty))),
        };
        out.push((p.0, bits));
    }
    Ok((out, buffer_bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panicking_worker_counts_as_exited_and_aborts_the_launch() {
        let (exited, abort) = (AtomicUsize::new(0), AtomicBool::new(false));
        let me = std::thread::current();
        let joined = std::thread::scope(|s| {
            s.spawn(|| {
                let _exit = WorkerExit {
                    exited: &exited,
                    abort: &abort,
                    launcher: me,
                };
                panic!("a bug in the interpreter");
            })
            .join()
        });
        assert!(joined.is_err());
        assert_eq!(exited.load(AO::SeqCst), 1);
        assert!(abort.load(AO::SeqCst));
    }
}
