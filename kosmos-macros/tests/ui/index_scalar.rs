use kosmos::prelude::*;

#[kernel]
fn k(a: &mut [u32], n: u32) {
    a[0] = n[0];
}

fn main() {}
