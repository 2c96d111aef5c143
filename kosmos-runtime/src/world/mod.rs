//! Multi-rank worlds: ranks with symmetric buffers and peer pointers, and checked launches
//! of persistent kernels built with `kosmos-sched` ([`abi`] is the contract between them).
//!
//! A world is either *emulated* — all ranks run in one launch on one device (the CPU
//! device, or one GPU hosting every rank's workgroups in one co-resident grid: grid = ranks
//! x workgroups-per-rank, rank = workgroup / workgroups-per-rank), each rank's memory its
//! own allocations, reached by peers only through the peer table — or spans several GPUs
//! ([`World::multi_gpu`]): one rank per GPU, one launch per GPU with `team_rank_base` =
//! rank, peer access enabled between every pair. The kernels do not know the difference.
//!
//! Launches are asynchronous: [`World::launch`] checks and queues, [`World::synchronize`]
//! waits and reports what the kernels recorded (timeouts, overflows), and
//! [`World::capture`] records launches into a [`WorldGraph`] to replay. No control word is
//! written by the host between launches (see [`abi::control`]).

use crate::buffer::{Buffer, DeviceScalar};
use crate::device::{Device, DeviceKind};
use crate::error::Error;
use crate::image::ModuleImage;
use crate::module::{KernelArg, LaunchConfig, Module};
use crate::stream::{Event, Stream, StreamGraph};
use abi::{CapacityRecord, ErrorRecord, TraceEvent, apart, control};
use join::Joined;
use kosmos_ir::VerifiedModule;
use std::fmt;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use table::{Missing, SharedSlots};

pub mod abi;
mod join;
mod peer;
mod table;

pub use join::Exchange;

pub use peer::{copy_from_peer, copy_range_from_peer};

/// Default poll bound of waits on the CPU device, where a poll backs off to ~1.3 ms: about
/// four seconds, under the CPU device's 8 s watchdog. A second was too short for a 2-core
/// machine running tests side by side: a workgroup with most of a launch's tiles could reach
/// a team barrier more than a second after the others.
pub const CPU_WAIT_BOUND: u32 = 3000;
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
    /// A kernel found a buffer too small for what the launch needs, skipped the work and
    /// raised the abort flag (`report_overflow`). The cause of the launch's failure even
    /// when waits timed out too (`timeouts`: those that ran out before they saw the flag).
    #[error("{}", describe_overflows(records, timeouts))]
    CapacityExceeded {
        records: Vec<CapacityRecord>,
        timeouts: Vec<ErrorRecord>,
    },
    /// The host gave up waiting for the launches queued on a device
    /// ([`WorldOptions::host_wait_limit`]; `kernel` is the last one queued). On a GPU
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
    /// A launch whose team barrier would count more arrivals than its `u32` word holds.
    #[error(
        "launch of `{kernel}`: {ranks} ranks x {per_rank} workgroups do not fit the team barrier's u32 count"
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
    /// Something that would wait for the device or rewrite what a graph bakes in, called
    /// while [`World::capture`] records launches.
    #[error("{what} is not possible while World::capture records launches")]
    InCapture { what: &'static str },
    /// A [`WorldGraph`] replayed on a world other than the one it was captured from.
    #[error("the graph was captured from another world")]
    ForeignGraph,
    /// A [`WorldGraph`] whose world has rewritten its peer tables since the capture (a
    /// symmetric buffer was allocated or dropped): the graph's launches name the old ones.
    #[error(
        "the world's peer table changed since the graph was captured (a symmetric buffer was allocated or dropped): capture it again"
    )]
    OutdatedGraph,
    /// Every `u32` peer-table index is taken.
    #[error("the peer table is full: every u32 index holds a live symmetric buffer")]
    PeerTableFull,
    /// The exchange of a joined world ([`World::join`]) failed.
    #[error("rank {rank}: the exchange of the world's processes failed ({what}): {reason}")]
    Exchange {
        rank: u32,
        what: &'static str,
        reason: String,
    },
    /// Another process of a joined world did something else than this one at the same
    /// point of their collective calls.
    #[error("rank {rank}: rank {other} differs ({what}): {problem}")]
    RankDiffers {
        rank: u32,
        other: u32,
        what: &'static str,
        problem: String,
    },
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

