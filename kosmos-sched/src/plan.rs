//! The planner: demand-ordered task tables for a producer -> consumer pipeline across ranks
//! (the all-gather shape: every rank consumes every rank's shard).
//!
//! Each rank's shard is split into `blocks` compute blocks of `chunks_per_block`
//! communication chunks. On rank `r`:
//! - compute tasks are ordered by when their inputs arrive: the local shard first (it needs
//!   no communication), then the peers in ring order `r+1, r+2, ...` (the order in which a
//!   ring schedule would deliver them);
//! - communication tasks (pull a chunk of a peer's shard into the local copy) are ordered
//!   by when the compute queue needs them: the chunks of the first peer-dependent compute
//!   task, then those of the next, ...;
//! - compute task `(src, block)` depends on counter `src * blocks + block` reaching
//!   `chunks_per_block` (0 for the local shard: ready at once); each of its chunks' comm
//!   tasks adds 1 to that counter.

/// Why a plan cannot be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error("a world needs at least one rank")]
    NoRanks,
    #[error("rank {rank} is outside a world of {ranks} ranks")]
    RankOutOfRange { rank: u32, ranks: u32 },
    #[error("blocks per shard and chunks per block must be at least 1 (got {blocks} and {chunks})")]
    EmptyShard { blocks: u32, chunks: u32 },
    #[error("{what} ({count}) does not fit in 32 bits")]
    TooLarge { what: &'static str, count: u64 },
}

/// The shape of an all-gather -> compute pipeline.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PipelineShape {
    pub ranks: u32,
    /// Compute tasks per shard.
    pub blocks: u32,
    /// Communication tasks per compute task.
    pub chunks_per_block: u32,
}

impl PipelineShape {
    fn check(&self) -> Result<(), PlanError> {
        if self.ranks == 0 {
            return Err(PlanError::NoRanks);
        }
        if self.blocks == 0 || self.chunks_per_block == 0 {
            return Err(PlanError::EmptyShard {
                blocks: self.blocks,
                chunks: self.chunks_per_block,
            });
        }
        let tasks = self.ranks as u64 * self.blocks as u64 * self.chunks_per_block as u64;
        if tasks > u32::MAX as u64 / 2 {
            return Err(PlanError::TooLarge {
                what: "tasks per rank",
                count: tasks,
            });
        }
        Ok(())
    }

    /// Readiness counters per rank.
    pub fn counters(&self) -> u32 {
        self.ranks * self.blocks
    }

    /// Communication chunks per shard.
    pub fn chunks(&self) -> u32 {
        self.blocks * self.chunks_per_block
    }
}

/// A compute task: consume block `block` of rank `src`'s shard once `counter` reaches
/// `expected`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ComputeTask {
    pub src: u32,
    pub block: u32,
    pub counter: u32,
    pub expected: u32,
}

/// A communication task: pull chunk `chunk` of rank `src`'s shard, then add 1 to `counter`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CommTask {
    pub src: u32,
    pub chunk: u32,
    pub counter: u32,
}

/// One rank's task tables, both in queue order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankPlan {
    pub rank: u32,
    pub shape: PipelineShape,
    pub compute: Vec<ComputeTask>,
    pub comm: Vec<CommTask>,
}

/// Words per compute entry in the device table: src, block, counter, expected.
pub const COMPUTE_WORDS: u32 = 4;
/// Words per comm entry in the device table: src, chunk, counter.
pub const COMM_WORDS: u32 = 3;

/// The order in which rank `rank` receives shards: itself, then `rank+1, rank+2, ...`
/// around the ring.
pub fn ring_order(ranks: u32, rank: u32) -> Vec<u32> {
    (0..ranks).map(|i| (rank + i) % ranks).collect()
}

impl RankPlan {
    /// The demand-ordered tables of rank `rank`.
    pub fn new(shape: PipelineShape, rank: u32) -> Result<RankPlan, PlanError> {
        shape.check()?;
        if rank >= shape.ranks {
            return Err(PlanError::RankOutOfRange {
                rank,
                ranks: shape.ranks,
            });
        }
        let k = shape.chunks_per_block;
        let mut compute = Vec::new();
        let mut comm = Vec::new();
        for src in ring_order(shape.ranks, rank) {
            for block in 0..shape.blocks {
                let counter = src * shape.blocks + block;
                let local = src == rank;
                compute.push(ComputeTask {
                    src,
                    block,
                    counter,
                    expected: if local { 0 } else { k },
                });
                if !local {
                    comm.extend((0..k).map(|c| CommTask {
                        src,
                        chunk: block * k + c,
                        counter,
                    }));
                }
            }
        }
        Ok(RankPlan {
            rank,
            shape,
            compute,
            comm,
        })
    }

