//! Kernels that store boxes of shared memory to a tensor by tensor copies, compiled by
//! `build.rs` (as `TENSOR_STORES`) for the test of `copy_tensor_store` on every device.

use kosmos::prelude::*;

/// One subgroup stores boxes `t` of `boxes` (`box_elems` each, laid out as the map's box in
/// shared memory) to the map's box at column `xs[t]`, row `box_rows t`: each box is written
/// into the stage once the store before has read it.
#[kernel(max_workgroup_size = 32)]
pub fn store_boxes(
    map: &TensorMap,
    boxes: &[bf16],
    xs: &[i32],
    tiles: u32,
    box_rows: u32,
    box_elems: u32,
) {
    let stage = shared_array::<bf16, 2048>();
    let lane = workitem_id_x();
    for t in 0..tiles {
        copy_tensor_wait_read(0);
        for i in (lane..box_elems).step_by(32) {
            stage[i] = boxes[t * box_elems + i];
        }
        fence_proxy_async_shared();
        barrier();
        copy_tensor_store(&map, xs[t], (box_rows * t) as i32, &stage[0]);
    }
    copy_tensor_wait(0);
}

/// Byte offset of element (`row`, `col`) of an `mma_group` tile (rows of 64 bf16, 16-byte
/// chunks swizzled by row, blocks of 64 rows for columns from 64 on).
#[device]
fn group_tile_offset(row: u32, col: u32) -> u32 {
    8192 * (col / 64) + 128 * row + 16 * (((col % 64) / 8) ^ (row % 8)) + 2 * (col % 8)
}

/// The 64 x 128 product `a b` of one group of four subgroups (`a` 64 x 64, `b` 64 x 128,
/// row-major) stored twice as bf16: by `frag_store` into `rows` (row-major, 128 columns),
/// and by `frag_store_swizzled` into shared memory then `copy_tensor_store` of each
/// subgroup's two 16 x 64 boxes through `map` (a 64 x 128 tensor, the 128-byte swizzle).
#[kernel(max_workgroup_size = 128, max_subgroups = 4)]
pub fn store_product(a: &[bf16], b: &[bf16], rows: &mut [bf16], map: &TensorMap) {
    let a_tile = shared_array::<bf16, 4096>();
    let b_tile = shared_array::<bf16, 8192>();
    let slabs = shared_array::<bf16, 8192>();
    let lane = workitem_id_x();
    for i in (lane..4096).step_by(128) {
        a_tile[group_tile_offset(i / 64, i % 64) / 2] = a[i];
    }
    for i in (lane..8192).step_by(128) {
        b_tile[group_tile_offset(i / 128, i % 128) / 2] = b[i];
    }
    barrier();
    let acc = mma_group(&a_tile[0], &b_tile[0], wide_zero());
    let sg = subgroup_id();
    frag_store(&rows[sg * 16 * 128], acc, 128);
    let slab = sg * 2048;
    frag_store_swizzled(&slabs[slab], acc, 16);
    fence_proxy_async_shared();
    subgroup_barrier();
    let row = (sg * 16) as i32;
    copy_tensor_store(&map, 0, row, &slabs[slab]);
    copy_tensor_store(&map, 64, row, &slabs[slab + 1024]);
    copy_tensor_wait(0);
}
