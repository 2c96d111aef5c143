use kosmos::prelude::*;

#[kernel]
fn k(t: &[bf16], c: &mut [f32]) {
    let a = frag_load_a(&t[0], 16);
    let b = frag_load_b(&t[256], 16);
    let acc = mma(b, a, frag_zero());
    frag_store(&c[0], acc, 16);
}

fn main() {}
