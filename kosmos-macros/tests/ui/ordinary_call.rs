use kosmos::prelude::*;

fn scale(x: f32) -> f32 {
    x * 2.0
}

#[kernel]
fn k(a: &mut [f32]) {
    a[0] = scale(a[1]);
}

fn main() {}
