//! `copy_tensor` through a pipeline of barrier objects on the CPU device.

use crate::lower_source;
use kosmos_runtime::{
    Buffer, Device, KernelArg, LaunchConfig, ModuleImage, Swizzle, TensorMap, TensorShape,
};
use rand::{Rng, SeedableRng, rngs::SmallRng};

/// A workgroup of one subgroup copies boxes of 8 x 64 `bf16` (128-byte rows, swizzled) at
/// random coordinates, many over the tensor's edges, through 3 stages: box `t` is issued
/// two boxes ahead of its use, into stage `t % 3`, whose barrier object completes phase
/// `t / 3` when the box has arrived. Each box is copied out of shared memory as it lies.
const PIPELINE: &str = r#"
    #[kernel(max_workgroup_size = 32)]
    fn k(map: &TensorMap, xs: &[i32], ys: &[i32], out: &mut [bf16], tiles: u32, box_bytes: u32) {
        let stages = shared_array::<bf16, 1536>();
        let full = shared_array::<u64, 3>();
        let lane = workitem_id_x();
        if lane == 0 {
            for s in 0..3u32 {
                mbar_init(&full[s], 1);
            }
        }
        barrier();
        for t in 0..tiles + 2 {
            if t < tiles {
                let s = t % 3;
                if lane == 0 {
                    mbar_arrive_expect(&full[s], box_bytes);
                }
                copy_tensor(&stages[s * 512], &map, xs[t], ys[t], &full[s]);
            }
            if t >= 2 {
                let c = t - 2;
                let s = c % 3;
                mbar_wait(&full[s], (c / 3) % 2);
                for i in (lane..512).step_by(32) {
                    out[c * 512 + i] = stages[s * 512 + i];
                }
                // Every lane has read stage `s` before a copy refills it.
                barrier();
            }
        }
    }
"#;

#[test]
fn tensor_boxes_arrive_swizzled_with_zeros_outside() {
    let seed: u64 = rand::rng().random();
    println!("seed {seed}");
    let mut rng = SmallRng::seed_from_u64(seed);
    let (rows, cols, stride) = (
        rng.random_range(1..60u64),
        rng.random_range(1..150u64),
        152u64,
    );
    let (box_rows, box_cols) = (8usize, 64usize);
    let tensor: Vec<half::bf16> = (0..rows * stride)
        .map(|_| half::bf16::from_f32(rng.random_range(-1.0..1.0)))
        .collect();
    let tiles = 7usize;
    let xs: Vec<i32> = (0..tiles)
        .map(|_| rng.random_range(-70..cols as i32 + 8))
        .collect();
    let ys: Vec<i32> = (0..tiles)
        .map(|_| rng.random_range(-10..rows as i32 + 4))
        .collect();

    let kernels = lower_source(PIPELINE).unwrap_or_else(|e| panic!("{e}"));
    let device = Device::cpu().unwrap();
    let module = device
        .load_module(&ModuleImage::new(
            kosmos_ir::verify_module(kosmos_ir::Module { kernels }).unwrap(),
        ))
        .unwrap();
    let data = Buffer::from_slice(&device, &tensor).unwrap();
    let shape = TensorShape {
        rows,
        cols,
        row_stride: stride,
        box_rows: box_rows as u32,
        box_cols: box_cols as u32,
    };
    let map = TensorMap::tiled(&data, shape, Swizzle::B128).unwrap();
    let (dx, dy) = (
        Buffer::from_slice(&device, &xs).unwrap(),
        Buffer::from_slice(&device, &ys).unwrap(),
    );
    let poison = half::bf16::from_f32(f32::NAN);
    let out = Buffer::from_slice(&device, &vec![poison; tiles * 512]).unwrap();
    let args = [
        KernelArg::from(&map),
        KernelArg::from(&dx),
        KernelArg::from(&dy),
        KernelArg::from(&out),
        KernelArg::from(tiles as u32),
        KernelArg::from(map.box_bytes()),
    ];
    let stream = device.stream().unwrap();
    module
        .launch(&stream, "k", LaunchConfig::linear(1, 32), &args)
        .unwrap();
    let got = out.download().unwrap();
    for t in 0..tiles {
        for r in 0..box_rows {
            for c in 0..box_cols {
                let (row, col) = (ys[t] as i64 + r as i64, xs[t] as i64 + c as i64);
                let inside = (0..rows as i64).contains(&row) && (0..cols as i64).contains(&col);
                let want = if inside {
                    tensor[(row as u64 * stride + col as u64) as usize]
                } else {
                    half::bf16::ZERO
                };
                // A(r, c) at byte 128 r + 16 ((c / 8) ^ (r % 8)) + 2 (c % 8).
                let at = 64 * r + 8 * ((c / 8) ^ (r % 8)) + c % 8;
                let g = got[t * 512 + at];
                assert_eq!(
                    g.to_bits(),
                    want.to_bits(),
                    "box {t} at ({}, {}): element ({r}, {c}) is {g}, want {want} (seed {seed})",
                    xs[t],
                    ys[t]
                );
            }
        }
    }
}

