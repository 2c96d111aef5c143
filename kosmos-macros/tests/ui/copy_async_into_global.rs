use kosmos::prelude::*;

#[kernel]
fn k(a: &[bf16], b: &mut [bf16]) {
    let i = workitem_id_x() * 8;
    copy_async(&b[i], &a[i], true);
    async_commit();
    async_wait(0);
}

fn main() {}
