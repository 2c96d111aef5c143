use kosmos::prelude::*;

#[kernel]
fn k(a: &mut [u32]) {
    break;
}

fn main() {}
