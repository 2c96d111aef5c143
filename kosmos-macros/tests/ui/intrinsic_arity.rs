use kosmos::prelude::*;

#[kernel]
fn k(a: &mut [u32]) {
    a[0] = atomic_add(&a[1], 1u32, Ordering::Relaxed);
}

fn main() {}
