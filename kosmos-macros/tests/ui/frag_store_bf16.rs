use kosmos::prelude::*;

#[kernel]
fn k(c: &mut [bf16]) {
    frag_store(&c[0], frag_zero(), 16);
}

fn main() {}
