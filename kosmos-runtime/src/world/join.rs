//! Worlds of several processes ([`World::join`](super::World::join)): each process drives
//! one rank, and the processes agree through an [`Exchange`] the caller provides (e.g.
//! `torch.distributed.all_gather_object`) on who is who, on every symmetric buffer (each
//! rank's memory handle, mapped by every other rank) and on the workgroups per rank of
//! each persistent kernel (the world's barrier counts every rank's workgroups).
//!
//! Every exchange is collective: every process makes the same calls in the same order
//! (joining, allocating symmetric buffers, the first launch of each kernel), as the ranks
//! of one program do. Each message says what it is for, so that diverging programs fail
//! with an error naming the rank that differs instead of mapping the wrong memory.

use super::WorldError;
use crate::buffer::{Buffer, DeviceScalar};
use crate::device::Device;

/// How the processes of a joined world exchange bytes: every process calls
/// [`Exchange::all_gather`] with its own message, in the same order, and gets every rank's
/// message, in rank order (its own included). An `Err` is the transport's failure.
pub trait Exchange: Send {
    fn all_gather(&mut self, mine: Vec<u8>) -> Result<Vec<Vec<u8>>, String>;
}

impl<F: FnMut(Vec<u8>) -> Result<Vec<Vec<u8>>, String> + Send> Exchange for F {
    fn all_gather(&mut self, mine: Vec<u8>) -> Result<Vec<Vec<u8>>, String> {
        self(mine)
    }
}

/// Opens every message, so that a message of another protocol (or version) is refused.
const TAG: &[u8; 8] = b"kosmos1\0";

/// What one process of a joined world holds: its rank and the exchange.
pub(super) struct Joined {
    pub(super) rank: u32,
    ranks: u32,
    exchange: Box<dyn Exchange>,
    /// Exchanges made so far: part of every message, so every process is at the same one.
    calls: u64,
    /// Workgroups per rank agreed for (kernel, lanes) so far.
    agreed: Vec<(String, u32, u32)>,
}

/// A message being written: the tag, the call number, what it is for, then fields.
struct Message(Vec<u8>);

impl Message {
    fn u32(mut self, v: u32) -> Message {
        self.0.extend(v.to_le_bytes());
        self
    }

    fn u64(mut self, v: u64) -> Message {
        self.0.extend(v.to_le_bytes());
        self
    }
}

impl Joined {
    /// Joins the world as `rank` of `ranks` on `device`: checks that every process names a
    /// different rank of the same world size on the same kind of device.
    pub(super) fn new(
        device: &Device,
        rank: u32,
        ranks: u32,
        exchange: Box<dyn Exchange>,
    ) -> Result<Joined, WorldError> {
        if rank >= ranks {
            return Err(WorldError::NoSuchRank {
                rank,
                ranks: ranks as usize,
            });
        }
        let mut joined = Joined {
            rank,
            ranks,
            exchange,
            calls: 0,
            agreed: Vec::new(),
        };
        let kind = device.kind().name();
        let mine = joined
            .message("join")
            .u32(rank)
            .u32(ranks)
            .u32(kind.len() as u32);
        let mut mine = mine.0;
        mine.extend(kind.as_bytes());
        let all = joined.gather("join", mine, 12)?;
        for (r, theirs) in all.iter().enumerate() {
            let said = |at: usize| u32::from_le_bytes(theirs[at..at + 4].try_into().expect("4"));
            let body = joined.body_at();
            let (their_rank, their_ranks) = (said(body), said(body + 4));
            let their_kind = theirs.get(body + 12..).unwrap_or_default();
            let problem = if their_ranks != ranks {
                format!("it joins a world of {their_ranks} ranks, this process one of {ranks}")
            } else if their_rank != r as u32 {
                format!("it calls itself rank {their_rank}")
            } else if their_kind != kind.as_bytes() {
                format!(
                    "it runs on a {} device, this process on {kind}",
                    String::from_utf8_lossy(their_kind)
                )
            } else {
                continue;
            };
            return Err(joined.differs(r as u32, "joining", problem));
        }
        Ok(joined)
    }

    /// Where the fields of a message start (after the tag, the call number and the name).
    fn body_at(&self) -> usize {
        TAG.len() + 8 + 16
    }

    /// The head of this process's next message, for `what` (at most 16 bytes).
    fn message(&self, what: &str) -> Message {
        let mut m = TAG.to_vec();
        m.extend(self.calls.to_le_bytes());
        let mut name = [0u8; 16];
        let n = what.len().min(name.len());
        name[..n].copy_from_slice(&what.as_bytes()[..n]);
        m.extend(name);
        Message(m)
    }

