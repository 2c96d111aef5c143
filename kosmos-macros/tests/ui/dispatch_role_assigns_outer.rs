use kosmos::prelude::*;

#[kernel]
fn k(team: &Team, heads: &mut [u32], ready: &mut [u32], n: u32) {
    let mut done = 0u32;
    dispatch(
        &heads[0],
        n,
        &heads[1],
        n,
        Scope::System,
        |t| (&ready[t], 1),
        |t| {
            done = t;
        },
        |t| {},
    );
}

fn main() {}
