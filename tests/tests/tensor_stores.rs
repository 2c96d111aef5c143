//! `copy_tensor_store` on the selected device (`KOSMOS_DEVICE`; the CPU device in CI): boxes
//! of random bf16 values stored from shared memory at random columns (whole 16-byte units, as
//! a store takes them, on tensors whose rows are whole units too), many over the tensor's last
//! column or row or wholly past them, with the 128-byte swizzle (8 x 64 boxes) and without
//! (16 x 128 boxes, the layout a fragment store writes), land where the map says and nowhere
//! else (the poison stays); and
//! a product tile stored by `frag_store_swizzled` and tensor stores lands as `frag_store`
//! writes it.

use half::bf16;
use kosmos_runtime::{Buffer, Device, KernelArg, LaunchConfig, Swizzle, TensorMap, TensorShape};
use rand::{Rng, SeedableRng, rngs::SmallRng};

/// Where element (`r`, `c`) of a box of `box_cols` lies in shared memory.
fn in_stage(r: usize, c: usize, box_cols: usize, swizzle: Swizzle) -> usize {
    match swizzle {
        Swizzle::None => r * box_cols + c,
        // Chunk `j` of 16 bytes of row `r` at chunk `j ^ (r % 8)`.
        Swizzle::B128 => r * box_cols + 8 * ((c / 8) ^ (r % 8)) + c % 8,
    }
}

fn check_stores(device: &Device, box_rows: usize, box_cols: usize, swizzle: Swizzle, seed: u64) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let tiles = 6usize;
    // Box `t` covers rows `box_rows t..`: the last ends below the tensor.
    let rows = (box_rows * tiles - 3) as u64;
    // Whole 16-byte units: the engine writes whole units, over a ragged last column too.
    let (cols, stride) = (8 * rng.random_range(1..38u64), 304u64);
    let box_elems = box_rows * box_cols;
    let boxes: Vec<bf16> = (0..tiles * box_elems)
        .map(|_| bf16::from_f32(rng.random_range(-1.0..1.0)))
        .collect();
    // Columns in whole 16-byte units, up to one past the tensor's last column.
    let xs: Vec<i32> = (0..tiles)
        .map(|_| 8 * rng.random_range(0..cols as i32 / 8 + 2))
        .collect();
    let poison = bf16::from_f32(f32::NAN);
    let data = Buffer::from_slice(device, &vec![poison; (rows * stride) as usize]).unwrap();
    let shape = TensorShape {
        rows,
        cols,
        row_stride: stride,
        box_rows: box_rows as u32,
        box_cols: box_cols as u32,
    };
    let map = TensorMap::tiled(&data, shape, swizzle).unwrap();
    let module = device
        .load_module(&kosmos_tests::TENSOR_STORES.image().unwrap())
        .unwrap();
    let (db, dx) = (
        Buffer::from_slice(device, &boxes).unwrap(),
        Buffer::from_slice(device, &xs).unwrap(),
    );
    let args = [
        KernelArg::from(&map),
        KernelArg::from(&db),
        KernelArg::from(&dx),
        KernelArg::from(tiles as u32),
        KernelArg::from(box_rows as u32),
        KernelArg::from(box_elems as u32),
    ];
    let stream = device.stream().unwrap();
    module
        .launch(&stream, "store_boxes", LaunchConfig::linear(1, 32), &args)
        .unwrap();
    stream.synchronize().unwrap();
    let got = data.download().unwrap();
    let case = format!("{box_rows} x {box_cols} boxes, {swizzle:?}, {cols} columns (seed {seed})");
    for row in 0..rows as usize {
        // Row `row` lies in box `t` as its row `r`.
        let (t, r) = (row / box_rows, row % box_rows);
        for col in 0..stride as usize {
            let c = col as i64 - xs[t] as i64;
            let inside = col < cols as usize && (0..box_cols as i64).contains(&c);
            let want = if inside {
                boxes[t * box_elems + in_stage(r, c as usize, box_cols, swizzle)]
            } else {
                poison
            };
            let g = got[row * stride as usize + col];
            assert_eq!(
                g.to_bits(),
                want.to_bits(),
                "{case}: ({row}, {col}), box {t} at column {}: {g}, want {want}",
                xs[t]
            );
        }
    }
}

/// The selected device and a seed (`KOSMOS_SEED`, else a fresh one), printed for a replay.
fn device_and_seed() -> (Device, u64) {
    let device = Device::from_env().expect("KOSMOS_DEVICE names a usable device");
    let seed: u64 = std::env::var("KOSMOS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| rand::rng().random());
    println!("seed {seed} on {device}");
    (device, seed)
}

#[test]
fn stored_boxes_land_inside_the_tensor_only() {
    let (device, seed) = device_and_seed();
    check_stores(&device, 8, 64, Swizzle::B128, seed);
    check_stores(&device, 16, 128, Swizzle::None, seed + 1);
}

#[test]
fn swizzled_fragment_stores_feed_tensor_stores() {
    let (device, seed) = device_and_seed();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut random = |n: usize| -> Vec<bf16> {
        (0..n)
            .map(|_| bf16::from_f32(rng.random_range(-1.0..1.0)))
            .collect()
    };
    let (a, b) = (random(64 * 64), random(64 * 128));
    let poison = vec![bf16::from_f32(f32::NAN); 64 * 128];
    let rows = Buffer::from_slice(&device, &poison).unwrap();
    let stored = Buffer::from_slice(&device, &poison).unwrap();
    let shape = TensorShape {
        rows: 64,
        cols: 128,
        row_stride: 128,
        box_rows: 16,
        box_cols: 64,
    };
    let map = TensorMap::tiled(&stored, shape, Swizzle::B128).unwrap();
    let module = device
        .load_module(&kosmos_tests::TENSOR_STORES.image().unwrap())
        .unwrap();
    let (da, db) = (
        Buffer::from_slice(&device, &a).unwrap(),
        Buffer::from_slice(&device, &b).unwrap(),
    );
    let args = [
        KernelArg::from(&da),
        KernelArg::from(&db),
        KernelArg::from(&rows),
        KernelArg::from(&map),
    ];
    let stream = device.stream().unwrap();
    module
        .launch(
            &stream,
            "store_product",
            LaunchConfig::linear(1, 128),
            &args,
        )
        .unwrap();
    stream.synchronize().unwrap();
    let (by_rows, by_boxes) = (rows.download().unwrap(), stored.download().unwrap());
    for i in 0..64 {
        for j in 0..128 {
            let want: f64 = (0..64)
                .map(|k| f64::from(a[i * 64 + k].to_f32()) * f64::from(b[k * 128 + j].to_f32()))
                .sum();
            let (r, s) = (by_rows[i * 128 + j], by_boxes[i * 128 + j]);
            // bf16 rounding of an f32 sum of 64 products.
            let err = (f64::from(r.to_f32()) - want).abs();
            assert!(
                err <= 1e-2 * want.abs() + 1e-3,
                "({i}, {j}): frag_store wrote {r}, want {want} (seed {seed})"
            );
            assert_eq!(
                s.to_bits(),
                r.to_bits(),
                "({i}, {j}): the tensor store wrote {s}, frag_store {r} (seed {seed})"
            );
        }
    }
}
