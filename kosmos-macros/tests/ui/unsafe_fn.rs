use kosmos::prelude::*;

#[kernel]
unsafe fn k(a: &mut [f32]) {}

fn main() {}