fn describe_overflows(records: &[CapacityRecord], timeouts: &[ErrorRecord]) -> String {
    let lines: Vec<String> = records.iter().map(CapacityRecord::to_string).collect();
    let also = match timeouts.len() {
        0 => String::new(),
        1 => " (1 bounded wait also timed out)".to_string(),
        n => format!(" ({n} bounded waits also timed out)"),
    };
    format!("buffer capacity exceeded: {}{also}", lines.join("; "))
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
    /// Whether each launch is timed between two events of its stream
    /// ([`World::last_launch_ms`]): host work on every launch, off by default.
    pub time_launches: bool,
}

/// One buffer per rank, all of the same length, each visible to every rank through the
/// peer table under the same index. Dropping it frees the index: launches whose kernels
/// read its entries are refused, and the table copies no longer lead to its memory.
pub struct SymmetricBuffer<T: DeviceScalar> {
    index: u32,
    ranks: Vec<Buffer<T>>,
    /// The ranks this process drives ([`World::local_ranks`]).
    local: Range<u32>,
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

    /// The copies of the ranks this process drives, with their ranks: every rank but in a
    /// world of several processes ([`World::join`]), where the others' copies are mappings
    /// of their memory that only their own process writes from the host.
    pub fn local(&self) -> impl Iterator<Item = (u32, &Buffer<T>)> {
        self.local
            .clone()
            .zip(&self.ranks[self.local.start as usize..self.local.end as usize])
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
    /// The last launch queued since the last synchronize, if any.
    queued: Option<Queued>,
}

/// A site's last queued launch: what `synchronize` waits for (and times, if it was).
struct Queued {
    /// The kernel's name (a replayed graph's: "a captured graph"), for host timeouts.
    kernel: String,
    /// Events before and after it, where the world times its launches.
    timed: Option<(Event, Event)>,
}

impl Site {
    fn new(device: &Device, first_rank: u32, ranks: u32, limit: Duration) -> Result<Site, Error> {
        Ok(Site {
            device: device.clone(),
            stream: Stream::bounded(device, limit)?,
            first_rank,
            ranks,
            table: device.alloc::<i64>(0)?,
            queued: None,
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
    last_launch_ms: Vec<Option<f32>>,
    /// Tells this world's graphs from others' ([`WorldGraph::replay`]).
    id: u64,
    /// Counts peer-table uploads: a graph names the tables of the epoch it was captured in.
    table_epoch: u64,
    /// Whether [`World::capture`] is recording launches.
    capturing: bool,
    /// This process's part of a world of several processes ([`World::join`]).
    joined: Option<Mutex<Joined>>,
    /// What the checks before a launch found out about each kernel launched so far.
    checked: Vec<CheckedKernel>,
}

/// What [`World::launch`] learns of a kernel of a loaded module at a workgroup size — the
/// peer-table indices it reads (an IR walk) and its resident workgroups (an occupancy
/// query) — kept so that the checks of later launches cost a lookup.
struct CheckedKernel {
    /// The module's IR, pinned: while it is held its address names that module alone.
    ir: Arc<VerifiedModule>,
    kernel: String,
    block: u32,
    buffers_read: Option<Vec<u32>>,
    resident: u32,
}

/// Kernels [`World::checked`] remembers before it starts afresh (modules loaded and
/// dropped over a long run must not pile up).
const CHECKED_KERNELS: usize = 64;

/// Source of [`World`] ids.
static NEXT_WORLD_ID: AtomicU64 = AtomicU64::new(0);

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
        World::build(sites, ranks, false, None, options)
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
        World::build(sites, devices.len() as u32, true, None, options)
    }

    /// Rank `rank` of a world of `ranks` ranks whose other ranks are other processes (one
    /// process per GPU under `torchrun`, or several processes sharing a GPU): this process
    /// launches its rank's workgroups on `device`, and reaches the peers' symmetric buffers
    /// through mappings of their memory (CUDA or HIP IPC handles). `exchange` carries
    /// bytes between the processes (see [`Exchange`]); every process must make the same
    /// world calls in the same order — joining, allocating and dropping symmetric buffers,
    /// the first launch of each kernel (where the ranks agree on the workgroups per rank:
    /// [`World::persistent_workgroups`]) — and a workgroup count set by hand must be the
    /// same on every rank.
    ///
    /// Each process waits for and reports its own launches ([`World::synchronize`], which
    /// names the failed waits of every rank it can see); a failure is reported by every
    /// process's synchronize, where they meet before the world's abort flag is lowered
    /// (and `TpOps::recover` / `MoeLayer::recover` meet again after their resets). A buffer
    /// must not be dropped while a peer's launch may use it, and the processes end the
    /// world together ([`World::leave`]).
    ///
    /// On the CPU device, whose memory is its process's, the ranks are worlds of one
    /// process on one device (threads standing in for processes: how the protocol is
    /// tested without GPUs).
    pub fn join(
        device: &Device,
        rank: u32,
        ranks: u32,
        exchange: impl Exchange + 'static,
        options: WorldOptions,
    ) -> Result<World, WorldError> {
        if ranks == 0 {
            return Err(WorldError::NoRanks);
        }
        if device.kind() != DeviceKind::Cpu && !device.backend().unified_addressing()? {
            return Err(WorldError::NoUnifiedAddressing {
                device: device.to_string(),
            });
        }
        let joined = Joined::new(device, rank, ranks, Box::new(exchange))?;
        let sites = vec![Site::new(device, rank, 1, host_wait_limit(options))?];
        World::build(sites, ranks, true, Some(joined), options)
    }

    fn build(
        sites: Vec<Site>,
        ranks: u32,
        peer_visible: bool,
        joined: Option<Joined>,
        options: WorldOptions,
    ) -> Result<World, WorldError> {
        let slots = SharedSlots::default();
        let local = local_ranks(&sites);
        let mut world = World {
            last_launch_ms: vec![None; sites.len()],
            id: NEXT_WORLD_ID.fetch_add(1, Ordering::Relaxed),
            table_epoch: 0,
            capturing: false,
            checked: Vec::new(),
            joined: joined.map(Mutex::new),
            sites,
            ranks,
            peer_visible,
            options,
            control: SymmetricBuffer {
                index: abi::CONTROL_BUFFER,
                ranks: Vec::new(),
                local,
                slots: slots.clone(),
            },
            slots,
        };
        let control = world.alloc_ranks::<u32>(control::words(options.trace_capacity))?;
        let index = world.register(&control)?;
        debug_assert_eq!(index, abi::CONTROL_BUFFER, "the first index of a new world");
        world.control.ranks = control;
        // The only control word the host writes: the kernels read it, never change it.
        world.write_control(
            control::TRACE_CAPACITY,
            options.trace_capacity,
            world.local_ranks(),
        )?;
        Ok(world)
    }

    pub fn ranks(&self) -> u32 {
        self.ranks
    }

    /// The ranks this process launches: all of them, but in a joined world
    /// ([`World::join`]) its own.
    pub fn local_ranks(&self) -> Range<u32> {
        local_ranks(&self.sites)
    }

    /// Queues the launches of rank `rank` (and of the ranks sharing its device's launch)
    /// on `stream` from now on, e.g. a framework's current stream
    /// ([`Device::borrowed_stream`]), so that they run in order with its work; work queued
    /// before stays where it was, and the new stream's work waits for it on the device.
    /// Refused while capturing, or for a stream of another device.
    pub fn use_stream(&mut self, rank: u32, stream: Stream) -> Result<(), WorldError> {
        if self.capturing {
            return Err(WorldError::InCapture {
                what: "changing a rank's stream",
            });
        }
        let ranks = self.ranks as usize;
        let at = self
            .site_index(rank)
            .ok_or(WorldError::NoSuchRank { rank, ranks })?;
        let site = &mut self.sites[at];
        if stream.device() != &site.device {
            return Err(Error::WrongDevice {
                what: "the stream".into(),
                owner: stream.device().to_string(),
                device: site.device.to_string(),
            }
            .into());
        }
        // The rank's earlier launches and copies share the world's buffers and counters
        // with the work to come: it waits for them on the device.
        stream.follow(&site.stream)?;
        site.stream = stream;
        Ok(())
    }

    /// In a joined world, waits until every process has called it (an exchange): how the
    /// processes make sure that host-side work of every rank — a reset after a failure
    /// (`TpOps::recover`) — is done before any launches again. Elsewhere it returns at once.
    pub fn meet(&mut self) -> Result<(), WorldError> {
        match self.joined() {
            Some(mut joined) => joined.meet("meeting"),
            None => Ok(()),
        }
    }

    /// Leaves a joined world: waits for this rank's launches, then for every process to
    /// leave too (peers read this rank's control words and buffers until they do), and
    /// frees the world's memory. Every process calls it (dropping the world instead frees
    /// the memory at once, which is only safe once the peers are done with it). Elsewhere
    /// it waits for the world's launches and drops it.
    pub fn leave(self) -> Result<(), WorldError> {
        for s in &self.sites {
            s.stream.synchronize()?;
        }
        if let Some(mut joined) = self.joined() {
            joined.meet("leaving")?;
        }
        Ok(())
    }

    /// This process's part of a joined world, locked.
    fn joined(&self) -> Option<std::sync::MutexGuard<'_, Joined>> {
        self.joined
            .as_ref()
            .map(|j| j.lock().unwrap_or_else(|e| e.into_inner()))
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
        self.site_index(rank).map(|at| &self.sites[at])
    }

