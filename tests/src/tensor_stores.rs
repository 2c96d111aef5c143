//! A kernel that stores boxes of shared memory to a tensor by tensor copies, compiled by
//! `build.rs` (as `TENSOR_STORES`) for the test of `copy_tensor_store` on every device.

use kosmos::prelude::*;

/// One subgroup stores boxes `t` of `boxes` (`box_elems` each, laid out as the map's box in
/// shared memory) to the map's box at column `xs[t]`, row `box_rows t - 3`: each box is
/// written into the stage once the store before has read it.
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
        copy_tensor_store(&map, xs[t], (box_rows * t) as i32 - 3, &stage[0]);
    }
    copy_tensor_wait(0);
}
