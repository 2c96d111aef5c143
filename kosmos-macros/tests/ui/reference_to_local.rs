use kosmos::prelude::*;

#[kernel]
fn k(a: &mut [f32], x: f32) {
    let r = &x;
}

fn main() {}
