use kosmos::prelude::*;

#[kernel]
fn k(a: &mut [f32]) {
    let scratch = Vec::new();
    a[0] = 1.0;
}

fn main() {}
