use kosmos::prelude::*;

#[kernel]
async fn k(a: &mut [f32]) {}

fn main() {}
