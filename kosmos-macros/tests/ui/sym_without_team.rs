use kosmos::prelude::*;

#[kernel]
fn k(out: &mut [f32], x: &Sym<[f32]>) {
    out[0] = 1.0;
}

fn main() {}
