use kosmos::prelude::*;

#[kernel]
fn scale(x: &mut [f32], factor: f32) {
    x[workitem_id_x()] *= factor;
}

fn launch(module: &Module, stream: &Stream, x: &mut Buffer<u32>) {
    let _ = scale::launch(module, stream, LaunchConfig::linear(1, 1), x, 2.0);
}

fn main() {}