    /// Which site launches rank `rank`.
    fn site_index(&self, rank: u32) -> Option<usize> {
        self.sites
            .iter()
            .position(|s| (s.first_rank..s.first_rank + s.ranks).contains(&rank))
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

    /// One zero-filled buffer of `len` elements per rank, each on its rank's device; in a
    /// joined world this rank's, and the peers' mapped.
    fn alloc_ranks<T: DeviceScalar>(&self, len: usize) -> Result<Vec<Buffer<T>>, WorldError> {
        let local = self.alloc_local::<T>(len)?;
        match self.joined() {
            Some(mut joined) => {
                let own = local.into_iter().next().expect("one local rank");
                joined.share(own)
            }
            None => Ok(local),
        }
    }

    /// [`World::alloc_ranks`] for the local ranks.
    fn alloc_local<T: DeviceScalar>(&self, len: usize) -> Result<Vec<Buffer<T>>, Error> {
        // Sites cover the local ranks, one after another.
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
            local: self.local_ranks(),
            slots: self.slots.clone(),
        })
    }

    /// Adds a buffer per rank to the peer table (at the lowest free index) and uploads
    /// every site's copy of the table.
    fn register<T: DeviceScalar>(&mut self, ranks: &[Buffer<T>]) -> Result<u32, WorldError> {
        if self.capturing {
            return Err(WorldError::InCapture {
                what: "allocating a symmetric buffer",
            });
        }
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
        self.table_epoch += 1;
        Ok(())
    }

