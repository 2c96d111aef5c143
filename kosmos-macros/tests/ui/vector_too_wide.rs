use kosmos::prelude::*;

#[kernel]
fn k(a: &[f32], t: &mut [f32]) {
    store_vec8(&t[0], load_vec8(&a[0]));
}

fn main() {}
