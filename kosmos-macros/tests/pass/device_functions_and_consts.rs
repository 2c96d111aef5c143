use kosmos::prelude::*;

const TILE: u32 = 64;
const SCALE: f32 = 0.5;

#[device]
fn scaled(x: f32) -> f32 {
    x * SCALE
}

#[kernel]
fn k(x: &[f32], out: &mut [f32], n: usize) {
    let tile = shared_array::<f32, TILE>();
    let i = workitem_id_x();
    tile[i] = x[i];
    barrier();
    let mut sum = 0.0;
    for j in 0..TILE {
        if j == i {
            continue;
        }
        sum += scaled(tile[j]);
    }
    if (i as usize) < n {
        out[i] = sum;
    }
}

fn main() {
    let _ = k::launch;
}
