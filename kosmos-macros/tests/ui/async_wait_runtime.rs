use kosmos::prelude::*;

#[kernel]
fn k(a: &[u32], stages: u32) {
    let tile = shared_array::<u32, 1024>();
    copy_async(&tile[workitem_id_x() * 4], &a[workitem_id_x() * 4], true);
    async_commit();
    async_wait(stages - 1);
}

fn main() {}
