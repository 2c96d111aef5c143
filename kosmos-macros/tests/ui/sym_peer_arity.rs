use kosmos::prelude::*;

#[kernel]
fn k(team: &Team, x: &Sym<[f32]>) {
    let mine = x.peer();
    mine[0] = 1.0;
}

fn main() {}
