use kosmos::prelude::*;

#[kernel]
fn k(a: &mut [f32]) {
    warp_shuffle(a[0]);
}

fn main() {}
