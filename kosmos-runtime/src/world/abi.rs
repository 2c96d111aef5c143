//! The contract between a [`World`](super::World) and the persistent kernels it launches
//! (built with `kosmos-sched`, which re-exports this module as `kosmos_sched::abi`): the
//! team parameters every scheduled kernel starts with, the layout of each rank's control
//! buffer, and the records kernels leave in it.
//!
//! The contract lives with the host side rather than with the kernel emitters because the
//! world is built on the backends' crate-private operations (fine-grained allocation, peer
//! access, raw control-word writes): moving `World` out of the runtime would make those
//! public, while the emitters need nothing of the runtime but these definitions. So the
//! runtime depends on no scheduling code, and `kosmos-sched` follows the runtime's ABI.

use std::fmt;

/// Names of the team parameters, in the order they open every scheduled kernel's signature.
/// `team_peers` is a `ptr<global>`; the rest are `u32`.
pub const TEAM_PARAMS: [&str; 6] = [
    "team_peers",
    "team_ranks",
    "team_rank_base",
    "team_wgs",
    "team_bound",
    "team_apart",
];

/// Bits of the team parameter `team_apart`: how the world's workgroups run.
pub mod apart {
    /// They may start far apart (a launch per rank or GPU, or the CPU device's threads,
    /// which start as the host schedules them): kernels meet at a start barrier first.
    pub const START: u32 = 1;
    /// The world runs in several launches (a GPU or a process per rank): one rank's launch
    /// must not end while peers still use its buffers.
    pub const LAUNCHES: u32 = 2;
    /// The world keeps trace records (`WorldOptions::trace_capacity` is not 0). A task's
    /// record tests this bit of a parameter before it touches the control buffer: a load of
    /// the capacity there, at every task's end, may wait behind the task's stores.
    pub const TRACE: u32 = 4;
}

/// Symmetric buffer 0 of every world: each rank's control buffer (`u32` words).
pub const CONTROL_BUFFER: u32 = 0;

/// Word offsets in a control buffer. None is reset by the host before a launch (launches
/// are only queued): the barrier resets itself, the error words and the abort flag stay
/// until the host reports them, trace records until the host reads them.
pub mod control {
    /// Error records written since the host last reported them (may exceed
    /// [`ERROR_CAPACITY`]).
    pub const ERROR_COUNT: u32 = 0;
    /// Arrivals at the world's barrier in progress (rank 0's word): the last arriver zeroes
    /// it before it bumps [`BARRIER_GENERATION`], so every barrier, of any launch size,
    /// counts from 0.
    pub const BARRIER_COUNT: u32 = 1;
    /// Trace records written since the host last read them (may exceed the capacity: the
    /// rest were dropped).
    pub const TRACE_COUNT: u32 = 2;
    /// Trace records that fit, written by the host when it creates the world.
    pub const TRACE_CAPACITY: u32 = 3;
    /// Non-zero once any workgroup of the world gave up (rank 0's word). Sticky: barriers
    /// of later launches see it and return at once, until the host reports the errors and
    /// clears it.
    pub const ABORT: u32 = 4;
    /// Barriers completed (rank 0's word; wraps): waiters wait for it to change.
    pub const BARRIER_GENERATION: u32 = 5;
    /// Workgroups of the launch in progress that have left through `team_last_out` (rank
    /// 0's word): the last of the world's zeroes it, so every launch counts from 0.
    pub const DEPARTURES: u32 = 6;
    /// First error record.
    pub const ERROR_BASE: u32 = 8;
    /// Words per error record.
    pub const ERROR_WORDS: u32 = 8;
    /// Error records kept per rank.
    pub const ERROR_CAPACITY: u32 = 16;
    /// First trace record (even, so its `u64` clocks are 8-byte aligned).
    pub const TRACE_BASE: u32 = ERROR_BASE + ERROR_WORDS * ERROR_CAPACITY;
    /// Words per trace record: workgroup, rank, role, task, start (u64), end (u64).
    pub const TRACE_WORDS: u32 = 8;

    /// Words of a control buffer holding `trace_capacity` trace records.
    pub fn words(trace_capacity: u32) -> usize {
        TRACE_BASE as usize + (TRACE_WORDS as usize) * trace_capacity as usize
    }
}

/// What a workgroup was waiting for when it gave up.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WaitKind {
    /// A task's readiness counter.
    Task,
    /// The world's barrier (some workgroup of the world never arrived).
    Barrier,
    /// A code the host does not know (a corrupted control buffer).
    Unknown(u32),
}

impl WaitKind {
    pub const TASK_CODE: u32 = 1;
    pub const BARRIER_CODE: u32 = 2;

    fn from_code(code: u32) -> WaitKind {
        match code {
            WaitKind::TASK_CODE => WaitKind::Task,
            WaitKind::BARRIER_CODE => WaitKind::Barrier,
            other => WaitKind::Unknown(other),
        }
    }
}

/// A bounded wait that ran out: who waited on what.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ErrorRecord {
    pub kind: WaitKind,
    pub rank: u32,
    /// Workgroup index within its rank.
    pub workgroup: u32,
    pub task: u32,
    /// The waiter's name for the counter polled (e.g. its index; `u32::MAX` for the start
    /// barrier).
    pub counter: u32,
    pub expected: u32,
    /// The counter's last value.
    pub seen: u32,
}

