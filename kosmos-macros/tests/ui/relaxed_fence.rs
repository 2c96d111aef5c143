use kosmos::prelude::*;

#[kernel]
fn k(a: &mut [u32]) {
    fence(Ordering::Relaxed, Scope::Agent);
}

fn main() {}