    /// Whether launches are being recorded ([`World::capture`]) rather than queued: work
    /// that must happen at once (a host write) is refused then.
    pub fn is_capturing(&self) -> bool {
        self.capturing
    }

    /// Rewrites the peer tables if a buffer was dropped since they were written (never
    /// while capturing: the captured launches would name tables about to be freed).
    fn refresh_tables(&mut self) -> Result<(), WorldError> {
        if !table::lock(&self.slots).stale() {
            return Ok(());
        }
        if self.capturing {
            return Err(WorldError::InCapture {
                what: "rewriting the peer table after a symmetric buffer was dropped",
            });
        }
        Ok(self.upload_tables()?)
    }

    /// What the checks of a launch of `kernel` of `module` with `block` lanes need to
    /// know (its index in [`World::checked`]): the peer-table indices it reads (as far as
    /// [`table::buffers_read`] can tell) and its resident workgroups; found out on its
    /// first launch, then remembered.
    fn check_kernel(
        &mut self,
        module: &Module,
        kernel: &str,
        block: u32,
    ) -> Result<usize, WorldError> {
        let ir = module.shared_ir();
        let known = self
            .checked
            .iter()
            .position(|c| Arc::ptr_eq(&c.ir, ir) && c.block == block && c.kernel == kernel);
        match known {
            Some(at) => Ok(at),
            None => {
                let resident = module.max_resident_workgroups(kernel, [block, 1, 1])?;
                let buffers_read = ir
                    .kernels()
                    .iter()
                    .find(|k| k.name == kernel)
                    .and_then(|k| table::buffers_read(k));
                if self.checked.len() == CHECKED_KERNELS {
                    self.checked.clear();
                }
                self.checked.push(CheckedKernel {
                    ir: ir.clone(),
                    kernel: kernel.to_string(),
                    block,
                    buffers_read,
                    resident,
                });
                Ok(self.checked.len() - 1)
            }
        }
    }

