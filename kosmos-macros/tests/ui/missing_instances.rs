use kosmos::prelude::*;

#[kernel]
fn k<const B: u32>(a: &mut [f32]) {}

fn main() {}
