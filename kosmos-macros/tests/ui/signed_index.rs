use kosmos::prelude::*;

#[kernel]
fn k(a: &mut [u32], i: i32) {
    a[i - 1] = 0;
}

fn main() {}
