//! The link probes of the benchmarks (`ops::ping_pong`, `ops::peer_copy`) on CPU-device
//! worlds: the round trips complete and leave the counters ready for the next launch; the
//! copy moves exactly the next rank's bytes (inputs fresh random values, outputs poisoned).

mod common;
use common::{download, sym, world};
use kernels::ops;
use kosmos::bf16;
use kosmos_testkernels::{random_bf16, seed};

#[test]
fn ping_pong_round_trips_complete_and_rearm_their_counters() {
    for ranks in [2, 3] {
        let mut world = world(ranks);
        let modules = world
            .load_module(&kernels::KERNELS.image().unwrap())
            .unwrap();
        let counters = sym(&mut world, &vec![vec![0u32; 2]; ranks as usize]);
        // Twice: the second launch finds the counters the first one zeroed (a counter left
        // at its count would end the waits early, one left short would time them out).
        for launch in 0..2 {
            ops::ping_pong::launch(&mut world, &modules, 1, 32, &counters, 100)
                .and_then(|()| world.synchronize())
                .unwrap_or_else(|e| panic!("{ranks} ranks, launch {launch}: {e}"));
            for (r, c) in download(&counters).iter().enumerate() {
                assert_eq!(c, &[0, 0], "{ranks} ranks, launch {launch}: rank {r}");
            }
        }
    }
}

#[test]
fn peer_copy_moves_the_next_ranks_copy() {
    let seed = seed();
    for (ranks, groups) in [(2u32, 1u32), (3, 2)] {
        let mut world = world(ranks);
        let modules = world
            .load_module(&kernels::KERNELS.image().unwrap())
            .unwrap();
        let len = 8 * 37;
        let srcs: Vec<Vec<bf16>> = (0..ranks as u64)
            .map(|r| random_bf16(seed + r, len))
            .collect();
        let src = sym(&mut world, &srcs);
        let dst = sym(&mut world, &vec![vec![bf16::NAN; len]; ranks as usize]);
        ops::peer_copy::launch(&mut world, &modules, groups, 64, &src, &dst, groups)
            .and_then(|()| world.synchronize())
            .unwrap();
        for (r, got) in download(&dst).iter().enumerate() {
            let want = &srcs[(r + 1) % ranks as usize];
            let same = got
                .iter()
                .zip(want)
                .all(|(g, w)| g.to_bits() == w.to_bits());
            assert!(
                same,
                "{ranks} ranks: rank {r}'s copy differs from rank {}'s",
                (r + 1) % ranks as usize
            );
        }
    }
}
