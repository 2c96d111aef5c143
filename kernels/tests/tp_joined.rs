//! Joined worlds (`World::join`): each rank its own world, driven by its own thread as it
//! would be by its own process, on one CPU device (whose memory is its process's), with
//! an exchange through shared memory standing in for `torch.distributed`. The fused ops
//! must give, rank by rank, bitwise the results of an emulated world of the same ranks
//! (and match the f64 reference); ranks that diverge, and a lost signal, are errors that
//! name the rank.

mod common;
mod joined;
use common::{download, sym};
use joined::{Board, joined};
use kernels::{Layout, TpOps};
use kosmos::bf16;
use kosmos::runtime::world::abi::WaitKind;
use kosmos::runtime::{Device, DeviceScalar, World, WorldError, WorldOptions};
use kosmos_testkernels::compare::{self, Scale};
use kosmos_testkernels::{matmul_bf16_ref, random_bf16, seed};

/// This rank's copy of a symmetric buffer of `len` elements holding `data`.
fn own_copy<T: DeviceScalar>(world: &mut World, data: &[T]) -> kosmos::runtime::SymmetricBuffer<T> {
    let b = world.alloc_symmetric::<T>(data.len()).unwrap();
    for (_, copy) in b.local() {
        copy.upload(data).unwrap();
    }
    b
}

/// (world size, rows per rank, n, k): shards, `n` and `k` cut tiles at their edges.
const CASES: [(u32, usize, usize, usize); 2] = [(2, 40, 24, 72), (3, 130, 136, 16)];

const PER_RANK: u32 = 2;

#[test]
fn fused_ops_on_joined_ranks_match_an_emulated_world_bitwise() {
    let device = Device::cpu().unwrap();
    for (i, &(ranks, shard, n, k)) in CASES.iter().enumerate() {
        let m = shard * ranks as usize;
        let s = seed().wrapping_add(10 * i as u64);
        let r_us = ranks as usize;
        let xs: Vec<Vec<bf16>> = (0..r_us)
            .map(|r| random_bf16(s + r as u64, m * k))
            .collect();
        let ws: Vec<Vec<bf16>> = (0..r_us)
            .map(|r| random_bf16(s + 50 + r as u64, k * n))
            .collect();
        let own_rows = |r: usize| {
            let mut x = vec![bf16::NAN; m * k];
            let rows = r * shard * k..(r + 1) * shard * k;
            x[rows.clone()].copy_from_slice(&xs[0][rows]);
            x
        };

        // The emulated world's results: AG+GEMM (gathering xs[0]'s rows), GEMM+RS, GEMM+AR,
        // on the joined worlds' CPU device.
        let mut world = World::emulated(&device, ranks, WorldOptions::default()).unwrap();
        let mut ops = TpOps::new(&world).unwrap();
        ops.set_workgroups_per_rank(Some(PER_RANK));
        let x_ag = sym(&mut world, &(0..r_us).map(own_rows).collect::<Vec<_>>());
        let (x, w) = (sym(&mut world, &xs), sym(&mut world, &ws));
        let (y_ag, y_rs, y_ar) = (
            world.alloc_symmetric::<f32>(m * n).unwrap(),
            world.alloc_symmetric::<f32>(shard * n).unwrap(),
            world.alloc_symmetric::<f32>(m * n).unwrap(),
        );
        ops.ag_gemm(&mut world, &x_ag, &w, Layout::N, &y_ag, m, n, k)
            .unwrap();
        ops.gemm_rs(&mut world, &x, &w, Layout::N, &y_rs, m, n, k)
            .unwrap();
        ops.gemm_ar(&mut world, &x, &w, &y_ar, m, n, k).unwrap();
        world.synchronize().unwrap();
        let emulated = [&y_ag, &y_rs, &y_ar].map(download);

        let (xs_t, ws_t) = (xs.clone(), ws.clone());
        let x_ag_t: Vec<Vec<bf16>> = (0..r_us).map(own_rows).collect();
        let got = joined(
            &device,
            ranks,
            WorldOptions::default(),
            move |rank, world| {
                let r = rank as usize;
                assert_eq!(world.local_ranks(), rank..rank + 1);
                let mut ops = TpOps::new(world).unwrap();
                ops.set_workgroups_per_rank(Some(PER_RANK));
                let x_ag = own_copy(world, &x_ag_t[r]);
                let (x, w) = (own_copy(world, &xs_t[r]), own_copy(world, &ws_t[r]));
                let ys = [m * n, shard * n, m * n].map(|len| own_copy(world, &vec![f32::NAN; len]));
                ops.ag_gemm(world, &x_ag, &w, Layout::N, &ys[0], m, n, k)
                    .unwrap();
                ops.gemm_rs(world, &x, &w, Layout::N, &ys[1], m, n, k)
                    .unwrap();
                ops.gemm_ar(world, &x, &w, &ys[2], m, n, k).unwrap();
                world.synchronize().unwrap();
                // The gathered input holds every rank's rows now.
                assert_eq!(x_ag.rank(rank).unwrap().download().unwrap(), xs_t[0]);
                ys.map(|y| y.rank(rank).unwrap().download().unwrap())
            },
        );

        let mut sum = vec![0f64; m * n];
        for (x, w) in xs.iter().zip(&ws) {
            for (s, p) in sum.iter_mut().zip(matmul_bf16_ref(x, w, m, n, k)) {
                *s += p;
            }
        }
        for r in 0..r_us {
            let what = format!("R={ranks} m={m} n={n} k={k} rank {r}");
            for (op, emulated) in emulated.iter().enumerate() {
                let same = got[r][op] == emulated[r];
                assert!(
                    same,
                    "{what}: joined and emulated results of op {op} differ"
                );
            }
            let ag_want = matmul_bf16_ref(&xs[0], &ws[r], m, n, k);
            let rs_want = &sum[r * shard * n..(r + 1) * shard * n];
            for (y, want, op) in [
                (&got[r][0], &ag_want[..], "ag_gemm"),
                (&got[r][1], rs_want, "gemm_rs"),
                (&got[r][2], &sum[..], "gemm_ar"),
            ] {
                compare::rel_err(y, want, Scale::Each { floor: 1.0 }, compare::BF16_DOT_F32)
                    .assert(format!("{op} {what}"));
            }
        }
    }
}

