use kosmos::prelude::*;

#[kernel]
fn k(a: &mut [f32], x: f32) {
    a[0] = x.frobnicate();
}

fn main() {}