    /// Refuses a launch of `kernel` that reads the peer-table entries of a dropped or
    /// unknown buffer (`read`: the indices it reads).
    fn check_buffers_read(&self, kernel: &str, read: &[u32]) -> Result<(), WorldError> {
        let slots = table::lock(&self.slots);
        match slots.missing(read) {
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
    /// hosts (never an assumed SM count). In a joined world the ranks agree on the fewest
    /// (an exchange on the first call for the kernel and lanes, in every process).
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
            Some((per_rank, ..)) => match self.joined() {
                Some(mut joined) => Ok(joined.agree_resident(kernel, block, per_rank)?),
                None => Ok(per_rank),
            },
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

    /// Queues a launch of `kernel` (built with `kosmos_sched::Team::params` first) with
    /// `per_rank` workgroups of `block` lanes for every rank, the team arguments followed
    /// by `args`, one launch per device of the world, and returns without waiting: the
    /// host writes nothing to the device either (the kernels' control words reset
    /// themselves), so back-to-back launches queue as fast as the driver takes them.
    /// [`World::synchronize`] waits and reports what the kernels recorded; inside
    /// [`World::capture`] the launch is recorded instead.
    ///
    /// Refused before anything is queued, with an error naming what is wrong: a grid of
    /// some device that cannot be co-resident, a device without a module in `modules` (a
    /// [`Module`] for an emulated world, [`World::load_module`]'s result for any), a kernel
    /// reading the peer-table entries of a dropped or unknown buffer, too many workgroups
    /// for the barrier's count. The CPU device runs the launch in this call, so its
    /// [`WorldError::HostTimeout`] comes from here. If a device refuses its launch after
    /// others were queued, those end at their bounded barrier (their timeouts reach the
    /// next synchronize) and the device's error is returned.
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
        for site in 0..self.sites.len() {
            let module = self.module_on(modules, kernel, &self.sites[site])?;
            let at = self.check_kernel(module, kernel, block)?;
            let checked = &self.checked[at];
            if let Some(read) = &checked.buffers_read {
                self.check_buffers_read(kernel, read)?;
            }
            let (s, resident) = (&self.sites[site], checked.resident);
            let needed = s.ranks as u64 * per_rank as u64;
            if per_rank == 0 || needed > resident as u64 {
                return Err(not_co_resident(kernel, s, per_rank, resident));
            }
            chosen.push(module);
        }
        self.refresh_tables()?;
        let (ranks, bound) = (self.ranks, self.wait_bound());
        let timed = self.timed();
        for (site, module) in chosen.into_iter().enumerate() {
            let s = &mut self.sites[site];
            // Workgroups that may start apart meet at their kernel's start barrier: a launch
            // of part of the world, or the CPU device's threads. A launch of part of the
            // world also ends at a team barrier: its peers may still use its buffers.
            let several = s.ranks != ranks;
            let apart = match (several, s.device.kind()) {
                (true, _) => apart::START | apart::LAUNCHES,
                (false, DeviceKind::Cpu) => apart::START,
                (false, _) => 0,
            } | if self.options.trace_capacity > 0 {
                apart::TRACE
            } else {
                0
            };
            let mut all: Vec<KernelArg<'_>> = vec![
                KernelArg::from(&s.table),
                KernelArg::from(ranks),
                KernelArg::from(s.first_rank),
                KernelArg::from(per_rank),
                KernelArg::from(bound),
                KernelArg::from(apart),
            ];
            all.extend_from_slice(args);
            let config = LaunchConfig::linear(s.ranks * per_rank, block);
            let queued = queue(&s.stream, &mut s.queued, kernel, timed, |stream| {
                module.launch(stream, kernel, config, &all)
            });
            queued.map_err(|e| self.launch_error(site, kernel, e))?;
        }
        Ok(())
    }

    /// A failure to queue work on site `site` as a world error: the CPU device, which
    /// runs the work in the calling thread, stopped at the host's wait limit.
    fn launch_error(&self, site: usize, kernel: &str, e: Error) -> WorldError {
        let s = &self.sites[site];
        match e {
            Error::Cpu(kosmos_cpu::CpuError::TimeLimit { running, .. }) => {
                // Nothing of the stopped launch runs any more.
                if let Err(e) = self.zero_counts() {
                    return e.into();
                }
                WorldError::HostTimeout {
                    kernel: kernel.to_string(),
                    device: s.device.to_string(),
                    first_rank: s.first_rank,
                    end_rank: s.first_rank + s.ranks,
                    limit: host_wait_limit(self.options),
                    running: running.iter().map(ToString::to_string).collect(),
                }
            }
            e => e.into(),
        }
    }

