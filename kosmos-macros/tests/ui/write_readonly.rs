use kosmos::prelude::*;

#[kernel]
fn k(a: &[f32]) {
    a[0] = 1.0;
}

fn main() {}
