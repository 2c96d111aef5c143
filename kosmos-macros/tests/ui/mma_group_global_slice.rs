use kosmos::prelude::*;

#[kernel]
fn k(a: &[bf16], c: &mut [f32]) {
    let b_tile = shared_array::<bf16, 8192>();
    let acc = mma_group(&a[0], &b_tile[0], wide_zero());
    frag_store(&c[0], acc, 128);
}

fn main() {}