#[test]
fn a_wait_names_its_call_in_its_failure_record() {
    let src = r#"
        #[kernel(max_workgroup_size = 32)]
        fn k(out: &mut [u32]) {
            let bars = shared_array::<u64, 1>();
            if workitem_id_x() == 0 {
                mbar_init(&bars[0], 2);
            }
            barrier();
            mbar_arrive(&bars[0]);
            mbar_wait(&bars[0], 0);
            out[0] = 1;
        }
    "#;
    // The wait's failure record names the call, so that the launch's error says who
    // waited on what.
    let kernels = lower_source(src).unwrap_or_else(|e| panic!("{e}"));
    let wait = kernels[0].bounds_origins();
    assert!(
        wait.iter()
            .any(|(o, f)| *f == kosmos_ir::Failure::Wait && o.0.contains("mbar_wait(&bars[0], 0)")),
        "{wait:?}"
    );
}

/// A kernel that copies one 8 x 64 box through the map at word `16 which` of `maps` (a
/// `u64` slice holding several maps).
const MAP_FROM_SLICE: &str = r#"
    #[kernel(max_workgroup_size = 32)]
    fn k(maps: &[u64], which: u32, out: &mut [bf16], box_bytes: u32) {
        let stage = shared_array::<bf16, 512>();
        let full = shared_array::<u64, 1>();
        let lane = workitem_id_x();
        if lane == 0 {
            mbar_init(&full[0], 1);
            mbar_arrive_expect(&full[0], box_bytes);
        }
        barrier();
        copy_tensor(&stage[0], &maps[which * 16], 0, 0, &full[0]);
        mbar_wait(&full[0], 0);
        for i in (lane..512).step_by(32) {
            out[i] = stage[i];
        }
    }
"#;

#[test]
fn maps_kept_in_a_slice_pick_their_tensor_and_are_bounds_checked() {
    let kernels = lower_source(MAP_FROM_SLICE).unwrap_or_else(|e| panic!("{e}"));
    let device = Device::cpu().unwrap();
    let module = device
        .load_module(&ModuleImage::new(
            kosmos_ir::verify_module(kosmos_ir::Module { kernels }).unwrap(),
        ))
        .unwrap();
    let shape = TensorShape {
        rows: 8,
        cols: 64,
        row_stride: 64,
        box_rows: 8,
        box_cols: 64,
    };
    // Two tensors of different constants, their maps one after the other.
    let tensors: Vec<Buffer<half::bf16>> = [1.0f32, 2.0]
        .iter()
        .map(|&v| Buffer::from_slice(&device, &vec![half::bf16::from_f32(v); 512]).unwrap())
        .collect();
    let mut words = Vec::new();
    for t in &tensors {
        words.extend(TensorMap::encode(t, shape, Swizzle::None).unwrap());
    }
    let maps = Buffer::from_slice(&device, &words).unwrap();
    let stream = device.stream().unwrap();
    for (which, want) in [(0u32, 1.0f32), (1, 2.0)] {
        let out = Buffer::from_slice(&device, &[half::bf16::from_f32(f32::NAN); 512]).unwrap();
        let args = [
            KernelArg::from(&maps),
            KernelArg::from(which),
            KernelArg::from(&out),
            KernelArg::from(1024u32),
        ];
        module
            .launch(&stream, "k", LaunchConfig::linear(1, 32), &args)
            .unwrap();
        let got = out.download().unwrap();
        assert!(
            got.iter().all(|v| v.to_f32() == want),
            "map {which}: {got:?}"
        );
    }
    // A third map would end past the slice: the launch fails naming the access.
    let out = Buffer::from_slice(&device, &[half::bf16::ZERO; 512]).unwrap();
    let args = [
        KernelArg::from(&maps),
        KernelArg::from(2u32),
        KernelArg::from(&out),
        KernelArg::from(1024u32),
    ];
    let e = module
        .launch(&stream, "k", LaunchConfig::linear(1, 32), &args)
        .and_then(|()| stream.synchronize())
        .expect_err("an out-of-bounds map must fail the launch");
    assert!(e.to_string().contains("maps"), "{e}");
}

#[test]
fn a_map_must_be_a_map_parameter_or_a_u64_element() {
    let src = MAP_FROM_SLICE.replace("maps: &[u64]", "maps: &[f32]");
    let e = lower_source(&src).expect_err("an f32 element is no map");
    assert!(e.to_string().contains("global `u64` slice"), "{e}");
}