    /// Waits for everything queued on the world (each device's stream, at most
    /// [`WorldOptions::host_wait_limit`] in all, else [`WorldError::HostTimeout`] — the
    /// work stays queued, and a later call waits again), keeps each device's time of its
    /// last launch where launches are timed ([`World::last_launch_ms`]), and then reports
    /// what the kernels recorded: if a kernel reported a buffer too small, every rank's
    /// capacity records as [`WorldError::CapacityExceeded`] (the cause, even if waits timed
    /// out too), else if any wait timed out, every rank's error records as
    /// [`WorldError::Timeout`]; after either the records and the abort flag are cleared and
    /// the world's launches run again. Until then, launches queued after the failure return
    /// at their first barrier (the abort flag is sticky) and compute nothing.
    ///
    /// This is also the world's check for errors: reading device memory waits for the
    /// device anyway, so there is no cheaper way to look. Errors of the devices themselves
    /// (an out-of-bounds access, a failed launch) are returned too, the first one found.
    pub fn synchronize(&mut self) -> Result<(), WorldError> {
        if self.capturing {
            return Err(WorldError::InCapture {
                what: "synchronize",
            });
        }
        let limit = host_wait_limit(self.options);
        let deadline = Instant::now() + limit;
        let mut failure: Option<WorldError> = None;
        for s in &self.sites {
            let Some(q) = &s.queued else { continue };
            match wait_for(&s.stream, deadline) {
                Ok(true) => {}
                Ok(false) => {
                    // A GPU kernel may still be running: reading its records would wait.
                    return Err(WorldError::HostTimeout {
                        kernel: q.kernel.clone(),
                        device: s.device.to_string(),
                        first_rank: s.first_rank,
                        end_rank: s.first_rank + s.ranks,
                        limit,
                        running: Vec::new(),
                    });
                }
                Err(e) => {
                    failure.get_or_insert(e.into());
                }
            }
        }
        for (site, s) in self.sites.iter_mut().enumerate() {
            let timed = s.stream.synchronize().and_then(|()| match s.queued.take() {
                Some(Queued {
                    timed: Some((start, end)),
                    ..
                }) => start.elapsed_ms(&end).map(Some),
                _ => Ok(None),
            });
            match timed {
                Ok(Some(ms)) => self.last_launch_ms[site] = Some(ms),
                Ok(None) => {}
                Err(e) => {
                    failure.get_or_insert(e.into());
                }
            }
        }
        // Records explain a failure better than what the devices saw afterwards.
        self.report_errors()?;
        failure.map_or(Ok(()), Err)
    }

    /// Every recorded timeout or overflow raises rank 0's abort flag, so one word says
    /// whether there is anything to report (a failed launch ends on every rank only once
    /// the flag is up: its last barrier waits for every rank, or for the flag); then every
    /// rank's records are read and the local ranks' cleared, with the flag and the
    /// arrivals a failed barrier left. In a joined world the processes meet first, so that
    /// every one has seen the flag before rank 0's process lowers it, and again after, so
    /// that none launches before.
    fn report_errors(&self) -> Result<(), WorldError> {
        let abort = self.control_words(0, control::ABORT as usize + 1)?[control::ABORT as usize];
        if abort == 0 {
            return Ok(());
        }
        let (mut timeouts, mut overflows) = (Vec::new(), Vec::new());
        for r in 0..self.ranks {
            let words = self.control_words(r, control::TRACE_BASE as usize)?;
            timeouts.extend(ErrorRecord::all_in(&words));
            overflows.extend(CapacityRecord::all_in(&words));
        }
        self.write_control(control::ERROR_COUNT, 0, self.local_ranks())?;
        if let Some(mut joined) = self.joined() {
            joined.meet("failure seen")?;
        }
        self.zero_counts()?;
        self.write_control(control::ABORT, 0, self.rank_zero())?;
        if let Some(mut joined) = self.joined() {
            joined.meet("failure cleared")?;
        }
        Err(if overflows.is_empty() {
            WorldError::Timeout { records: timeouts }
        } else {
            // Waits that ran out before they saw the flag were waiting for skipped work.
            WorldError::CapacityExceeded {
                records: overflows,
                timeouts,
            }
        })
    }

