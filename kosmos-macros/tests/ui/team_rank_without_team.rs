use kosmos::prelude::*;

#[kernel]
fn k(out: &mut [u32]) {
    out[0] = team_rank();
}

fn main() {}
