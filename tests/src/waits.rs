//! Kernels that wait on what never comes, compiled by `build.rs` (as `WAITS`) for the tests
//! of bounded waits.

use kosmos::prelude::*;

/// Waits for the first phase of a barrier object that expects an arrival nobody makes: the
/// wait gives up after its bound (and the work-item goes on to write `out[0]`).
#[kernel(max_workgroup_size = 32)]
pub fn wait_forever(out: &mut [u32]) {
    let bar = shared_array::<u64, 1>();
    if workitem_id_x() == 0 {
        mbar_init(&bar[0], 1);
    }
    barrier();
    mbar_wait(&bar[0], 0);
    out[0] = 1;
}
