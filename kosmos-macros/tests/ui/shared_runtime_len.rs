use kosmos::prelude::*;

#[kernel]
fn k(a: &mut [f32], n: u32) {
    let tile = shared_array::<f32, n>();
}

fn main() {}
