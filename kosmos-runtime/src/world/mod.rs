//! Multi-rank worlds: ranks with symmetric buffers and peer pointers, and checked launches
//! of persistent kernels built with `kosmos-sched` ([`abi`] is the contract between them).
//!
//! A world is either *emulated* — all ranks run in one launch on one device (the CPU
//! device, or one GPU hosting every rank's workgroups in one co-resident grid: grid = ranks
//! x workgroups-per-rank, rank = workgroup / workgroups-per-rank), each rank's memory its
//! own allocations, reached by peers only through the peer table — or spans several GPUs
//! ([`World::multi_gpu`]): one rank per GPU, one launch per GPU with `team_rank_base` =
//! rank, peer access enabled between every pair. The kernels do not know the difference.

use crate::buffer::{Buffer, DeviceScalar};
use crate::device::{Device, DeviceKind};
use crate::error::Error;
use crate::image::ModuleImage;
use crate::module::{KernelArg, LaunchConfig, Module};
use crate::stream::Stream;
use abi::{ErrorRecord, TraceEvent, control};
use std::fmt;
use std::time::{Duration, Instant};
use table::{Missing, SharedSlots};

pub mod abi;
mod peer;
mod table;

pub use peer::{copy_from_peer, copy_range_from_peer};

/// Default poll bound of waits on the CPU device, where a poll backs off to ~1.3 ms: about
/// a second, under the CPU device's 2 s watchdog.
pub const CPU_WAIT_BOUND: u32 = 800;
/// Default poll bound of waits on GPUs: a few seconds of polling.
pub const GPU_WAIT_BOUND: u32 = 1 << 22;
/// Default bound of the host's wait for a world launch, that of the CPU device's
/// `CpuConfig::time_limit`.
pub const HOST_WAIT_LIMIT: Duration = Duration::from_secs(300);

/// What can go wrong with a world.
#[derive(Debug, thiserror::Error)]
pub enum WorldError {
    #[error(transparent)]
    Runtime(#[from] Error),
    #[error("a world needs at least one rank")]
    NoRanks,
    #[error("rank {rank} is outside the world's {ranks} ranks")]
    NoSuchRank { rank: u32, ranks: usize },
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
    /// `World::multi_gpu` was given fewer than two GPUs.
    #[error(
        "a multi-GPU world needs at least 2 GPUs (one rank per GPU), got {given}; one GPU or the CPU device hosts a world with World::emulated"
    )]
    TooFewGpus { given: usize },
    /// `World::multi_gpu` was given a device that is not a GPU.
    #[error(
        "a multi-GPU world runs one rank per GPU, and {device} is not a GPU; the CPU device hosts a world with World::emulated"
    )]
    NotAGpu { device: String },
    #[error("a multi-GPU world needs GPUs of one kind: {first} and {other} differ")]
    MixedKinds { first: String, other: String },
    #[error("{device} appears twice in a multi-GPU world (one rank per GPU)")]
    SameGpuTwice { device: String },
    /// Peer pointers are plain addresses: every GPU must see one virtual address space.
    #[error("{device} has no unified addressing, which peer pointers of a multi-GPU world need")]
    NoUnifiedAddressing { device: String },
    /// A pair of GPUs cannot reach each other's memory with atomics.
    #[error("{from} cannot access the memory of {to}: {reason}")]
    NoPeerAccess {
        from: String,
        to: String,
        reason: String,
    },
    /// The modules given to a launch have none loaded on one of the world's devices.
    #[error("launch of `{kernel}`: no module is loaded on {device} (see World::load_module)")]
    NoModuleFor { kernel: String, device: String },
    /// Bounded waits ran out: the kernel recorded who waited on what and left.
    #[error("{}", describe_timeouts(records))]
    Timeout { records: Vec<ErrorRecord> },
    /// The host gave up waiting for a launch ([`WorldOptions::host_wait_limit`]). On a GPU
    /// the kernel may still be running: the world's memory stays in use, and transfers,
    /// frees and later launches on that device wait for it.
    #[error(
        "launch of `{kernel}` on {device} (ranks {first_rank}..{end_rank}): not finished after the host waited {limit:?} (WorldOptions::host_wait_limit){}",
        describe_running(running)
    )]
    HostTimeout {
        kernel: String,
        device: String,
        first_rank: u32,
        end_rank: u32,
        limit: Duration,
        /// Where the device says its workgroups were (the CPU device names workgroup and
        /// loop; GPUs cannot say).
        running: Vec<String>,
    },
    /// A launch whose start barrier would count more arrivals than its `u32` word holds.
    #[error(
        "launch of `{kernel}`: {ranks} ranks x {per_rank} workgroups do not fit the start barrier's u32 count"
    )]
    TooManyWorkgroups {
        kernel: String,
        ranks: u32,
        per_rank: u32,
    },
    /// The kernel reads the peer-table entries of a symmetric buffer that was dropped.
    #[error(
        "launch of `{kernel}`: symmetric buffer {index} was dropped, and the kernel reads its peer-table entries"
    )]
    DroppedBuffer { kernel: String, index: u32 },
    /// The kernel reads the peer-table entries of an index no live buffer has had since
    /// the table last shrank.
    #[error(
        "launch of `{kernel}`: the kernel reads peer-table entries of symmetric buffer {index}, which this world does not have ({buffers} indices, dropped ones included)"
    )]
    NoSuchBuffer {
        kernel: String,
        index: u32,
        buffers: usize,
    },
    /// A symmetric buffer argument that another world allocated (its index here may hold
    /// another buffer, or none).
    #[error(
        "launch of `{kernel}`: argument `{arg}` is symmetric buffer {index} of another world, not of this one"
    )]
    ForeignBuffer {
        kernel: String,
        arg: String,
        index: u32,
    },
    /// Every `u32` peer-table index is taken.
    #[error("the peer table is full: every u32 index holds a live symmetric buffer")]
    PeerTableFull,
}

