use kosmos::prelude::*;

#[kernel]
fn k(a: &mut [u32]) {
    let name = String::from("k");
    a[0] = 1;
}

fn main() {}
