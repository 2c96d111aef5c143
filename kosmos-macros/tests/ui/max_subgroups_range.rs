use kosmos::prelude::*;

#[kernel(max_workgroup_size = 1024, max_subgroups = 64)]
fn k(a: &mut [u32]) {
    a[workitem_id_x()] = 1;
}

fn main() {}
