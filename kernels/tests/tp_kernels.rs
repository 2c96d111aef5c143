//! Scratch check of the fused kernels on a CPU-device world.

use kernels::ops;
use kosmos::bf16;
use kosmos::runtime::{Device, World, WorldOptions};
use kosmos_testkernels::compare::{self, Scale};
use kosmos_testkernels::{matmul_bf16_ref, random_bf16};

#[test]
fn ag_gemm_on_cpu_world() {
    let device = Device::cpu().unwrap();
    for (ranks, shard, n, k) in [
        (2u32, 40usize, 24usize, 72usize),
        (3, 130, 136, 16),
        (1, 5, 8, 8),
    ] {
        let m = shard * ranks as usize;
        let mut world = World::emulated(&device, ranks, WorldOptions::default()).unwrap();
        let module = device
            .load_module(&kernels::MODULE.image().unwrap())
            .unwrap();
        let xg = world.alloc_symmetric::<bf16>(m * k).unwrap();
        let w = world.alloc_symmetric::<bf16>(k * n).unwrap();
        let y = world.alloc_symmetric::<f32>(m * n).unwrap();
        let y16 = world.alloc_symmetric::<bf16>(1).unwrap();
        let p = world.alloc_symmetric::<f32>(1).unwrap();
        let ready = world.alloc_symmetric::<u32>(64).unwrap();
        let queues = world.alloc_symmetric::<u32>(2).unwrap();
        assert_eq!(
            (xg.index(), queues.index(), p.index(), y16.index()),
            (1, 7, 5, 4)
        );
        let x_all = random_bf16(1, m * k);
        let mut refs = Vec::new();
        for r in 0..ranks as usize {
            let mut mine = vec![bf16::NAN; m * k];
            mine[r * shard * k..(r + 1) * shard * k]
                .copy_from_slice(&x_all[r * shard * k..(r + 1) * shard * k]);
            xg.ranks()[r].upload(&mine).unwrap();
            let w_h = random_bf16(10 + r as u64, k * n);
            w.ranks()[r].upload(&w_h).unwrap();
            y.ranks()[r].fill(f32::NAN).unwrap();
            refs.push(matmul_bf16_ref(&x_all, &w_h, m, n, k));
        }
        for per_rank in [1, 3] {
            ready.ranks().iter().for_each(|b| b.fill(0).unwrap());
            queues.ranks().iter().for_each(|b| b.fill(0).unwrap());
            ops::ag_gemm::run::<_, 0, 0>(
                &mut world,
                &module,
                per_rank,
                256,
                shard as u32,
                n as u32,
                k as u32,
            )
            .unwrap();
            for r in 0..ranks as usize {
                compare::rel_err(
                    &y.ranks()[r].download().unwrap(),
                    &refs[r],
                    Scale::Each { floor: 1.0 },
                    compare::BF16_DOT_F32,
                )
                .assert(format_args!("R={ranks} rank {r} per_rank {per_rank}"));
                assert_eq!(xg.ranks()[r].download().unwrap(), x_all);
            }
        }
    }
}

#[test]
fn gemm_rs_on_cpu_world() {
    let device = Device::cpu().unwrap();
    for (ranks, shard, n, k) in [
        (2u32, 40usize, 24usize, 72usize),
        (3, 130, 136, 16),
        (1, 5, 8, 8),
    ] {
        let m = shard * ranks as usize;
        let mut world = World::emulated(&device, ranks, WorldOptions::default()).unwrap();
        let module = device
            .load_module(&kernels::MODULE.image().unwrap())
            .unwrap();
        let x = world.alloc_symmetric::<bf16>(m * k).unwrap();
        let w = world.alloc_symmetric::<bf16>(k * n).unwrap();
        let y = world.alloc_symmetric::<f32>(m * n).unwrap();
        let y16 = world.alloc_symmetric::<bf16>(1).unwrap();
        let p = world.alloc_symmetric::<f32>(m * n).unwrap();
        let ready = world.alloc_symmetric::<u32>(64).unwrap();
        let queues = world.alloc_symmetric::<u32>(2).unwrap();
        assert_eq!(
            (x.index(), queues.index(), p.index(), y16.index()),
            (1, 7, 5, 4)
        );
        let mut sum = vec![0f64; m * n];
        for r in 0..ranks as usize {
            let x_h = random_bf16(20 + r as u64, m * k);
            let w_h = random_bf16(10 + r as u64, k * n);
            x.ranks()[r].upload(&x_h).unwrap();
            w.ranks()[r].upload(&w_h).unwrap();
            for (s, v) in sum.iter_mut().zip(matmul_bf16_ref(&x_h, &w_h, m, n, k)) {
                *s += v;
            }
        }
        for ar in [0, 1] {
            for per_rank in [1, 3] {
                ready.ranks().iter().for_each(|b| b.fill(0).unwrap());
                queues.ranks().iter().for_each(|b| b.fill(0).unwrap());
                y.ranks().iter().for_each(|b| b.fill(f32::NAN).unwrap());
                let (shard_u, n_u, k_u) = (shard as u32, n as u32, k as u32);
                if ar == 0 {
                    ops::gemm_rs::run::<_, 0, 0, 0>(
                        &mut world, &module, per_rank, 256, shard_u, n_u, k_u,
                    )
                } else {
                    ops::gemm_rs::run::<_, 0, 0, 1>(
                        &mut world, &module, per_rank, 256, shard_u, n_u, k_u,
                    )
                }
                .unwrap();
                for r in 0..ranks as usize {
                    let got = y.ranks()[r].download().unwrap();
                    let (got, want) = if ar == 0 {
                        (&got[..shard * n], &sum[r * shard * n..(r + 1) * shard * n])
                    } else {
                        (&got[..], &sum[..])
                    };
                    compare::rel_err(got, want, Scale::Each { floor: 1.0 }, compare::BF16_DOT_F32)
                        .assert(format_args!(
                            "R={ranks} rank {r} per_rank {per_rank} ar {ar}"
                        ));
                }
            }
        }
    }
}