    /// Records the launches `record` queues on this world (through [`World::launch`] or
    /// the `launch` of `#[kernel]` team kernels) into a graph instead of running them:
    /// CUDA stream capture on every device's stream (`cuStreamBeginCapture` ..
    /// `cuGraphInstantiate`); on the CPU device the stream keeps the launches and a replay
    /// runs them in order. HIP cannot capture yet (an error says so).
    ///
    /// The peer tables are brought up to date first; inside `record`, whatever would wait
    /// for a device or rewrite the tables is refused ([`WorldError::InCapture`]):
    /// synchronize, allocating symmetric buffers, launching after one was dropped. Every
    /// stream's capture is ended even when `record` fails, and its error returned.
    pub fn capture(
        &mut self,
        record: impl FnOnce(&mut World) -> Result<(), WorldError>,
    ) -> Result<WorldGraph, WorldError> {
        if self.capturing {
            return Err(WorldError::InCapture { what: "a capture" });
        }
        self.refresh_tables()?;
        for (begun, s) in self.sites.iter().enumerate() {
            if let Err(e) = s.stream.begin_capture() {
                for earlier in &self.sites[..begun] {
                    // Already failing: the first error is the one to report.
                    let _ = earlier.stream.end_capture();
                }
                return Err(e.into());
            }
        }
        self.capturing = true;
        let recorded = record(self);
        self.capturing = false;
        let graphs: Vec<Result<StreamGraph, Error>> =
            self.sites.iter().map(|s| s.stream.end_capture()).collect();
        recorded?;
        Ok(WorldGraph {
            world: self.id,
            table_epoch: self.table_epoch,
            graphs: graphs.into_iter().collect::<Result<_, _>>()?,
        })
    }

    /// Device time in milliseconds of the last launch each device ran before the last
    /// synchronize: one entry for an emulated world, one per GPU (in rank order) otherwise;
    /// `None` for a device none of whose launches was timed ([`WorldOptions::time_launches`]).
    pub fn last_launch_ms(&self) -> &[Option<f32>] {
        &self.last_launch_ms
    }

    /// The longest of [`World::last_launch_ms`]: the time of the world's last launch where
    /// its devices ran it side by side; `None` unless every device's launch was timed.
    pub fn slowest_launch_ms(&self) -> Option<f32> {
        self.last_launch_ms
            .iter()
            .try_fold(0f32, |slowest, t| t.map(|t| slowest.max(t)))
    }

    /// Whether launches queued now are timed: where the world times its launches, and not
    /// while it captures a graph (events of a capture would time nothing).
    fn timed(&self) -> bool {
        self.options.time_launches && !self.capturing
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

    /// Rank 0, if this process drives it (its control words hold the world's barrier and
    /// abort flag): the ranks whose world-wide words this process clears.
    fn rank_zero(&self) -> Range<u32> {
        if self.local_ranks().contains(&0) {
            0..1
        } else {
            0..0
        }
    }

    /// Writes `value` to control word `at` of each rank of `ranks` (only when no launch
    /// reads it: at creation, or after a synchronize).
    /// Zeroes the arrivals at a barrier and the departures that a launch which stopped or
    /// gave up may have left (rank 0's words), for the next launch.
    fn zero_counts(&self) -> Result<(), Error> {
        for at in [control::BARRIER_COUNT, control::DEPARTURES] {
            self.write_control(at, 0, self.rank_zero())?;
        }
        Ok(())
    }

    fn write_control(&self, at: u32, value: u32, ranks: Range<u32>) -> Result<(), Error> {
        for b in &self.control.ranks()[ranks.start as usize..ranks.end as usize] {
            let addr = b.device_ptr() + 4 * at as u64;
            b.device().backend().write(addr, &value.to_ne_bytes())?;
        }
        Ok(())
    }

    /// The wait records kept since the last report, rank by rank, without clearing them
    /// ([`World::synchronize`] reports and clears them): a look at what the launches
    /// finished so far left.
    pub fn error_records(&self) -> Result<Vec<ErrorRecord>, Error> {
        let mut out = Vec::new();
        for r in 0..self.ranks {
            out.extend(ErrorRecord::all_in(
                &self.control_words(r, control::TRACE_BASE as usize)?,
            ));
        }
        Ok(out)
    }

    /// The trace records written since the last call (by kernels built with tracing on),
    /// and how many did not fit; clears them, so the next call sees only later launches.
    /// Records accumulate over launches until then. Call it after a synchronize. In a
    /// joined world: the records of every rank, the local ones cleared (a peer's may be
    /// incomplete if its launch has not finished).
    pub fn trace(&mut self) -> Result<(Vec<TraceEvent>, u32), Error> {
        let (mut events, mut dropped) = (Vec::new(), 0);
        for r in 0..self.ranks {
            let words = self.control_words(r, control::words(self.options.trace_capacity))?;
            let (e, d) = TraceEvent::all_in(&words);
            events.extend(e);
            dropped += d;
        }
        self.write_control(control::TRACE_COUNT, 0, self.local_ranks())?;
        Ok((events, dropped))
    }
}

/// World launches recorded by [`World::capture`], replayed as a whole with
/// [`WorldGraph::replay`]: one graph per device of the world.
pub struct WorldGraph {
    world: u64,
    table_epoch: u64,
    /// By site.
    graphs: Vec<StreamGraph>,
}

impl fmt::Debug for WorldGraph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "WorldGraph({} devices)", self.graphs.len())
    }
}

