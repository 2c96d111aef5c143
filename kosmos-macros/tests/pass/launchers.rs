use kosmos::prelude::*;

#[kernel(instances(B = 2), instances(B = 4))]
fn blocked<const B: u32>(x: &[f32], y: &mut [f32], n: u32) {
    let i = workitem_id_x() * B;
    if i < n {
        y[i] = x[i];
    }
}

#[kernel]
fn fill(y: &mut [u32], v: u32) {
    y[workitem_id_x()] = v;
}

#[kernel]
fn ranked(team: &Team, y: &mut [u32]) {
    y[workitem_id_x()] = team_rank();
}

fn main() {
    assert_eq!(fill::NAME, "fill");
    assert_eq!(blocked::INSTANCES, &["blocked__b2", "blocked__b4"]);
    assert_eq!(blocked::name::<4>(), "blocked__b4");
    let _: fn(&Module, &Stream, LaunchConfig, &Buffer<f32>, &mut Buffer<f32>, u32) -> kosmos::runtime::Result<()> =
        blocked::launch::<2>;
    // Team kernels launch on a world, which passes the team arguments itself.
    let _: fn(&mut kosmos::runtime::World, &Module, u32, u32, &mut Buffer<u32>) -> Result<(), kosmos::runtime::WorldError> =
        ranked::launch::<Module>;
}