    /// Exchanges `mine` (made by [`Joined::message`] for `what`) and checks that every
    /// rank answered, at the same call, for the same purpose, with at least the `fixed`
    /// bytes of fields every such message has (so that reading them cannot fail).
    fn gather(
        &mut self,
        what: &'static str,
        mine: Vec<u8>,
        fixed: usize,
    ) -> Result<Vec<Vec<u8>>, WorldError> {
        let head = mine[..self.body_at()].to_vec();
        let min_len = self.body_at() + fixed;
        let all = self
            .exchange
            .all_gather(mine)
            .map_err(|reason| WorldError::Exchange {
                rank: self.rank,
                what,
                reason,
            })?;
        if all.len() != self.ranks as usize {
            return Err(WorldError::Exchange {
                rank: self.rank,
                what,
                reason: format!(
                    "the exchange gave {} messages for {} ranks",
                    all.len(),
                    self.ranks
                ),
            });
        }
        self.calls += 1;
        for (r, theirs) in all.iter().enumerate() {
            if theirs.len() < min_len || theirs[..head.len()] != head[..] {
                let problem = format!(
                    "its message #{} is not one of this protocol's `{what}` messages (every process must join, allocate symmetric buffers and launch kernels in the same order)",
                    self.calls - 1
                );
                return Err(self.differs(r as u32, what, problem));
            }
        }
        Ok(all)
    }

    fn differs(&self, rank: u32, what: &'static str, problem: String) -> WorldError {
        WorldError::RankDiffers {
            rank: self.rank,
            other: rank,
            what,
            problem,
        }
    }

    /// This rank's buffer of `len` elements (`own`, allocated and zeroed by the caller) and
    /// every peer's, mapped here, by rank: exchanges memory handles and checks that every
    /// rank allocates the same length of the same type.
    pub(super) fn share<T: DeviceScalar>(
        &mut self,
        own: Buffer<T>,
    ) -> Result<Vec<Buffer<T>>, WorldError> {
        const WHAT: &str = "allocation";
        let (len, elem) = (own.len() as u64, T::SCALAR_TYPE as u32);
        let handle = own.export()?;
        let mut mine = self.message(WHAT).u64(len).u32(elem).0;
        mine.extend(handle.as_deref().unwrap_or_default());
        let all = self.gather(WHAT, mine, 12)?;
        let body = self.body_at();
        let device = own.device().clone();
        let mut own = Some(own);
        let mut out = Vec::with_capacity(all.len());
        for (r, theirs) in all.iter().enumerate() {
            let their_len = u64::from_le_bytes(theirs[body..body + 8].try_into().expect("8"));
            let their_elem = u32::from_le_bytes(theirs[body + 8..body + 12].try_into().expect("4"));
            if (their_len, their_elem) != (len, elem) {
                let problem = format!(
                    "it allocates {their_len} elements of type #{their_elem}, this process {len} of {} (#{elem})",
                    T::SCALAR_TYPE
                );
                return Err(self.differs(r as u32, WHAT, problem));
            }
            if r as u32 == self.rank {
                out.push(own.take().expect("this rank's own buffer, once"));
            } else {
                let handle = (len > 0).then(|| &theirs[body + 12..]);
                out.push(Buffer::imported(&device, handle, len as usize)?);
            }
        }
        Ok(out)
    }

    /// Waits until every rank has reached this point (`what`).
    pub(super) fn meet(&mut self, what: &'static str) -> Result<(), WorldError> {
        let mine = self.message(what).0;
        self.gather(what, mine, 0).map(drop)
    }

    /// The workgroups per rank that every rank can keep resident of `kernel` with `block`
    /// lanes, given this rank's `resident`: the fewest, agreed on the first call for the
    /// pair, remembered after.
    pub(super) fn agree_resident(
        &mut self,
        kernel: &str,
        block: u32,
        resident: u32,
    ) -> Result<u32, WorldError> {
        if let Some((.., n)) = self
            .agreed
            .iter()
            .find(|(k, b, _)| k == kernel && *b == block)
        {
            return Ok(*n);
        }
        const WHAT: &str = "residency";
        let mine = self.message(WHAT).u32(block).u32(resident).0;
        let all = self.gather(WHAT, mine, 8)?;
        let body = self.body_at();
        let mut fewest = resident;
        for (r, theirs) in all.iter().enumerate() {
            let word = |at: usize| u32::from_le_bytes(theirs[at..at + 4].try_into().expect("4"));
            if word(body) != block {
                let problem = format!(
                    "it asks for workgroups of {} lanes of `{kernel}`, this process of {block}",
                    word(body)
                );
                return Err(self.differs(r as u32, WHAT, problem));
            }
            fewest = fewest.min(word(body + 4));
        }
        self.agreed.push((kernel.to_string(), block, fewest));
        Ok(fewest)
    }
}
