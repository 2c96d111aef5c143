//! The world measurement kernels on emulated worlds of the CPU device: the cross-rank
//! ping-pong ends with both counters at the round count, and the peer copy delivers every
//! word of the next rank's buffer; a rank outside the world is an error; the team barrier
//! holds, twice per launch, over back-to-back launches of different sizes; launches that
//! read dropped or unknown symmetric buffers are refused.

use kosmos_runtime::{Device, KernelArg, World, WorldError, WorldOptions};
use kosmos_sched_tests::world_kernels::{self, VECTOR_LANES, barrier_buffers, buffers};
use kosmos_sched_tests::{
    check_team_words, load_world_kernels, random_words, seed, time_world_launch, timed,
};
use rand::{SeedableRng, rngs::SmallRng};

#[test]
fn cross_rank_pingpong_counts_every_round() {
    let device = Device::cpu_with_resident_limit(8);
    let mut world = World::emulated(&device, 2, timed()).unwrap();
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
        let mut world = World::emulated(&device, ranks, timed()).unwrap();
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
fn back_to_back_launches_of_different_sizes_each_pass_their_own_barrier() {
    // Queued without a host wait between them: every barrier must count from 0 by itself.
    // A count that carried over (or a target of `launch number x workgroups`) would
    // release some launch early and time out another, reported at the synchronize.
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
    world.synchronize().unwrap();
}

#[test]
fn launches_are_timed_only_where_the_world_asks() {
    let device = Device::cpu_with_resident_limit(8);
    for (options, timing) in [(WorldOptions::default(), false), (timed(), true)] {
        let mut world = World::emulated(&device, 2, options).unwrap();
        let modules = load_world_kernels(&world).unwrap();
        assert_eq!(world.slowest_launch_ms(), None, "before any launch");
        let block = world_kernels::BLOCK;
        let n = [KernelArg::from(0u32)];
        world
            .launch(&modules, world_kernels::EMPTY, 1, block, &n)
            .unwrap();
        world.synchronize().unwrap();
        let times = world.last_launch_ms();
        assert_eq!(times.len(), 1, "one site: the emulated world's device");
        assert_eq!(times[0].is_some(), timing, "timed: {timing}");
        let slowest = world.slowest_launch_ms();
        assert_eq!(slowest.is_some_and(|ms| ms >= 0.0), timing);
    }
}

#[test]
fn the_cpu_devices_workgroups_keep_their_start_barrier() {
    // The CPU device's threads start as the host schedules them: `team_apart` is 1 even
    // for a launch of the whole world, whose launches follow each other in stream order.
    let device = Device::cpu_with_resident_limit(8);
    let mut world = World::emulated(&device, 3, WorldOptions::default()).unwrap();
    check_team_words(&mut world, 2, 1);
}

/// Launches of `kernel` with `sizes[i]` workgroups per rank and parameter `i + 1`, back to
/// back with no host wait in between, then a synchronize.
fn launch_in_turn(world: &mut World, kernel: &str, sizes: &[u32]) {
    let modules = load_world_kernels(world).unwrap();
    for (launch, &per_rank) in (1u32..).zip(sizes) {
        let n = [KernelArg::from(launch)];
        world
            .launch(&modules, kernel, per_rank, world_kernels::BLOCK, &n)
            .unwrap_or_else(|e| panic!("launch {launch}: {e}"));
    }
    world.synchronize().unwrap();
}

#[test]
fn the_team_barrier_holds_twice_per_launch_over_back_to_back_launches() {
    // Every launch passes the barrier twice, every workgroup checking after each pass that
    // all of the world's workgroups had marked their arrival; launches of different sizes
    // follow each other with no host wait and no host write in between.
    let device = Device::cpu_with_resident_limit(8);
    let ranks = 2;
    let sizes = [4u32, 1, 3, 4, 2, 2, 4, 1];
    let most = *sizes.iter().max().unwrap();
    let mut world = World::emulated(&device, ranks, WorldOptions::default()).unwrap();
    let arrived = world.alloc_symmetric::<u32>(most as usize).unwrap();
    let early = world.alloc_symmetric::<u32>(1).unwrap();
    assert_eq!(
        [arrived.index(), early.index()],
        [barrier_buffers::ARRIVED, barrier_buffers::EARLY]
    );
    launch_in_turn(&mut world, world_kernels::BARRIER_CHECK, &sizes);
    let last = sizes.len() as u32;
    let per_rank = sizes[sizes.len() - 1] as usize;
    for r in 0..ranks {
        let missing = early.rank(r).unwrap().download().unwrap();
        assert_eq!(
            missing,
            [0],
            "rank {r}: some workgroup passed a barrier early"
        );
        let marks = arrived.rank(r).unwrap().download().unwrap();
        assert_eq!(marks[..per_rank], vec![2 * last + 1; per_rank], "rank {r}");
    }
}

#[test]
fn exactly_one_workgroup_leaves_last_and_sees_everyones_mark() {
    // Launches of different sizes back to back, no host wait in between: each has one last
    // workgroup out, which sees every workgroup's mark of that launch, and the count starts
    // from 0 again for the next.
    let device = Device::cpu_with_resident_limit(12);
    let ranks = 3;
    let sizes = [4u32, 1, 3, 4, 2, 2, 4, 1];
    let most = *sizes.iter().max().unwrap();
    let mut world = World::emulated(&device, ranks, WorldOptions::default()).unwrap();
    let arrived = world.alloc_symmetric::<u32>(most as usize).unwrap();
    let early = world.alloc_symmetric::<u32>(1).unwrap();
    let lasts = world.alloc_symmetric::<u32>(1).unwrap();
    assert_eq!(
        [arrived.index(), early.index(), lasts.index()],
        [
            barrier_buffers::ARRIVED,
            barrier_buffers::EARLY,
            barrier_buffers::LASTS
        ]
    );
    launch_in_turn(&mut world, world_kernels::LAST_OUT_CHECK, &sizes);
    let mut last_outs = 0;
    for r in 0..ranks {
        let missing = early.rank(r).unwrap().download().unwrap();
        assert_eq!(missing, [0], "rank {r}: a last workgroup missed a mark");
        last_outs += lasts.rank(r).unwrap().download().unwrap()[0];
    }
    assert_eq!(
        last_outs,
        sizes.len() as u32,
        "one last workgroup per launch"
    );
}

#[test]
fn a_world_launch_whose_barrier_count_overflows_u32_is_refused() {
    let device = Device::cpu_with_resident_limit(u32::MAX);
    let mut world = World::emulated(&device, 2, WorldOptions::default()).unwrap();
    let modules = load_world_kernels(&world).unwrap();
    let e = world
        .launch(
            &modules,
            world_kernels::EMPTY,
            1 << 31,
            world_kernels::BLOCK,
            &[KernelArg::from(0u32)],
        )
        .unwrap_err();
    assert!(
        matches!(e, WorldError::TooManyWorkgroups { ranks: 2, per_rank, .. } if per_rank == 1 << 31),
        "{e}"
    );
}

#[test]
fn launches_reading_a_dropped_or_unknown_symmetric_buffer_are_refused() {
    let device = Device::cpu_with_resident_limit(8);
    let mut world = World::emulated(&device, 2, WorldOptions::default()).unwrap();
    let modules = load_world_kernels(&world).unwrap();
    let copy = |world: &mut World| {
        world
            .launch(
                &modules,
                world_kernels::PEER_COPY,
                1,
                world_kernels::BLOCK,
                &[KernelArg::from(4u32)],
            )
            .and_then(|()| world.synchronize())
    };
    let flags = world.alloc_symmetric::<u32>(2).unwrap();
    // PEER_COPY reads SRC (2) and DST (3): neither exists yet.
    let e = copy(&mut world).unwrap_err();
    assert!(
        matches!(
            e,
            WorldError::NoSuchBuffer {
                index: 2,
                buffers: 2,
                ..
            }
        ),
        "{e}"
    );
    let src = world.alloc_symmetric::<u32>(16).unwrap();
    let dst = world.alloc_symmetric::<u32>(16).unwrap();
    assert_eq!([src.index(), dst.index()], [buffers::SRC, buffers::DST]);
    copy(&mut world).unwrap();
    drop(src);
    let e = copy(&mut world).unwrap_err();
    assert!(
        matches!(e, WorldError::DroppedBuffer { index: 2, .. }),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "launch of `world_peer_copy`: symmetric buffer 2 was dropped, and the kernel reads its peer-table entries"
    );
    // A kernel that reads only live buffers still runs.
    world
        .launch(
            &modules,
            world_kernels::PINGPONG,
            1,
            world_kernels::BLOCK,
            &[KernelArg::from(3u32)],
        )
        .and_then(|()| world.synchronize())
        .unwrap();
    assert_eq!(flags.rank(0).unwrap().download().unwrap(), [0, 3]);
    // The freed index is the next allocation's, and the copy reads the new buffer.
    let src = world.alloc_symmetric::<u32>(16).unwrap();
    assert_eq!(src.index(), buffers::SRC);
    let data: Vec<u32> = (0..16).collect();
    src.rank(1).unwrap().upload(&data).unwrap();
    copy(&mut world).unwrap();
    assert_eq!(dst.rank(0).unwrap().download().unwrap(), data);
}
