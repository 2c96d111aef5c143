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

/// Adds this rank's `x` into rank 0's copy of `sums`.
#[device]
fn add_to_first(sums: &Sym<[f32]>, x: &Sym<[f32]>, i: u32) {
    let first = sums.peer(0);
    first[i] += x.local()[i];
}

#[kernel]
fn summed(team: &Team, sums: &Sym<[f32]>, x: &Sym<[f32]>, flags: &Sym<[u32]>) {
    let i = workitem_id_x();
    if (i as usize) < x.len() {
        add_to_first(sums, &x, i);
    }
    signal(&flags.peer(0)[team_rank()], 1, Scope::System);
}

/// One 64x128 tile per group of four subgroups, staged by asynchronous copies.
#[kernel(max_workgroup_size = 256, max_subgroups = 4)]
fn group_tile(a: &[bf16], b: &[bf16], c: &mut [f32], rows: u32, cols: u32) {
    let a_tile = shared_array::<bf16, 4096>();
    let b_tile = shared_array::<bf16, 8192>();
    let lane = workitem_id_x();
    copy_async(&a_tile[lane * 8], &a[lane * 8], lane < 512);
    copy_async(&b_tile[lane * 8], &b[lane * 8], true);
    async_commit();
    async_wait(0);
    barrier();
    let acc = mma_group(&a_tile[0], &b_tile[0], wide_zero());
    frag_store_within(&c[subgroup_id() * 2048], acc, 128, rows, cols);
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
    // Symmetric buffers are typed by their elements.
    let _: fn(
        &mut kosmos::runtime::World,
        &Module,
        u32,
        u32,
        &kosmos::runtime::SymmetricBuffer<f32>,
        &kosmos::runtime::SymmetricBuffer<f32>,
        &kosmos::runtime::SymmetricBuffer<u32>,
    ) -> Result<(), kosmos::runtime::WorldError> = summed::launch::<Module>;
    let _: fn(&Module, &Stream, LaunchConfig, &Buffer<bf16>, &Buffer<bf16>, &mut Buffer<f32>, u32, u32) -> kosmos::runtime::Result<()> =
        group_tile::launch;
}
