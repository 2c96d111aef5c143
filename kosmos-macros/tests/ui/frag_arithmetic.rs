use kosmos::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let acc = frag_zero();
    c[0] = acc * 2.0;
}

fn main() {}
