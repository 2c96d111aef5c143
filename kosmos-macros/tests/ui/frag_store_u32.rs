use kosmos::prelude::*;

#[kernel]
fn k(c: &mut [u32]) {
    frag_store(&c[0], frag_zero(), 16);
}

fn main() {}