    /// The device table: compute entries ([`COMPUTE_WORDS`] each), then comm entries
    /// ([`COMM_WORDS`] each, starting at [`RankPlan::comm_offset`]).
    pub fn encode(&self) -> Vec<u32> {
        let mut words = Vec::with_capacity(
            self.compute.len() * COMPUTE_WORDS as usize + self.comm.len() * COMM_WORDS as usize,
        );
        for t in &self.compute {
            words.extend([t.src, t.block, t.counter, t.expected]);
        }
        for t in &self.comm {
            words.extend([t.src, t.chunk, t.counter]);
        }
        words
    }

    /// Word offset of the first comm entry in [`RankPlan::encode`]'s table.
    pub fn comm_offset(&self) -> u32 {
        self.compute.len() as u32 * COMPUTE_WORDS
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn shape(ranks: u32, blocks: u32, k: u32) -> PipelineShape {
        PipelineShape {
            ranks,
            blocks,
            chunks_per_block: k,
        }
    }

    #[test]
    fn two_ranks_by_hand() {
        let p = RankPlan::new(shape(2, 2, 2), 1).unwrap();
        let order: Vec<(u32, u32, u32)> = p
            .compute
            .iter()
            .map(|t| (t.src, t.block, t.expected))
            .collect();
        assert_eq!(order, [(1, 0, 0), (1, 1, 0), (0, 0, 2), (0, 1, 2)]);
        let comm: Vec<(u32, u32, u32)> =
            p.comm.iter().map(|t| (t.src, t.chunk, t.counter)).collect();
        assert_eq!(comm, [(0, 0, 0), (0, 1, 0), (0, 2, 1), (0, 3, 1)]);
        assert_eq!(p.encode().len(), 4 * 4 + 4 * 3);
        assert_eq!(p.comm_offset(), 16);
    }

    #[test]
    fn bad_shapes_are_errors() {
        assert_eq!(RankPlan::new(shape(0, 1, 1), 0), Err(PlanError::NoRanks));
        assert_eq!(
            RankPlan::new(shape(2, 1, 1), 2),
            Err(PlanError::RankOutOfRange { rank: 2, ranks: 2 })
        );
        assert!(matches!(
            RankPlan::new(shape(2, 0, 1), 0),
            Err(PlanError::EmptyShard { .. })
        ));
        assert!(matches!(
            RankPlan::new(shape(1 << 16, 1 << 16, 2), 0),
            Err(PlanError::TooLarge { .. })
        ));
    }

    proptest! {
        #[test]
        fn orderings_follow_demand(ranks in 1u32..10, blocks in 1u32..5, k in 1u32..4, r in 0u32..10) {
            let rank = r % ranks;
            let s = shape(ranks, blocks, k);
            let p = RankPlan::new(s, rank).unwrap();
            // Every (src, block) exactly once, local shard first, then ring distance order.
            prop_assert_eq!(p.compute.len() as u32, ranks * blocks);
            let dist = |src: u32| (src + ranks - rank) % ranks;
            prop_assert!(p.compute.windows(2).all(|w| dist(w[0].src) <= dist(w[1].src)));
            prop_assert!(p.compute[..blocks as usize].iter().all(|t| t.src == rank && t.expected == 0));
            let mut seen = std::collections::HashSet::new();
            prop_assert!(p.compute.iter().all(|t| seen.insert((t.src, t.block))));
            // Every peer chunk pulled exactly once; nothing of the local shard.
            prop_assert_eq!(p.comm.len() as u32, (ranks - 1) * blocks * k);
            let mut chunks = std::collections::HashSet::new();
            prop_assert!(p.comm.iter().all(|t| t.src != rank && chunks.insert((t.src, t.chunk))));
            // Each counter's expected value is the number of comm tasks signalling it.
            for t in &p.compute {
                let n = p.comm.iter().filter(|c| c.counter == t.counter).count() as u32;
                prop_assert_eq!(n, t.expected);
                prop_assert_eq!(t.counter, t.src * blocks + t.block);
            }
            // Comm tasks come in the order the compute queue consumes their counters.
            let position = |counter: u32| p.compute.iter().position(|t| t.counter == counter).unwrap();
            prop_assert!(p.comm.windows(2).all(|w| position(w[0].counter) <= position(w[1].counter)));
        }
    }
}
