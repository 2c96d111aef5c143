use kosmos::prelude::*;

#[device]
fn depth(n: u32) -> u32 {
    if n == 0 { 0 } else { 1 + depth(n - 1) }
}

#[kernel]
fn k(out: &mut [u32], n: u32) {
    out[0] = depth(n);
}

fn main() {}
