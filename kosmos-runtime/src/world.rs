//! Multi-rank worlds: ranks with symmetric buffers and peer pointers, and checked launches
//! of persistent kernels built with `kosmos-sched` (see its `abi` module for the contract).
//!
//! A world here is *emulated*: all ranks run in one launch on one device (the CPU device, or
//! one GPU hosting every rank's workgroups in one co-resident grid: grid = ranks x
//! workgroups-per-rank, rank = workgroup / workgroups-per-rank), and each rank's memory is
//! its own allocations, reached by peers only through the peer table. The kernels do not
//! know the difference: `team_rank_base` and `team_wgs` also describe one launch per GPU,
//! which is what worlds of several GPUs will use.

use crate::buffer::{Buffer, DeviceScalar};
use crate::device::{Device, DeviceKind};
use crate::error::Error;
use crate::module::{KernelArg, LaunchConfig, Module};
use crate::stream::Stream;
use kosmos_sched::abi::{self, ErrorRecord, TraceEvent, control};
use std::fmt;

/// Default poll bound of waits on the CPU device, where a poll backs off to ~1.3 ms: about
/// a second, under the CPU device's 2 s watchdog.
pub const CPU_WAIT_BOUND: u32 = 800;
/// Default poll bound of waits on GPUs: a few seconds of polling.
pub const GPU_WAIT_BOUND: u32 = 1 << 22;

/// What can go wrong with a world.
#[derive(Debug, thiserror::Error)]
pub enum WorldError {
    #[error(transparent)]
    Runtime(#[from] Error),
    #[error("a world needs at least one rank")]
    NoRanks,
    /// A persistent launch whose workgroups could not all be resident at once (it could
    /// hang: a waiting workgroup might wait on one that never starts). Refused before launch.
    #[error(
        "launch of `{kernel}`: {ranks} ranks x {per_rank} workgroups = {needed} workgroups cannot be co-resident on {device} (at most {resident})"
    )]
    NotCoResident {
        kernel: String,
        device: String,
        ranks: u32,
        per_rank: u32,
        needed: u64,
        resident: u32,
    },
    /// Worlds spanning several GPUs (one launch per GPU with peer access) are not built yet.
    #[error(
        "multi-GPU worlds need {ranks} GPUs with peer access (one launch per GPU); only emulated worlds on one device are implemented: use World::emulated"
    )]
    MultiGpuUnsupported { ranks: usize },
    /// Bounded waits ran out: the kernel recorded who waited on what and left.
    #[error("{}", describe_timeouts(records))]
    Timeout { records: Vec<ErrorRecord> },
}

fn describe_timeouts(records: &[ErrorRecord]) -> String {
    let mut lines: Vec<String> = records.iter().map(ErrorRecord::to_string).collect();
    if lines.is_empty() {
        lines.push("a wait timed out".into());
    }
    format!("bounded wait timed out: {}", lines.join("; "))
}

/// Settings of a world.
#[derive(Copy, Clone, Debug, Default)]
pub struct WorldOptions {
    /// Trace records kept per rank (0: tracing kernels record nothing).
    pub trace_capacity: u32,
    /// Polls before a wait gives up; `None`: [`CPU_WAIT_BOUND`] or [`GPU_WAIT_BOUND`].
    pub wait_bound: Option<u32>,
}

/// One buffer per rank, all of the same length, each visible to every rank through the
/// peer table under the same index.
pub struct SymmetricBuffer<T: DeviceScalar> {
    index: u32,
    ranks: Vec<Buffer<T>>,
}

impl<T: DeviceScalar> SymmetricBuffer<T> {
    /// The buffer's index in the peer table (what `Team::peer_ptr` takes).
    pub fn index(&self) -> u32 {
        self.index
    }

    /// Rank `rank`'s copy.
    pub fn rank(&self, rank: u32) -> &Buffer<T> {
        &self.ranks[rank as usize]
    }

    /// Every rank's copy, by rank.
    pub fn ranks(&self) -> &[Buffer<T>] {
        &self.ranks
    }
}

