use kosmos::prelude::*;

#[kernel]
fn k<T>(a: &mut [f32]) {}

fn main() {}
