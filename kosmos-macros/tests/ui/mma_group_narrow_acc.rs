use kosmos::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let a_tile = shared_array::<bf16, 4096>();
    let b_tile = shared_array::<bf16, 8192>();
    let acc = mma_group(&a_tile[0], &b_tile[0], frag_zero());
    frag_store(&c[0], acc, 128);
}

fn main() {}
