use kosmos::prelude::*;

#[kernel]
fn k(a: &mut [f32]) {
    let p = Point { x: 1.0 };
}

fn main() {}
