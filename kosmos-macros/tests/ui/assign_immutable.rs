use kosmos::prelude::*;

#[kernel]
fn k(a: &mut [u32]) {
    let x = 1u32;
    x = 2;
}

fn main() {}
