use kosmos::prelude::*;

#[kernel]
fn k(team: &Team, x: &Sym<[String]>) {}

fn main() {}
