use kosmos::prelude::*;

#[kernel]
fn k(a: &[f32], out: &mut [u32]) {
    let x: u32 = a[0];
    out[0] = x;
}

fn main() {}