/// A world of ranks on one device.
pub struct World {
    device: Device,
    ranks: u32,
    stream: Stream,
    options: WorldOptions,
    control: SymmetricBuffer<u32>,
    /// Addresses by rank of every symmetric buffer, by index.
    buffers: Vec<Vec<u64>>,
    table: Buffer<i64>,
    generation: u32,
}

impl fmt::Debug for World {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "World({} ranks on {}, {} symmetric buffers)",
            self.ranks,
            self.device,
            self.buffers.len()
        )
    }
}

impl World {
    /// A world of `ranks` ranks emulated on `device` (see the module documentation).
    pub fn emulated(
        device: &Device,
        ranks: u32,
        options: WorldOptions,
    ) -> Result<World, WorldError> {
        if ranks == 0 {
            return Err(WorldError::NoRanks);
        }
        let words = control::words(options.trace_capacity);
        let control_ranks = (0..ranks)
            .map(|_| {
                let b = device.alloc::<u32>(words)?;
                b.fill(0)?;
                Ok(b)
            })
            .collect::<Result<Vec<_>, Error>>()?;
        let mut world = World {
            device: device.clone(),
            ranks,
            stream: device.stream()?,
            options,
            control: SymmetricBuffer {
                index: abi::CONTROL_BUFFER,
                ranks: Vec::new(),
            },
            buffers: Vec::new(),
            table: device.alloc::<i64>(0)?,
            generation: 0,
        };
        world.register(&control_ranks)?;
        world.control.ranks = control_ranks;
        Ok(world)
    }

    /// A world with one rank per GPU. Not implemented yet: always
    /// [`WorldError::MultiGpuUnsupported`].
    pub fn multi_gpu(devices: &[Device]) -> Result<World, WorldError> {
        Err(WorldError::MultiGpuUnsupported {
            ranks: devices.len(),
        })
    }

    pub fn ranks(&self) -> u32 {
        self.ranks
    }

    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Polls a wait makes before giving up in this world's launches.
    pub fn wait_bound(&self) -> u32 {
        self.options.wait_bound.unwrap_or(match self.device.kind() {
            DeviceKind::Cpu => CPU_WAIT_BOUND,
            _ => GPU_WAIT_BOUND,
        })
    }

    /// Allocates `len` elements on every rank (zero-filled) and adds them to the peer table.
    pub fn alloc_symmetric<T: DeviceScalar>(
        &mut self,
        len: usize,
    ) -> Result<SymmetricBuffer<T>, WorldError> {
        let ranks = (0..self.ranks)
            .map(|_| {
                let b = self.device.alloc::<T>(len)?;
                if b.size_bytes() > 0 {
                    self.device
                        .fill_bytes(b.device_ptr(), &[0], b.size_bytes())?;
                }
                Ok(b)
            })
            .collect::<Result<Vec<_>, Error>>()?;
        let index = self.register(&ranks)?;
        Ok(SymmetricBuffer { index, ranks })
    }

    /// Adds a buffer per rank to the peer table and uploads the table.
    fn register<T: DeviceScalar>(&mut self, ranks: &[Buffer<T>]) -> Result<u32, Error> {
        let index = self.buffers.len() as u32;
        self.buffers
            .push(ranks.iter().map(Buffer::device_ptr).collect());
        // Entries are byte offsets from the table's own address (see `Team::peer_ptr`).
        let table = self
            .device
            .alloc::<i64>(self.buffers.len() * self.ranks as usize)?;
        let base = table.device_ptr();
        let deltas: Vec<i64> = self
            .buffers
            .iter()
            .flat_map(|a| a.iter().map(|addr| addr.wrapping_sub(base) as i64))
            .collect();
        table.upload(&deltas)?;
        self.table = table;
        Ok(index)
    }