fn describe_running(running: &[String]) -> String {
    if running.is_empty() {
        String::new()
    } else {
        format!("; still running: {}", running.join("; "))
    }
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
    /// Polls before a wait gives up; `None`: [`CPU_WAIT_BOUND`] or [`GPU_WAIT_BOUND`]. Every
    /// `u32` is a valid bound, `u32::MAX` included: kernels count polls in a `u32` that
    /// stops at the bound (it is compared before it is incremented), so the count never
    /// wraps.
    pub wait_bound: Option<u32>,
    /// How long the host waits for a launch before [`WorldError::HostTimeout`]; `None`:
    /// [`HOST_WAIT_LIMIT`]. The CPU device stops the launch then; a GPU cannot.
    pub host_wait_limit: Option<Duration>,
}

/// One buffer per rank, all of the same length, each visible to every rank through the
/// peer table under the same index. Dropping it frees the index: launches whose kernels
/// read its entries are refused, and the table copies no longer lead to its memory.
pub struct SymmetricBuffer<T: DeviceScalar> {
    index: u32,
    ranks: Vec<Buffer<T>>,
    slots: SharedSlots,
}

impl<T: DeviceScalar> Drop for SymmetricBuffer<T> {
    /// Frees the index before the buffers are freed (fields drop after this).
    fn drop(&mut self) {
        table::lock(&self.slots).remove(self.index);
    }
}

impl<T: DeviceScalar> SymmetricBuffer<T> {
    /// The buffer's index in the peer table (what `Team::peer_ptr` takes).
    pub fn index(&self) -> u32 {
        self.index
    }

    /// Rank `rank`'s copy; an error for a rank outside the world.
    pub fn rank(&self, rank: u32) -> Result<&Buffer<T>, WorldError> {
        self.ranks.get(rank as usize).ok_or(WorldError::NoSuchRank {
            rank,
            ranks: self.ranks.len(),
        })
    }

    /// Every rank's copy, by rank.
    pub fn ranks(&self) -> &[Buffer<T>] {
        &self.ranks
    }

    /// Every rank's copy, by rank, to write (e.g. as the result of a per-rank launch).
    pub fn ranks_mut(&mut self) -> &mut [Buffer<T>] {
        &mut self.ranks
    }

