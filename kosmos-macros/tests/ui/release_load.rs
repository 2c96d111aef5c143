use kosmos::prelude::*;

#[kernel]
fn k(a: &mut [u32]) {
    let v = atomic_load(&a[0], Ordering::Release, Scope::Agent);
}

fn main() {}