    /// Workgroups per rank of a persistent launch of `kernel` with `block` lanes: as many
    /// as can be resident at once, shared among the ranks (never an assumed SM count).
    pub fn persistent_workgroups(
        &self,
        module: &Module,
        kernel: &str,
        block: u32,
    ) -> Result<u32, WorldError> {
        let resident = module.max_resident_workgroups(kernel, [block, 1, 1])?;
        let per_rank = resident / self.ranks;
        if per_rank == 0 {
            return Err(self.not_co_resident(kernel, 1, resident));
        }
        Ok(per_rank)
    }

    fn not_co_resident(&self, kernel: &str, per_rank: u32, resident: u32) -> WorldError {
        WorldError::NotCoResident {
            kernel: kernel.to_string(),
            device: self.device.to_string(),
            ranks: self.ranks,
            per_rank,
            needed: self.ranks as u64 * per_rank as u64,
            resident,
        }
    }

    /// Launches `kernel` (built with `kosmos_sched::Team::params` first) with
    /// `per_rank` workgroups of `block` lanes for every rank, the team arguments followed
    /// by `args`, and waits for it. Refused before launch if the grid cannot be
    /// co-resident; afterwards every rank's error records become [`WorldError::Timeout`].
    pub fn launch(
        &mut self,
        module: &Module,
        kernel: &str,
        per_rank: u32,
        block: u32,
        args: &[KernelArg<'_>],
    ) -> Result<(), WorldError> {
        let resident = module.max_resident_workgroups(kernel, [block, 1, 1])?;
        let needed = self.ranks as u64 * per_rank as u64;
        if per_rank == 0 || needed > resident as u64 {
            return Err(self.not_co_resident(kernel, per_rank, resident));
        }
        // Fresh error, trace and abort words; the barrier word keeps counting generations.
        let words = [
            (control::ERROR_COUNT, 0),
            (control::TRACE_COUNT, 0),
            (control::TRACE_CAPACITY, self.options.trace_capacity),
            (control::ABORT, 0),
        ];
        for b in self.control.ranks() {
            for (at, value) in words {
                let addr = b.device_ptr() + 4 * at as u64;
                self.device.write_bytes(addr, &value.to_ne_bytes())?;
            }
        }
        self.generation += 1;
        let mut all: Vec<KernelArg<'_>> = vec![
            KernelArg::from(&self.table),
            KernelArg::from(self.ranks),
            KernelArg::from(0u32),
            KernelArg::from(per_rank),
            KernelArg::from(self.generation),
            KernelArg::from(self.wait_bound()),
        ];
        all.extend_from_slice(args);
        let config = LaunchConfig::linear(needed as u32, block);
        let launched = module
            .launch(&self.stream, kernel, config, &all)
            .and_then(|()| self.stream.synchronize());
        // Records explain a failure better than what the device saw afterwards.
        let records = self.error_records()?;
        if !records.is_empty() {
            return Err(WorldError::Timeout { records });
        }
        launched?;
        Ok(())
    }

    fn control_words(&self, rank: u32, words: usize) -> Result<Vec<u32>, Error> {
        let b = self.control.rank(rank);
        let mut bytes = vec![0u8; words * 4];
        self.device.read_bytes(b.device_ptr(), &mut bytes)?;
        Ok(bytes
            .chunks_exact(4)
            .map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }

    /// The error records left by the last launch, rank by rank.
    pub fn error_records(&self) -> Result<Vec<ErrorRecord>, Error> {
        let mut out = Vec::new();
        for r in 0..self.ranks {
            out.extend(ErrorRecord::all_in(
                &self.control_words(r, control::TRACE_BASE as usize)?,
            ));
        }
        Ok(out)
    }

    /// The trace of the last launch (of a kernel built with tracing on), and how many
    /// records did not fit.
    pub fn trace(&self) -> Result<(Vec<TraceEvent>, u32), Error> {
        let (mut events, mut dropped) = (Vec::new(), 0);
        for r in 0..self.ranks {
            let words = self.control_words(r, control::words(self.options.trace_capacity))?;
            let (e, d) = TraceEvent::all_in(&words);
            events.extend(e);
            dropped += d;
        }
        Ok((events, dropped))
    }
}
