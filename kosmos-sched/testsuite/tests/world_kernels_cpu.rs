//! The world measurement kernels on emulated worlds of the CPU device: the cross-rank
//! ping-pong ends with both counters at the round count, and the peer copy delivers every
//! word of the next rank's buffer; a rank outside the world is an error.

use kosmos_runtime::{Device, KernelArg, World, WorldOptions};
use kosmos_sched_tests::world_kernels::{self, VECTOR_LANES, buffers};
use kosmos_sched_tests::{load_world_kernels, random_words, seed, time_world_launch};
use rand::{SeedableRng, rngs::SmallRng};

#[test]
fn cross_rank_pingpong_counts_every_round() {
    let device = Device::cpu_with_resident_limit(8);
    let mut world = World::emulated(&device, 2, WorldOptions::default()).unwrap();
    let modules = load_world_kernels(&world).unwrap();
    let flags = world.alloc_symmetric::<u32>(2).unwrap();
    assert_eq!(flags.index(), buffers::FLAGS);
    let rounds = 50;
    time_world_launch(
        &mut world,
        &modules,
        world_kernels::PINGPONG,
        2,
        rounds,
        1,
        |_| Ok(flags.ranks().iter().try_for_each(|b| b.fill(0))?),
    )
    .unwrap();
    // Rank 1 was pinged `rounds` times, rank 0 ponged as often.
    assert_eq!(flags.rank(0).unwrap().download().unwrap(), [0, rounds]);
    assert_eq!(flags.rank(1).unwrap().download().unwrap(), [rounds, 0]);
}

#[test]
fn peer_copy_delivers_the_next_ranks_buffer() {
    let device = Device::cpu_with_resident_limit(16);
    let seed = seed();
    println!("seed {seed}");
    let mut rng = SmallRng::seed_from_u64(seed);
    for (ranks, per_rank, vectors) in [(2, 1, 300u32), (3, 4, 1000), (4, 3, 257)] {
        let mut world = World::emulated(&device, ranks, WorldOptions::default()).unwrap();
        let modules = load_world_kernels(&world).unwrap();
        let words = (vectors * VECTOR_LANES) as usize;
        let _flags = world.alloc_symmetric::<u32>(2).unwrap();
        let src = world.alloc_symmetric::<u32>(words).unwrap();
        let dst = world.alloc_symmetric::<u32>(words).unwrap();
        assert_eq!([src.index(), dst.index()], [buffers::SRC, buffers::DST]);
        let data: Vec<Vec<u32>> = (0..ranks).map(|_| random_words(&mut rng, words)).collect();
        for (b, d) in src.ranks().iter().zip(&data) {
            b.upload(d).unwrap();
        }
        time_world_launch(
            &mut world,
            &modules,
            world_kernels::PEER_COPY,
            per_rank,
            vectors,
            1,
            |_| Ok(dst.ranks().iter().try_for_each(|b| b.fill(0xdead_beef))?),
        )
        .unwrap();
        for r in 0..ranks {
            let got = dst.rank(r).unwrap().download().unwrap();
            let want = &data[((r + 1) % ranks) as usize];
            let bad = (0..words).find(|i| got[*i] != want[*i]);
            assert_eq!(bad, None, "R={ranks} W={per_rank} rank {r} seed {seed}");
        }
    }
}

#[test]
fn a_rank_outside_the_world_is_an_error() {
    let device = Device::cpu().unwrap();
    let mut world = World::emulated(&device, 3, WorldOptions::default()).unwrap();
    let buf = world.alloc_symmetric::<u32>(4).unwrap();
    assert!(buf.rank(2).is_ok());
    let e = buf.rank(3).unwrap_err();
    assert_eq!(e.to_string(), "rank 3 is outside the world's 3 ranks");
    assert!(buf.rank(u32::MAX).is_err());
}

#[test]
fn launches_of_different_sizes_each_pass_their_own_start_barrier() {
    // The barrier counts one launch's arrivals: a never-reset count with `launch number x
    // workgroups` as its target would release the second launch early (8 >= 2 x 4 arrivals
    // already there) and time out the third (20 < 3 x 8).
    let device = Device::cpu_with_resident_limit(16);
    let mut world = World::emulated(&device, 2, WorldOptions::default()).unwrap();
    let modules = load_world_kernels(&world).unwrap();
    for per_rank in [4, 2, 4, 1, 3, 4] {
        world
            .launch(
                &modules,
                world_kernels::EMPTY,
                per_rank,
                world_kernels::BLOCK,
                &[KernelArg::from(0u32)],
            )
            .unwrap_or_else(|e| panic!("{per_rank} workgroups per rank: {e}"));
    }
}