#[test]
fn ranks_that_diverge_are_errors_naming_the_rank() {
    let device = Device::cpu().unwrap();
    // Rank 1 allocates another length than rank 0 at the same call.
    let got = joined(&device, 2, WorldOptions::default(), |rank, world| {
        world
            .alloc_symmetric::<f32>(16 + rank as usize)
            .map(|_| ())
            .unwrap_err()
            .to_string()
    });
    for (rank, message) in got.iter().enumerate() {
        let other = 1 - rank;
        assert!(
            message.starts_with(&format!("rank {rank}: rank {other} differs (allocation)")),
            "{message}"
        );
    }

    // Two threads calling themselves rank 0.
    let board = Board::new(2);
    let threads: Vec<_> = (0..2)
        .map(|t| {
            let (device, exchange) = (device.clone(), board.exchange(t));
            std::thread::spawn(move || {
                World::join(&device, 0, 2, exchange, WorldOptions::default())
                    .unwrap_err()
                    .to_string()
            })
        })
        .collect();
    for t in threads {
        let message = t.join().unwrap();
        assert!(
            message.contains("rank 1 differs (joining): it calls itself rank 0"),
            "{message}"
        );
    }

    // A peer whose message is not this protocol's: an error, never a panic.
    let garbled = |mine: Vec<u8>| -> Result<Vec<Vec<u8>>, String> { Ok(vec![mine, vec![1, 2, 3]]) };
    let e = World::join(&device, 0, 2, garbled, WorldOptions::default()).unwrap_err();
    let message = e.to_string();
    assert!(
        message.contains("rank 1 differs (join): its message #0 is not one of this protocol's"),
        "{message}"
    );

    // A rank past the world, and another device's memory.
    let lone = |_: Vec<u8>| -> Result<Vec<Vec<u8>>, String> { Err("unreachable".into()) };
    let e = World::join(&device, 2, 2, lone, WorldOptions::default()).unwrap_err();
    assert!(
        matches!(e, WorldError::NoSuchRank { rank: 2, ranks: 2 }),
        "{e}"
    );
    let other = Device::cpu().unwrap();
    let board = Board::new(2);
    let threads: Vec<_> = [device.clone(), other]
        .into_iter()
        .enumerate()
        .map(|(r, d)| {
            let exchange = board.exchange(r);
            std::thread::spawn(move || {
                World::join(&d, r as u32, 2, exchange, WorldOptions::default())
                    .unwrap_err()
                    .to_string()
            })
        })
        .collect();
    for t in threads {
        let message = t.join().unwrap();
        assert!(message.contains("another CPU device"), "{message}");
    }
}

/// A lost signal in one rank's launch is reported by every rank's synchronize (rank 1's
/// naming its workgroups and tasks); after `recover` on every rank the op runs correctly
/// again.
#[test]
fn a_lost_signal_in_a_joined_world_is_reported_by_the_rank_that_waited() {
    let device = Device::cpu().unwrap();
    let options = WorldOptions {
        wait_bound: Some(200),
        ..WorldOptions::default()
    };
    let (m, n, k) = (80, 16, 24);
    let s = seed();
    let (x_all, w_all) = (random_bf16(s, m * k), random_bf16(s + 1, k * n));
    let want = matmul_bf16_ref(&x_all, &w_all, m, n, k);
    let got = joined(&device, 2, options, move |rank, world| {
        let mut ops = TpOps::new(world).unwrap();
        ops.set_workgroups_per_rank(Some(2));
        let (x, w) = (own_copy(world, &x_all), own_copy(world, &w_all));
        let y = own_copy(world, &vec![f32::NAN; m * n]);
        // Rank 1's only communication task pulls rank 0's rows: its tiles wait in vain.
        ops.plant_missing_signal(1, 0);
        ops.ag_gemm(world, &x, &w, Layout::N, &y, m, n, k).unwrap();
        let first = world.synchronize();
        ops.recover(world).unwrap();
        y.rank(rank).unwrap().fill(f32::NAN).unwrap();
        ops.ag_gemm(world, &x, &w, Layout::N, &y, m, n, k).unwrap();
        world.synchronize().unwrap();
        (first, y.rank(rank).unwrap().download().unwrap())
    });
    assert!(got[0].0.is_err(), "rank 0 saw no failure");
    match &got[1].0 {
        Err(WorldError::Timeout { records }) => {
            let tasks: Vec<_> = records
                .iter()
                .filter(|r| r.kind == WaitKind::Task)
                .collect();
            assert!(!tasks.is_empty(), "{records:?}");
            assert!(
                tasks.iter().all(|r| r.rank == 1 && r.workgroup < 2),
                "{records:?}"
            );
        }
        other => panic!("rank 1: expected a timeout, got {other:?}"),
    }
    for (rank, (_, y)) in got.iter().enumerate() {
        compare::rel_err(y, &want, Scale::Each { floor: 1.0 }, compare::BF16_DOT_F32)
            .assert(format!("rank {rank} after recover"));
    }
}