    /// The length in elements of every rank's copy.
    pub fn len(&self) -> usize {
        self.ranks.first().map_or(0, Buffer::len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The modules a world's launches use: one loaded on every device the world runs on.
/// A single [`Module`] serves worlds on its device; [`World::load_module`] gives a
/// `Vec<Module>` for any world.
pub trait WorldModules {
    /// The module loaded on `device`, if any.
    fn on(&self, device: &Device) -> Option<&Module>;
}

impl WorldModules for Module {
    fn on(&self, device: &Device) -> Option<&Module> {
        (self.device() == device).then_some(self)
    }
}

impl WorldModules for [Module] {
    fn on(&self, device: &Device) -> Option<&Module> {
        self.iter().find(|m| m.device() == device)
    }
}

impl WorldModules for Vec<Module> {
    fn on(&self, device: &Device) -> Option<&Module> {
        self.as_slice().on(device)
    }
}

/// One launch of every world launch: `ranks` consecutive ranks from `first_rank`, all on
/// `device`, with their own stream and their own copy of the peer table (entries are
/// offsets from the table's address, so each copy differs).
struct Site {
    device: Device,
    stream: Stream,
    first_rank: u32,
    ranks: u32,
    table: Buffer<i64>,
}

impl Site {
    fn new(device: &Device, first_rank: u32, ranks: u32, limit: Duration) -> Result<Site, Error> {
        Ok(Site {
            device: device.clone(),
            stream: Stream::bounded(device, limit)?,
            first_rank,
            ranks,
            table: device.alloc::<i64>(0)?,
        })
    }
}

/// A world of ranks: either emulated on one device (one launch holds every rank) or one
/// rank per GPU (one launch per GPU; see [`World::multi_gpu`]).
pub struct World {
    sites: Vec<Site>,
    ranks: u32,
    /// Symmetric buffers must be readable by peers' system-scope atomics (fine-grained on
    /// AMD): true for worlds of several GPUs.
    peer_visible: bool,
    options: WorldOptions,
    control: SymmetricBuffer<u32>,
    /// Every symmetric buffer, by index.
    slots: SharedSlots,
    /// Milliseconds each site's last launch took (device events), by site.
    last_launch_ms: Vec<f32>,
}

impl fmt::Debug for World {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let devices: Vec<String> = self.sites.iter().map(|s| s.device.to_string()).collect();
        write!(
            f,
            "World({} ranks on {}, {} symmetric buffers)",
            self.ranks,
            devices.join(", "),
            table::lock(&self.slots).len()
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
        let sites = vec![Site::new(device, 0, ranks, host_wait_limit(options))?];
        World::build(sites, ranks, false, options)
    }

    /// A world with one rank per GPU of `devices` (rank `r` on `devices[r]`), all CUDA or
    /// all HIP, driven by this process: checks that every ordered pair can access each
    /// other's memory with native atomics and enables that access (already enabled is
    /// fine), and that every GPU has unified addressing — a peer's buffer is then
    /// reachable at its own address, so the peer table of rank `r`, on `devices[r]`, holds
    /// the offsets from itself to every rank's buffers just as in an emulated world.
    /// Launches are one per GPU (`team_rank_base` = rank, `team_wgs` = grid), all queued
    /// before any is waited on. Errors name the device or the pair that does not fit.
    pub fn multi_gpu(devices: &[Device], options: WorldOptions) -> Result<World, WorldError> {
        peer::connect(devices)?;
        let sites = devices
            .iter()
            .enumerate()
            .map(|(r, d)| Site::new(d, r as u32, 1, host_wait_limit(options)))
            .collect::<Result<Vec<_>, Error>>()?;
        World::build(sites, devices.len() as u32, true, options)
    }

    fn build(
        sites: Vec<Site>,
        ranks: u32,
        peer_visible: bool,
        options: WorldOptions,
    ) -> Result<World, WorldError> {
        let slots = SharedSlots::default();
        let mut world = World {
            last_launch_ms: vec![0.0; sites.len()],
            sites,
            ranks,
            peer_visible,
            options,
            control: SymmetricBuffer {
                index: abi::CONTROL_BUFFER,
                ranks: Vec::new(),
                slots: slots.clone(),
            },
            slots,
        };
        let control = world.alloc_ranks::<u32>(control::words(options.trace_capacity))?;
        let index = world.register(&control)?;
        debug_assert_eq!(index, abi::CONTROL_BUFFER, "the first index of a new world");
        world.control.ranks = control;
        Ok(world)
    }

    pub fn ranks(&self) -> u32 {
        self.ranks
    }

    /// The device of rank 0 (the only one of an emulated world).
    pub fn device(&self) -> &Device {
        &self.sites[0].device
    }

    /// The device rank `rank` runs on (`None` past the last rank).
    pub fn rank_device(&self, rank: u32) -> Option<&Device> {
        self.site_of(rank).map(|s| &s.device)
    }

    /// The stream rank `rank`'s launches run on (shared by the ranks of an emulated
    /// world; `None` past the last rank).
    pub fn rank_stream(&self, rank: u32) -> Option<&Stream> {
        self.site_of(rank).map(|s| &s.stream)
    }

    /// Every device of the world, once each, in rank order.
    pub fn devices(&self) -> Vec<&Device> {
        let mut out: Vec<&Device> = Vec::new();
        for s in &self.sites {
            if !out.contains(&&s.device) {
                out.push(&s.device);
            }
        }
        out
    }

    fn site_of(&self, rank: u32) -> Option<&Site> {
        self.sites
            .iter()
            .find(|s| (s.first_rank..s.first_rank + s.ranks).contains(&rank))
    }

    /// Loads `image` on every device of the world (what [`World::launch`] takes).
    pub fn load_module(&self, image: &ModuleImage) -> Result<Vec<Module>, WorldError> {
        Ok(self
            .devices()
            .into_iter()
            .map(|d| d.load_module(image))
            .collect::<Result<Vec<_>, Error>>()?)
    }

    /// Polls a wait makes before giving up in this world's launches.
    pub fn wait_bound(&self) -> u32 {
        self.options
            .wait_bound
            .unwrap_or(match self.device().kind() {
                DeviceKind::Cpu => CPU_WAIT_BOUND,
                _ => GPU_WAIT_BOUND,
            })
    }

    /// One zero-filled buffer of `len` elements per rank, each on its rank's device.
    fn alloc_ranks<T: DeviceScalar>(&self, len: usize) -> Result<Vec<Buffer<T>>, Error> {
        // Sites cover ranks 0..ranks, one after another.
        let devices = self
            .sites
            .iter()
            .flat_map(|s| std::iter::repeat_n(&s.device, s.ranks as usize));
        devices
            .map(|device| {
                let b = if self.peer_visible {
                    Buffer::new_peer_visible(device, len)?
                } else {
                    device.alloc::<T>(len)?
                };
                if b.size_bytes() > 0 {
                    device.fill_bytes(b.device_ptr(), &[0], b.size_bytes())?;
                }
                Ok(b)
            })
            .collect()
    }

    /// Allocates `len` elements on every rank (zero-filled) and adds them to the peer table.
    pub fn alloc_symmetric<T: DeviceScalar>(
        &mut self,
        len: usize,
    ) -> Result<SymmetricBuffer<T>, WorldError> {
        let ranks = self.alloc_ranks::<T>(len)?;
        let index = self.register(&ranks)?;
        Ok(SymmetricBuffer {
            index,
            ranks,
            slots: self.slots.clone(),
        })
    }

    /// Adds a buffer per rank to the peer table (at the lowest free index) and uploads
    /// every site's copy of the table.
    fn register<T: DeviceScalar>(&mut self, ranks: &[Buffer<T>]) -> Result<u32, WorldError> {
        let index = table::lock(&self.slots)
            .insert(ranks.iter().map(Buffer::device_ptr).collect())
            .ok_or(WorldError::PeerTableFull)?;
        self.upload_tables()?;
        Ok(index)
    }

    /// Writes every site's copy of the peer table afresh.
    fn upload_tables(&mut self) -> Result<(), Error> {
        let mut slots = table::lock(&self.slots);
        for site in &mut self.sites {
            // Entries are byte offsets from the table's own address (see `Team::peer_ptr`).
            let table = site
                .device
                .alloc::<i64>(slots.len() * self.ranks as usize)?;
            table.upload(&slots.entries(table.device_ptr()))?;
            site.table = table;
        }
        Ok(())
    }

    /// Refuses a launch of `kernel` whose kernel reads the peer-table entries of a
    /// dropped or unknown buffer (as far as [`table::buffers_read`] can tell).
    fn check_buffers_read(&self, module: &Module, kernel: &str) -> Result<(), WorldError> {
        let Some(ir) = module.ir().kernels().iter().find(|k| k.name == kernel) else {
            // Module::launch names the missing kernel.
            return Ok(());
        };
        let Some(read) = table::buffers_read(ir) else {
            return Ok(());
        };
        let slots = table::lock(&self.slots);
        match slots.missing(&read) {
            None => Ok(()),
            Some(Missing::Dropped(index)) => Err(WorldError::DroppedBuffer {
                kernel: kernel.to_string(),
                index,
            }),
            Some(Missing::Unknown(index)) => Err(WorldError::NoSuchBuffer {
                kernel: kernel.to_string(),
                index,
                buffers: slots.len(),
            }),
        }
    }

    /// Refuses `buffer` as the symmetric buffer argument `arg` of a launch of `kernel`
    /// unless this world allocated it: then its index is live in this world's peer table
    /// (a buffer is alive while it is borrowed) and it has a copy per rank. Its index alone
    /// cannot tell: another world's buffer may have the same one, as may a buffer allocated
    /// in a slot reused after a drop.
    pub fn check_symmetric<T: DeviceScalar>(
        &self,
        kernel: &str,
        arg: &str,
        buffer: &SymmetricBuffer<T>,
    ) -> Result<(), WorldError> {
        if std::sync::Arc::ptr_eq(&self.slots, &buffer.slots) {
            return Ok(());
        }
        Err(WorldError::ForeignBuffer {
            kernel: kernel.to_string(),
            arg: arg.to_string(),
            index: buffer.index,
        })
    }

    /// Workgroups per rank of a persistent launch of `kernel` with `block` lanes: as many
    /// as can be resident at once on every device, shared among the ranks each device
    /// hosts (never an assumed SM count).
    pub fn persistent_workgroups<M: WorldModules + ?Sized>(
        &self,
        modules: &M,
        kernel: &str,
        block: u32,
    ) -> Result<u32, WorldError> {
        let mut fewest: Option<(u32, &Site, u32)> = None;
        for site in &self.sites {
            let resident = self
                .module_on(modules, kernel, site)?
                .max_resident_workgroups(kernel, [block, 1, 1])?;
            let per_rank = resident / site.ranks;
            if fewest.is_none_or(|(p, ..)| per_rank < p) {
                fewest = Some((per_rank, site, resident));
            }
        }
        match fewest {
            Some((0, site, resident)) => Err(not_co_resident(kernel, site, 1, resident)),
            Some((per_rank, ..)) => Ok(per_rank),
            None => Err(WorldError::NoRanks),
        }
    }

    fn module_on<'m, M: WorldModules + ?Sized>(
        &self,
        modules: &'m M,
        kernel: &str,
        site: &Site,
    ) -> Result<&'m Module, WorldError> {
        modules
            .on(&site.device)
            .ok_or_else(|| WorldError::NoModuleFor {
                kernel: kernel.to_string(),
                device: site.device.to_string(),
            })
    }

    /// Launches `kernel` (built with `kosmos_sched::Team::params` first) with
    /// `per_rank` workgroups of `block` lanes for every rank, the team arguments followed
    /// by `args`, and waits for it. `modules` must hold the kernel's module on every
    /// device of the world (a [`Module`] for an emulated world, [`World::load_module`]'s
    /// result for any). Refused before any launch if some device's grid cannot be
    /// co-resident; all launches are queued before any is waited on, and afterwards every
    /// rank's error records become [`WorldError::Timeout`].
    ///
    /// `args` are the same for every rank; a buffer argument must live on the device of
    /// every launch (so in worlds of several GPUs kernels reach their data through the
    /// peer table: symmetric buffers).
    pub fn launch<M: WorldModules + ?Sized>(
        &mut self,
        modules: &M,
        kernel: &str,
        per_rank: u32,
        block: u32,
        args: &[KernelArg<'_>],
    ) -> Result<(), WorldError> {
        if u32::try_from(u64::from(self.ranks) * u64::from(per_rank)).is_err() {
            return Err(WorldError::TooManyWorkgroups {
                kernel: kernel.to_string(),
                ranks: self.ranks,
                per_rank,
            });
        }
        let mut chosen = Vec::with_capacity(self.sites.len());
        for site in &self.sites {
            let module = self.module_on(modules, kernel, site)?;
            self.check_buffers_read(module, kernel)?;
            let resident = module.max_resident_workgroups(kernel, [block, 1, 1])?;
            let needed = site.ranks as u64 * per_rank as u64;
            if per_rank == 0 || needed > resident as u64 {
                return Err(not_co_resident(kernel, site, per_rank, resident));
            }
            chosen.push(module);
        }
        if table::lock(&self.slots).stale() {
            self.upload_tables()?;
        }
        // Fresh error, barrier, trace and abort words: the previous launch has ended on every
        // site (launch_sites waits for all of them), so no workgroup still reads them.
        let words = [
            (control::ERROR_COUNT, 0),
            (control::BARRIER, 0),
            (control::TRACE_COUNT, 0),
            (control::TRACE_CAPACITY, self.options.trace_capacity),
            (control::ABORT, 0),
        ];
        for b in self.control.ranks() {
            for (at, value) in words {
                let addr = b.device_ptr() + 4 * at as u64;
                b.device().backend().write(addr, &value.to_ne_bytes())?;
            }
        }
        let launched = self.launch_sites(&chosen, kernel, per_rank, block, args);
        if matches!(launched, Err(WorldError::HostTimeout { .. })) {
            // A GPU kernel may still be running: reading its records would wait for it.
            return launched.map(drop);
        }
        // Records explain a failure better than what the devices saw afterwards.
        let records = self.error_records()?;
        if !records.is_empty() {
            return Err(WorldError::Timeout { records });
        }
        self.last_launch_ms = launched?;
        Ok(())
    }

    /// Queues one launch per site, then waits for all of them (even after a failed launch:
    /// the ones already running end at their bounded start barrier), at most
    /// [`WorldOptions::host_wait_limit`] in all, and returns each site's kernel time, or
    /// the first failure.
    fn launch_sites(
        &self,
        modules: &[&Module],
        kernel: &str,
        per_rank: u32,
        block: u32,
        args: &[KernelArg<'_>],
    ) -> Result<Vec<f32>, WorldError> {
        let limit = host_wait_limit(self.options);
        let deadline = Instant::now() + limit;
        let timeout = |site: &Site, running: Vec<String>| WorldError::HostTimeout {
            kernel: kernel.to_string(),
            device: site.device.to_string(),
            first_rank: site.first_rank,
            end_rank: site.first_rank + site.ranks,
            limit,
            running,
        };
        let mut events = Vec::with_capacity(self.sites.len());
        let mut failure = None;
        for (site, module) in self.sites.iter().zip(modules) {
            let mut all: Vec<KernelArg<'_>> = vec![
                KernelArg::from(&site.table),
                KernelArg::from(self.ranks),
                KernelArg::from(site.first_rank),
                KernelArg::from(per_rank),
                KernelArg::from(self.wait_bound()),
            ];
            all.extend_from_slice(args);
            let config = LaunchConfig::linear(site.ranks * per_rank, block);
            let queued = site.stream.record_event().and_then(|start| {
                module.launch(&site.stream, kernel, config, &all)?;
                Ok((start, site.stream.record_event()?))
            });
            match queued {
                Ok(pair) => events.push(pair),
                // The CPU device ran the launch in this thread, within the limit.
                Err(Error::Cpu(kosmos_cpu::CpuError::TimeLimit { running, .. })) => {
                    let running = running.iter().map(ToString::to_string).collect();
                    failure = Some(timeout(site, running));
                    break;
                }
                Err(e) => {
                    failure = Some(e.into());
                    break;
                }
            }
        }
        let mut times = Vec::with_capacity(events.len());
        for (site, (start, end)) in self.sites.iter().zip(&events) {
            match wait_for(end, deadline) {
                Ok(true) => {}
                Ok(false) => return Err(timeout(site, Vec::new())),
                Err(e) => {
                    failure.get_or_insert(e.into());
                    continue;
                }
            }
            match site
                .stream
                .synchronize()
                .and_then(|()| start.elapsed_ms(end))
            {
                Ok(ms) => times.push(ms),
                Err(e) => {
                    failure.get_or_insert(e.into());
                }
            }
        }
        match failure {
            Some(e) => Err(e),
            None => Ok(times),
        }
    }

    /// Device time in milliseconds of the last successful launch, by launch: one entry
    /// for an emulated world, one per GPU (in rank order) otherwise.
    pub fn last_launch_ms(&self) -> &[f32] {
        &self.last_launch_ms
    }

    fn control_words(&self, rank: u32, words: usize) -> Result<Vec<u32>, Error> {
        let b = &self.control.ranks()[rank as usize];
        let mut bytes = vec![0u8; words * 4];
        b.device().backend().read(b.device_ptr(), &mut bytes)?;
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

/// The host's bound on waiting for a launch under `options`.
fn host_wait_limit(options: WorldOptions) -> Duration {
    options.host_wait_limit.unwrap_or(HOST_WAIT_LIMIT)
}

/// Polls `event` until the work before it has finished (`true`) or `deadline` has passed
/// (`false`), backing off from a few microseconds to a millisecond between polls.
fn wait_for(event: &crate::stream::Event, deadline: Instant) -> Result<bool, Error> {
    let mut pause = Duration::from_micros(4);
    loop {
        if event.is_complete()? {
            return Ok(true);
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(false);
        }
        std::thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(1));
    }
}

fn not_co_resident(kernel: &str, site: &Site, per_rank: u32, resident: u32) -> WorldError {
    WorldError::NotCoResident {
        kernel: kernel.to_string(),
        device: site.device.to_string(),
        ranks: site.ranks,
        per_rank,
        needed: site.ranks as u64 * per_rank as u64,
        resident,
    }
}
