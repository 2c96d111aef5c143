use kosmos::prelude::*;

#[kernel]
fn k(team: &Team, ready: &mut [u32], n: u32) {
    signal(n, 1, Scope::System);
}

fn main() {}