/// The error records of one rank's control buffer (its first [`control::TRACE_BASE`]
/// words at least), each [`control::ERROR_WORDS`] words, kind first.
fn records_in(control_words: &[u32]) -> impl Iterator<Item = &[u32]> {
    let count = control_words
        .get(control::ERROR_COUNT as usize)
        .copied()
        .unwrap_or(0)
        .min(control::ERROR_CAPACITY);
    (0..count).filter_map(|i| {
        let at = (control::ERROR_BASE + i * control::ERROR_WORDS) as usize;
        control_words.get(at..at + control::ERROR_WORDS as usize)
    })
}

impl ErrorRecord {
    /// Decodes one record of [`control::ERROR_WORDS`] words.
    pub fn decode(w: &[u32]) -> Option<ErrorRecord> {
        let w: &[u32; 8] = w.get(..8)?.try_into().ok()?;
        Some(ErrorRecord {
            kind: WaitKind::from_code(w[0]),
            rank: w[1],
            workgroup: w[2],
            task: w[3],
            counter: w[4],
            expected: w[6],
            seen: w[7],
        })
    }

    /// The wait records of one rank's control buffer (its first [`control::TRACE_BASE`]
    /// words at least); its [`CapacityRecord`]s are not among them.
    pub fn all_in(control_words: &[u32]) -> Vec<ErrorRecord> {
        records_in(control_words)
            .filter(|w| w[0] != CapacityRecord::CODE)
            .filter_map(ErrorRecord::decode)
            .collect()
    }
}

impl fmt::Display for ErrorRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            WaitKind::Task => format!("task {}", self.task),
            WaitKind::Barrier => "the team barrier".to_string(),
            WaitKind::Unknown(code) => format!("task {} (unknown wait kind {code})", self.task),
        };
        write!(
            f,
            "rank {} workgroup {} gave up waiting for {what}: counter {} expected {}, saw {}",
            self.rank, self.workgroup, self.counter, self.expected, self.seen
        )
    }
}

/// A workgroup found a buffer too small for what the launch needs (`Sched::report_overflow`,
/// the DSL's `report_overflow`): it skipped the work and raised the abort flag. Kept in the
/// error records with kind [`CapacityRecord::CODE`]: words rank, workgroup, site, -, -,
/// capacity, needed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CapacityRecord {
    pub rank: u32,
    /// Workgroup index within its rank.
    pub workgroup: u32,
    /// The reporter's name for the call site: a `#[kernel]`'s source line of the
    /// `report_overflow` call.
    pub site: u32,
    /// What the buffer holds.
    pub capacity: u32,
    /// What the launch needed it to hold.
    pub needed: u32,
}

impl CapacityRecord {
    /// The record kind, next to [`WaitKind::TASK_CODE`] and [`WaitKind::BARRIER_CODE`].
    pub const CODE: u32 = 3;

    /// The capacity records of one rank's control buffer (its first
    /// [`control::TRACE_BASE`] words at least).
    pub fn all_in(control_words: &[u32]) -> Vec<CapacityRecord> {
        records_in(control_words)
            .filter(|w| w[0] == CapacityRecord::CODE)
            .map(|w| CapacityRecord {
                rank: w[1],
                workgroup: w[2],
                site: w[3],
                capacity: w[6],
                needed: w[7],
            })
            .collect()
    }
}

impl fmt::Display for CapacityRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "rank {} workgroup {}: report_overflow at line {} of the kernel's source: the launch needs room for {}, the buffer holds {}",
            self.rank, self.workgroup, self.site, self.needed, self.capacity
        )
    }
}

/// The role a workgroup played in a traced interval.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    Compute,
    Comm,
    /// Waiting (bounded, backing off) for the head compute task.
    Wait,
}

impl Role {
    pub const ALL: [Role; 3] = [Role::Compute, Role::Comm, Role::Wait];

    pub fn code(self) -> u32 {
        match self {
            Role::Compute => 0,
            Role::Comm => 1,
            Role::Wait => 2,
        }
    }

    pub fn from_code(code: u32) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.code() == code)
    }

    pub fn name(self) -> &'static str {
        match self {
            Role::Compute => "compute",
            Role::Comm => "comm",
            Role::Wait => "wait",
        }
    }
}

/// One traced interval of one workgroup; clocks in nanoseconds of the device's clock.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TraceEvent {
    pub rank: u32,
    pub workgroup: u32,
    pub role: Role,
    pub task: u32,
    pub start: u64,
    pub end: u64,
}

impl TraceEvent {
    /// The trace records of one rank's control buffer, and how many were dropped for lack
    /// of room. Records with an unknown role are skipped (counted as dropped).
    pub fn all_in(control_words: &[u32]) -> (Vec<TraceEvent>, u32) {
        let count = control_words
            .get(control::TRACE_COUNT as usize)
            .copied()
            .unwrap_or(0);
        let capacity = control_words
            .get(control::TRACE_CAPACITY as usize)
            .copied()
            .unwrap_or(0);
        let u64_at = |w: &[u32], i: usize| w[i] as u64 | (w[i + 1] as u64) << 32;
        let events: Vec<TraceEvent> = (0..count.min(capacity))
            .filter_map(|i| {
                let at = (control::TRACE_BASE + i * control::TRACE_WORDS) as usize;
                let w = control_words.get(at..at + control::TRACE_WORDS as usize)?;
                Some(TraceEvent {
                    workgroup: w[0],
                    rank: w[1],
                    role: Role::from_code(w[2])?,
                    task: w[3],
                    start: u64_at(w, 4),
                    end: u64_at(w, 6),
                })
            })
            .collect();
        let dropped = count - events.len() as u32;
        (events, dropped)
    }
}
