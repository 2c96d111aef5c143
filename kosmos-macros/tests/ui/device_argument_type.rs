use kosmos::prelude::*;

#[device]
fn sum(x: &[f32], n: u32) -> f32 {
    let mut s = 0.0;
    for i in 0..n {
        s += x[i];
    }
    s
}

#[kernel]
fn k(x: &[f32], out: &mut [f32], n: f32) {
    out[0] = sum(x, n);
}

fn main() {}
