use kosmos::prelude::*;
use kosmos::runtime::{SymmetricBuffer, World, WorldError};

#[kernel]
fn k(team: &Team, x: &Sym<[f32]>) {
    x.local()[0] = 1.0;
}

fn launch(world: &mut World, module: &Module, x: &SymmetricBuffer<u32>) -> Result<(), WorldError> {
    k::launch(world, module, 1, 32, x)
}

fn main() {}
