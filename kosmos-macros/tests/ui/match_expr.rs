use kosmos::prelude::*;

#[kernel]
fn k(a: &mut [u32], n: u32) {
    a[0] = match n {
        0 => 1,
        _ => 2,
    };
}

fn main() {}