impl WorldGraph {
    /// Queues the captured launches again on `world`, the world they were captured from,
    /// without waiting (as [`World::launch`]; [`World::synchronize`] reports). Refused
    /// when `world` is another one or has rewritten its peer tables since the capture.
    ///
    /// # Safety
    /// The launches read and write the buffers they were given as arguments at capture
    /// time, by address: every such buffer must still be allocated. (Symmetric buffers
    /// reached through the peer table are checked: dropping one makes the graph outdated.)
    pub unsafe fn replay(&self, world: &mut World) -> Result<(), WorldError> {
        if world.id != self.world {
            return Err(WorldError::ForeignGraph);
        }
        if world.capturing {
            return Err(WorldError::InCapture {
                what: "replaying a graph",
            });
        }
        if world.table_epoch != self.table_epoch || table::lock(&world.slots).stale() {
            return Err(WorldError::OutdatedGraph);
        }
        const KERNEL: &str = "a captured graph";
        let timed = world.timed();
        for (site, graph) in self.graphs.iter().enumerate() {
            let s = &mut world.sites[site];
            queue(&s.stream, &mut s.queued, KERNEL, timed, |stream| {
                stream.replay(graph)
            })
            .map_err(|e| world.launch_error(site, KERNEL, e))?;
        }
        Ok(())
    }
}

/// Queues `work` on `stream`, between two events if `timed`, and notes it in `queued` for
/// `World::synchronize`.
fn queue(
    stream: &Stream,
    queued: &mut Option<Queued>,
    kernel: &str,
    timed: bool,
    work: impl FnOnce(&Stream) -> Result<(), Error>,
) -> Result<(), Error> {
    let start = timed.then(|| stream.record_event()).transpose()?;
    work(stream)?;
    let timed = match start {
        Some(start) => Some((start, stream.record_event()?)),
        None => None,
    };
    *queued = Some(Queued {
        kernel: kernel.to_string(),
        timed,
    });
    Ok(())
}

/// The ranks `sites` launch (consecutive, in order).
fn local_ranks(sites: &[Site]) -> Range<u32> {
    let last = &sites[sites.len() - 1];
    sites[0].first_rank..last.first_rank + last.ranks
}

/// The host's bound on waiting for a launch under `options`.
fn host_wait_limit(options: WorldOptions) -> Duration {
    options.host_wait_limit.unwrap_or(HOST_WAIT_LIMIT)
}

/// Polls `stream` until the work queued on it has finished (`true`) or `deadline` has
/// passed (`false`), pausing between polls as [`poll_pause`] says.
fn wait_for(stream: &Stream, deadline: Instant) -> Result<bool, Error> {
    let begun = Instant::now();
    loop {
        if stream.is_complete()? {
            return Ok(true);
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(false);
        }
        match poll_pause(now - begun) {
            None => std::thread::yield_now(),
            Some(pause) => std::thread::sleep(pause.min(deadline - now)),
        }
    }
}

/// How long [`wait_for`] sleeps before its next poll, having waited `waited`: not at all
/// (`None`: it yields and polls again) for the first 2 ms, so that a short launch is seen
/// done within about a microsecond (a caller that synchronises after each call would
/// otherwise wait up to twice its kernel's time); after that a sixteenth of the time waited
/// (at most a millisecond), so that it is late by at most about 6%.
fn poll_pause(waited: Duration) -> Option<Duration> {
    const SPIN: Duration = Duration::from_millis(2);
    (waited >= SPIN).then(|| (waited / 16).min(Duration::from_millis(1)))
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

#[cfg(test)]
mod tests {
    use super::poll_pause;
    use std::time::Duration;

    #[test]
    fn synchronize_polls_back_to_back_then_sleeps_a_sixteenth_of_the_wait() {
        let us = Duration::from_micros;
        assert_eq!(poll_pause(us(0)), None);
        assert_eq!(poll_pause(us(1999)), None);
        assert_eq!(poll_pause(us(2000)), Some(us(125)));
        assert_eq!(poll_pause(us(8000)), Some(us(500)));
        // Long waits sleep a millisecond at most.
        assert_eq!(poll_pause(us(16000)), Some(us(1000)));
        assert_eq!(poll_pause(Duration::from_secs(60)), Some(us(1000)));
    }
}
